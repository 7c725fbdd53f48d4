"""The metering proxy in front of the scripted server, in each API and both answer forms:
usage read as each API reports it, the budget refusing the next call, record then replay with
the upstream stopped giving the same bytes and totals (issue 29)."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from helpers.proxy import PRICING, post
from openai import OpenAI

from pytest_e2ebench.llm.accounting import Pricing, shipped_prices
from pytest_e2ebench.proxy import Budget, Meter, MeteringProxy, Tape, Upstream
from pytest_e2ebench.proxy.server import LoopbackServer
from pytest_e2ebench.proxy.tape import content_hash
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply, tool_call

USER = [{"role": "user", "content": "hi"}]
SCRIPT = [
    tool_call(
        "create",
        {"path": "a.py", "text": "x = 1\n"},
        prompt_tokens=100,
        completion_tokens=10,
        cached_tokens=40,
    ),
    reply("done", prompt_tokens=200, completion_tokens=5),
]


def proxied(tmp_path, upstream, budget=None, tape=None):
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, budget or Budget())
    up = Upstream(upstream.base_url, "real-key", 10) if upstream else None
    return MeteringProxy(up, meter, tape, model="m"), meter


CALLS = {
    "chat": ("/chat/completions", {"model": "m", "messages": USER}),
    "messages": ("/messages", {"model": "m", "max_tokens": 100, "messages": USER}),
    "responses": ("/responses", {"model": "m", "input": USER}),
    "gemini": ("/models/m:generateContent", {"contents": [{"parts": [{"text": "hi"}]}]}),
}


def call_path(kind: str, stream: bool) -> str:
    """The request path; Gemini streams at its own verb, as server-sent events."""
    path = CALLS[kind][0]
    if kind == "gemini" and stream:
        return "/models/m:streamGenerateContent?alt=sse"
    return path


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", sorted(CALLS))
def test_each_api_is_metered(tmp_path, kind, stream):
    body = CALLS[kind][1]
    with ScriptedLLM(SCRIPT) as llm, proxied(tmp_path, llm)[0] as proxy:
        for _ in SCRIPT:
            status, data = post(
                proxy.base_url + call_path(kind, stream), {**body, "stream": stream}
            )
            assert status == 200, data
    summary = proxy.meter.summary()
    assert summary["steps"] == 2
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (300, 15)
    assert summary["cached_prompt_tokens"] == 40
    # 60 fresh + 200 at $1, 40 cached at $0.5, 15 out at $2 per million
    assert summary["cost_usd"] == pytest.approx((260 + 20 + 30) / 1e6)
    assert llm.requests[0].get("model", "m") == "m"  # forwarded as the agent sent it
    lines = [json.loads(x) for x in (tmp_path / "proxy.jsonl").read_text().splitlines()]
    assert [x["dialect"] for x in lines] == [kind, kind]
    assert "create" in lines[0]["response"]


# --- the shipped price table (issue 42, item 5) ---------------------------------------------

SONNET = "claude-sonnet-4-5-20250929"  # a dated name: priced as claude-sonnet-4-5
PRICED = [
    reply(
        "thinking done",
        prompt_tokens=10_000,
        completion_tokens=3_000,
        cached_tokens=6_000,
        cache_write_tokens=2_500,
        reasoning_tokens=1_200,
    ),
]
# what each API's answer carries of the step: Anthropic's cache writes, the others' reasoning
CARRIES = {
    "messages": (2_500, 0),
    "chat": (2_500, 1_200),
    "responses": (0, 1_200),
    "gemini": (0, 1_200),
}


def priced_call(tmp_path, kind: str, stream: bool, price_lines: list[str]) -> dict:
    """One call of ``kind`` for :data:`SONNET` through the proxy, priced as a run's settings
    price it (``Pricing.parse`` of the ini lines); the meter's summary."""
    meter = Meter(tmp_path / f"{kind}.jsonl", Pricing.parse(price_lines, [], []), Budget())
    body = {**CALLS[kind][1], "model": SONNET, "stream": stream}
    with ScriptedLLM(PRICED) as llm:
        with MeteringProxy(Upstream(llm.base_url, "k", 10), meter, None, model=SONNET) as proxy:
            status, data = post(proxy.base_url + call_path(kind, stream), body)
    assert status == 200, data
    return meter.summary()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", sorted(CALLS))
