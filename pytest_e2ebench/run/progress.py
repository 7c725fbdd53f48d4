"""Live progress of agent runs: one line per run, through the terminal reporter.

A pytest-xdist worker cannot write to the terminal, so every run in progress keeps
``<out>/progress/<agent>--<task>--run-<n>.json`` up to date and deletes it when done. Under
``-n`` a daemon thread of the controller looks at those files every few seconds and prints one
line per run whose state changed. In a plain session the run itself prints its line (``show``),
with output capturing suspended.

Every step of a run longer than a moment names itself when it starts (``{"doing": ...}``: the
line and the file say it at once), and a run's :class:`Writer` keeps a heartbeat: while a step
goes on without a new line, a thread of its own says the step again with its elapsed time, so
no run's line stands still longer than :func:`still_seconds` (issue 44).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePath

from .cache import remove
from .runs import RunKey, folder_key, run_folder

WRITE_EVERY = 1.0
SHOW_EVERY = 10.0
# the longest a run's line stands still, in seconds (issue 44: "a run's line moves at least
# every 30 seconds"); E2EBENCH_PROGRESS_SECONDS sets another (the suite's test lowers it)
STILL_SECONDS = 30.0
STILL_ENV = "E2EBENCH_PROGRESS_SECONDS"


def still_seconds() -> float:
    """The longest a run's line stands still: ``$E2EBENCH_PROGRESS_SECONDS``, else 30 (at
    least 1: the elapsed time a heartbeat shows is in whole seconds)."""
    try:
        value = float(os.environ.get(STILL_ENV) or STILL_SECONDS)
    except ValueError:
        value = STILL_SECONDS
    return max(1.0, value)


def monitor_every() -> float:
    """How often the controller of a ``-n`` session reads the runs' files: a third of the
    longest silence (a worker's heartbeat comes at most half of it after its last line)."""
    return min(SHOW_EVERY, still_seconds() / 3)


def progress_file(out: Path, run: RunKey | Path) -> Path:
    """Where the run ``run`` (its key, or its folder) reports its progress."""
    key = run if isinstance(run, RunKey) else folder_key(out, run)
    return out / "progress" / f"{key.slug}.json"


def writer(
    path: Path,
    show: Callable[[str], None] | None = None,
    every: float = SHOW_EVERY,
    key: RunKey | None = None,
    position: str = "",
) -> Writer:
    """The callback a run's stages and its agent call with its state (``doing``: the step
    begun, and an agent's role, step, max_steps, tokens, cost_usd); ``{"done": True}`` ends
    the run's line (and its heartbeat).

    With ``show``, the run's line is also shown: a new step at once, an agent's steps when they
    changed, at most every ``every`` s. ``key`` (the run's) goes into the file, so the line names
    the run without parsing a name.
    """
    return Writer(path, show, every, key, position)


class Writer:
    """One run's progress: its file, its line and the heartbeat that keeps the line moving."""

    def __init__(self, path, show, every, key, position) -> None:
        self.path, self.show, self.every = path, show, every
        self.named = {"run": path.stem, **({"key": key.to_dict()} if key is not None else {})}
        if position:  # "3/24": the run's place among the session's runs
            self.named["position"] = position
        self._lock = threading.Lock()
        self._info: dict = {}
        self._step = ("", time.monotonic())  # the step going on and when it began
        self._shown = (-every, "")  # when a line was last shown, and which
        self._written = (-WRITE_EVERY, "")  # when the file was last written, and its line
        self._moved = time.monotonic()  # when the line the user reads last changed
        self._beat: threading.Event | None = None  # set: the heartbeat's thread stops

    def __call__(self, info: dict) -> None:
        if info.get("done"):
            self._end()
            return
        with self._lock:
            doing = info.get("doing")
            new_step = bool(doing) and doing != self._step[0]
            if new_step:
                self._step = (doing, time.monotonic())
            # a new step is said at once, and so is an agent's first step after it (a line
            # of another kind); an agent's next steps at most every ``every`` seconds
            urgent = new_step or doing != self._info.get("doing")
            self._info = dict(info)
            self._out(info, urgent=urgent)
            if self._beat is None:
                self._start_beat()

    def _out(self, info: dict, urgent: bool) -> None:
        """Show and write ``info`` (``urgent``: a new step, or a heartbeat: whatever the
        throttles say). Called with the lock held."""
        now = time.monotonic()
        line = describe({**info, **self.named})
        if self.show is not None and line != self._shown[1]:
            if urgent or now - self._shown[0] >= self.every:
                self._shown = (now, line)
                self._moved = now
                self.show(line)
        if not urgent and now - self._written[0] < WRITE_EVERY:
            return
        if self.show is None and line != self._written[1]:
            self._moved = now  # under -n the controller prints a changed file
        self._written = (now, line)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}")
        tmp.write_text(json.dumps({**info, **self.named}))
        os.replace(tmp, self.path)

    def _start_beat(self) -> None:
        """Start the heartbeat: every half of the longest silence without a new line, the
        step is said again with its elapsed time. Called with the lock held."""
        stop = self._beat = threading.Event()
        period = still_seconds() / 2
        tick = min(1.0, period / 4)

        def beat() -> None:
            main = threading.main_thread()
            # a folder removed under it (a test's tmp_path) is not made again
            while not stop.wait(tick) and main.is_alive() and self.path.parent.is_dir():
                with self._lock:
                    if stop.is_set() or time.monotonic() - self._moved < period:
                        continue
                    elapsed = int(time.monotonic() - self._step[1])
                    self._out({**self._info, "elapsed_s": elapsed}, urgent=True)

        threading.Thread(target=beat, name="e2ebench-heartbeat", daemon=True).start()

    def _end(self) -> None:
        """The run's line is over: the heartbeat stops, the file goes."""
        with self._lock:
            stop, self._beat = self._beat, None
            if stop is not None:
                stop.set()  # a beat waiting for the lock sees it and says nothing
            self._info, self._step = {}, ("", time.monotonic())
            self._written = (-WRITE_EVERY, "")
            remove(self.path)


