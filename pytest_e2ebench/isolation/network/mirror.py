"""The ports one sandboxed step serves, reachable from another step's namespace.

A split run (``evaluation/split.py``) whose tests drive a browser starts the project's server
through the project's process (``subprocess.Popen([... "flask", "run", ...])`` in a test's
fixture): it listens in the project's namespace, while the browser runs in the suite's. The
two namespaces stay apart (the suite's holds chromedriver's port, which would let the project
drive the browser to the suite's files); what crosses is this one-way mirror: a helper in the
project's namespace (:data:`WATCH_CODE`) reads that namespace's TCP table and names each port
that comes to listen on its loopback (or every address); the harness then listens on the same
port in the suite's namespace and relays each connection there into the project's
(:class:`.forward.Forwarder` with a :class:`.forward.SocketMaker` of the project's namespace).
Only bytes are copied. Nothing the suite's namespace listens on is reachable from the
project's. A port the suite's namespace already uses is left alone; :data:`MAX_PORTS` at most.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from typing import Protocol

from ...errors import InfrastructureError
from .forward import Forwarder, SocketMaker

MAX_PORTS = 16  # ports mirrored for one run at most
LINE_LIMIT = 16  # bytes of one port line from the watcher

# In the watched namespace (the harness's code, run by the harness's interpreter there): every
# 50 ms, the TCP ports listening on 127.0.0.1, 0.0.0.0 or :: (state 0A), each named once
# (argv[2] at most), a line each, to the socket argv[1]; ends when the harness closes its end.
# /proc/net is the reading process's namespace's.
WATCH_CODE = (
    "import select,socket,sys\n"
    "s=socket.socket(fileno=int(sys.argv[1]));seen=set();most=int(sys.argv[2])\n"
    "ok={'0100007F','00000000','00000000000000000000000000000000'}\n"
    "while not select.select([s],[],[],0.05)[0]:\n"
    " for t in ('/proc/net/tcp','/proc/net/tcp6'):\n"
    "  try:\n"
    "   with open(t,'rb') as f:rows=f.read(1<<20).decode().splitlines()[1:]\n"
    "  except OSError:continue\n"
    "  for r in rows:\n"
    "   c=r.split()\n"
    "   if len(c)>3 and c[3]=='0A':\n"
    "    a,_,p=c[1].partition(':');p=int(p,16)\n"
    "    if a in ok and p not in seen and len(seen)<most:\n"
    "     seen.add(p);s.sendall(str(p).encode()+b'\\n')\n"
)


class Namespace(Protocol):
    """What the mirror needs of a step's network (:class:`.UserNet`)."""

    def listen(self, ports) -> list: ...

    def maker(self) -> SocketMaker: ...

    def helper(self, code: str, *args: str) -> tuple: ...


class Mirror:
    """Mirrors the ports ``source`` (the project's namespace) serves into ``target`` (the
    suite's) once both are set (:meth:`source_ready`, :meth:`target_ready`: a sandbox run's
    ``netns`` callbacks); :meth:`close` ends it and every relayed connection."""

    def __init__(self) -> None:
        self._nets: dict[str, Namespace] = {}
        self._cond = threading.Condition()
        self._closed = False
        self._watcher = None  # (socket, process)
        self._maker: SocketMaker | None = None
        self._forwarders: list[Forwarder] = []
        self.mirrored: list[int] = []  # the ports relayed (tests read it)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def source_ready(self, net: Namespace) -> None:
        self._set("source", net)

    def target_ready(self, net: Namespace) -> None:
        self._set("target", net)

    def _set(self, role: str, net: Namespace) -> None:
        with self._cond:
            self._nets[role] = net
            self._cond.notify_all()

    def _run(self) -> None:
        with self._cond:
            self._cond.wait_for(lambda: len(self._nets) == 2 or self._closed)
            if self._closed:
                return
            source, target = self._nets["source"], self._nets["target"]
        with contextlib.suppress(OSError, InfrastructureError):
            self._maker = source.maker()
            self._watcher = source.helper(WATCH_CODE, str(MAX_PORTS))
            if self._closed:
                return  # close() cleans up what was made, after this thread ended
            reader = self._watcher[0].makefile("rb")
            while not self._closed and (line := reader.readline(LINE_LIMIT)):
                self._mirror(target, line)

    def _mirror(self, target: Namespace, line: bytes) -> None:
        try:
            port = int(line)
        except ValueError:
            return
        if not 0 < port < 65536 or port in self.mirrored or len(self.mirrored) >= MAX_PORTS:
            return
        try:
            listeners = target.listen([port])
        except InfrastructureError:
            return  # the suite's namespace uses that port itself (or is gone): left alone
        forwarder = Forwarder(listeners, [port], self._maker.connect)
        forwarder.start()
        self._forwarders.append(forwarder)
        self.mirrored.append(port)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._watcher is not None:  # its end read: the thread's readline returns
            with contextlib.suppress(OSError):
                self._watcher[0].shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=10)
        for forwarder in self._forwarders:
            forwarder.stop()
        if self._watcher is not None:
            sock, proc = self._watcher
            sock.close()
            _end(proc)
        if self._maker is not None:
            self._maker.close()

    def __enter__(self) -> Mirror:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _end(proc: subprocess.Popen) -> None:
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # still running: ended by its pid
        proc.kill()
        proc.wait()
