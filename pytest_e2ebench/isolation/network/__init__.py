"""The network of a sandboxed step: its own namespace, never the host's loopback.

Every step of generated code runs in a network namespace of its own (:mod:`..sandbox`). A step
without network keeps it empty (only its own loopback). A step *with* network (``cmd:`` agents,
web and app tasks with ``network = true``) gets, in that same namespace and set up by
:class:`UserNet` before its command runs:

* **user-mode networking** by ``slirp4netns --disable-host-loopback``: a tap device whose
  traffic slirp4netns, a harness process outside, turns into ordinary sockets of the host. So
  the step reaches the outside as an unprivileged program would, but its ``127.0.0.1`` is its
  own: every listener on the host's loopback (another run's chromedriver or app server, a model
  server, a Ray head) and every other run's ports are out of reach. The host's own addresses
  are routed ``unreachable`` inside the namespace, so a listener bound to every interface is
  not reached through them either. DNS is slirp4netns' forwarder at ``10.0.2.3``.
* **explicit forwards**: a host loopback port the step must reach (the model endpoint of a
  ``cmd:`` agent) is listened on, at the same port, on the namespace's loopback by
  :mod:`.forward`, which relays each connection to the host's port and nothing else.

Why slirp4netns and not pasta: Debian 12's pasta (2023-03) switches to ``nobody`` before it
opens the target namespace, so a root harness cannot attach it to the namespace bubblewrap made
(it fails with "Couldn't open network namespace"); slirp4netns attaches by path as root and,
for an unprivileged harness, through the namespace's owning user namespace. Its seccomp filter
(and, as root, ``--enable-sandbox``: no capabilities, an empty root) confines it once the tap
device is open.

Without slirp4netns a step with network runs with no network (its forwards still work): never
the host's network. :func:`missing` says so for the session's warning.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import InfrastructureError
from .forward import Forwarder, SocketMaker
from .mirror import Mirror

SLIRP = "slirp4netns"
DNS = "10.0.2.3"  # slirp4netns' DNS forwarder
READY_LIMIT = 10.0  # seconds for the namespace to appear and slirp4netns to configure it
INFO_LIMIT = 1 << 16  # bytes of bubblewrap's --info-fd JSON read at most
_NS_GET_USERNS = 0xB701  # ioctl: the user namespace owning a namespace (linux/nsfs.h)
FIX = "install slirp4netns (apt-get install slirp4netns)"

__all__ = ["DNS", "FIX", "Forwarder", "Mirror", "SocketMaker", "UserNet", "missing", "resolv_conf"]


def missing() -> str | None:
    """A warning when steps with network would get none here, else None."""
    if shutil.which(SLIRP) is None or shutil.which("nsenter") is None:
        return (
            "slirp4netns (or nsenter) is missing: steps that need the network (cmd: agents, web "
            "and app tasks with network = true) run without it, never in the host's network; " + FIX
        )
    return None


def resolv_conf(folder: Path) -> Path:
    """A resolv.conf naming slirp4netns' DNS forwarder, written into ``folder``."""
    path = folder / "resolv.conf"
    path.write_text(f"nameserver {DNS}\noptions timeout:2 attempts:2\n")
    path.chmod(0o644)
    return path


def host_addresses() -> list[str]:
    """The host's own IPv4 addresses (loopback aside): routed unreachable in a namespace."""
    try:
        out = subprocess.run(
            ["ip", "-j", "-4", "addr", "show"], capture_output=True, timeout=10, check=True
        ).stdout
        links = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    found = []
    for link in links if isinstance(links, list) else []:
        for addr in link.get("addr_info", []) if isinstance(link, dict) else []:
            local = str(addr.get("local", ""))
            if local and not local.startswith("127."):
                found.append(local)
    return sorted(set(found))


