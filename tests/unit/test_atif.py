"""A CLI agent's run as an ATIF v1.8 trajectory (issue 42): two calls through the real proxy
to the scripted server in each API, whole and streamed, the second carrying the first's tool
result; the document validates against the published ``atif`` models, with the tool call
paired with its observation and per-step tokens."""

from __future__ import annotations

import json

import pytest
from helpers.proxy import PRICING, post

from pytest_e2ebench.proxy import Budget, Meter, MeteringProxy, Upstream
from pytest_e2ebench.proxy import atif as to_atif
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply, tool_call

atif = pytest.importorskip("atif")  # in the dev extra

USER = {"role": "user", "content": "write a.py"}
ARGS = {"path": "a.py", "text": "x = 1\n"}
FIRST = {
    "chat": ("/chat/completions", {"model": "m", "messages": [USER]}),
    "messages": ("/messages", {"model": "m", "max_tokens": 100, "messages": [USER]}),
    "responses": ("/responses", {"model": "m", "input": [USER]}),
    "gemini": (
        "/models/m:generateContent",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ),
}


def _second(kind: str) -> dict:
    """The second request: the first call's tool result, in the API's own shape (the id as the
    scripted server gave it: Anthropic's carry ``toolu_``)."""
    if kind == "chat":
        call = {
            "id": "call_x",
            "type": "function",
            "function": {"name": "create", "arguments": "{}"},
        }
        said = {"role": "assistant", "content": None, "tool_calls": [call]}
        return {
            "model": "m",
            "messages": [USER, said, {"role": "tool", "tool_call_id": "call_x", "content": "ok"}],
        }
    if kind == "messages":
        use = {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_call_x", "name": "create", "input": {}}],
        }
        result = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_call_x", "content": "ok"}],
        }
        return {"model": "m", "max_tokens": 100, "messages": [USER, use, result]}
    if kind == "responses":
        call = {"type": "function_call", "call_id": "call_x", "name": "create", "arguments": "{}"}
        return {
            "model": "m",
            "input": [
                USER,
                call,
                {"type": "function_call_output", "call_id": "call_x", "output": "ok"},
            ],
        }
    back = {
        "role": "user",
        "parts": [{"functionResponse": {"name": "create", "response": {"result": "ok"}}}],
    }
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, back]}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", sorted(FIRST))
def test_a_proxied_run_is_an_atif_trajectory(tmp_path, kind, stream):
    script = [tool_call("create", ARGS, call_id="call_x", prompt_tokens=100, completion_tokens=10),
              reply("done", prompt_tokens=200, completion_tokens=5)]  # fmt: skip
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    with ScriptedLLM(script) as llm:
        with MeteringProxy(Upstream(llm.base_url, "k", 10), meter, None, model="m") as proxy:
            path = FIRST[kind][0]
            if kind == "gemini" and stream:
                path = "/models/m:streamGenerateContent?alt=sse"
            for body in (FIRST[kind][1], _second(kind)):
                status, data = post(proxy.base_url + path, {**body, "stream": stream})
                assert status == 200, data
    out = to_atif.write(meter.log, tmp_path / "t.json", "claude-code", "2.1", "m", meter.summary())
    document = json.loads(out.read_text())
    trajectory = atif.Trajectory.model_validate(document)
    prompt, first, last = trajectory.steps
    assert prompt.source == "user" and first.source == last.source == "agent"
    (call,) = first.tool_calls
    assert (call.function_name, call.arguments) == ("create", ARGS)
    (result,) = first.observation.results
    assert "ok" in result.content
    assert last.message == "done" and last.observation is None
    assert (first.metrics.prompt_tokens, last.metrics.completion_tokens) == (100, 5)
    assert trajectory.final_metrics.total_prompt_tokens == 300


def test_export_writes_the_trajectory_of_a_run_made_before(tmp_path):
    from pytest_e2ebench import cli

    run = tmp_path / "out" / "claude-code" / "calc" / "run-1"
    meter = Meter(run / "agent" / "proxy.jsonl", PRICING, Budget())
    with ScriptedLLM([reply("done", prompt_tokens=7, completion_tokens=2)]) as llm:
        with MeteringProxy(Upstream(llm.base_url, "k", 10), meter, None, model="m") as proxy:
            assert post(proxy.base_url + "/chat/completions", FIRST["chat"][1])[0] == 200
    assert cli.main(["export", "atif", str(run), str(tmp_path / "atif")]) == 0
    written = tmp_path / "atif" / "claude-code" / "calc" / "run-1.atif.json"
    trajectory = atif.Trajectory.model_validate_json(written.read_text())
    assert [s.source for s in trajectory.steps] == ["user", "agent"]
    assert cli.main(["export", "atif", str(tmp_path), str(tmp_path / "none")]) != 0


def test_the_html_report_shows_each_step_with_its_calls_and_results(tmp_path):
    """Issue 42: the report's trajectory was the first 40 raw lines of the proxy's log; now
    each step of the run's ATIF document, its tool calls and their results (escaped)."""
    from helpers.report import hostile_document

    from pytest_e2ebench.report.html import render

    document = hostile_document(tmp_path)
    record = document["tasks"][0]
    run = tmp_path / "out" / "a" / "t" / "run-1"
    meter = Meter(run / "agent" / "proxy.jsonl", PRICING, Budget())
    script = [tool_call("create", {"path": "<b>x</b>.py"}, call_id="c1"), reply("done")]
    with ScriptedLLM(script) as llm:
        with MeteringProxy(Upstream(llm.base_url, "k", 10), meter, None, model="m") as proxy:
            url = proxy.base_url + "/chat/completions"
            assert post(url, FIRST["chat"][1])[0] == 200
            said = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "create", "arguments": "{}"}}]}  # fmt: skip
            result = {"role": "tool", "tool_call_id": "c1", "content": "<script>x</script>"}
            assert post(url, {"model": "m", "messages": [USER, said, result]})[0] == 200
    written = to_atif.write(meter.log, run / "agent" / to_atif.ATIF_FILE, "aider", "1", "m", {})
    record["agent_run"] = {"details": {"atif": str(written)}}
    html = render(document)
    assert "(3 steps, ATIF" in html and "step 2 · agent · <code>create</code>" in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>x" not in html
    assert "&lt;b&gt;x&lt;/b&gt;.py" in html
