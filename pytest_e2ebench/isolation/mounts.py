"""The harness's mounts on the host, and the sweep of those a killed session left (issue 40).

A sandbox's sized tmpfs (:func:`.limits.sized_tmpfs`) and the overlays in it are mounted in
the host's mount namespace, so a session ended by SIGTERM or SIGKILL left them mounted, holding
what the project wrote (up to the quota in memory), which ``rm`` cannot remove. Each tmpfs has
an owner file beside its mount point, written before it is mounted: the pid and start time of
the process that mounted it. A session's start sweeps every ``e2ebench-tmp`` mount whose owner
is gone (the pid dead, or reused by a process that started later), the overlays inside it
first; a mount of a session still running is left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

TMPFS_SOURCE = "e2ebench-tmp"  # the device name every sized tmpfs is mounted with
OVERLAY_SOURCE = "e2ebench-overlay"
OWNER_SUFFIX = ".owner"
_ESCAPE = re.compile(r"\\([0-7]{3})")


def me() -> str:
    """This process's identity in an owner file: its pid and its start time (clock ticks)."""
    return f"{os.getpid()} {_start_time(os.getpid())}"


def owner_file(point: Path) -> Path:
    return point.with_name(point.name + OWNER_SUFFIX)


def _start_time(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]  # field 22, after the command's name


def _alive(owner: str) -> bool:
    pid, _, start = owner.partition(" ")
    return pid.isdigit() and bool(start) and _start_time(int(pid)) == start


def _mounts() -> list[tuple[str, str]]:
    """(source, mount point) of every mount this process sees."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 2:
            point = _ESCAPE.sub(lambda m: chr(int(m[1], 8)), fields[1])
            found.append((fields[0], point))
    return found


def sweep() -> list[str]:
    """Unmount and remove every harness tmpfs (and overlay in it) whose owner is gone; the
    mount points swept."""
    mounts = _mounts()
    stale = []
    for source, point in mounts:
        if source != TMPFS_SOURCE:
            continue
        try:
            owner = owner_file(Path(point)).read_text().strip()
        except OSError:
            continue  # no owner file: not a mount this version made, or still being made
        if not _alive(owner):
            stale.append(point)
    for point in stale:
        inside = [p for s, p in mounts if s == OVERLAY_SOURCE and p.startswith(point + "/")]
        for nested in sorted(inside, reverse=True):
            subprocess.run(["umount", "-l", nested], capture_output=True)
        subprocess.run(["umount", "-l", point], capture_output=True)
        shutil.rmtree(point, ignore_errors=True)
        owner_file(Path(point)).unlink(missing_ok=True)
    return stale
