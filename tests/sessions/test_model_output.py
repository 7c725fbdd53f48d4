"""What real models emit (issue 19), through the scripted server and the real openai client:
tool calls written as text, answers without calls, calls repeated, a refusal once the
conversation is long, and the context policy. Outputs are shaped like what a local
Qwen2.5-Coder model served by llama.cpp sent (issue 19's report), and one is what Gemma 3 270M
sent here (tests/sessions/test_model_tier.py runs it live)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.llm import calc_files, ini

from pytest_e2ebench.agents import textcalls
from pytest_e2ebench.agents.sdagent import fit_context
from pytest_e2ebench.agents.tools import TOOL_NAMES
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply, tool_call


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def fenced(name: str, arguments: dict) -> str:
    """A call as the 1.5B model wrote it: a fenced json block in the content, no tool_calls."""
    body = json.dumps({"name": name, "arguments": arguments}, indent=2)
    return f"I will now {name} the file.\n\n```json\n{body}\n```\n"


def tagged(name: str, arguments: dict) -> str:
    """A call in the Hermes/Qwen template's tags."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def run(pytester, llm, *extra: str):
    return pytester.runpytest(
        "--e2e-agent=sdagent-single", f"--e2e-llm-base-url={llm.base_url}", *extra
    )


def test_calls_written_as_text_are_executed(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    files = list(calc_files(tasks, pytester).items())
    steps = [reply(fenced("create", {"path": p, "content": t})) for p, t in files[:-1]]
    path, text = files[-1]
    steps.append(reply(tagged("create", {"path": path, "content": text})))
    steps.append(reply(tagged("submit", {"summary": "done"})))
    llm.push(*steps)
    run(pytester, llm).assert_outcomes(passed=3)
    record = results()["tasks"][0]
    assert record["metrics"]["impl_rate"] == 1.0
    assert record["metrics"]["steps"] == len(steps)
    # the result of a text call comes back as text, where the model can read it
    second = llm.requests[1]["messages"]
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("[create result]")
    trajectory = Path(record["agent_run"]["details"]["trajectory"]).read_text().splitlines()
    assert json.loads(trajectory[0])["observations"][0]["text"] is True


def test_answers_without_a_call_are_told_so_and_end_the_role_when_they_go_on(
    pytester, tasks, results, llm
):
    tasks.make()
    ini(pytester)
    llm.push(
        reply("I think the package should have an add function."),
        reply(""),
        reply("Let me think about it more."),
        tool_call("submit", {"summary": "never reached"}),
    )
    run(pytester, llm).assert_outcomes(failed=3)
    record = results()["tasks"][0]
    assert record["metrics"]["steps"] == 3  # of 200: stalled, not the step limit
    assert "stalled, 3 answers in a row without a tool call" in record["agent_run"]["note"]
    told = [body["messages"][-1]["content"] for body in llm.requests[1:]]
    assert told[0].startswith("No tool call was recognised in your answer, so nothing ran.")
    assert told[1].startswith("Your answer was empty.")
    assert record.get("error") is None and record["metrics"] is not None  # graded, not errored


def test_the_same_call_over_and_over_ends_the_role(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(*[tool_call("view", {"path": "missing.py"}) for _ in range(6)])
    run(pytester, llm).assert_outcomes(failed=3)
    record = results()["tasks"][0]
    assert record["metrics"]["steps"] == 4
    assert (
        "the same tool call(s) with the same result 4 times in a row"
        in (record["agent_run"]["note"])
    )


@pytest.mark.parametrize("status", [400, 422])  # 422: TGI's answer (issue 40's audit)
def test_a_refusal_after_progress_is_the_agents_failure_not_infrastructure(
    pytester, tasks, results, llm, status
):
    tasks.make()
    ini(pytester)
    files = calc_files(tasks, pytester)
    llm.push(
        *[tool_call("create", {"path": p, "content": t}) for p, t in files.items()],
        error(status, "the request exceeds the available context size (8192 tokens)"),
    )
    run(pytester, llm).assert_outcomes(passed=3)  # what it wrote before is graded
    record = results()["tasks"][0]
    assert record["metrics"]["impl_rate"] == 1.0
    note = record["agent_run"]["note"]
    assert f"refused step {len(files) + 1} after accepting the earlier ones" in note, note
    assert "exceeds the available context size" in note


def test_a_refusal_of_the_first_request_is_infrastructure(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(error(400, "model 'nope' not found"))
    result = run(pytester, llm)
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*refused the request (400)*"])


def test_text_call_shapes():
    names = TOOL_NAMES
    assert textcalls.parse(fenced("bash", {"command": "ls"}), names) == [
        ("bash", '{"command": "ls"}')
    ]
    assert textcalls.parse(tagged("view", {"path": "a.py"}), names) == [
        ("view", '{"path": "a.py"}')
    ]
    # a tag the model did not close (cut at the token limit), a function wrapper, a list
    assert textcalls.parse('<tool_call>{"name": "submit", "arguments": {}}', names) == [
        ("submit", "{}")
    ]
    wrapped = {"function": {"name": "find", "parameters": {"pattern": "*.py"}}}
    listed = {"name": "view", "arguments": {"path": "b.py"}}
    assert textcalls.parse(json.dumps([wrapped, listed, wrapped]), names) == [
        ("find", '{"pattern": "*.py"}'),
        ("view", '{"path": "b.py"}'),
    ]  # the same call twice in one message runs once
    # arguments as a string are passed on as written (the tool says if they are not JSON)
    assert textcalls.parse('{"name": "bash", "arguments": "{\\"command\\": 1"}', names) == [
        ("bash", '{"command": 1')
    ]
    # not calls: unknown names, prose, JSON that is no call, a block of code
    assert textcalls.parse(fenced("launch", {"x": 1}), names) == []
    assert textcalls.parse("Use the bash tool to run ls.", names) == []
    assert textcalls.parse('```json\n{"path": "a.py"}\n```', names) == []
    assert textcalls.parse("```python\nprint('hi')\n```", names) == []
    assert textcalls.parse(None, names) == []


def test_gemma_echo_with_chat_template_tokens_cut_at_the_limit():
    """Byte for byte what Gemma 3 270M (Q4_K_M, llama-server --jinja, temperature 0, -n 256)
    sent when the engineer's prompt's user message was one ``<tool_call>`` block: the call
    repeated between ChatML tokens of a template it was never trained on, ``tool_calls: null``,
    ``finish_reason: "length"``, cut one character into the sixth copy. The copies run once."""
    call = {"name": "create", "arguments": {"path": "calc/__init__.py", "content": "x = 1\n"}}
    block = f"<tool_call>{json.dumps(call)}</tool_call>"
    content = "<|im_end|>\n<|im_start|>user\n".join([block] * 5) + "<"
    found = textcalls.parse(content, TOOL_NAMES)
    assert found == [("create", json.dumps(call["arguments"]))]  # five copies run once
    other = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
    bash = ("bash", '{"command": "ls"}')
    assert textcalls.parse(block + other + block, TOOL_NAMES) == [found[0], bash]


def test_fit_context_drops_oldest_tool_outputs_first():
    messages = [
        {"role": "system", "content": "s" * 100},
        {"role": "user", "content": "r" * 1000},
    ]
    for i in range(10):
        messages.append({"role": "assistant", "content": None, "tool_calls": []})
        messages.append({"role": "tool", "tool_call_id": str(i), "content": f"{i}" * 5000})
    total = sum(len(m["content"] or "") for m in messages)
    assert fit_context(messages, total) == 0  # fits: nothing changes
    dropped = fit_context(messages, total - 12_000)
    assert dropped == 3  # three outputs of 5000 characters, the oldest
    contents = [m["content"] for m in messages if m["role"] == "tool"]
    assert all(c.startswith("[tool output dropped") for c in contents[:3])
    assert contents[3] == "3" * 5000
    assert messages[1]["content"] == "r" * 1000  # the requirements stay
    # the last messages stay whole whatever the budget
    fit_context(messages, 0)
    assert [m["content"] for m in messages[-6:] if m["role"] == "tool"] == [
        f"{i}" * 5000 for i in (7, 8, 9)
    ]


def test_cached_prompt_tokens_are_priced_and_counted_apart(pytester, tasks, results, llm):
    # llama.cpp's prompt cache served most of every later step (issue 19: ~8x the cost when
    # counted as fresh)
    tasks.make()
    ini(pytester, e2ebench_prices="scripted-model 2.0 8.0 0.5")
    files = list(calc_files(tasks, pytester).items())
    llm.push(
        *[
            tool_call(
                "create",
                {"path": p, "content": t},
                prompt_tokens=1000,
                completion_tokens=100,
                cached_tokens=800,
            )
            for p, t in files
        ],
        tool_call("submit", {"summary": "done"}, prompt_tokens=1000, completion_tokens=10),
    )
    run(pytester, llm).assert_outcomes(passed=3)
    record = results()["tasks"][0]
    m = record["metrics"]
    n = len(files)
    assert m["tokens_sent"] == 1000 * (n + 1)
    assert record["agent_run"]["details"]["cached_prompt_tokens"] == 800 * n
    fresh, cached = 200 * n + 1000, 800 * n
    completion = 100 * n + 10
    assert m["cost_usd"] == pytest.approx((fresh * 2 + cached * 0.5 + completion * 8) / 1e6)
    # CO2 counts the forward passes only: fresh prompt and generated tokens
    from pytest_e2ebench.llm.accounting import co2_grams

    assert m["co2_g"] == pytest.approx(co2_grams(fresh + completion, 7e9))
