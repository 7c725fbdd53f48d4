"""An LLM outage: a dead endpoint is refused up front; one that goes away fails the rest fast."""

from __future__ import annotations

import socket
import textwrap
import time

import pytest
from helpers.llm import ini

from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply

SWALLOWING_AGENT = """
from pytest_e2ebench.agents import Agent, AgentOutcome
from pytest_e2ebench.llm import LLMUnavailable
from pytest_e2ebench.llm.factory import make_llm


class Swallow(Agent):
    spec = label = "swallow"
    uses_llm = True

    def cache_key(self, task, run):
        return "v1"

    def generate(self, task, run, workspace, ctx):
        try:
            make_llm(ctx.config, ctx.settings).complete([{"role": "user", "content": "hi"}])
        except LLMUnavailable:
            pass  # an agent that carries on: its empty project must not count as its failure
        return AgentOutcome()


def pytest_e2ebench_make_agent(spec, config):
    return Swallow() if spec == "swallow" else None
"""


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_dead_endpoint_is_refused_once_before_any_run(pytester, tasks):
    tasks.make()
    ini(pytester)
    url = f"http://127.0.0.1:{free_port()}/v1"
    start = time.monotonic()
    result = pytester.runpytest_subprocess(
        "--e2e-agent=vanilla,nop", "--e2e-runs=3", f"--e2e-llm-base-url={url}"
    )
    elapsed = time.monotonic() - start
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0].startswith(
        f"ERROR: the LLM endpoint cannot be used, nothing was run: {url}/models did not answer"
    )
    assert [line for line in result.stderr.lines if line.strip()] == result.stderr.lines[:1]
    assert elapsed < 20  # about 5 s on an idle machine; retrying the calls took minutes
    assert not (pytester.path / ".e2ebench").exists()


def test_the_endpoint_is_not_asked_when_no_stage_calls_it(pytester, tasks):
    tasks.make()
    ini(pytester)
    url = f"http://127.0.0.1:{free_port()}/v1"
    pytester.runpytest("--e2e-agent=reference", f"--e2e-llm-base-url={url}").assert_outcomes(
        passed=3
    )


def test_an_endpoint_gone_mid_session_fails_the_other_runs_fast(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(error(500, times=10))
    result = pytester.runpytest(
        "--e2e-agent=vanilla", "--e2e-runs=3", f"--e2e-llm-base-url={llm.base_url}"
    )
    result.assert_outcomes(errors=9)
    assert len(llm.requests) == 1  # runs 2 and 3 did not call it
    text = "\n".join(result.outlines)
    assert "During handling" not in text and "direct cause" not in text
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of calc[[]vanilla-run-1-R1[]]*",
            "infrastructure error (not the agent's fault): [[]llm[]] *answered 500 after retries*",
            "*ERROR at setup of calc[[]vanilla-run-2-R1[]]*",
            "infrastructure error (not the agent's fault): [[]llm[]] the endpoint is gone (since "
            "vanilla/calc/run-1*); not called again this session",
        ]
    )
    assert [r["error"]["kind"] for r in results()["tasks"]] == ["infrastructure"] * 3


def test_an_outage_is_the_harness_call_even_when_the_agent_swallows_it(
    pytester, tasks, results, llm
):
    tasks.make()
    ini(pytester)
    pytester.makeconftest(textwrap.dedent(SWALLOWING_AGENT))
    llm.push(error(503))
    result = pytester.runpytest("--e2e-agent=swallow", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(errors=3)
    assert results()["tasks"][0]["error"]["stage"] == "llm"
    # nothing of the interrupted run is cached: the next session runs the agent again
    llm.push(reply("fine"))
    again = pytester.runpytest("--e2e-agent=swallow", f"--e2e-llm-base-url={llm.base_url}")
    again.assert_outcomes(failed=3)


def test_a_refused_request_is_not_an_outage(pytester, tasks, llm):
    tasks.make()
    ini(pytester)
    llm.push(error(400, "context too long"), reply("### FILE: x.py\n```\n\n```"))
    result = pytester.runpytest(
        "--e2e-agent=vanilla", "--e2e-runs=2", f"--e2e-llm-base-url={llm.base_url}"
    )
    result.assert_outcomes(errors=3, failed=3)  # run 2 still asked the model
    assert len(llm.requests) == 2
