"""Shared by the tests (moved from test_boundary_net.py)."""

from __future__ import annotations

import socket
import threading


class Listener:
    """A harness-side TCP listener that records every connection it accepts."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.sock = socket.create_server((host, 0))
        self.port = self.sock.getsockname()[1]
        self.hits: list[tuple] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            self.hits.append(peer)
            with conn:
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")

    def close(self) -> None:
        self.sock.close()