def elapsed(seconds: int) -> str:
    """``45 s``, ``4 min 05 s``: how long a step has gone on."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def describe(info: dict) -> str:
    """One line: which run, which step (or role and agent step), tokens and cost so far, and
    on a heartbeat's line how long the step has gone on."""
    try:
        which = " ".join(run_folder(PurePath(), RunKey.from_dict(info["key"])).parts)
    except (KeyError, TypeError, ValueError):  # a file without its key: its name, as it is
        which = str(info.get("run", "?")).replace("--", " ")
    where = f" ({info['position']})" if info.get("position") else ""
    parts = [f"[e2ebench] {which}{where}:"]
    if info.get("doing"):
        parts.append(str(info["doing"]))
    if info.get("role"):
        parts.append(str(info["role"]))
    if info.get("step") is not None:
        limit = f"/{info['max_steps']}" if info.get("max_steps") else ""
        parts.append(f"step {info['step']}{limit}")
    if info.get("tokens") is not None:
        parts.append(f"· {info['tokens']} tokens")
    if info.get("cost_usd") is not None:
        parts.append(f"· ${info['cost_usd']:.4f}")
    if isinstance(info.get("elapsed_s"), int):
        parts.append(f"· {elapsed(info['elapsed_s'])}")
    return " ".join(parts)


class Monitor:
    """Controller side: prints changed progress files every ``every`` seconds (by default
    :func:`monitor_every`: a third of the longest silence, at most ``SHOW_EVERY``)."""

    def __init__(
        self,
        folder: Path,
        write_line: Callable[[str], None],
        every: float | None = None,
        status: Callable[[], str] | None = None,
    ) -> None:
        self.folder = folder
        self.write_line = write_line
        self.status = status  # how far the session is, e.g. "3/24 runs done", after each line
        self.every = every if every is not None else monitor_every()
        self._seen: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="e2ebench-progress", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (idempotent)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def poll(self) -> list[str]:
        """Lines for runs whose state changed since the last poll."""
        lines = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                info = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            line = describe(info)
            if self._seen.get(path.name) != line:
                self._seen[path.name] = line
                lines.append(line)
        return lines

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            status = self.status() if self.status is not None else ""
            for line in self.poll():
                self.write_line(f"{line} [{status}]" if status else line)