class UserNet:
    """The network of one sandboxed command's namespace, set up before the command runs.

    ``outside``: user-mode networking (slirp4netns); ``forward``: host loopback ports reachable
    at the same port on the namespace's loopback. The sandbox wrapper waits on :attr:`gate`
    (a pipe's read end passed into the sandbox) and runs the command only after :meth:`attach`
    wrote ``1`` to it. ``info`` is the read end of bubblewrap's ``--info-fd`` pipe (its
    ``child-pid`` is in the namespace), or None when the started process itself enters it
    (``unshare``).
    """

    def __init__(self, *, outside: bool, forward: Sequence[int], info: int | None) -> None:
        self.outside = outside and missing() is None
        self.forward = tuple(dict.fromkeys(int(p) for p in forward))
        self.info = info
        self.gate, self._gate_w = os.pipe()
        self._fds: list[int] = []
        self._slirp: subprocess.Popen | None = None
        self._exit_w: int | None = None
        self._log = None
        self.forwarder: Forwarder | None = None
        self.net_fd: int | None = None  # the namespace's descriptor, once adopted
        self.owner_fd: int | None = None  # its owning user namespace's (unprivileged harness)

    # -- finding the namespace -------------------------------------------------------------

    def _pid(self, proc: subprocess.Popen) -> int:
        """The PID of a process already in the command's new network namespace."""
        deadline = time.monotonic() + READY_LIMIT
        if self.info is not None:
            data = b""
            while len(data) < INFO_LIMIT and time.monotonic() < deadline:
                ready, _, _ = select.select([self.info], [], [], 0.1)
                if ready:
                    chunk = os.read(self.info, 4096)
                    if not chunk:
                        break
                    data += chunk
                elif proc.poll() is not None:
                    break
            try:
                return int(json.loads(data)["child-pid"])
            except (ValueError, KeyError, TypeError):
                raise self._error(f"bubblewrap gave no child PID ({data[:200]!r})") from None
        mine = os.readlink("/proc/self/ns/net")
        while time.monotonic() < deadline and proc.poll() is None:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{proc.pid}/ns/net") != mine:
                    return proc.pid
            time.sleep(0.005)
        raise self._error("the sandbox did not enter its network namespace")

    def _error(self, why: str) -> InfrastructureError:
        return InfrastructureError("sandbox", f"the step's network could not be set up: {why}")

    def attach(self, proc: subprocess.Popen, then: Callable | None = None) -> None:
        """Set the namespace up (the command waits meanwhile), call ``then(self)``, then let
        the command run."""
        pid = self._pid(proc)
        try:
            net = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise self._error(f"its namespace is gone ({exc})") from None
        self.adopt(net)
        if then is not None:
            then(self)
        os.write(self._gate_w, b"1")

    def adopt(self, net: int) -> None:
        """Set up the namespace ``net`` (a descriptor this object now owns and closes)."""
        self._fds.append(net)
        self.net_fd, owner = net, None
        if os.geteuid() != 0:
            # an unprivileged harness acts in the namespace through the user namespace that
            # owns it (bubblewrap's outer one), where it has every capability
            owner = fcntl.ioctl(net, _NS_GET_USERNS)
            self._fds.append(owner)
        self.owner_fd = owner
        self._configure(net, owner)
        if self.outside:
            self._start_slirp(net, owner)
        if self.forward:
            self.forwarder = Forwarder(self.listen(self.forward), self.forward)
            self.forwarder.start()

    def _enter(self, net: int, owner: int | None) -> list[str]:
        """An nsenter prefix acting in the namespace (pass ``net`` and ``owner``)."""
        args = ["nsenter", f"--net=/proc/self/fd/{net}"]
        if owner is not None:
            args[1:1] = [f"--user=/proc/self/fd/{owner}", "--preserve-credentials"]
        return args

    def _configure(self, net: int, owner: int | None) -> None:
        """Loopback up, the host's own addresses unreachable (before any route leads there).

        ``127.0.0.0/8`` is routed unreachable in the main table too: the namespace's own
        loopback is the local table's (looked up first), but a socket bound to ``tap0``
        (``SO_BINDTODEVICE``, unprivileged since Linux 5.7) skips the local routes, and
        slirp4netns connects a packet addressed to ``127.0.0.1`` to the host's loopback as is
        (``--disable-host-loopback`` guards only its gateway): a datagram reached a host
        loopback port, and a SYN opened a host loopback connection.
        """
        lines = ["link set lo up", "route add unreachable 127.0.0.0/8"]
        lines += [f"route add unreachable {a}/32" for a in host_addresses()]
        fds = (net,) if owner is None else (net, owner)
        done = subprocess.run(
            [*self._enter(net, owner), "ip", "-batch", "-"],
            input="\n".join(lines).encode(),
            capture_output=True,
            pass_fds=fds,
            timeout=READY_LIMIT,
        )
        if done.returncode != 0:
            raise self._error(f"ip: {done.stderr.decode(errors='replace')[-300:]}")

    def _start_slirp(self, net: int, owner: int | None) -> None:
        ready_r, ready_w = os.pipe()
        exit_r, self._exit_w = os.pipe()
        # its messages, for an error (a file: a pipe nobody reads could fill and stall it)
        self._log = tempfile.TemporaryFile()
        args = [SLIRP, "--configure", "--mtu=65520", "--disable-host-loopback"]
        args += ["--enable-seccomp", "--netns-type=path"]
        fds = [net, ready_w, exit_r]
        if owner is None:
            # as root: its own mount namespace and no capabilities once the tap is open (it
            # needs uid 0 mapped, which bubblewrap's user namespace of a user harness lacks)
            args.append("--enable-sandbox")
        else:
            args.append(f"--userns-path=/proc/self/fd/{owner}")
            fds.append(owner)
        args += [f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", f"/proc/self/fd/{net}", "tap0"]
        try:
            self._slirp = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
                pass_fds=fds,
                start_new_session=True,
            )
        finally:
            os.close(ready_w)
            os.close(exit_r)
        try:
            ready, _, _ = select.select([ready_r], [], [], READY_LIMIT)
            ok = bool(ready) and os.read(ready_r, 1) == b"1"
        finally:
            os.close(ready_r)
        if not ok:
            self._slirp.kill()
            self._slirp.wait()
            self._log.seek(0)
            err = self._log.read(4096).decode(errors="replace")
            raise self._error(f"slirp4netns did not start: {err[-300:]}")

    def _helper(self, code: str, *args: str, keep: bool = False):
        """Run the harness's ``code`` in the namespace with a socket pair's end as argv[1];
        (the harness's end, the process). ``keep``: it stays (the caller ends it)."""
        import socket

        net, owner = self.net_fd, self.owner_fd
        mine, theirs = socket.socketpair()
        fds = (net, theirs.fileno()) if owner is None else (net, owner, theirs.fileno())
        command = [*self._enter(net, owner), sys.executable, "-I", "-S", "-c", code]
        with theirs:
            proc = subprocess.Popen(
                [*command, str(theirs.fileno()), *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE if not keep else subprocess.DEVNULL,
                pass_fds=fds,
                start_new_session=True,
            )
        return mine, proc

    def listen(self, ports: Sequence[int]) -> list:
        """Listening sockets on the namespace's loopback at ``ports``, made there and handed
        over (a socket stays in the namespace it was made in)."""
        import socket

        code = (
            "import socket,sys\n"
            "s=socket.socket(fileno=int(sys.argv[1]))\nfds=[]\n"
            "for p in sys.argv[2:]:\n"
            " l=socket.socket();l.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
            " l.bind(('127.0.0.1',int(p)));l.listen(64);fds.append(l.fileno())\n"
            "socket.send_fds(s,[b'1'],fds)\n"
        )
        mine, proc = self._helper(code, *map(str, ports))
        with mine:
            try:
                _, err = proc.communicate(timeout=READY_LIMIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise self._error("forwarding: no listener within the limit") from None
            if proc.returncode != 0:
                raise self._error(f"forwarding: {err.decode(errors='replace')[-300:]}")
            _, received, _, _ = socket.recv_fds(mine, 16, len(ports))
        return [socket.socket(fileno=fd) for fd in received]

    def helper(self, code: str, *args: str) -> tuple:
        """Run the harness's ``code`` (given ``args``) in the namespace until the caller ends
        it: (the harness's end of its socket pair, the process). :mod:`.mirror`'s watcher."""
        return self._helper(code, *args, keep=True)

    def maker(self) -> SocketMaker:
        """A helper that makes TCP sockets in this namespace on request (:class:`SocketMaker`):
        the harness connects them to a port there (a relay into the namespace)."""
        return SocketMaker(*self._helper(SocketMaker.CODE, keep=True))

    def close(self) -> None:
        """Stop slirp4netns and the forwarder; release the namespace."""
        if self.forwarder is not None:
            self.forwarder.stop()
        if self._exit_w is not None:
            os.close(self._exit_w)  # slirp4netns' --exit-fd: it ends
            self._exit_w = None
        if self._slirp is not None:
            try:
                self._slirp.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._slirp.kill()
                self._slirp.wait()
            self._log.close()
        for fd in (*self._fds, self.gate, self._gate_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
