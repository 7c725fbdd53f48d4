"""ScriptedLLM answers the real openai client the way the script says."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import openai
import pytest
from openai import OpenAI

from pytest_e2ebench.tools.testing.scripted_llm import (
    ScriptedLLM,
    error,
    hang,
    reply,
    tool_call,
    tool_calls,
)

USER = [{"role": "user", "content": "Say hello."}]


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


def client(server: ScriptedLLM, **kwargs) -> OpenAI:
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("timeout", 5)
    return OpenAI(base_url=server.base_url, api_key="test", **kwargs)


# Under heavy load the openai client (3.x) has been seen to let its transport's ReadTimeout
# escape instead of wrapping it in APITimeoutError; both mean the client gave up waiting.
CLIENT_TIMEOUTS = (openai.APITimeoutError, TimeoutError)
try:  # the transport's own timeout class, whatever the client's HTTP stack is called
    import httpcore2

    CLIENT_TIMEOUTS += (httpcore2.TimeoutException,)
except ImportError:  # pragma: no cover - other openai versions
    pass


def ask(server: ScriptedLLM, messages=USER, **kwargs):
    with client(server, **kwargs) as c:
        return c.chat.completions.create(model="gpt-test", messages=messages)


def test_text_reply_with_default_and_explicit_usage(llm):
    llm.push(reply("Hello!"), reply("again", prompt_tokens=7, completion_tokens=3))

    first = ask(llm)
    assert first.object == "chat.completion"
    assert first.model == "gpt-test"
    assert first.created == 1_700_000_000
    choice = first.choices[0]
    assert (choice.index, choice.finish_reason) == (0, "stop")
    assert (choice.message.role, choice.message.content) == ("assistant", "Hello!")
    assert choice.message.tool_calls is None
    expected_prompt = (
        len(json.dumps({"messages": USER}, sort_keys=True, separators=(",", ":"))) // 4
    )
    assert first.usage.prompt_tokens == expected_prompt
    assert first.usage.completion_tokens == max(1, len("Hello!") // 4) == 1
    assert first.usage.total_tokens == expected_prompt + 1

    second = ask(llm)
    assert second.choices[0].message.content == "again"
    assert (second.usage.prompt_tokens, second.usage.completion_tokens) == (7, 3)
    assert second.usage.total_tokens == 10
    assert second.id != first.id

    assert llm.requests == [
        {"model": "gpt-test", "messages": USER},
        {"model": "gpt-test", "messages": USER},
    ]
    assert llm.remaining() == 0
    assert llm.exhausted_hits == 0


def test_tool_calls_are_parsed_by_the_client(llm):
    llm.push(
        tool_call("read_file", {"path": "src/a.py"}),
        tool_calls([("ls", {"dir": "."}), ("grep", {"pattern": "def "}, "mine")], content="Two."),
        tool_call("edit", '{"broken": ', call_id="raw"),
    )

    one = ask(llm).choices[0]
    assert one.finish_reason == "tool_calls"
    assert one.message.content is None
    (call,) = one.message.tool_calls
    assert (call.id, call.type, call.function.name) == ("call_1", "function", "read_file")
    assert json.loads(call.function.arguments) == {"path": "src/a.py"}

    two = ask(llm).choices[0]
    assert two.message.content == "Two."
    assert [c.function.name for c in two.message.tool_calls] == ["ls", "grep"]
    assert [c.id for c in two.message.tool_calls] == ["call_2", "mine"]
    assert json.loads(two.message.tool_calls[1].function.arguments) == {"pattern": "def "}

    three = ask(llm).choices[0]
    assert three.message.tool_calls[0].id == "raw"
    assert three.message.tool_calls[0].function.arguments == '{"broken": '


def test_500_then_success_is_retried_by_the_client(llm):
    llm.push(error(500), reply("recovered"))

    answer = ask(llm, max_retries=2)

    assert answer.choices[0].message.content == "recovered"
    assert len(llm.requests) == 2
    assert llm.remaining() == 0


def test_500_without_retries_raises_with_openai_error_body(llm):
    llm.push(error(503, "overloaded", type="server_error", code="busy"))

    with pytest.raises(openai.InternalServerError) as info:
        ask(llm)

    assert info.value.status_code == 503
    assert info.value.body == {
        "message": "overloaded",
        "type": "server_error",
        "param": None,
        "code": "busy",
    }


def test_429_sends_retry_after_and_repeats_times(llm):
    llm.push(error(429, "slow down", times=2, retry_after=1.25), reply("ok"))
    assert llm.remaining() == 3

    with pytest.raises(openai.RateLimitError) as info:
        ask(llm)
    assert info.value.response.headers["retry-after"] == "1.25"
    assert info.value.code == "rate_limit_exceeded"
    assert "slow down" in info.value.message

    start = time.monotonic()
    assert ask(llm, max_retries=1).choices[0].message.content == "ok"
    # waited the Retry-After it was sent: the client's own first backoff is at most 0.5 s. A
    # lower bound, so a loaded machine cannot fail it (an upper one, < 0.4 s, did at load 30-60)
    assert time.monotonic() - start >= 1.2
    assert len(llm.requests) == 3
    assert llm.remaining() == 0


def test_exhausted_script_answers_500_and_counts_hits(llm):
    llm.push("only one")
    assert ask(llm).choices[0].message.content == "only one"
    assert llm.remaining() == 0

    with pytest.raises(openai.InternalServerError, match="script exhausted"):
        ask(llm)
    with pytest.raises(openai.InternalServerError, match="script exhausted"):
        ask(llm)

    assert llm.exhausted_hits == 2
    assert len(llm.requests) == 3


def test_callable_step_sees_the_request_body(llm):
    def echo(body: dict) -> object:
        last = body["messages"][-1]["content"]
        return reply(f"you said: {last}") if last != "tool please" else tool_call("t", {"q": last})

    llm.push(echo, echo)
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "ping"}]
    assert ask(llm, messages=messages).choices[0].message.content == "you said: ping"
    called = ask(llm, messages=[{"role": "user", "content": "tool please"}]).choices[0]
    assert json.loads(called.message.tool_calls[0].function.arguments) == {"q": "tool please"}


def test_callable_step_that_raises_is_a_500_and_recorded(llm):
    def broken(body: dict) -> object:
        raise KeyError("nope")

    llm.push(broken)
    with pytest.raises(openai.InternalServerError, match="scripted step raised KeyError"):
        ask(llm)
    assert [type(exc) for exc in llm.errors] == [KeyError]


def test_hang_makes_the_client_time_out(llm):
    llm.push(hang(2), reply("too late"), reply("next"))

    start = time.monotonic()
    with pytest.raises(CLIENT_TIMEOUTS):
        ask(llm, timeout=0.1)
    assert time.monotonic() - start < 1.5

    # the hanging request took "too late" along with the hang; the next request is not delayed
    assert llm.remaining() == 1
    assert ask(llm).choices[0].message.content == "next"


def test_short_hang_delays_the_following_step(llm):
    llm.push(hang(0.05), hang(0.05), reply("slow"))

    start = time.monotonic()
    assert ask(llm).choices[0].message.content == "slow"
    assert time.monotonic() - start >= 0.1
    assert llm.remaining() == 0


def test_concurrent_requests_are_answered_in_script_order(llm):
    n = 16
    llm.push(*[reply(str(i)) for i in range(n)])
    answers: dict[str, str] = {}
    failures: list[BaseException] = []

    with client(llm) as shared:

        def worker(k: int) -> None:
            try:
                result = shared.chat.completions.create(
                    model="gpt-test", messages=[{"role": "user", "content": f"t{k}"}]
                )
                answers[f"t{k}"] = result.choices[0].message.content
            except BaseException as exc:  # pragma: no cover - reported below
                failures.append(exc)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)

    assert failures == []
    assert len(answers) == n
    # the i-th request the server saw got the i-th step
    senders = [body["messages"][-1]["content"] for body in llm.requests]
    assert [answers[sender] for sender in senders] == [str(i) for i in range(n)]
    assert llm.remaining() == 0


def test_models_and_unknown_paths(llm):
    with client(llm) as c:
        assert [m.id for m in c.models.list()] == ["scripted-model"]
        with pytest.raises(openai.NotFoundError):
            c.embeddings.create(model="x", input="hi")
    assert llm.requests == []


def test_steps_are_checked_when_pushed():
    with pytest.raises(TypeError, match="not a script step"):
        ScriptedLLM([42])
    with pytest.raises(ValueError):
        error(200)
    with pytest.raises(ValueError):
        error(500, times=0)
    with pytest.raises(ValueError):
        hang(-1)


def test_stop_is_idempotent_and_frees_the_port():
    server = ScriptedLLM(["hi"]).start()
    port = server.port
    assert server.base_url == f"http://127.0.0.1:{port}/v1"
    assert ask(server).choices[0].message.content == "hi"

    server.stop()
    server.stop()

    with pytest.raises(RuntimeError, match="not running"):
        server.base_url  # noqa: B018
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    with socket.socket() as rebind:
        rebind.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        rebind.bind(("127.0.0.1", port))
    assert not any(t.name == f"ScriptedLLM:{port}" for t in threading.enumerate())


def test_stop_cuts_a_hang_short():
    server = ScriptedLLM([hang(30), "late"]).start()
    with client(server, timeout=0.1) as c, pytest.raises(CLIENT_TIMEOUTS):
        c.chat.completions.create(model="x", messages=USER)
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < 1
