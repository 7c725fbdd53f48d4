"""One sandbox for every execution of generated code (test runs, agent commands, installs).

``--e2e-sandbox`` (ini ``e2ebench_sandbox``):

* ``bwrap`` — bubblewrap: the whole system read-only, a private ``/tmp``, the task folders and
  the results folder hidden, only the paths a step needs bound (writable where it must write),
  new user, PID, network, IPC and UTS namespaces (no network unless the step is an install),
  killed with its parent;
* ``unshare`` — util-linux ``unshare``: new PID and network namespaces only (no filesystem
  isolation), used by ``auto`` when bubblewrap is missing, with a warning saying so;
* ``none`` — no namespaces (warned);
* ``auto`` (default) — ``bwrap`` if it works here, else ``unshare``, else ``none``.

In every mode the process gets resource limits (CPU time, address space, file size, open
files, processes) and the caller's wall-clock timeout kills its whole process group. When the
harness runs as root, sandboxed code runs as an unprivileged user (``nobody``), because the
kernel does not apply the process limit to root: a fork bomb would otherwise be unbounded.
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
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import process

MODES = ("auto", "bwrap", "unshare", "none")
# The system read-only, with its own /dev and /proc: the start of every bwrap command line.
_BWRAP_BASE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
UNPRIVILEGED_UID = 65534  # nobody


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of sandboxed processes (``resource.setrlimit``)."""

    cpu_s: int = 1800
    address_space: int = 4 << 30
    file_size: int = 256 << 20
    nproc: int = 2048
    nofile: int = 1024

    def apply(self) -> None:
        """Set the limits on the calling process (run in the child before exec)."""
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


@functools.cache
def _bwrap_works() -> bool:
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    probe = [
        exe,
        *_BWRAP_BASE,
        "--unshare-all",
        "--die-with-parent",
        "--",
        "true",
    ]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def _unshare_works() -> bool:
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        probe = [exe, "--net", "--pid", "--fork", "--kill-child", "true"]
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def resolve_mode(requested: str) -> tuple[str, str | None]:
    """The mode to use for ``requested`` and a warning to show, if any."""
    if requested == "none":
        return "none", (
            "--e2e-sandbox=none: generated code runs without namespaces, with only "
            "resource limits; use it only for code you trust"
        )
    if requested == "bwrap":
        return "bwrap", None
    if requested == "unshare":
        return "unshare", (
            "--e2e-sandbox=unshare: no filesystem isolation (generated code can "
            "read and write what the harness can); install bubblewrap for it"
        )
    if _bwrap_works():
        return "bwrap", None
    if _unshare_works():
        return "unshare", (
            "bubblewrap (bwrap) is missing or cannot create namespaces here: "
            "generated code runs in new PID and network namespaces but without "
            "a read-only filesystem; install it (e.g. apt-get install bubblewrap)"
        )
    return "none", (
        "neither bubblewrap nor unshare can create namespaces here: generated code "
        "runs with resource limits only; install bubblewrap"
    )


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """How to run one command of generated code."""

    mode: str = "none"
    limits: Limits = Limits()
    hidden: tuple[Path, ...] = ()  # folders generated code must not see (tasks, results)

    @property
    def drops_privileges(self) -> bool:
        """True when commands run as an unprivileged user (unshare mode, harness is root).

        Under bwrap the code keeps the harness's user inside a user namespace (an unprivileged
        user could not reach an interpreter under a private home); its processes are bounded by
        a pids cgroup instead (see :func:`pids_cgroup_root`).
        """
        return os.geteuid() == 0 and self.mode == "unshare"

    def prepare(self, writable: Sequence[Path]) -> None:
        """Make ``writable`` folders writable for the sandbox user."""
        if not self.drops_privileges:
            return
        for root in writable:
            root.mkdir(parents=True, exist_ok=True)
            for dirpath, dirnames, filenames in os.walk(root):
                for name in [".", *dirnames, *filenames]:
                    path = Path(dirpath, name)
                    if not path.is_symlink():
                        os.chown(path, UNPRIVILEGED_UID, UNPRIVILEGED_UID)

    def command(
        self,
        args: Sequence[str],
        *,
        cwd: Path,
        writable: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        network: bool = False,
        drop: bool = True,
    ) -> list[str]:
        """``args`` wrapped for this sandbox's mode."""
        drop_to = []
        if drop and self.drops_privileges:
            drop_to = [
                "setpriv",
                f"--reuid={UNPRIVILEGED_UID}",
                f"--regid={UNPRIVILEGED_UID}",
                "--clear-groups",
                "--",
            ]
        if self.mode == "bwrap":
            wrapped = [
                "bwrap",
                *_BWRAP_BASE,
                "--tmpfs",
                "/tmp",
            ]
            for path in self.hidden:
                if path.is_dir():
                    wrapped += ["--tmpfs", str(path)]
            for path in [*_harness_paths(), *readable]:
                wrapped += ["--ro-bind", str(path), str(path)]
            for path in writable:
                wrapped += ["--bind", str(path), str(path)]
            wrapped += [
                "--unshare-all",
                *(["--share-net"] if network else []),
                "--die-with-parent",
                "--chdir",
                str(cwd),
                "--",
            ]
            # Drop privileges before bwrap: it then maps only the unprivileged user into its
            # user namespace, and the kernel counts that user's processes against the limit.
            return [*drop_to, *wrapped, *args]
        if self.mode == "unshare":
            spaces = ["--pid", "--fork", "--kill-child", "--mount-proc"]
            if not network:
                spaces.insert(0, "--net")
            return ["unshare", *spaces, *drop_to, *args]
        return [*drop_to, *args]

    def preexec(self, cgroup: Path | None = None) -> Callable[[], None]:
        """What the child runs before exec: the resource limits, and joining ``cgroup``."""
        limits = self.limits

        def setup() -> None:
            if cgroup is not None:
                (cgroup / "cgroup.procs").write_text(str(os.getpid()))
            limits.apply()

        return setup

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        timeout: float,
        log: Path,
        writable: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        network: bool = False,
        drop: bool = True,
        limit: int = process.OUTPUT_LIMIT,
        pass_fds: tuple[int, ...] = (),
    ) -> process.Completed:
        """Run generated code: wrapped, limited, and afterwards nothing of it left running."""
        self.prepare(writable if drop else ())
        command = self.command(
            args, cwd=cwd, writable=writable, readable=readable, network=network, drop=drop
        )
        with pids_cgroup(self.limits.nproc) as cgroup:
            return process.run(
                command,
                cwd=cwd,
                env=env,
                timeout=timeout,
                log=log,
                limit=limit,
                preexec=self.preexec(cgroup),
                pass_fds=pass_fds,
            )


@functools.cache
def _harness_paths() -> tuple[Path, ...]:
    """The harness's interpreter and tools, visible even when they live under /tmp."""
    paths = {
        Path(sys.prefix).resolve(),
        Path(sys.base_prefix).resolve(),
        Path(sys.executable).resolve().parent,
    }
    uv = shutil.which("uv") or ""
    try:
        import uv as uv_package

        uv = uv_package.find_uv_bin()
    except (ImportError, FileNotFoundError):
        pass
    if uv:
        paths.add(Path(uv).resolve().parent)
    return tuple(sorted(p for p in paths if p.is_dir()))


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
