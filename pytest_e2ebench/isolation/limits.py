"""Resource limits of sandboxed commands: rlimits, disk quotas, a sized /tmp, run cgroups.

Limits bound what generated code can consume; the sandbox (:mod:`pytest_e2ebench.isolation.sandbox`)
decides what it can see.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import itertools
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import mounts


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of sandboxed processes."""

    cpu_s: int = 1800
    address_space: int = 4 << 30
    file_size: int = 256 << 20
    nproc: int = 2048
    nofile: int = 1024
    memory: int = 4 << 30  # resident memory (and swap) of all of a run's processes together
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
            except OSError as exc:
                # A folder nested past PATH_MAX cannot be measured by its path: before, it and
                # all beneath it went uncounted, so a project filled the disk past the quota
                # under ~2,000 one-letter folders. Folders that deep are over the quota.
                if exc.errno == errno.ENAMETOOLONG:
                    return "disk_quota"
                continue
            with entries:
                for entry in entries:
                    files += 1
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError as exc:
                        if exc.errno == errno.ENAMETOOLONG:
                            return "disk_quota"
                        continue
                    if files > self.limits.quota_files or size > self.limits.quota_bytes:
                        return "disk_quota"
        return None


@contextlib.contextmanager
def sized_tmpfs(size: int, inodes: int, folders: Sequence[str] = ()) -> Iterator[Path | None]:
    """A private tmpfs limited to ``size`` bytes and ``inodes`` inodes, with ``folders`` made in
    it (mode 1777; root only). None when it cannot be mounted."""
    where = mounts.claim("e2ebench-tmp-")  # owned before the mount: a killed session's is swept
    options = f"size={size},nr_inodes={inodes},mode=0755,nosuid,nodev"
    mount = ["mount", "-t", "tmpfs", "-o", options, mounts.TMPFS_SOURCE, str(where)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        mounts.release(where)
        yield None
        return
    try:
        for name in folders:
            (where / name).mkdir()
            os.chmod(where / name, 0o1777)
        yield where
    finally:
        mounts.release(where)


def is_full(where: Path) -> bool:
    """True when a tmpfs has (nearly) no blocks or inodes left."""
    try:
        st = os.statvfs(where)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < (64 << 10) or (st.f_files and st.f_favail < 16)


# cgroup-v1 hierarchies (pids, memory), or one cgroup-v2 tree holding both controllers
_V1 = {"pids": Path("/sys/fs/cgroup/pids"), "memory": Path("/sys/fs/cgroup/memory")}
_V2_ROOTS = (Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))


def _writable_root(root: Path) -> bool:
    return (root / "cgroup.procs").is_file() and os.access(root, os.W_OK)


@functools.cache
def cgroup_roots() -> dict[str, Path]:
    """Where a run's cgroups are made, per controller (``pids``, ``memory``): the writable
    cgroup-v1 hierarchies, else a cgroup-v2 tree that offers the controller."""
    roots = {name: root for name, root in _V1.items() if _writable_root(root)}
    for root in _V2_ROOTS:
        try:
            offered = (root / "cgroup.controllers").read_text().split()
            enabled = (root / "cgroup.subtree_control").read_text().split()
        except OSError:
            continue
        if not _writable_root(root):
            continue
        for name in ("pids", "memory"):
            if name in roots or name not in offered:
                continue
            if name not in enabled:
                with contextlib.suppress(OSError):
                    (root / "cgroup.subtree_control").write_text(f"+{name}")
                    enabled.append(name)
            if name in enabled:
                roots[name] = root
        break
    return roots


@dataclasses.dataclass
class RunCgroup:
    """The cgroups one run's processes join (one per hierarchy), and what they stopped."""

    paths: list[Path]
    memory: Path | None = None

    def oom_kills(self) -> int:
        """Processes the kernel killed because the run reached its memory limit."""
        if self.memory is None:
            return 0
        for name in ("memory.events", "memory.oom_control"):  # v2, v1
            try:
                text = (self.memory / name).read_text()
            except OSError:
                continue
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        return 0


def _limit_v1_or_v2(path: Path, settings: Sequence[tuple[str, str, str]]) -> None:
    """Write each setting: the v1 file if it exists, else the v2 one."""
    for v1, v2, value in settings:
        target = path / v1 if (path / v1).exists() else path / v2
        target.write_text(value)


@contextlib.contextmanager
def run_cgroup(limits: Limits) -> Iterator[RunCgroup | None]:
    """Fresh cgroups for one run: at most ``limits.nproc`` processes and ``limits.memory``
    bytes (swap included) for all of them together; None where no hierarchy is writable.

    On exit every process still in them is killed — also those that left the process group
    with setsid — and the cgroups are removed.
    """
    made: dict[str, Path] = {}
    name = f"e2ebench-{os.getpid()}-{next(_serial)}"
    try:
        for controller, root in sorted(cgroup_roots().items()):
            made[controller] = root / name
            made[controller].mkdir(exist_ok=True)  # one v2 tree may hold both controllers
        if "pids" in made:
            _limit_v1_or_v2(made["pids"], [("pids.max", "pids.max", str(limits.nproc))])
        if "memory" in made:
            memory = str(limits.memory)
            _limit_v1_or_v2(made["memory"], [("memory.limit_in_bytes", "memory.max", memory)])
            with contextlib.suppress(OSError):  # without swap accounting, memory alone
                swap = [("memory.memsw.limit_in_bytes", "memory.swap.max", memory)]
                _limit_v1_or_v2(made["memory"], swap)
    except OSError:
        _remove(made.values())
        yield None
        return
    try:
        yield RunCgroup(paths=sorted(set(made.values())), memory=made.get("memory"))
    finally:
        _remove(made.values())


def _remove(paths) -> None:
    """Kill every process in the cgroups, then remove them."""
    for path in set(paths):
        for _ in range(50):
            try:
                pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            path.rmdir()


_serial = itertools.count()
