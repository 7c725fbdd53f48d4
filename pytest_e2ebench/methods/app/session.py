"""The harness's end of a sandboxed browser on a generated app (driver: :mod:`e2ebench_app`).

The driver and Chromium run inside one sandbox run (no network but loopback unless the task
asks for it, writing only to the run's app copy and work folder). A static app is served by the
driver there. A ``launch = "command"`` app runs in a sandbox run of its own: its own PID and
network namespaces (and, under a root harness, its own uid,
:data:`~pytest_e2ebench.isolation.sandbox.APP_UID`). The browser reaches it on ``127.0.0.1:<port>``
of
its own namespace through a relay the harness owns
(:class:`~pytest_e2ebench.isolation.network.Forwarder`
into the app's namespace, opened once the app accepts there), so the app sees nothing of the
driver's: not its processes, nor chromedriver's port or the browser's.
The harness talks to the driver over a socket pair passed as a descriptor: JSON lines both
ways, each answer bounded in size and time. Whatever the page does, a command returns within
the command limit (the task's ``[tests] timeout``) plus :data:`GRACE` seconds or the session is
declared broken; the driver ends itself after the limit, and the sandbox run's own timeout ends
everything left.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import json
import os
import resource
import socket
import threading
import time
from pathlib import Path

from ...environment.web import browser_binaries
from ...errors import InfrastructureError
from ...isolation import network
from ...isolation.sandbox import APP_UID, Sandbox
from ...probe import PROBE_DIR, project_env
from ...untrusted.parse import loads_json
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
        self._stack = contextlib.ExitStack()
        self._apart_app = False  # a command app in a sandbox run of its own
        self._nets: dict[str, network.UserNet] = {}  # "browser", "app": their namespaces
        self._nets_ready = threading.Condition()
        self._relay: tuple | None = None  # (maker, forwarder) into the app's namespace
        self._relay_thread: threading.Thread | None = None
        self._app_exit: tuple[int, int] | None = None  # the driver hears the app's end here
        self._app_thread: threading.Thread | None = None
        self._stop_app = threading.Event()
        self.app_completed = None
        self.port = 0

    def _apart(self) -> None:
        """For a command app (in any mode with namespaces): the pipe on which the driver hears
        that it ended (it is not the driver's child: it runs in a sandbox of its own)."""
        if self.spec.launch != "command" or self.sandbox.mode == "none":
            return
        self._apart_app = True
        self._app_exit = os.pipe()
        for fd in self._app_exit:
            self._stack.callback(os.close, fd)

    def _netns(self, name: str):
        """The callback a run calls with its namespace once it is set up."""

        def got(net: network.UserNet) -> None:
            with self._nets_ready:
                self._nets[name] = net
                self._nets_ready.notify_all()

        return got

    def __enter__(self) -> BrowserSession:
        home, artifacts = self.work / "home", self.work / "artifacts"
        home.mkdir(parents=True, exist_ok=True)
        artifacts.mkdir(parents=True, exist_ok=True)
        self._apart()
        mine, theirs = socket.socketpair()
        self._sock = mine
        env = project_env(self.python, home)
        env.update(browser_binaries(), E2EBENCH_APP_FD=str(theirs.fileno()))
        fds = (theirs.fileno(),)
        if self._app_exit is not None:
            env["E2EBENCH_APP_EXIT_FD"] = str(self._app_exit[0])
            fds += (self._app_exit[0],)
        self.port = _free_port()
        sandbox = _unlimited(self.sandbox)
        apart = self._apart_app

        def run() -> None:
            try:
                self.completed = sandbox.run(
                    [str(self.python), str(PROBE_DIR / DRIVER)],
                    cwd=self.work if apart else self.app_dir,
                    env=env,
                    timeout=self.timeout,
                    log=self.work / "driver.log",
                    writable=[self.work] if apart else [self.work, self.app_dir],
                    readable=[self.python.parent.parent, PROBE_DIR],
                    network=self.spec.network,
                    pass_fds=fds,
                    netns=self._netns("browser") if apart else None,
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
                "port": self.port,
                "artifacts": str(artifacts),
                "log": str(self.work / "app.log"),
                "command_limit": self.command_limit,
                "external": apart,
            }
        )
        return self

    def _launch_app(self) -> None:
        """Start a command app in its own sandbox run (own namespaces), and its relay."""
        box = dataclasses.replace(_unlimited(self.sandbox), uid=APP_UID)
        command = [part.replace("{port}", str(self.port)) for part in self.spec.command]
        env = project_env(self.python, self.app_dir)
        env.update(PORT=str(self.port), HOST="127.0.0.1")

        def run() -> None:
            status = "no status"
            try:
                self.app_completed = box.run(
                    command,
                    cwd=self.app_dir,
                    env=env,
                    timeout=self.timeout,
                    log=self.work / "app.log",
                    writable=[self.app_dir],
                    readable=[self.python.parent.parent],
                    network=self.spec.network,
                    netns=self._netns("app"),
                    stop=self._stop_app,
                )
                status = str(self.app_completed.returncode)
            except BaseException as exc:  # noqa: BLE001 - the driver reports it as the app's
                status = f"not started: {str(exc)[:200]}"
            finally:
                with contextlib.suppress(OSError):
                    os.write(self._app_exit[1], status.encode() + b"\n")

        self._app_thread = threading.Thread(target=run, daemon=True)
        self._app_thread.start()
        self._relay_thread = threading.Thread(target=self._open_relay, daemon=True)
        self._relay_thread.start()

    def _open_relay(self) -> None:
        """Once the app accepts on its port in its namespace, listen on that port in the
        browser's and relay each connection there (until then the driver finds nothing
        listening, as for an app that is still starting)."""
        deadline = time.monotonic() + START_LIMIT
        with self._nets_ready:
            self._nets_ready.wait_for(
                lambda: len(self._nets) == 2 or self._stop_app.is_set(), START_LIMIT
            )
            if len(self._nets) != 2:
                return
            browser, app = self._nets["browser"], self._nets["app"]
        try:
            maker = app.maker()
        except (OSError, InfrastructureError):
            return  # the app's run ended meanwhile: the driver reports it
        self._relay = (maker, None)
        while time.monotonic() < deadline and not self._stop_app.is_set():
            try:
                maker.connect(self.port, timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            return
        with contextlib.suppress(OSError, InfrastructureError):
            forwarder = network.Forwarder(browser.listen([self.port]), [self.port], maker.connect)
            forwarder.start()
            self._relay = (maker, forwarder)

    def __exit__(self, *exc_info) -> None:
        with contextlib.suppress(OSError, SessionBroken):
            self._send({"op": "quit"})
        self._stop_app.set()
        for thread in (self._app_thread, self._relay_thread, self._thread):
            if thread is not None:
                thread.join(timeout=30)
        if self._relay is not None:
            maker, forwarder = self._relay
            if forwarder is not None:
                forwarder.stop()
            maker.close()
        if self._sock is not None:
            self._sock.close()
        self._stack.close()

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
            answer = loads_json(line, f"the answer to {op!r}")
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
        if self._apart_app:
            self._launch_app()
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


def _unlimited(sandbox: Sandbox) -> Sandbox:
    """``sandbox`` without an address-space limit: Chromium (and Node) reserve far more
    address space than they use."""
    limits = dataclasses.replace(sandbox.limits, address_space=resource.RLIM_INFINITY)
    return dataclasses.replace(sandbox, limits=limits)


def _free_port() -> int:
    """A port for an app that serves itself (in its own network namespace any would do)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
