"""The harness's end of a sandboxed browser on a generated app (driver: :mod:`e2ebench_app`).

The driver, the app it launches and Chromium all run inside one sandbox run (no network but
loopback, writing only to the run's app copy and work folder). The harness talks to the driver
over a socket pair passed as a descriptor: JSON lines both ways, each answer bounded in size
and time. Whatever the page does, a command returns within the command limit (the task's
``[tests] timeout``) plus :data:`GRACE` seconds or the session is declared broken; the driver
ends itself after the limit, and the sandbox run's own timeout ends everything left.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import json
import resource
import socket
import threading
from pathlib import Path

from ..errors import InfrastructureError
from ..probe import PROBE_DIR, project_env
from ..sandbox import Sandbox
from ..web import browser_binaries
from . import AppSpec

DRIVER = "e2ebench_app.py"
GRACE = 15.0  # seconds an answer may come after the driver's own limit for the command
START_LIMIT = 120.0  # seconds for the app and the browser to start (the driver's: 90)
LINE_LIMIT = 16 << 20  # bytes of one answer (a screenshot is ~50 kB)
SHOT_LIMIT = 4 << 20  # bytes of one decoded screenshot


class SessionBroken(Exception):
    """The driver stopped answering (a hung page, a crash): the case at hand is Uncertain."""


class BrowserSession:
    """One sandboxed driver, app and browser; a context manager."""

    def __init__(
        self,
        *,
        python: Path,
        app_dir: Path,
        spec: AppSpec,
        work: Path,
        sandbox: Sandbox,
        timeout: float,
        command_limit: float,
    ) -> None:
        self.python = python
        self.app_dir = app_dir
        self.spec = spec
        self.work = work
        self.sandbox = sandbox
        self.timeout = timeout
        self.command_limit = command_limit
        self.answer_limit = command_limit + GRACE
        self._sock: socket.socket | None = None
        self._reader = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self.completed = None

    def __enter__(self) -> BrowserSession:
        home, artifacts = self.work / "home", self.work / "artifacts"
        home.mkdir(parents=True, exist_ok=True)
        artifacts.mkdir(parents=True, exist_ok=True)
        mine, theirs = socket.socketpair()
        self._sock = mine
        env = project_env(self.python, home)
        env.update(browser_binaries(), E2EBENCH_APP_FD=str(theirs.fileno()))
        port = _free_port()
        # Chromium reserves far more address space than it uses: no address-space limit.
        sandbox = dataclasses.replace(
            self.sandbox,
            limits=dataclasses.replace(self.sandbox.limits, address_space=resource.RLIM_INFINITY),
        )

        def run() -> None:
            try:
                self.completed = sandbox.run(
                    [str(self.python), str(PROBE_DIR / DRIVER)],
                    cwd=self.app_dir,
                    env=env,
                    timeout=self.timeout,
                    log=self.work / "driver.log",
                    writable=[self.work, self.app_dir],
                    readable=[self.python.parent.parent, PROBE_DIR],
                    network=self.spec.network,
                    pass_fds=(theirs.fileno(),),
                )
            except BaseException as exc:  # noqa: BLE001 - re-raised by the next command
                self._failure = exc
            finally:
                theirs.close()
                with contextlib.suppress(OSError):
                    mine.shutdown(socket.SHUT_RDWR)  # the harness's next read sees the end

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        self._reader = mine.makefile("rb")
        self._send(
            {
                **self.spec.to_dict(),
                "dir": str(self.app_dir),
                "port": port,
                "artifacts": str(artifacts),
                "log": str(self.work / "app.log"),
                "command_limit": self.command_limit,
            }
        )
        return self

    def __exit__(self, *exc_info) -> None:
        with contextlib.suppress(OSError, SessionBroken):
            self._send({"op": "quit"})
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._sock is not None:
            self._sock.close()

    def _send(self, message: dict) -> None:
        try:
            self._sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError as exc:
            raise self._broken(f"the driver is gone ({exc})") from None

    def _broken(self, why: str) -> Exception:
        if self._failure is not None:
            return self._failure  # e.g. the sandbox could not start: infrastructure
        return SessionBroken(why)

    def command(self, op: str, limit: float | None = None, **fields) -> dict:
        """Send one command and wait for its answer (at most ``limit`` seconds)."""
        limit = limit or self.answer_limit
        self._send({"op": op, **fields})
        self._sock.settimeout(limit)
        try:
            line = self._reader.readline(LINE_LIMIT + 1)
        except (TimeoutError, OSError) as exc:
            raise self._broken(f"no answer to {op!r} within {limit:g} s ({exc})") from None
        if not line.endswith(b"\n"):
            raise self._broken(f"the driver ended (or answered too much) during {op!r}")
        try:
            answer = json.loads(line)
        except ValueError:
            raise self._broken(f"the answer to {op!r} is not JSON") from None
        if not isinstance(answer, dict):
            raise self._broken(f"the answer to {op!r} is not an object")
        return answer

    def start(self) -> dict:
        """Executability of the app (see :meth:`e2ebench_app.Driver.start`).

        A browser that does not start is an infrastructure error; a first page that keeps the
        driver busy past its start limit (a script that never ends) makes the app not
        executable.
        """
        try:
            launched = self.command("launch", START_LIMIT)
        except SessionBroken as exc:
            launched = {"error": str(exc)}
        if "error" in launched:  # the driver catches the app's own failures: this one is ours
            raise InfrastructureError(
                "browser", f"the app's browser did not start: {launched['error']}"
            )
        try:
            answer = self.command("start", START_LIMIT)
        except SessionBroken as exc:
            answer = {"executable": False, "errors": [f"the first page did not load: {exc}"]}
        if "error" in answer:
            answer = {"executable": False, "errors": [answer["error"]]}
        return {**answer, **launched}


def save_screenshot(data: object, path: Path) -> str | None:
    """Decode a screenshot the driver sent (bounded) into ``path``; its path, or None."""
    if not isinstance(data, str) or not data or len(data) > SHOT_LIMIT * 4 // 3 + 4:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw.startswith(b"\xff\xd8"):  # a JPEG, as asked
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return str(path)


def _free_port() -> int:
    """A port for an app that serves itself (in its own network namespace any would do)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
