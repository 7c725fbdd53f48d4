"""A benchmark session killed mid-run leaves nothing on the host (issue 40, item 6).

A real session (``python -m pytest --e2e-agent=… --e2e-tasks=…``, its temporary folder pointed
at a fresh one) runs a ``cmd:`` agent that sleeps: its sandbox holds the sized tmpfs of its
``/tmp``, the overlays of its workspace and a slirp4netns for its network; or a ``dir:``
project that sleeps in its import, in the split suite's two sandboxes. Once that command really
runs, the session is sent SIGTERM (as ``kill PID`` does), or its process group (the pytest
process, its xdist workers) SIGKILL, as an outside killer would. After SIGTERM the session
itself leaves no mount, no process and no temporary folder, within seconds; after SIGKILL its
processes die with it and the next session's start removes its mounts and folders.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.processes import descendants, processes, survivors
from helpers.tasks import CALC_CODE

# host's namespace, in the session's temporary folder): the moment to kill is after it.
MARK = "e2ebench-asleep"
SLEEPER = f"touch /tmp/{MARK} && exec sleep 300"  # the cmd: agent's command
SLOW_ADD = f"import time\n\nopen('/tmp/{MARK}', 'w').close()\ntime.sleep(300)\n\n\n"
SLOW_ADD += CALC_CODE["add"]  # the dir: agent's project sleeps in its import
START_LIMIT = 90.0  # seconds for the agent's command (or the project's process) to start
END_LIMIT = 15.0  # seconds a session sent SIGTERM gets to unwind (the split's grace is 20 s)
DEATH_LIMIT = 2.0  # seconds the processes of a session killed with SIGKILL get to be gone

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="only a root harness mounts the sandboxes"),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap"),
]


def mounted(folder: Path) -> list[str]:
    """The mount points below ``folder`` (read from the kernel, not through the harness)."""
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
    points = [line.split()[4].replace("\\040", " ") for line in lines]
    return [p for p in points if p.startswith(f"{folder}/")]


def session(where: Path, tmp: Path, *args: str, log: Path) -> subprocess.Popen:
    """A benchmark session in ``where`` as a user starts it, with ``tmp`` as its TMPDIR."""
    env = dict(os.environ, TMPDIR=str(tmp))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--e2e-tasks=tasks"]
    with log.open("ab") as fh:
        return subprocess.Popen(
            [*command, *args],
            cwd=where,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def busy(proc: subprocess.Popen, tmp: Path, log: Path, runs: int) -> set[int]:
    """Wait until ``runs`` sleepers left their mark; the sessions (process sessions) of the
    session's processes by then."""
    deadline = time.monotonic() + START_LIMIT
    while sum(MARK in files for _, _, files in os.walk(tmp)) < runs:  # folders come and go
        assert proc.poll() is None, f"the session ended before the kill:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no sleeper in time:\n{log.read_text()}"
        time.sleep(0.05)
    table = processes()
    return {table[pid][2] for pid in descendants(proc.pid, table)}


def left_behind(leader: int, sessions: set[int], where: Path, limit: float) -> dict[int, str]:
    """The session's processes still alive after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while (left := survivors(leader, sessions, where)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize(
    "how, workers, agent",
    [
        ("SIGTERM", 0, "cmd"),
        ("SIGKILL", 0, "cmd"),
        ("SIGTERM", 2, "cmd"),
        ("SIGKILL", 2, "cmd"),
        ("SIGTERM", 0, "dir"),
    ],
    ids=["term", "kill", "term-xdist", "kill-xdist", "term-suite"],
)
def test_a_killed_session_leaves_no_mount_process_or_temporary_folder(
    pytester, tasks, how, workers, agent
):
    runs = max(workers, 1)
    for n in range(runs):
        tasks.make(f"calc{n}")
        if agent == "dir":  # a project that sleeps in its import: the split suite's project side
            tasks.reference(pytester.path / "out" / f"calc{n}", dict(CALC_CODE, add=SLOW_ADD))
    tmp = pytester.path / "tmp"
    tmp.mkdir()
    log = pytester.path / "session.log"
    xdist = ["-n", str(workers)] if workers else []
    chosen = f"--e2e-agent=cmd:{SLEEPER}" if agent == "cmd" else "--e2e-agent=dir:out"
    proc = session(pytester.path, tmp, chosen, *xdist, log=log)
    sessions = {proc.pid}
    try:
        sessions |= busy(proc, tmp, log, runs)
        if how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)  # the pytest process alone, as `kill PID` does
            proc.wait(timeout=END_LIMIT)
        else:
            os.killpg(proc.pid, signal.SIGKILL)  # pytest and its workers: nothing unwinds
            proc.wait(timeout=DEATH_LIMIT)
        left = left_behind(proc.pid, sessions, pytester.path, DEATH_LIMIT)
        assert not left, f"processes of the session outlived it ({how}):\n" + "\n".join(
            f"{pid}: {text}" for pid, text in left.items()
        )
        if how == "SIGTERM":  # unwound as Ctrl-C (pytest's status), not ended by the signal
            assert proc.returncode == pytest.ExitCode.INTERRUPTED, log.read_text()
        else:
            assert mounted(tmp)  # nothing in the killed session could unmount them
            # the next session's start sweeps what the killed one could not remove
            nxt = session(pytester.path, tmp, "--e2e-agent=cmd:true", "--co", "-q", log=log)
            assert nxt.wait(timeout=120) == 0, log.read_text()
            assert "a session that was killed left behind" in log.read_text()
        assert not mounted(tmp), f"{how}: mounts left\n{log.read_text()}"
        assert not list(tmp.iterdir()), f"{how}: temporary folders left\n{log.read_text()}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in survivors(proc.pid, sessions, pytester.path):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for point in sorted(mounted(tmp), reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True)