def test_the_shipped_table_prices_cache_writes_and_reasoning_apart(tmp_path, kind, stream):
    """No e2ebench_prices: the shipped list price of claude-sonnet-4-5 prices the call, its cache
    writes at the cache-write price (1.25 x the prompt's), and the summary names the table."""
    written, reasoning = CARRIES[kind]
    summary = priced_call(tmp_path, kind, stream, [])
    table = shipped_prices()
    assert table.models["claude-sonnet-4-5"] == (3.0, 15.0, 0.3, 3.75)
    assert summary["price_source"] == f"shipped {table.date}"
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (10_000, 3_000)
    assert summary["cached_prompt_tokens"] == 6_000
    assert (summary["cache_write_prompt_tokens"], summary["reasoning_tokens"]) == (
        written,
        reasoning,
    )
    fresh = 10_000 - 6_000 - written
    expected = (fresh * 3.0 + 6_000 * 0.3 + written * 3.75 + 3_000 * 15.0) / 1e6
    assert summary["cost_usd"] == pytest.approx(expected, abs=1e-9)


def test_a_users_price_overrides_the_shipped_one(tmp_path):
    """The user's line for the undated name wins over the table; a price left out of it (here
    the cache write) is the user's prompt price, as before."""
    summary = priced_call(tmp_path, "messages", False, ["claude-sonnet-4-5 1 2 0.5"])
    assert summary["price_source"] == "user"
    assert summary["cost_usd"] == pytest.approx(
        (1_500 * 1 + 6_000 * 0.5 + 2_500 * 1 + 3_000 * 2) / 1e6
    )
    summary = priced_call(tmp_path, "messages", False, ["claude-sonnet-4-5 1 2 0.5 4"])
    assert summary["cost_usd"] == pytest.approx((1_500 + 3_000 + 2_500 * 4 + 6_000) / 1e6)


def test_openai_client_streams_through_the_proxy(tmp_path):
    with ScriptedLLM(SCRIPT) as llm, proxied(tmp_path, llm)[0] as proxy:
        client = OpenAI(base_url=proxy.base_url, api_key="dummy", max_retries=0)
        chunks = list(client.chat.completions.create(model="m", messages=USER, stream=True))
        assert chunks[0].choices[0].delta.tool_calls[0].function.name == "create"
        assert llm.requests[0]["stream_options"] == {"include_usage": True}
        answer = client.responses.create(model="m", input="hi")
        assert answer.output_text == "done"
    assert proxy.meter.summary()["prompt_tokens"] == 300


def test_budget_refuses_the_next_call(tmp_path):
    with ScriptedLLM(SCRIPT) as llm:
        proxy, meter = proxied(tmp_path, llm, Budget(tokens=50))
        with proxy:
            path, body = CALLS["messages"]
            assert post(proxy.base_url + path, body)[0] == 200
            status, data = post(proxy.base_url + path, body)
    assert status == 400 and b"--e2e-max-tokens=50" in data
    assert json.loads(data)["type"] == "error"  # Anthropic's error shape
    assert meter.summary()["budget_exceeded"].startswith("the token budget")
    assert llm.remaining() == 1  # the refused call never reached the model


