"""Run a command in its own process group with a wall-clock limit.

Generated code never runs in the pytest process. Every command the harness starts gets a new
session (so it and everything it spawns form one process group), a timeout after which the whole
group is killed, and an output cap so a flood of output cannot fill the disk or memory.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

OUTPUT_LIMIT = 1 << 20  # bytes of combined stdout/stderr kept per command


@dataclasses.dataclass(frozen=True)
class Completed:
    """What a finished command did."""

    args: list[str]
    returncode: int | None  # None when killed for the timeout
    output: str
    duration_s: float
    timed_out: bool
    truncated: bool

    def tail(self, lines: int = 15) -> str:
        """The last lines of output, for error messages."""
        return "\n".join(self.output.rstrip().splitlines()[-lines:])


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(
    args: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    log: Path | None = None,
    limit: int = OUTPUT_LIMIT,
    preexec: Callable[[], None] | None = None,
) -> Completed:
    """Run ``args``; kill its process group after ``timeout`` seconds or when it ends.

    Output (stdout and stderr interleaved) goes to ``log`` (or a temporary file beside
    ``cwd``) and is read back up to ``limit`` bytes.
    """
    log = log or cwd / f".e2ebench-{os.getpid()}-{time.monotonic_ns()}.log"
    start = time.monotonic()
    timed_out = False
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=preexec,  # resource limits of the sandbox
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        # Always sweep the group: a test may leave background processes behind.
        _kill_group(proc)
        proc.wait()
    duration = time.monotonic() - start
    size = log.stat().st_size
    with log.open("rb") as fh:
        data = fh.read(limit)
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        text += f"\n[output truncated: {size - limit} more bytes in {log}]"
    return Completed(
        args=list(args),
        returncode=None if timed_out else proc.returncode,
        output=text,
        duration_s=duration,
        timed_out=timed_out,
        truncated=size > limit,
    )
