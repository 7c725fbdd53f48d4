"""What an endpoint answers that is not a chat completion is the endpoint's failure
(LLMUnavailable, an infrastructure error), never a harness error: a real OpenAI client
against a loopback server that answers 200 with a body that is not JSON."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pytest_e2ebench.llm import Pricing
from pytest_e2ebench.llm.base import LLMUnavailable
from pytest_e2ebench.llm.client import OpenAIChat


class _Text(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<html>a proxy's page</html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        """Quiet."""


def test_a_text_answer_is_the_endpoints_failure():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Text)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = OpenAIChat(
            model="m",
            base_url=f"http://127.0.0.1:{server.server_port}/v1",
            api_key=None,
            pricing=Pricing(),
            max_retries=0,
            timeout=10,
        )
        with pytest.raises(LLMUnavailable, match="not a chat completion.*a proxy's page"):
            client.complete([{"role": "user", "content": "hi"}])
    finally:
        server.shutdown()
        server.server_close()