def test_record_then_replay_without_upstream(tmp_path):
    tape_dir = tmp_path / "tape"
    answers = {}
    for mode in ("record", "replay"):
        with ScriptedLLM(SCRIPT if mode == "record" else []) as llm:
            upstream = llm if mode == "record" else None
            proxy, meter = proxied(tmp_path / mode, upstream, tape=Tape(tape_dir, mode))
            with proxy:
                path, body = CALLS["responses"]
                answers[mode] = [
                    post(proxy.base_url + path, {**body, "stream": True}) for _ in SCRIPT
                ]
        totals = meter.summary()
        answers[mode].append({k: totals[k] for k in ("steps", "prompt_tokens", "cost_usd")})
    assert answers["record"] == answers["replay"]
    assert meter.summary()["replay_drift"] == 0 and meter.summary()["replay_matched"] == 2
    # a request of other content (not streamed) matches no recording: a miss, named
    with proxied(tmp_path / "other", None, tape=Tape(tape_dir, "replay"))[0] as proxy:
        status, _ = post(proxy.base_url + CALLS["responses"][0], CALLS["responses"][1])
    misses = proxy.meter.summary()["replay_misses"]
    assert status == 502 and len(misses) == 1 and "request 1 to /v1/responses" in misses[0]
    # by position (the lenient mode), it gets the next answer; past the tape, the harness's error
    tape = Tape(tape_dir, "replay", match="position")
    with proxied(tmp_path / "past", None, tape=tape)[0] as proxy:
        for _ in range(3):
            status, _ = post(proxy.base_url + CALLS["responses"][0], CALLS["responses"][1])
    assert status == 502 and proxy.meter.upstream_errors
    assert proxy.meter.summary()["replay_drift"] == 2


def test_what_varies_by_run_is_left_out_of_a_request_s_content():
    """Measured on two recordings of claude-code's run of one task (issue 42, item 6): its
    session and device ids, the output folder (also dash-joined), today's date."""

    def request(out: str, session: str, date: str, prompt: str = "build it") -> dict:
        user = json.dumps({"device_id": session * 2, "session_id": session})
        return {
            "model": "m",
            "metadata": {"user_id": user},
            "system": [{"type": "text", "text": f"memory at {out.replace('/', '-')}; {date}"}],
            "messages": [
                {"role": "user", "content": f"{prompt} in {out}/claude-code/calc/run-1/repo"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": session}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": session}]},
            ],
        }

    one = request("/tmp/a/out", "3f2a9c1e-0b1d-4c2e-9f00-1a2b3c4d5e6f", "Today is 2026-12-03.")
    two = request("/srv/b/results", "9d8e7f6a-5b4c-4d3e-8f2a-0a1b2c3d4e5f", "Today is 2027-01-09.")
    places = ({"/tmp/a/out": "<out>"}, {"/srv/b/results": "<out>"})
    first = content_hash("/v1/messages", "messages", one, places[0])
    assert first == content_hash("/v1/messages", "messages", two, places[1])
    changed = request("/tmp/a/out", one["metadata"]["user_id"][-38:-2], "2026-12-03", "build more")
    assert first != content_hash("/v1/messages", "messages", changed, places[0])
    timing = {"model": "m", "messages": [{"role": "tool", "content": "3 passed in 0.41s"}]}
    slower = {"model": "m", "messages": [{"role": "tool", "content": "3 passed in 2.07s"}]}
    assert content_hash("/x", "chat", timing, {}) == content_hash("/x", "chat", slower, {})


# --- event streams relayed as they arrive ---------------------------------------------------

FIRST = b'data: {"choices": [{"index": 0, "delta": {"content": "wor"}}]}\n\n'
LAST = (
    b'data: {"choices": [{"index": 0, "delta": {"content": "king"}}], '
    b'"usage": {"prompt_tokens": 7, "completion_tokens": 3}}\n\ndata: [DONE]\n\n'
)


class GatedStream(BaseHTTPRequestHandler):
    """An upstream that streams its first event, then waits for the test's gate before the
    rest (or, with ``cut``, closes the connection in the middle of its chunked answer)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(FIRST), FIRST))
        self.wfile.flush()
        self.server.opened.set()
        self.server.gate_seen = self.server.gate.wait(20)
        if self.server.cut:
            self.wfile.write(b"%x\r\n%s" % (len(LAST), LAST[:10]))  # cut inside a chunk
            self.close_connection = True
            return
        self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(LAST), LAST))


@contextlib.contextmanager
def gated(tmp_path, cut=False, drain=60.0):
    """A proxy in front of a :class:`GatedStream`; yields (proxy, upstream server)."""
    server = LoopbackServer(("127.0.0.1", 0), GatedStream)
    server.gate, server.opened, server.gate_seen, server.cut = (
        threading.Event(),
        threading.Event(),
        None,
        cut,
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    try:
        up = Upstream(base, "real-key", 30)
        with MeteringProxy(up, meter, None, model="m", drain=drain) as proxy:
            yield proxy, server
    finally:
        server.gate.set()
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def open_stream(proxy):
    """The agent's side: a streamed chat completion through the proxy, its response."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    body = json.dumps({"model": "m", "messages": USER, "stream": True})
    try:
        connection.request(
            "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"}
        )
        yield connection.getresponse()
    finally:
        connection.close()


