"""Explicit forwards: a host loopback port reachable from one sandboxed step's namespace.

The listening sockets are made inside the step's network namespace (a socket stays in the
namespace it was made in) and handed to the harness, which accepts on them and relays each
connection to the same port on the host's ``127.0.0.1``. Only bytes are copied; nothing is
parsed. So a step reaches exactly the ports it was given (its model endpoint), not the host.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections.abc import Callable, Sequence

MAX_CONNECTIONS = 64  # open relayed connections of one step at a time
CHUNK = 1 << 16


class Forwarder:
    """Relays connections accepted on ``listeners`` (in a namespace) to ``ports``: the host's
    (default) or, with ``connect``, wherever the sockets it returns are connected."""

    def __init__(
        self,
        listeners: Sequence[socket.socket],
        ports: Sequence[int],
        connect: Callable[[int], socket.socket] | None = None,
    ) -> None:
        self.routes = list(zip(listeners, ports, strict=True))
        self.connect = connect or _host
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._stopped = False
        self.relayed = 0  # connections relayed so far (tests read it)

    def start(self) -> None:
        """Accept on every listener in a daemon thread of its own."""
        for listener, port in self.routes:
            threading.Thread(target=self._accept, args=(listener, port), daemon=True).start()

    def _accept(self, listener: socket.socket, port: int) -> None:
        while not self._stopped:
            try:
                inner, _ = listener.accept()
            except OSError:
                return  # closed by stop()
            if not self._slots.acquire(blocking=False):
                inner.close()  # too many at once: refused, like a full backlog
                continue
            threading.Thread(target=self._relay, args=(inner, port), daemon=True).start()

    def _relay(self, inner: socket.socket, port: int) -> None:
        pair = [inner]
        try:
            outer = self.connect(port)
            pair.append(outer)
            with self._lock:
                self._open.update(pair)
                self.relayed += 1
            back = threading.Thread(target=_pump, args=(outer, inner), daemon=True)
            back.start()
            _pump(inner, outer)
            back.join()
        except OSError:
            pass  # the host's port does not answer: the step sees the connection end
        finally:
            with self._lock:
                self._open.difference_update(pair)
            for sock in pair:
                sock.close()
            self._slots.release()

    def stop(self) -> None:
        """Close the listeners and every relayed connection."""
        self._stopped = True
        for listener, _ in self.routes:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def _host(port: int) -> socket.socket:
    """A connection to ``port`` on the host's loopback."""
    outer = socket.create_connection(("127.0.0.1", port), timeout=10)
    outer.settimeout(None)
    return outer


class SocketMaker:
    """A helper process in another network namespace that makes unconnected TCP sockets there,
    one per byte the harness sends, and hands them over; the harness connects them (to the
    app's port in its namespace: a relay from a browser's namespace into an app's)."""

    CODE = (
        "import socket,sys\n"
        "s=socket.socket(fileno=int(sys.argv[1]))\n"
        "while s.recv(1):\n"
        " t=socket.socket();socket.send_fds(s,[b'1'],[t.fileno()]);t.close()\n"
    )

    def __init__(self, channel: socket.socket, proc: subprocess.Popen) -> None:
        self.channel = channel
        self.proc = proc
        self._lock = threading.Lock()

    def connect(self, port: int, timeout: float = 10) -> socket.socket:
        """A socket of the namespace connected to ``port`` on its ``127.0.0.1``."""
        with self._lock:
            self.channel.sendall(b"1")
            _, fds, _, _ = socket.recv_fds(self.channel, 1, 1)
        if not fds:
            raise OSError("the namespace's socket maker ended")
        made = socket.socket(fileno=fds[0])
        try:
            made.settimeout(timeout)
            made.connect(("127.0.0.1", port))
            made.settimeout(None)
        except OSError:
            made.close()
            raise
        return made

    def close(self) -> None:
        """End the helper (its end of the channel closes: it leaves its loop)."""
        self.channel.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until either ends; then half-close ``sink``."""
    try:
        while chunk := source.recv(CHUNK):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
