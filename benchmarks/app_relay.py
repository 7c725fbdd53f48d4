"""Cost of a command app's own network namespace and the harness's relay (issue 26).

    python benchmarks/app_relay.py [--runs 5] [--requests 200]

Measures, under the machine's ``auto`` sandbox (as root: bubblewrap, as the session runs it):

* a sandboxed ``true`` with and without a namespace handed to the harness (``netns=``: set
  up, ``lo`` up, routes) — the cost per run of a namespace the relay can use;
* a socket maker in a namespace (one helper process) and one listener made there;
* a relayed HTTP request (browser's namespace -> harness -> app's namespace) against the same
  request made directly, per request, in a loop.

Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.server
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.isolation import network  # noqa: E402
from pytest_e2ebench.isolation.sandbox import machine_sandbox  # noqa: E402


class Quiet(http.server.BaseHTTPRequestHandler):
    """Answers every GET with 2 bytes, logging nothing."""

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args) -> None:
        pass


def timed_run(box, tmp: Path, with_ns: bool) -> float:
    began = time.monotonic()
    box.run(
        ["true"],
        cwd=Path("/"),
        env={"PATH": os.defpath},
        timeout=60,
        log=tmp / "log",
        netns=(lambda net: None) if with_ns else None,
    )
    return time.monotonic() - began


def relay_costs(box, tmp: Path, requests: int) -> dict[str, float]:
    """Hold a namespace open with a sleeping run; time the maker, a listener and requests."""
    got: list = []
    ready = threading.Event()

    def hold() -> None:
        box.run(
            ["sleep", "30"],
            cwd=Path("/"),
            env={"PATH": os.defpath},
            timeout=60,
            log=tmp / "hold.log",
            netns=lambda net: (got.append(net), ready.set()),
        )

    threading.Thread(target=hold, daemon=True).start()
    ready.wait(30)
    net = got[0]
    # a server in the harness's namespace stands for the app: the relay's cost is the same
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    began = time.monotonic()
    listeners = net.listen([0])  # a port of the held namespace, relayed to the server
    listen_s = time.monotonic() - began
    inner = listeners[0].getsockname()[1]

    def to_server(_: int) -> socket.socket:
        return socket.create_connection(("127.0.0.1", port))

    forwarder = network.Forwarder(listeners, [inner], to_server)
    forwarder.start()
    began = time.monotonic()
    maker = net.maker()
    maker.connect(inner).close()
    maker_s = time.monotonic() - began

    def request(sock: socket.socket) -> None:
        with sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            while sock.recv(65536):
                pass

    direct, relayed = [], []
    for _ in range(requests):
        t = time.monotonic()
        request(socket.create_connection(("127.0.0.1", port)))
        direct.append(time.monotonic() - t)
        t = time.monotonic()
        request(maker.connect(inner))  # from inside the namespace, through the relay
        relayed.append(time.monotonic() - t)
    forwarder.stop()
    maker.close()
    server.shutdown()
    return {
        "listener_s": listen_s,
        "maker_first_connection_s": maker_s,
        "request_direct_ms": statistics.median(direct) * 1000,
        "request_relayed_ms": statistics.median(relayed) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    box = machine_sandbox()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        plain = [timed_run(box, tmp_path, False) for _ in range(args.runs)]
        with_ns = [timed_run(box, tmp_path, True) for _ in range(args.runs)]
        print(f"mode {box.mode}, uid {os.geteuid()}")
        print(f"sandboxed true: {statistics.median(plain):.3f} s")
        print(f"sandboxed true with a namespace handed over: {statistics.median(with_ns):.3f} s")
        for key, value in relay_costs(box, tmp_path, args.requests).items():
            print(f"{key}: {value:.3f}")


if __name__ == "__main__":
    main()
