"""Run a command in its own process group with a wall-clock limit.

Generated code never runs in the pytest process. Every command the harness starts gets a new
session (so it and everything it spawns form one process group), a timeout after which the whole
group is killed, and an output cap so a flood of output cannot fill the disk or memory.

The log file is opened by the harness *before* the command starts, without following links, and
read back through the same descriptor: a sandboxed command that may write into the log's folder
cannot swap the log for a link to a host file.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

OUTPUT_LIMIT = 1 << 20  # bytes of combined stdout/stderr kept per command
WATCH_INTERVAL = 0.25  # seconds between two calls of a run's watchdog


@dataclasses.dataclass(frozen=True)
class Completed:
    """What a finished command did."""

    args: list[str]
    returncode: int | None  # None when killed for the timeout
    output: str
    duration_s: float
    timed_out: bool
    truncated: bool
    stopped: str | None = None  # why a watchdog stopped it (e.g. "disk_quota")
    contained: tuple[str, ...] = ()  # what the sandbox stopped (e.g. "disk_quota")

    def tail(self, lines: int = 15) -> str:
        """The last lines of output, for error messages."""
        return "\n".join(self.output.rstrip().splitlines()[-lines:])


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_PR_SET_PDEATHSIG = 1


def _die_with_parent(then: Callable[[], None] | None) -> Callable[[], None]:
    """A preexec function: ask the kernel to SIGKILL the child when the harness dies.

    A benchmark killed with kill -9 must not leave installs, coverage reports or test runs
    writing into folders the next session rebuilds.
    """

    def setup() -> None:
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # not Linux: the process group kill still applies
            pass
        if then is not None:
            then()

    return setup


def open_log(log: Path) -> int:
    """A fresh log file, opened read-write without following a link at its name."""
    try:
        if log.is_symlink():
            log.unlink()
    except OSError:
        pass
    return os.open(log, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)


def drain(stream, fd: int, limit: int, counts: list[int]) -> None:
    """Copy ``stream`` to the file ``fd`` up to ``limit`` bytes; count and drop the rest."""
    written = 0
    for chunk in iter(lambda: stream.read(1 << 16), b""):
        counts[0] += len(chunk)
        room = limit - written
        if room > 0:
            written += os.write(fd, chunk[:room])
    stream.close()


def _wait(
    proc: subprocess.Popen, deadline: float, watch: Callable[[], str | None] | None
) -> tuple[bool, str | None]:
    """Wait for ``proc`` until ``deadline`` (monotonic), asking ``watch`` every
    :data:`WATCH_INTERVAL` seconds; (timed out, the watch's reason to stop)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return True, None
        try:
            proc.wait(timeout=min(left, WATCH_INTERVAL) if watch else left)
            return False, None
        except subprocess.TimeoutExpired:
            pass
        stopped = watch() if watch else None
        if stopped:
            return False, stopped


def run(
    args: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    log: Path,
    limit: int = OUTPUT_LIMIT,
    preexec: Callable[[], None] | None = None,
    pass_fds: tuple[int, ...] = (),
    watch: Callable[[], str | None] | None = None,
    on_start: Callable[[subprocess.Popen], None] | None = None,
) -> Completed:
    """Run ``args``; kill its process group after ``timeout`` seconds or when it ends.

    Output (stdout and stderr interleaved) is read through a pipe: the first ``limit`` bytes
    go to ``log``, the rest is counted and dropped, so a flood of output costs neither disk
    nor memory. ``watch``, called every :data:`WATCH_INTERVAL` seconds while the command runs,
    may return a reason to stop it (its group is killed; the reason is in ``stopped``).
    ``on_start`` is called with the started process before the wait begins (the sandbox sets
    up the command's network meanwhile); what it raises kills the group and is raised.
    """
    start = time.monotonic()
    counts = [0]
    fd = open_log(log)
    try:
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent(preexec),  # and the sandbox's resource limits
            pass_fds=pass_fds,
        )
        reader = threading.Thread(target=drain, args=(proc.stdout, fd, limit, counts), daemon=True)
        reader.start()
        try:
            if on_start is not None:
                on_start(proc)
            timed_out, stopped = _wait(proc, start + timeout, watch)
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        # Always sweep the group: a test may leave background processes behind.
        _kill_group(proc)
        proc.wait()
        reader.join(timeout=10)  # a straggler outside the group may still hold the pipe
        duration = time.monotonic() - start
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, limit).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
    dropped = counts[0] - min(counts[0], limit)
    if dropped:
        text += f"\n[output truncated: {dropped} more bytes were dropped]"
    return Completed(
        args=list(args),
        returncode=None if timed_out else proc.returncode,
        output=text,
        duration_s=duration,
        timed_out=timed_out,
        truncated=bool(dropped),
        stopped=stopped,
    )
