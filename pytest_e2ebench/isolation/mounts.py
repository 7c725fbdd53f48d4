"""The harness's mounts and temporary folders on the host, and the sweep of those a killed
session left (issue 40).

A sandbox's sized tmpfs (:func:`.limits.sized_tmpfs`) and the overlays in it are mounted in
the host's mount namespace, so a session ended by SIGTERM or SIGKILL left them mounted, holding
what the project wrote (up to the quota in memory), which ``rm`` cannot remove. Each tmpfs has
an owner file beside its mount point, written before it is mounted: the pid and start time of
the process that mounted it. A session's process also makes its temporary folders (its own,
and those a library makes with :mod:`tempfile`) in one folder of its own, claimed the same way
(:func:`claim`; ``tempfile.tempdir`` points there while the session lasts). A session's start
sweeps every ``e2ebench-tmp`` mount, and every claimed folder of the temporary folder, whose
owner is gone (the pid dead, or reused by a process that started later): what is mounted in it
is unmounted, deepest first, and it is removed. Those of a session still running are left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

TMPFS_SOURCE = "e2ebench-tmp"  # the device name every sized tmpfs is mounted with
OVERLAY_SOURCE = "e2ebench-overlay"
OWNER_SUFFIX = ".owner"
PREFIX = "e2ebench-"  # every claimed folder's name starts with it
SESSION_PREFIX = f"{PREFIX}session-"
_ESCAPE = re.compile(r"\\([0-7]{3})")


def me() -> str:
    """This process's identity in an owner file: its pid and its start time (clock ticks)."""
    return f"{os.getpid()} {_start_time(os.getpid())}"


def owner_file(point: Path) -> Path:
    return point.with_name(point.name + OWNER_SUFFIX)


def claim(prefix: str, parent: Path | None = None) -> Path:
    """A fresh folder (mode 0700) named ``prefix…`` in ``parent`` (the temporary folder by
    default), with an owner file beside it naming this process: swept once it is gone."""
    where = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    owner_file(where).write_text(me())
    return where


def release(where: Path) -> bool:
    """Unmount everything mounted at or below ``where`` (deepest first), then remove it and
    its owner file; False (and nothing removed) when a mount stays."""
    for point in sorted(mounted_under(where), reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)
    if mounted_under(where):
        return False  # never remove files through a mount that could not be undone
    shutil.rmtree(where, ignore_errors=True)
    owner_file(where).unlink(missing_ok=True)
    return True


def mounted_under(where: Path) -> list[str]:
    """The mount points at or below ``where`` that this process sees."""
    top = str(where)
    return [p for _, p in _mounts() if p == top or p.startswith(top.rstrip("/") + "/")]


def _start_time(pid: int) -> str:
    """The start time of a live process ``pid``; "" when there is none. A zombie is dead: a
    process whose parent died is reaped by pid 1, which in a container may never do it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return ""
    return "" if fields[0] in ("Z", "X") else fields[19]  # state, field 22 (after the name)


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


def _orphaned(owner: Path) -> bool:
    """Whether ``owner`` is an owner file of this user whose process is gone (an empty one may
    be being written: left alone)."""
    try:
        st = owner.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return False
        text = owner.read_text().strip()
    except OSError:
        return False  # no owner file: not a mount this version made, or still being made
    return bool(text) and not _alive(text)


def sweep(parent: Path | None = None) -> list[str]:
    """Unmount and remove every claimed folder in ``parent`` (the temporary folder by default),
    and every harness tmpfs elsewhere, whose owner is gone (with what is mounted in them);
    the folders swept."""
    folder = Path(parent or tempfile.gettempdir())
    owners = sorted(folder.glob(f"{PREFIX}*{OWNER_SUFFIX}"))
    stale = [owner.with_name(owner.name.removesuffix(OWNER_SUFFIX)) for owner in owners]
    swept = [str(where) for where in stale if _orphaned(owner_file(where)) and release(where)]
    for source, point in _mounts():  # made outside such a folder: by a tool, an older version
        if source == TMPFS_SOURCE and _orphaned(owner_file(Path(point))):
            swept += [point] if release(Path(point)) else []
    return swept


def hold_session() -> tuple[Path, str | None]:
    """This process's folder of temporary folders (mode 0711: a sandbox user may pass through
    to what it is given), claimed in the temporary folder; :mod:`tempfile` makes its folders
    there from now on, a library's too. (It, the setting before.) :func:`leave_session` ends
    it."""
    before = tempfile.tempdir
    where = claim(SESSION_PREFIX)
    where.chmod(0o711)
    tempfile.tempdir = str(where)
    return where, before


def leave_session(where: Path, before: str | None) -> None:
    """Point :mod:`tempfile` back at ``before`` and remove the session's folder ``where`` with
    whatever is still mounted in it (a cleanup that SIGTERM cut short)."""
    if tempfile.tempdir == str(where):
        tempfile.tempdir = before
    release(where)
