"""One sandbox for every execution of generated code (test runs, agent commands, builds).

``--e2e-sandbox`` (ini ``e2ebench_sandbox``):

* ``bwrap`` — bubblewrap: a new, empty root holding only an allow-list of read-only binds (the
  system's ``/usr`` and a few ``/etc`` files, the harness's interpreter, the paths a step
  needs), the writable folders a step names, a size-limited private ``/tmp``, new PID, network,
  IPC, UTS and cgroup namespaces (no network unless the step asks), killed with its parent;
* ``unshare`` — util-linux ``unshare``: new PID and network namespaces only (no filesystem
  isolation), used by ``auto`` when bubblewrap is missing, with a warning saying so;
* ``none`` — no namespaces (warned);
* ``auto`` (default) — ``bwrap`` if it works here, else ``unshare``, else ``none``.

In **every** mode generated code runs without privileges: when the harness is root, as the
unprivileged user ``nobody`` (uid 65534) with no capabilities (``setpriv``, after bubblewrap
has set up the mounts as root); as any other user, as that user inside a user namespace without
capabilities. ``no_new_privs`` is set, and new user namespaces are refused (a seccomp filter
built with libseccomp, or bubblewrap's ``--disable-userns``), so the code cannot gain the
capabilities that would let it unmount or remount what hides the host.

Every run also gets resource limits (CPU time, address space, file size, open files,
processes; where a cgroup hierarchy is writable, a cgroup bounding the processes and the
memory of the whole run, whose out-of-memory kills are recorded as ``memory``), a quota on its
writable folders (bytes and files: under bubblewrap with a root harness the folders are
overlays whose writes land in a tmpfs of that size, :mod:`.overlay`; otherwise a watchdog
measures them and stops the run; either way recorded as ``disk_quota``),
and the caller's wall-clock timeout, after which its whole process group is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import functools
import os
import select
import shlex
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InfrastructureError
from . import network as usernet
from . import overlay, process
from .limits import Limits, Quota, RunCgroup, is_full, run_cgroup, sized_tmpfs

MODES = ("auto", "bwrap", "unshare", "none")
UNPRIVILEGED_UID = 65534  # nobody
# the wrapper's byte when the command's working folder cannot be entered (its permissions were
# changed by the command's own earlier steps: chmod 0 .): the command's failure, not the sandbox's
CWD_REFUSED = "2"
CWD_NOTE = "\n[e2ebench: the working folder cannot be entered (its permissions were changed)]"
FILL_POLL = 0.02  # seconds between two looks at whether a run's tmpfs volumes are full
# A second unprivileged uid (no account needed): an app task's own server runs as it, apart
# from its browser and driver (``nobody``), so it cannot trace, signal or read them.
APP_UID = 65533
# The system, read-only: folders bound whole, and /etc files a program may need (no secrets:
# shadow, ssh keys and the like are never bound). Missing ones are skipped.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_ENTRIES = (
    "alternatives",
    "ca-certificates",
    "chromium",
    "chromium.d",
    "debian_version",
    "fonts",
    "group",
    "host.conf",
    "hostname",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
    "timezone",
)
_CLONE_NEWUSER = 0x10000000


def _is_root() -> bool:
    return os.geteuid() == 0


# --- refusing new user namespaces -----------------------------------------------------------


@functools.cache
def _seccomp_program() -> ctypes.Array | None:
    """A BPF program (built by libseccomp) refusing new user namespaces; None without it.

    unshare(CLONE_NEWUSER) and clone(CLONE_NEWUSER) fail with EPERM; clone3 (whose flags sit
    in memory a filter cannot read) fails with ENOSYS, so C libraries fall back to clone. This
    is the filter Flatpak installs for the same reason. The keyring calls fail with EPERM.
    """
    try:
        import pyseccomp as seccomp

        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        newuser = seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_NEWUSER, _CLONE_NEWUSER)
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "unshare", newuser)
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", newuser)
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
        # The kernel keyrings outlive a run and are shared by every run of the sandbox user: a
        # channel between runs (Docker's default profile refuses these calls too).
        for call in ("add_key", "keyctl", "request_key"):
            rules.add_rule(seccomp.ERRNO(errno.EPERM), call)
        with tempfile.TemporaryFile() as fh:
            rules.export_bpf(fh)
            fh.seek(0)
            program = fh.read()
    except (ImportError, OSError, RuntimeError, ValueError):  # no libseccomp: the caller warns
        return None
    return ctypes.create_string_buffer(program, len(program))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _load_filter(program: ctypes.Array, fprog: _SockFprog) -> None:
    """In the child before exec: no_new_privs, then the filter (inherited by all it starts)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


