"""Resource limits of sandboxed commands: rlimits, disk quotas, a sized /tmp, a pids cgroup.

Limits bound what generated code can consume; the sandbox (:mod:`pytest_e2ebench.sandbox`)
decides what it can see.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of sandboxed processes."""

    cpu_s: int = 1800
    address_space: int = 4 << 30
    file_size: int = 256 << 20
    nproc: int = 2048
    nofile: int = 1024
    tmp_bytes: int = 512 << 20  # the private /tmp (a tmpfs: memory)
    tmp_inodes: int = 100_000
    quota_bytes: int = 2 << 30  # everything written into a run's writable folders
    quota_files: int = 100_000

    def apply(self) -> None:
        """Set the rlimits on the calling process (run in the child before exec)."""
        for which, value in (
            (resource.RLIMIT_CPU, self.cpu_s),
            (resource.RLIMIT_AS, self.address_space),
            (resource.RLIMIT_FSIZE, self.file_size),
            (resource.RLIMIT_NPROC, self.nproc),
            (resource.RLIMIT_NOFILE, self.nofile),
        ):
            soft, hard = resource.getrlimit(which)
            if value == resource.RLIM_INFINITY or hard == resource.RLIM_INFINITY:
                cap = hard if value == resource.RLIM_INFINITY else value
            else:
                cap = min(value, hard)
            resource.setrlimit(which, (cap, cap))


class Quota:
    """Bytes and files in the writable folders, measured without following links."""

    def __init__(self, roots: Sequence[Path], limits: Limits) -> None:
        self.roots = roots
        self.limits = limits

    def check(self) -> str | None:
        """``"disk_quota"`` when the folders hold more than the limits allow."""
        files = size = 0
        stack = [str(r) for r in self.roots]
        while stack:
            try:
                entries = os.scandir(stack.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    files += 1
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        continue
                    if files > self.limits.quota_files or size > self.limits.quota_bytes:
                        return "disk_quota"
        return None


@contextlib.contextmanager
def sized_tmpfs(limits: Limits) -> Iterator[Path | None]:
    """A private tmpfs limited in bytes and inodes, for the sandbox's /tmp and /dev/shm (its
    ``tmp`` and ``shm`` folders; root only). None when it cannot be mounted: the sandbox then
    makes its own, limited in bytes only."""
    where = Path(tempfile.mkdtemp(prefix="e2ebench-tmp-"))
    options = f"size={limits.tmp_bytes},nr_inodes={limits.tmp_inodes},mode=1777,nosuid,nodev"
    mount = ["mount", "-t", "tmpfs", "-o", options, "e2ebench-tmp", str(where)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        where.rmdir()
        yield None
        return
    try:
        for name in ("tmp", "shm"):
            (where / name).mkdir()
            os.chmod(where / name, 0o1777)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def is_full(where: Path) -> bool:
    """True when a tmpfs has (nearly) no blocks or inodes left."""
    try:
        st = os.statvfs(where)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < (64 << 10) or (st.f_files and st.f_favail < 16)


@functools.cache
def pids_cgroup_root() -> Path | None:
    """A writable cgroup-v1 ``pids`` hierarchy, if this machine offers one."""
    root = Path("/sys/fs/cgroup/pids")
    if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK):
        return root
    return None


@contextlib.contextmanager
def pids_cgroup(limit: int):
    """A fresh pids cgroup limited to ``limit`` processes (None where unavailable).

    On exit every process still in it is killed — also those that left the process group
    with setsid — and the cgroup is removed.
    """
    root = pids_cgroup_root()
    if root is None:
        yield None
        return
    path = root / f"e2ebench-{os.getpid()}-{next(_serial)}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(limit))
    except OSError:
        yield None
        return
    try:
        yield path
    finally:
        for _ in range(50):
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            path.rmdir()


_serial = itertools.count()
