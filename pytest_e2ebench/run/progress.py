"""Live progress of agent runs: one line per run, through the terminal reporter.

A pytest-xdist worker cannot write to the terminal, so every run in progress keeps
``<out>/progress/<agent>--<task>--run-<n>.json`` up to date (at most once a second) and deletes
it when done. Under ``-n`` a daemon thread of the controller looks at those files every few
seconds and prints one line per run whose state changed. In a plain session the run itself
prints its line (``show``), from the thread that runs it, with output capturing suspended.
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
) -> Callable[[dict], None]:
    """A callback an agent calls with its state (role, step, max_steps, tokens, cost_usd).

    With ``show``, the run's line is also shown when it changed, at most every ``every`` s.
    ``key`` (the run's) goes into the file, so the line names the run without parsing a name.
    """
    named = {"run": path.stem, **({"key": key.to_dict()} if key is not None else {})}
    if position:  # "3/24": the run's place among the session's runs
        named["position"] = position
    last = [0.0]
    shown = [-every, ""]

    def report(info: dict) -> None:
        if info.get("done"):
            remove(path)
            return
        now = time.monotonic()
        # a new step of the run (its environment, its tests) is said at once; an agent's
        # steps at most every ``every`` seconds
        doing = info.get("doing")
        if show is not None and (now - shown[0] >= every or (doing and doing not in shown[1])):
            line = describe({**info, **named})
            if line != shown[1]:
                shown[:] = [now, line]
                show(line)
        if now - last[0] < WRITE_EVERY:
            return
        last[0] = now
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({**info, **named}))
        os.replace(tmp, path)

    return report


def describe(info: dict) -> str:
    """One line: which run, which role and step, tokens and cost so far."""
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
    return " ".join(parts)


class Monitor:
    """Controller side: prints changed progress files every ``SHOW_EVERY`` seconds."""

    def __init__(
        self,
        folder: Path,
        write_line: Callable[[str], None],
        every: float = SHOW_EVERY,
        status: Callable[[], str] | None = None,
    ) -> None:
        self.folder = folder
        self.write_line = write_line
        self.status = status  # how far the session is, e.g. "3/24 runs done", after each line
        self.every = every
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
