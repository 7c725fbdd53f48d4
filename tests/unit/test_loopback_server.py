"""The harness's loopback HTTP servers (the metering proxy, the scripted LLM) never block in
``accept``: a client that resets between the server's select and its accept once left a
scripted-LLM fixture's teardown waiting for ever in the full suite run (session 11)."""

import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler

from pytest_e2ebench.proxy.server import LoopbackServer
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM


def test_the_listening_socket_does_not_block_and_shutdown_returns_after_resets():
    server = LoopbackServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    assert server.socket.getblocking() is False  # accept raises instead of waiting
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    for _ in range(50):  # connections reset at once (SO_LINGER 0), racing the server's accept
        client = socket.create_connection(server.server_address)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
    started = time.monotonic()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    assert not thread.is_alive() and time.monotonic() - started < 5


def test_the_scripted_llm_serves_from_such_a_socket():
    with ScriptedLLM() as llm:
        assert llm._server.socket.getblocking() is False