def test_an_event_stream_reaches_the_agent_while_the_model_still_writes(tmp_path):
    """The upstream sends the rest only after the agent has read the first event: a proxy
    that buffered the answer would leave both waiting (the gate's 20 s, then a failure)."""
    with gated(tmp_path) as (proxy, upstream):
        with open_stream(proxy) as answer:
            assert answer.status == 200
            assert answer.getheader("Content-Type") == "text/event-stream"
            assert answer.readline() + answer.readline() == FIRST
            upstream.gate.set()
            assert answer.read() == LAST
    assert upstream.gate_seen is True  # the first event came before the model went on
    summary = proxy.meter.summary()
    assert (summary["steps"], summary["prompt_tokens"], summary["completion_tokens"]) == (1, 7, 3)
    assert summary["upstream_errors"] == []


def test_an_agent_that_hangs_up_mid_stream_is_metered_not_an_upstream_error(tmp_path):
    """Closing its connection does not turn the agent's own call into the upstream's failure
    (an infrastructure error): what the model generated is counted as any answer."""
    with gated(tmp_path) as (proxy, upstream):
        with open_stream(proxy) as answer:
            assert answer.readline() + answer.readline() == FIRST
        upstream.gate.set()
        for _ in range(200):  # the proxy meters once the upstream's answer has ended
            if proxy.meter.summary()["steps"]:
                break
            time.sleep(0.05)
    summary = proxy.meter.summary()
    assert (summary["steps"], summary["completion_tokens"]) == (1, 3)
    assert summary["upstream_errors"] == []


def test_a_stream_the_upstream_cuts_short_is_its_error_and_reaches_the_agent_cut(tmp_path):
    with gated(tmp_path, cut=True) as (proxy, upstream):
        with open_stream(proxy) as answer:
            assert answer.readline() + answer.readline() == FIRST
            upstream.gate.set()
            with pytest.raises(http.client.IncompleteRead):
                answer.read()
    errors = proxy.meter.summary()["upstream_errors"]
    assert len(errors) == 1 and "broke off" in errors[0]
    assert proxy.meter.summary()["steps"] == 0


def test_a_call_still_running_when_the_step_ends_is_metered(tmp_path):
    """An agent killed at its timeout in the middle of a call: the model goes on and the call
    costs what it generates. Closing the run's proxy waits for it, so the record has it
    (it closed at once before, and the call was metered after the record was made)."""
    with gated(tmp_path) as (proxy, upstream):
        with open_stream(proxy) as answer:
            assert answer.readline() + answer.readline() == FIRST
        threading.Timer(0.5, upstream.gate.set).start()
    summary = proxy.meter.summary()  # read as the runner does, right after the proxy closed
    assert (summary["steps"], summary["completion_tokens"]) == (1, 3)
    assert summary["in_flight_at_end"] == 0


def test_a_call_running_past_the_drain_is_named_in_the_summary(tmp_path):
    with gated(tmp_path, drain=0.3) as (proxy, upstream):
        with open_stream(proxy) as answer:
            assert answer.readline() + answer.readline() == FIRST
        threading.Timer(3, upstream.gate.set).start()
    summary = proxy.meter.summary()
    assert summary["in_flight_at_end"] == 1  # (metered later, after the record was made)
    logged = [json.loads(line) for line in (tmp_path / "proxy.jsonl").read_text().splitlines()]
    note = [entry for entry in logged if "in_flight" in entry]
    assert len(note) == 1 and note[0]["in_flight"] == 1 and "not metered" in note[0]["error"]
