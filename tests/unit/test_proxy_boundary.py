"""The metering proxy as a model boundary (issue 40): an allow-list of targets, the run's
model, budgets reserved before a call goes out. Each test failed on fa9a651's proxy, which
relayed any path ending in a dialect's suffix, forwarded any model and checked budgets only
after answers."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from pytest_e2ebench.llm.accounting import Pricing
from pytest_e2ebench.proxy import Budget, Meter, MeteringProxy, Upstream
from pytest_e2ebench.proxy.server import LoopbackServer

PRICING = Pricing(prices={"m": (1.0, 2.0, 0.5)})
USER = [{"role": "user", "content": "hi"}]


class Honest(BaseHTTPRequestHandler):
    """An upstream that records each request's path and body and answers with the tokens a
    model would spend: the prompt's size / 4, and every output token the call allows."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        body = json.loads(raw)
        self.server.seen.append((self.path, body))
        out = body.get("max_tokens") or 1000
        usage = {"prompt_tokens": len(raw) // 4, "completion_tokens": out}
        data = json.dumps({"choices": [{"message": {"content": "ok"}}], "usage": usage}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def proxy_before(tmp_path, budget=None, models=()):
    """A proxy (the run's model "m") in front of :class:`Honest`; yields (proxy, upstream)."""
    server = LoopbackServer(("127.0.0.1", 0), Honest)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, budget or Budget())
    up = Upstream(f"http://127.0.0.1:{server.server_address[1]}/v1", "real-key", 30)
    try:
        with MeteringProxy(up, meter, None, model="m", models=models) as proxy:
            yield proxy, server
    finally:
        server.shutdown()
        server.server_close()


def raw_post(port: int, target: bytes, body: dict) -> int:
    """POST ``target`` exactly as given (no client checks it): the status the proxy gives."""
    data = json.dumps(body).encode()
    head = (
        b"POST " + target + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(data)
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


REFUSED = [
    b"/v1/anything#/messages",
    b"/v1/threads/abc/messages",
    b"/v1/x/../../admin/messages",
    b"/v1/./chat/completions",
    b"/v1/chat%2Fcompletions",
    b"/v1/responses#/chat/completions",
    b"/v1/chat/completions\x01",
    b"/v1/messages?beta=true&key=x",
    b"/v1/messages?redirect=http://elsewhere",
    b"/v1beta/models/../admin:generateContent",
    b"/v1/chat/completions/",
]


@pytest.mark.parametrize("target", REFUSED, ids=[t.decode("latin-1") for t in REFUSED])
def test_a_target_off_the_allow_list_is_the_agents_404_and_reaches_nothing(tmp_path, target):
    with proxy_before(tmp_path) as (proxy, upstream):
        body = {"model": "m", "messages": USER, "background": True}
        assert raw_post(proxy.port, target, body) == 404
    assert upstream.seen == []
    summary = proxy.meter.summary()
    assert summary["upstream_errors"] == [] and summary["steps"] == 0


def test_the_dialects_paths_reach_the_upstream_at_the_tables_paths(tmp_path):
    with proxy_before(tmp_path) as (proxy, upstream):
        assert raw_post(proxy.port, b"/v1/messages?beta=true", {"model": "m"}) == 200
        assert raw_post(proxy.port, b"/v1/chat/completions", {"model": "m"}) == 200
        assert raw_post(proxy.port, b"/v1beta/models/m:generateContent", {"contents": []}) == 200
    assert [path for path, _ in upstream.seen] == [
        "/v1/messages?beta=true",
        "/v1/chat/completions",
        "/v1/models/m:generateContent",
    ]


def test_the_model_is_the_runs(tmp_path):
    """An agent graded as one model called another (its cost unknown: no price)."""
    with proxy_before(tmp_path, models=("small",)) as (proxy, upstream):
        assert raw_post(proxy.port, b"/v1/chat/completions", {"model": "stronger"}) == 200
        assert raw_post(proxy.port, b"/v1/chat/completions", {"model": "small"}) == 200
        assert raw_post(proxy.port, b"/v1/models/stronger:generateContent", {}) == 200
    assert [body.get("model") for _, body in upstream.seen] == ["m", "small", None]
    assert upstream.seen[2][0] == "/v1/models/m:generateContent"
    models = proxy.meter.summary()["models"]
    assert sorted(models) == ["m", "small"] and models["m"]["calls"] == 2
    log = [json.loads(x) for x in proxy.meter.log.read_text().splitlines()]
    assert [x.get("asked_model") for x in log] == ["stronger", None, "stronger"]


def test_concurrent_calls_cannot_overrun_the_token_budget(tmp_path):
    """24 calls at once against 5,000 tokens: each went out before any was metered."""
    budget = Budget(tokens=5000)
    with proxy_before(tmp_path, budget) as (proxy, upstream):
        body = {"model": "m", "messages": USER, "max_tokens": 1000}
        threads = [
            threading.Thread(target=raw_post, args=(proxy.port, b"/v1/chat/completions", body))
            for _ in range(24)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    summary = proxy.meter.summary()
    assert summary["prompt_tokens"] + summary["completion_tokens"] <= 5000, summary
    assert summary["steps"] >= 4 and summary["budget_exceeded"]
    # the last calls were given what was left, not what they asked
    assert min(b["max_tokens"] for _, b in upstream.seen) < 1000


def test_the_cost_budget_is_reserved_too(tmp_path):
    budget = Budget(cost_usd=0.01)  # $2 per million output tokens: 5,000 tokens
    with proxy_before(tmp_path, budget) as (proxy, _):
        body = {"model": "m", "messages": USER, "max_tokens": 4000}
        for _ in range(4):
            raw_post(proxy.port, b"/v1/chat/completions", body)
    assert proxy.meter.summary()["cost_usd"] <= 0.01


class Slow(Honest):
    """An upstream that answers its models list at once and a call only after 3 s."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_POST(self) -> None:
        time.sleep(3)
        super().do_POST()


def test_a_call_the_agent_shaped_that_times_out_is_its_note_not_an_upstream_error(tmp_path):
    """One call that outlived the upstream's timeout (a huge max_tokens on a slow model) made
    the whole run an infrastructure error, later answers or not (issue 40's audit)."""
    server = LoopbackServer(("127.0.0.1", 0), Slow)
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    up = Upstream(f"http://127.0.0.1:{server.server_address[1]}/v1", "real-key", 1)
    try:
        with MeteringProxy(up, meter, None, model="m") as proxy:
            body = {"model": "m", "messages": USER, "max_tokens": 128000}
            assert raw_post(proxy.port, b"/v1/chat/completions", body) == 502
    finally:
        server.shutdown()
        server.server_close()
    summary = meter.summary()
    assert summary["upstream_errors"] == [] and len(summary["failed_calls"]) == 1
    assert "timed out" in summary["failed_calls"][0]
