"""The model tier: the harness against a real model on loopback (issue 19).

Skipped unless ``--model`` (llama-server with the model of ``e2ebench model fetch``, started
here: Qwen2.5-Coder-1.5B-Instruct, or the misbehaving Gemma 3 270M with
``E2EBENCH_LOCAL_MODEL=gemma-3-270m``) or ``E2EBENCH_MODEL_BASE_URL`` (and
``E2EBENCH_MODEL_NAME``) names a running server: ``tox -e model``. Run without xdist
(``-p no:xdist``): one server, one model in memory.

These tests assert what the harness does with whatever a real model sends (the session
completes, the run is recorded with tokens, steps and cost, every requirement gets a
verdict, a replay needs no server), never the model's quality.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers.llm import ini

pytestmark = [pytest.mark.model, pytest.mark.timeout(3600)]  # a 1.5B model on a busy machine
PRICE = "0.1 0.4"  # a made-up price per million tokens, so that cost is recorded
MAX_TOKENS = 256  # per answer, on the server's side: keeps a step short on 2 cores
PARAMETERS = {"gemma-3-270m-q4_k_m": 2.7e8, "qwen2.5-coder-1.5b-instruct-q4_k_m": 1.5e9}
GEMMA = "gemma-3-270m-q4_k_m"


@pytest.fixture(scope="session")
def local_model():
    """(base URL, model name) of the real model's OpenAI-compatible endpoint."""
    url = os.environ.get("E2EBENCH_MODEL_BASE_URL")
    if url:
        yield url, os.environ.get("E2EBENCH_MODEL_NAME", "local-model")
        return
    from pytest_e2ebench.tools import localmodel

    spec = localmodel.MODELS[os.environ.get("E2EBENCH_LOCAL_MODEL", "qwen2.5-coder-1.5b")]
    kind = os.environ.get("E2EBENCH_LOCAL_SERVER", "auto")  # chosen by the CPU's features
    with localmodel.serve(spec, server=kind, max_tokens=MAX_TOKENS) as server:
        yield server.base_url, server.model


@pytest.fixture
def model_ini(pytester, local_model):
    url, name = local_model

    def write(**extra: str) -> None:
        ini(
            pytester,
            e2ebench_model=name,
            e2ebench_llm_base_url=url,
            e2ebench_prices=f"{name} {PRICE}",
            e2ebench_model_params=f"{name} {PARAMETERS.get(name, 1e9)}",
            e2ebench_context_tokens="8192",
            e2ebench_llm_retries="1",
            # a 1.5B model on a busy 2-core CPU answers at ~1 token/s: a timeout would retry
            e2ebench_llm_timeout="1800",
            **extra,
        )

    return write


def finished(result, results) -> dict:
    """The run's record, after checking the session ended with a verdict per requirement."""
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()[-3000:]
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 3
    run = results()["tasks"][0]
    assert run.get("error") is None
    return run


def trajectory(pytester) -> list[dict]:
    paths = list((pytester.path / ".e2ebench").rglob("trajectory.jsonl"))
    assert len(paths) == 1, paths
    return [json.loads(line) for line in paths[0].read_text().splitlines()]


def test_plain_completion(local_model):
    from pytest_e2ebench.llm.accounting import Pricing
    from pytest_e2ebench.llm.client import OpenAIChat

    url, name = local_model
    pricing = Pricing(prices={name: (0.1, 0.4)})
    chat = OpenAIChat(model=name, base_url=url, api_key=None, pricing=pricing, max_retries=1)
    answer = chat.complete([{"role": "user", "content": "Write a Python function add(a, b)."}])
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0
    assert answer.finish_reason in ("stop", "length")
    expected = (answer.prompt_tokens * 0.1 + answer.completion_tokens * 0.4) / 1e6
    assert answer.cost_usd == pytest.approx(expected)


def test_one_tool_calling_turn_is_a_step_with_tools_or_feedback(
    pytester, tasks, results, model_ini
):
    tasks.make()
    model_ini(e2ebench_max_steps="1")
    result = pytester.runpytest("--e2e-agent=sdagent-single")
    run = finished(result, results)
    assert run["metrics"]["steps"] == 1
    (step,) = trajectory(pytester)
    assert step["completion"]["prompt_tokens"] > 0
    # whatever the model sent became tool calls (native or written as text) or feedback
    assert isinstance(step["observations"], list)


CREATE = {"name": "create", "arguments": {"path": "calc/__init__.py", "content": "x = 1\n"}}
# Gemma 3 270M, a base model, repeats a short user message under its chat template: given only a
# <tool_call> block it answers with that call as text. The instruct model is asked in words.
ASK = {
    GEMMA: f"<tool_call>{json.dumps(CREATE)}</tool_call>",
    "instruct": "Create the file calc/__init__.py containing exactly the line `x = 1`, with the "
    "create tool.",
}


