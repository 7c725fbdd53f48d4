"""The metering proxy in front of the scripted server, in each API and both answer forms:
usage read as each API reports it, the budget refusing the next call, record then replay with
the upstream stopped giving the same bytes and totals (issue 29)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from openai import OpenAI

from pytest_e2ebench.llm.accounting import Pricing
from pytest_e2ebench.proxy import Budget, Meter, MeteringProxy, Tape, Upstream
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply, tool_call

PRICING = Pricing(prices={"m": (1.0, 2.0, 0.5)})
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


def post(url: str, body: dict) -> tuple[int, bytes]:
    """POST JSON; the status and raw body (errors too)."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


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
    assert meter.summary()["replay_drift"] == 0
    # a replay past the tape is the harness's error, not an answer
    with proxied(tmp_path / "past", None, tape=Tape(tape_dir, "replay"))[0] as proxy:
        for _ in range(3):
            status, _ = post(proxy.base_url + CALLS["responses"][0], CALLS["responses"][1])
    assert status == 502 and proxy.meter.upstream_errors