# --- which mode works here ------------------------------------------------------------------


def _probe(mode: str) -> bool:
    """True when the harness's interpreter really runs, unprivileged, in ``mode`` here."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            done = Sandbox(mode=mode).run(
                [sys.executable, "-c", "pass"],
                cwd=Path("/"),
                env={"PATH": os.defpath},
                timeout=60,
                log=Path(tmp, "log"),
            )
        except (OSError, InfrastructureError):
            return False
    return done.returncode == 0


@functools.cache
def works(mode: str) -> bool:
    """True when ``mode`` can run generated code on this machine (probed once)."""
    if mode != "none" and shutil.which(mode) is None:  # the bwrap or unshare program
        return False
    return _probe(mode)


class Watch:
    """A sandboxed run's watchdog (polled by :func:`.process.run`): the reason to stop it, or
    None. It ends the run when ``stop`` is set; a full /tmp or overlay volume is contained by
    the tmpfs itself (ENOSPC), so it is only recorded (``filled``); folders written directly
    are measured when ``measure``, and stopped when over their quota."""

    def __init__(self, stop, quota: Quota, volumes: tuple, *, measure: bool) -> None:
        self.stop, self.quota, self.volumes, self.measure = stop, quota, volumes, measure
        self.filled = False

    def __call__(self) -> str | None:
        if self.stop is not None and self.stop.is_set():
            return "ended"
        self._fill_check()
        return self.quota.check() if self.measure else None

    def _fill_check(self) -> None:
        self.filled = self.filled or any(v is not None and is_full(v) for v in self.volumes)

    @contextlib.contextmanager
    def polling(self):
        """The volumes asked whether they are full every :data:`FILL_POLL` seconds while the
        run lasts (one ``statvfs`` each): a volume a project fills with files it holds open
        and frees by exiting is full for well under a watch interval on a fast machine."""
        if not any(v is not None for v in self.volumes):
            yield self
            return
        done = threading.Event()

        def poll() -> None:
            while not done.wait(FILL_POLL) and not self.filled:
                self._fill_check()

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            done.set()
            thread.join()


class SandboxUnavailable(Exception):
    """No sandbox mode can run generated code here; the message says what to install."""


def resolve_mode(requested: str) -> tuple[str, str | None]:
    """The mode to use for ``requested`` and a warning to show, if any.

    Raises :class:`SandboxUnavailable` when the mode asked for (or, for ``auto``, every
    mode) cannot run the harness's interpreter without privileges here.
    """
    warnings = {
        "none": "--e2e-sandbox=none: generated code runs without namespaces, with only "
        "resource limits and without privileges; use it only for code you trust",
        "unshare": "--e2e-sandbox=unshare: no filesystem isolation (generated code can read "
        "what the unprivileged user can); install bubblewrap for it",
    }
    if requested == "auto":
        mode = next((m for m in ("bwrap", "unshare", "none") if works(m)), None)
        if mode is None:
            raise SandboxUnavailable(_unavailable("auto"))
        warning = None
        if mode != "bwrap":
            warning = (
                f"bubblewrap (bwrap) is missing or cannot create namespaces here: generated "
                f"code runs in {mode} mode. " + warnings[mode]
            )
    else:
        mode, warning = requested, warnings.get(requested)
        if mode != "bwrap" and not works(mode):
            # bwrap asked for explicitly: a run that cannot start it is an infrastructure error
            raise SandboxUnavailable(_unavailable(mode))
    lacking = usernet.missing() if mode != "none" else None
    if lacking:
        warning = f"{warning}; {lacking}" if warning else lacking
    if _needs_filter(mode) and _seccomp_program() is None:
        extra = (
            "libseccomp is missing: generated code could create user namespaces "
            "(install libseccomp2 and pyseccomp)"
        )
        warning = f"{warning}; {extra}" if warning else extra
    return mode, warning


def _unavailable(mode: str) -> str:
    where = Path(sys.base_prefix)
    reason = (
        f"uid {UNPRIVILEGED_UID} cannot run the harness's Python ({where}: a folder above it is "
        "not readable by other users)"
        if _is_root()
        else "the sandbox cannot start here"
    )
    return (
        f"--e2e-sandbox={mode}: generated code never runs with privileges, and {reason}. "
        "Install bubblewrap (apt-get install bubblewrap), or run the harness from a Python "
        "installed where every user can read it"
    )


def _needs_filter(mode: str) -> bool:
    """True when new user namespaces are refused by our filter (not by bubblewrap)."""
    # An unprivileged harness needs a user namespace for bubblewrap itself: there bubblewrap's
    # --disable-userns refuses further ones instead.
    return _is_root() or mode != "bwrap"


# --- the sandbox ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """How to run one command of generated code.

    ``mode`` has no default: a sandbox that forgot its mode would run agent-controlled code
    without namespaces (``none``), so every caller names one: the session's
    (``RunContext.sandbox``) or :func:`machine_sandbox` outside a session (issue 26).
    """

    mode: str
    limits: Limits = Limits()
    uid: int = UNPRIVILEGED_UID  # who runs the code when the harness is root

    @property
    def drops_privileges(self) -> bool:
        """True when commands switch to the unprivileged user (the harness is root)."""
        return _is_root()

    def prepare(self, writable: Sequence[Path], keep: Sequence[Path] = ()) -> None:
        """Make ``writable`` folders (created if missing) writable for the sandbox user.

        Only entries not yet owned by it are changed: an agent's workspace and venv are
        prepared before each of its commands, and most of it is the sandbox's own by then.
        ``keep``: read-only folders inside them (a suite's tests in a writable copy of the
        project), left to their owner, so they stay read-only where no bind makes them so.
        """
        kept = frozenset(str(Path(p)) for p in keep)
        for root in writable:
            root.mkdir(parents=True, exist_ok=True)
            if self.drops_privileges:
                _chown_tree(root, self.uid, kept)

    def command(
        self,
        args: Sequence[str],
        *,
        cwd: Path,
        writable: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        network: bool = False,
        tmp: Path | None = None,
        started_fd: int | None = None,
        views: dict[Path, Path] | None = None,
        gate_fd: int | None = None,
        info_fd: int | None = None,
        resolv: Path | None = None,
    ) -> list[str]:
        """``args`` wrapped for this sandbox's mode.

        ``tmp`` is a host tmpfs (limited in bytes and inodes) whose ``tmp`` and ``shm`` folders
        become ``/tmp`` and ``/dev/shm``; ``views`` what to bind at a writable folder instead of
        the folder itself (its overlay, :mod:`.overlay`); ``started_fd``
        a pipe the wrapper writes one byte to right before it runs ``args`` (so the harness
        knows, without reading any output, that the sandbox itself started).

        The command always gets a network namespace of its own (``none`` aside). ``network``
        only says whether it gets user-mode networking there (:mod:`.network`), set up by the
        harness while the wrapper waits on ``gate_fd`` (bubblewrap reports the namespace's
        process on ``info_fd``); ``resolv`` is the resolv.conf then shown at /etc/resolv.conf.
        """
        inner = self._wrap(args, cwd, started_fd, gate_fd)
        if self.mode == "bwrap":
            spaces = self._bwrap_namespaces()
            return [
                "bwrap",
                *self._bwrap_layout(cwd, writable, readable, tmp, views or {}),
                *(["--ro-bind", str(resolv), "/etc/resolv.conf"] if resolv else []),
                *spaces,
                *(["--info-fd", str(info_fd)] if info_fd is not None else []),
                "--die-with-parent",
                "--chdir",
                "/" if started_fd is not None else str(cwd),
                "--",
                *inner,
            ]
        spaces = []
        if self.mode == "unshare":
            spaces = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
        reach = self._reach(cwd, writable, readable) if self.drops_privileges else ""
        if reach:
            # a private mount namespace, so the unprivileged user reaches its paths (bash: the
            # descriptors it opens are above 9)
            spaces = ["--mount", "--propagation", "private", *spaces]
            inner = ["/bin/bash", "-c", f'{reach} && exec "$@"', "e2ebench-reach", *inner]
        return ["unshare", *spaces, "--", *inner] if spaces else inner

    def _wrap(
        self, args: Sequence[str], cwd: Path, started_fd: int | None, gate_fd: int | None
    ) -> list[str]:
        """``args`` behind the wrappers run inside the sandbox: the unprivileged user, the
        "started" byte, the network's gate (outermost first)."""
        inner = list(args)
        if gate_fd is not None:
            # the step's network is set up from outside: nothing of the command runs before
            # the harness says it is (one byte "1"; anything else ends the wrapper)
            inner = [
                "/bin/bash",
                "-c",
                f'read -r -n1 -u {gate_fd} go; exec {gate_fd}<&-; [ "$go" = 1 ] || exit 125; '
                'exec "$@"',
                "e2ebench-gate",
                *inner,
            ]
        if started_fd is not None:
            # The system's bash (descriptors above 9), as the sandbox user, before any byte of
            # the project is loaded: enter the working folder (bubblewrap, still root but
            # without CAP_DAC_OVERRIDE, could not enter one only the sandbox user may), then
            # tell the harness the sandbox started.
            inner = [
                "/bin/bash",
                "-c",
                # a folder the command's own earlier steps made unenterable (chmod 0 .) is
                # the command's failure, said with its own byte: not the sandbox's
                f'cd -- "$0" || {{ printf {CWD_REFUSED} >&{started_fd}; exit 125; }}; '
                f'printf 1 >&{started_fd}; exec {started_fd}>&-; exec "$@"',
                str(cwd),
                *inner,
            ]
        if self.drops_privileges:
            inner = [
                "setpriv",
                f"--reuid={self.uid}",
                f"--regid={self.uid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
                *inner,
            ]
        return inner

    def _reach(self, cwd: Path, writable: Sequence[Path], readable: Sequence[Path]) -> str:
        """Shell lines (run as root in a private mount namespace, before dropping privileges)
        that make the paths a command needs reachable by the unprivileged user.

        A folder above them that others cannot enter (e.g. /root, mode 0700) is covered by an
        empty tmpfs, and the needed paths are bound back onto it through descriptors opened
        just before. Used by the ``unshare`` and ``none`` modes (bubblewrap builds its own
        root).
        """
        needed = [(Path(p), False) for p in (*harness_paths(), *readable, cwd)]
        needed += [(Path(p), True) for p in writable]
        blockers: set[Path] = set()
        for path, _ in needed:
            blocker = _blocking_ancestor(path)
            if blocker is not None:
                blockers.add(blocker)
        blockers = {
            b for b in blockers if not any(b != o and b.is_relative_to(o) for o in blockers)
        }
        if not blockers:
            return ""
        # Open every path first (in this mount namespace, before anything covers it), then
        # cover the blocking folders and bind the paths back through those descriptors.
        opens: list[str] = []
        binds: list[str] = []
        bound: list[Path] = []
        for path, rw in sorted(needed, key=lambda n: (len(n[0].parts), not n[1])):
            if not any(path.is_relative_to(b) for b in blockers):
                continue
            if any(path.is_relative_to(b) for b in bound) or not path.exists():
                continue
            bound.append(path)
            fd = 300 + len(bound)  # above any descriptor the caller passes
            dest = shlex.quote(str(path))
            opens.append(f"exec {fd}<{dest}")
            make = (
                f"mkdir -p {dest}"
                if path.is_dir()
                else f"mkdir -p {shlex.quote(str(path.parent))} && : > {dest}"
            )
            binds.append(f"{make} && mount --no-canonicalize --bind /proc/self/fd/{fd} {dest}")
            binds.append(f"exec {fd}<&-")
            if not rw:
                binds.append(f"mount -o remount,bind,ro {dest}")
        covers = [
            f"mount -t tmpfs -o mode=0755,size=1m e2ebench {shlex.quote(str(b))}"
            for b in sorted(blockers)
        ]
        lines = [*opens, *covers, *binds]
        return " && ".join(lines)

    def _bwrap_namespaces(self) -> list[str]:
        spaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        spaces.append("--unshare-net")  # with network, the harness attaches it (.network)
        if self.drops_privileges:
            # bubblewrap sets up the mounts as root; only what setpriv needs to switch to the
            # unprivileged user survives, and setpriv drops that too.
            caps = ["--cap-drop", "ALL"]
            for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
                caps += ["--cap-add", cap]
            return [*spaces, *caps]
        return [*spaces, "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]

    def _bwrap_layout(
        self,
        cwd: Path,
        writable: Sequence[Path],
        readable: Sequence[Path],
        tmp: Path | None,
        views: dict[Path, Path],
    ) -> list[str]:
        """The new root: an allow-list of binds, parents created traversable (0755)."""
        layout: list[str] = []
        made: set[str] = {"/"}

        def parents(dest: str) -> None:
            for parent in reversed(Path(dest).parents):
                if str(parent) not in made:
                    made.add(str(parent))
                    layout.extend(["--perms", "0755", "--dir", str(parent)])

        for name in SYSTEM_DIRS:
            path = Path(name)
            if path.is_symlink():
                layout += ["--symlink", os.readlink(path), name]
            elif path.is_dir():
                layout += ["--ro-bind", name, name]
        parents("/etc/x")
        for name in ETC_ENTRIES:
            layout += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        layout += ["--proc", "/proc", "--dev", "/dev"]
        if tmp is not None:
            # one host tmpfs limited in bytes and inodes holds both, so the harness sees it fill
            layout += ["--bind", str(tmp / "tmp"), "/tmp", "--bind", str(tmp / "shm"), "/dev/shm"]
        else:
            size = str(self.limits.tmp_bytes)
            for where in ("/dev/shm", "/tmp"):
                layout += ["--perms", "1777", "--size", size, "--tmpfs", where]
        made.update({"/tmp", "/proc", "/dev", "/usr", "/etc"})
        binds = [(p, "--ro-bind") for p in (*harness_paths(), *readable)]
        binds += [(p, "--bind") for p in writable]
        # Parents before children, so a read-only folder inside a writable one stays read-only.
        for path, how in sorted(binds, key=lambda b: (len(Path(b[0]).parts), b[1] == "--bind")):
            dest = str(path)
            parents(dest)
            made.add(dest)
            layout += [how, str(views.get(Path(dest), dest)), dest]
        if str(cwd) not in made:
            parents(str(cwd) + "/x")
        return layout

    def preexec(self, cgroup: RunCgroup | None = None) -> Callable[[], None]:
        """What the child runs before exec: join ``cgroup``, rlimits, the namespace filter."""
        limits = self.limits
        program = _seccomp_program() if _needs_filter(self.mode) else None
        fprog = None
        if program is not None:
            fprog = _SockFprog(len(program) // 8, ctypes.addressof(program))

        if cgroup is not None:
            # The run's cgroup bounds this run alone. RLIMIT_NPROC counts every process of the
            # sandbox user on the machine, so one run's fork bomb would stop the others from
            # starting: with a cgroup it is only a backstop.
            limits = dataclasses.replace(limits, nproc=limits.nproc * 16)
        joins = [path / "cgroup.procs" for path in cgroup.paths] if cgroup is not None else []

        def setup() -> None:
            for procs in joins:
                procs.write_text(str(os.getpid()))
            limits.apply()
            if fprog is not None:
                _load_filter(program, fprog)

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
        limit: int = process.OUTPUT_LIMIT,
        pass_fds: tuple[int, ...] = (),
        forward: Sequence[int] = (),
        netns: Callable[[usernet.UserNet], None] | None = None,
        stop: threading.Event | None = None,
        shared: Sequence[Path] = (),
    ) -> process.Completed:
        """Run generated code: wrapped, limited, and afterwards nothing of it left running.

        ``network`` gives the command user-mode networking in its own namespace (the outside,
        never the host's loopback); ``forward`` host loopback ports it may reach all the same
        (a ``cmd:`` agent's model endpoint). See :mod:`.network`. ``netns`` is called with the
        command's namespace (:class:`.network.UserNet`) once it is set up, before the command
        runs: the harness relays into it or out of it (an app and its browser). When ``stop``
        is set the command is ended (``stopped`` = ``"ended"``). ``shared``: folders another
        sandbox writes meanwhile (a split run's scratch), bound as they are; the caller sizes them.

        Raises :class:`InfrastructureError` when the sandbox itself could not start (decided
        from a pipe the sandbox's own wrapper writes to, never from the command's output).
        """
        writable, shared = [Path(p) for p in writable], [Path(p) for p in shared]
        self.prepare([*writable, *shared], keep=readable)
        quota = Quota([*writable, *shared], self.limits)  # measured where no volume bounds them
        with contextlib.ExitStack() as stack:
            tmp, volume, views = self._volumes(stack, writable)
            writable += shared
            polled = Watch(stop, quota, (tmp, volume), measure=bool(writable) and views is None)
            watch = stack.enter_context(polled.polling())
            started_r, started_w = os.pipe()
            stack.callback(os.close, started_r)
            early: list[bool] = []  # the wrapper's byte, when the network's setup read it
            netting, on_start = self._network(stack, network, forward, netns, started_r, early)
            pass_fds = (*pass_fds, *netting.pop("fds"))
            cgroup = stack.enter_context(run_cgroup(self.limits))
            try:
                done = process.run(
                    self.command(
                        args,
                        cwd=cwd,
                        writable=writable,
                        readable=readable,
                        network=network,
                        tmp=tmp,
                        started_fd=started_w,
                        views=views,
                        **netting,
                    ),
                    cwd=cwd if self.mode != "bwrap" else Path("/"),
                    env=env,
                    timeout=timeout,
                    log=log,
                    limit=limit,
                    preexec=self.preexec(cgroup),
                    pass_fds=(*pass_fds, started_w),
                    watch=watch,
                    on_start=on_start,
                )
            finally:
                os.close(started_w)  # then the read below sees the end of the pipe
            done, started = _started(done, b"1" if early else os.read(started_r, 1))
            # measured once more: a burst at the very end
            full = bool(watch()) or done.stopped == "disk_quota" or watch.filled
            # the kernel killed a process at the run's memory limit (read before the cgroup goes)
            memory = cgroup is not None and cgroup.oom_kills() > 0
        return self._outcome(done, started, full, memory)

    def _outcome(self, done, started: bool, full: bool, memory: bool) -> process.Completed:
        """The command's result with what the sandbox contained; an infrastructure error when
        the sandbox itself did not start it."""
        if not started and not done.timed_out:
            raise InfrastructureError(
                "sandbox",
                f"the {self.mode} sandbox could not start the command "
                f"(exit status {done.returncode}):\n{done.tail(5)}",
            )
        contained = (("disk_quota",) if full else ()) + (("memory",) if memory else ())
        return dataclasses.replace(done, contained=contained)

    def _volumes(self, stack: contextlib.ExitStack, writable: list[Path]) -> tuple:
        """Under bubblewrap with a root harness: the sized tmpfs of /tmp and /dev/shm, the
        one the writable folders' overlays write to, and those overlays (else Nones)."""
        if not (self.mode == "bwrap" and self.drops_privileges):
            return None, None, None
        limits = self.limits
        tmp = stack.enter_context(sized_tmpfs(limits.tmp_bytes, limits.tmp_inodes, ("tmp", "shm")))
        if not writable:
            return tmp, None, None
        # every write to the writable folders lands in one tmpfs of the quota's size
        volume = stack.enter_context(sized_tmpfs(limits.quota_bytes, limits.quota_files))
        return tmp, volume, stack.enter_context(overlay.overlays(volume, writable))

    def _network(
        self,
        stack: contextlib.ExitStack,
        network: bool,
        forward: Sequence[int],
        netns: Callable | None,
        started_r: int,
        early: list[bool],
    ) -> tuple[dict, Callable | None]:
        """The command's keyword arguments and descriptors (``fds``) for its network, and
        what sets that network up once the command started (None: nothing to set up).

        The setup waits for the wrapper's "started" byte on ``started_r`` (noted in
        ``early``): by then bubblewrap has set the namespace's loopback up, which the setup
        must not race, and the wrapper waits at the gate.
        """
        if not (network or forward or netns) or self.mode == "none":
            return {"fds": ()}, None  # none: the host's network, as warned
        info_r = info_w = None
        unclosed: list[int] = []  # bubblewrap's end of the info pipe, until it started
        if self.mode == "bwrap":
            info_r, info_w = os.pipe()
            unclosed.append(info_w)
            stack.callback(os.close, info_r)
            stack.callback(lambda: unclosed and os.close(unclosed.pop()))
        net = usernet.UserNet(outside=network, forward=forward, info=info_r)
        stack.callback(net.close)
        netting: dict = {"gate_fd": net.gate, "info_fd": info_w, "fds": (net.gate,)}
        if info_w is not None:
            netting["fds"] += (info_w,)
        if net.outside and self.mode == "bwrap":
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            folder.chmod(0o755)
            netting["resolv"] = usernet.resolv_conf(folder)

        def on_start(proc) -> None:
            if unclosed:
                os.close(unclosed.pop())  # bubblewrap holds its own copy: EOF is its doing
            if _await_byte(started_r, proc):
                early.append(True)
                net.attach(proc, netns)

        return netting, on_start


def _started(done: process.Completed, byte: bytes) -> tuple[process.Completed, bool]:
    """Whether the wrapper's byte says the command started (or failed to enter its folder,
    its own failure, said in its output)."""
    if byte == CWD_REFUSED.encode():
        return dataclasses.replace(done, output=done.output + CWD_NOTE), True
    return done, byte == b"1"


def _await_byte(fd: int, proc, limit: float = 120.0) -> bool:
    """True once the wrapper wrote its "started" byte to ``fd``; False when the command ended
    without it (the caller's check reports that the sandbox did not start)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            return os.read(fd, 1) in (b"1", CWD_REFUSED.encode())
        if proc.poll() is not None:
            ready, _, _ = select.select([fd], [], [], 0)
            return bool(ready) and os.read(fd, 1) in (b"1", CWD_REFUSED.encode())
    raise InfrastructureError("sandbox", f"the sandbox did not start within {limit:g} s")


def _chown_tree(root: Path, uid: int, kept: frozenset[str] = frozenset()) -> None:
    """Give ``root`` and everything below it to ``uid``, never following a link; the folders
    named in ``kept`` (and what they hold) stay as they are."""
    stack = [root]
    if os.lstat(root).st_uid != uid:
        os.chown(root, uid, uid, follow_symlinks=False)
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.path in kept:
                    continue
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    os.chown(entry.path, uid, uid, follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))


def _blocking_ancestor(path: Path) -> Path | None:
    """The topmost folder above (or at) ``path`` that other users cannot enter."""
    for folder in [*reversed(path.parents), path]:
        try:
            st = os.stat(folder)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
        if not st.st_mode & stat.S_IXOTH:
            return folder if folder != path else None
    return None


@functools.cache
def harness_paths() -> tuple[Path, ...]:
    """The harness's interpreter and uv, bound read-only into every sandbox."""
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
    found = sorted(p for p in paths if p.is_dir())
    # a folder inside another one is bound with it
    return tuple(p for p in found if not any(q != p and p.is_relative_to(q) for q in found))


def machine_sandbox() -> Sandbox:
    """The sandbox of this machine's ``auto`` mode, for the ``e2ebench`` tools that run peer or
    reference code outside a pytest session. Raises :class:`SandboxUnavailable` as ``auto``
    does."""
    return Sandbox(mode=resolve_mode("auto")[0])