def test_one_agent_step_runs_the_create_call_the_real_model_sends(tmp_path, local_model):
    """One agent step of the harness (the tools sandboxed as in a run) runs the model's call,
    native (the server's chat template parsed it into ``tool_calls``) or written as text
    (Qwen2.5-Coder 1.5B writes a fenced ```json block; Gemma echoes ``<tool_call>``), and
    hands the result back in the form the call came in."""
    from pytest_e2ebench.agents.sdagent import BASE, ROLES
    from pytest_e2ebench.agents.tools import Toolbox
    from pytest_e2ebench.isolation.sandbox import machine_sandbox
    from pytest_e2ebench.llm.accounting import Pricing
    from pytest_e2ebench.llm.client import OpenAIChat

    url, name = local_model
    chat = OpenAIChat(
        model=name, base_url=url, api_key=None, pricing=Pricing(), temperature=0, max_retries=1
    )
    work = tmp_path / "repo"
    work.mkdir()
    # a real model's commands: the machine's sandbox, as in a session
    box = Toolbox(
        work, {"PATH": os.environ["PATH"]}, tmp_path, command_timeout=30, sandbox=machine_sandbox()
    )
    system = BASE.format(delivery="Deliver a Python package.", tooling="")
    messages = [
        {"role": "system", "content": f"{system}\n\n{ROLES['engineer']}"},
        {"role": "user", "content": ASK.get(name, ASK["instruct"])},
    ]
    completion, observations = box.step(chat, messages, scope="model-tier")
    assert observations and observations[0]["name"] == "create", completion.content
    assert (work / "calc" / "__init__.py").read_text().strip() == "x = 1"
    if completion.tool_calls:
        assert messages[-1]["role"] == "tool"
    else:
        assert all(o.get("text") for o in observations)
        assert messages[-1]["role"] == "user"
        assert messages[-1]["content"].startswith("[create result]")


def test_short_vanilla_run_is_recorded(pytester, tasks, results, model_ini):
    tasks.make()
    model_ini()
    run = finished(pytester.runpytest("--e2e-agent=vanilla"), results)
    metrics = run["metrics"]
    assert metrics["steps"] == 1
    assert metrics["tokens_sent"] > 0 and metrics["tokens_generated"] > 0
    assert metrics["cost_usd"] > 0


def test_short_sdagent_single_run_is_recorded(pytester, tasks, results, model_ini):
    tasks.make()
    model_ini(e2ebench_max_steps="4")
    run = finished(pytester.runpytest("--e2e-agent=sdagent-single"), results)
    metrics = run["metrics"]
    assert 1 <= metrics["steps"] <= 4
    assert metrics["tokens_sent"] > 0 and metrics["cost_usd"] > 0
    assert len(trajectory(pytester)) == metrics["steps"]


def test_llm_judge_gives_a_verdict_per_requirement(pytester, tasks, results, model_ini):
    tasks.make()
    model_ini()
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-judge=both")
    run = finished(result, results)
    judged = run["llm_judge"]
    assert set(judged["verdicts"]) == {"R1", "R2", "R3"}
    assert judged["calls"] >= 1


def test_recorded_session_replays_offline_with_identical_metrics(
    pytester, tasks, results, model_ini
):
    tasks.make()
    model_ini(e2ebench_max_steps="3")
    args = ("--e2e-agent=sdagent-single",)
    recorded = finished(pytester.runpytest(*args, "--e2e-llm-cache=record"), results)
    # no endpoint at all: every answer must come from the recording
    replayed_run = pytester.runpytest(
        *args,
        "--e2e-llm-cache=replay",
        "--e2e-rerun",
        "-o",
        "e2ebench_llm_base_url=http://127.0.0.1:9/v1",
    )
    replayed = finished(replayed_run, results)
    strip = lambda m: {k: v for k, v in m.items() if k != "duration_s"}  # noqa: E731
    assert strip(replayed["metrics"]) == strip(recorded["metrics"])


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as page:
            return page.status == 200
    except OSError:
        return False


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # ended, its parent (init, for an orphan) not yet told
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_kill_while_the_model_loads_stops_the_server(tmp_path, signum):
    """Issue 42: ``kill`` of ``e2ebench model serve`` while the model loaded left the server
    running on its port (its handler was installed once the server answered). Now SIGTERM
    stops it by its pid, and even SIGKILL of the command ends it (PR_SET_PDEATHSIG)."""
    from pytest_e2ebench.tools import localmodel

    localmodel.fetch_model()  # cached by the tier; a download is not what is measured here
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "pytest_e2ebench.cli", "model", "serve", "--port", str(port)]
    with (tmp_path / "serve.log").open("w") as log:
        serve = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    servers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not _children(serve.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        servers = _children(serve.pid)
        assert servers, (tmp_path / "serve.log").read_text()
        assert not _healthy(port)  # still loading
        serve.send_signal(signum)
        serve.wait(timeout=60)
        assert _gone(servers[0], 30), "the server outlived the command"
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        for pid in servers:  # an orphan of a failed check: ended by its pid
            if not _gone(pid, 0.5):
                os.kill(pid, signal.SIGKILL)
