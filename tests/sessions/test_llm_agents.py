"""LLM agents against a scripted OpenAI-compatible server on 127.0.0.1 (the real openai client)."""

from __future__ import annotations

import base64
import io
import json
import tarfile
import textwrap
from pathlib import Path

import pytest
from helpers.llm import calc_files, ini, write_all
from helpers.tasks import CALC_CODE, CALC_TESTS

from pytest_e2ebench.llm.accounting import shipped_prices
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply, tool_call


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def roles_of(server: ScriptedLLM) -> list[str]:
    roles = []
    for body in server.requests:
        system = body["messages"][0]["content"]
        role = next(
            r
            for r in ("only engineer", "designer", "developer", "tester")
            if f"You are the {r}" in system
        )
        if not roles or roles[-1] != role:
            roles.append(role)
    return roles


def test_single_agent_that_writes_the_reference_scores_100(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    steps = [
        *write_all(calc_files(tasks, pytester)),
        tool_call("create", {"path": "tests/test_calc.py", "content": CALC_TESTS}),
        tool_call(
            "bash",
            {"command": "pip install -q --no-build-isolation -e . && python -m pytest -q tests"},
        ),
        tool_call("submit", {"summary": "done"}),
    ]
    llm.push(*steps)
    result = pytester.runpytest("--e2e-agent=sdagent-single", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(passed=3)
    run = results()["tasks"][0]
    m = run["metrics"]
    assert m["impl_rate"] == 1.0
    assert m["steps"] == len(steps)
    assert m["tokens_sent"] > 0 and m["tokens_generated"] > 0
    assert m["cost_usd"] == pytest.approx((m["tokens_sent"] * 2 + m["tokens_generated"] * 8) / 1e6)
    assert m["co2_g"] > 0
    details = run["agent_run"]["details"]
    assert details["first_test_step"] == len(steps) - 2
    assert details["roles"] == [{"role": "engineer", "steps": len(steps), "submitted": True}]
    trajectory = [json.loads(line) for line in Path(details["trajectory"]).read_text().splitlines()]
    assert len(trajectory) == len(steps)
    assert "[exit code 0]" in trajectory[-2]["observations"][0]["output"]
    # the same as an ATIF v1.8 trajectory (issue 42), every observation in it
    atif = pytest.importorskip("atif")
    document = atif.Trajectory.model_validate_json(Path(details["atif"]).read_text())
    assert len(document.steps) == len(steps) and document.agent.name == "sdagent-single"
    assert "[exit code 0]" in document.steps[-2].observation.results[0].content
    assert document.final_metrics.total_prompt_tokens == m["tokens_sent"]
    assert roles_of(llm) == ["only engineer"]
    assert llm.requests[0]["temperature"] == 0.2
    assert "### R1: Addition" in llm.requests[0]["messages"][1]["content"]
    assert {t["function"]["name"] for t in llm.requests[0]["tools"]} == {
        "bash",
        "view",
        "create",
        "str_replace",
        "find",
        "grep",
        "submit",
    }


def test_dt_runs_developer_then_tester(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(
        *write_all(calc_files(tasks, pytester)),
        tool_call("submit", {"summary": "implemented"}),
        tool_call("create", {"path": "tests/test_calc.py", "content": CALC_TESTS}),
        tool_call("submit", {"summary": "tested"}),
    )
    result = pytester.runpytest("--e2e-agent=sdagent-dt", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(passed=3)
    assert roles_of(llm) == ["developer", "tester"]
    details = results()["tasks"][0]["agent_run"]["details"]
    n_files = len(calc_files(tasks, pytester))
    assert [r["role"] for r in details["roles"]] == ["developer", "tester"]
    assert details["first_test_step"] == n_files + 2
    # the tester is told what the developer said
    assert "developer: implemented" in llm.requests[n_files + 1]["messages"][1]["content"]


def test_ddt_stops_at_the_step_limit_across_roles(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(*[reply("thinking...") for _ in range(6)])
    result = pytester.runpytest(
        "--e2e-agent=sdagent-ddt", f"--e2e-llm-base-url={llm.base_url}", "--e2e-max-steps=6"
    )
    result.assert_outcomes(failed=3)
    assert roles_of(llm) == ["designer", "developer", "tester"]
    run = results()["tasks"][0]
    assert run["metrics"]["steps"] == 6
    assert [r["steps"] for r in run["agent_run"]["details"]["roles"]] == [2, 2, 2]
    assert run["agent_run"]["note"] == (
        "stopped at the step limit; delivery check: no pyproject.toml at the repository root: "
        "the project cannot be installed"
    )
    assert llm.remaining() == 0 and llm.exhausted_hits == 0


def test_vanilla_writes_all_files_from_one_answer(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    answer = "".join(
        f"### FILE: {path}\n```\n{text.rstrip()}\n```\n\n"
        for path, text in calc_files(tasks, pytester).items()
    )
    llm.push(reply(answer, prompt_tokens=1000, completion_tokens=500))
    result = pytester.runpytest("--e2e-agent=vanilla", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(passed=3)
    m = results()["tasks"][0]["metrics"]
    assert (m["steps"], m["tokens_sent"], m["tokens_generated"]) == (1, 1000, 500)
    assert m["cost_usd"] == pytest.approx((1000 * 2 + 500 * 8) / 1e6)
    assert "tools" not in llm.requests[0]


def test_a_model_without_a_users_price_is_priced_from_the_shipped_table(
    pytester, tasks, results, llm
):
    """Issue 42, item 5: no e2ebench_prices line for the run's model (a dated name of Claude
    Haiku 4.5): the shipped list prices price its call, the endpoint's cache writes at the
    cache-write price and its reasoning tokens counted apart, and the record names the table."""
    tasks.make()
    ini(pytester, e2ebench_model="claude-haiku-4-5-20251001", e2ebench_prices="")
    llm.push(
        reply(
            "no files",
            prompt_tokens=10_000,
            completion_tokens=2_000,
            cached_tokens=4_000,
            cache_write_tokens=3_000,
            reasoning_tokens=500,
        )
    )
    pytester.runpytest("--e2e-agent=vanilla", f"--e2e-llm-base-url={llm.base_url}")
    run = results()["tasks"][0]
    details = run["agent_run"]["details"]
    assert details["price_source"] == f"shipped {shipped_prices().date}"
    assert (details["cache_write_prompt_tokens"], details["reasoning_tokens"]) == (3_000, 500)
    # claude-haiku-4-5: $1 prompt, $5 completion, $0.10 cache read, $1.25 cache write per MTok
    expected = (3_000 * 1.0 + 4_000 * 0.1 + 3_000 * 1.25 + 2_000 * 5.0) / 1e6
    assert run["metrics"]["cost_usd"] == pytest.approx(expected)


# the same command every time, its output differing in a timing only, as pytest's "no tests
# ran in 0.03s" then "in 0.05s" (here counted, so that no two runs print the same)
TIMED = (
    "n=$(( $(cat .n 2>/dev/null || echo 0) + 1 )); echo $n > .n; "
    'echo "no tests ran in 0.0${n}s"; echo "took ${n}2 ms"'
)


def test_the_same_call_whose_result_differs_in_a_timing_only_is_a_stall(
    pytester, tasks, results, llm
):
    """Issue 42, item 7: stall detection compares tool results with their timings masked, so
    four identical calls whose answers differ in a duration end the role (before, the 0.01s,
    0.02s, ... made every result new and the agent ran to the step limit)."""
    tasks.make()
    ini(pytester)
    llm.push(*[tool_call("bash", {"command": TIMED}) for _ in range(8)])
    pytester.runpytest(
        "--e2e-agent=sdagent-single", f"--e2e-llm-base-url={llm.base_url}", "--e2e-max-steps=8"
    )
    run = results()["tasks"][0]
    trajectory = Path(run["agent_run"]["details"]["trajectory"]).read_text().splitlines()
    outputs = [json.loads(line)["observations"][0]["output"] for line in trajectory]
    assert "no tests ran in 0.01s" in outputs[0] and "no tests ran in 0.04s" in outputs[3]
    assert run["metrics"]["steps"] == 4 and llm.remaining() == 4
    assert (
        "engineer: stalled, the same tool call(s) with the same result 4 times in a row"
        in (run["agent_run"]["note"])
    )


def test_cmd_agent_runs_a_command_in_the_workspace(pytester, tasks, results):
    tasks.make()
    src = tasks.reference(pytester.path / "src", CALC_CODE)
    ini(pytester)
    # The command runs sandboxed: it sees its workspace and the requirements, not the host's
    # folders, so it unpacks the project itself (base64: agent specs are split at commas).
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        tar.add(src, arcname=".")
    write = f"echo {base64.b64encode(packed.getvalue()).decode()} | base64 -d | tar -xz"
    # a script in the host's /tmp is not there: the note says why, not only "status 127"
    script = Path("/tmp") / f"e2ebench-agent-{pytester.path.name}.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    # the three commands in one session (issue 27): each is an agent with runs of its own
    agents = [f"cmd:test -s {{requirements}} && {write}", "cmd:exit 3", f"cmd:{script}"]
    try:
        result = pytester.runpytest(f"--e2e-agent={','.join(agents)}")
    finally:
        script.unlink()
    result.assert_outcomes(passed=3, failed=6)
    runs = {r["agent_spec"]: r for r in results()["tasks"]}
    details = runs[agents[0]]["agent_run"]["details"]
    assert details["exit_status"] == 0 and details["timed_out"] is False
    assert runs[agents[1]]["metrics"]["impl_rate"] == runs[agents[2]]["metrics"]["impl_rate"] == 0
    result.stdout.fnmatch_lines(["*note: the command exited with status 3*"])
    result.stdout.fnmatch_lines(
        [
            f"*note: the command exited with status 127 (*{script}*No such file or directory); "
            "it runs sandboxed: it sees its workspace, the requirements document, * a private, "
            "empty /tmp; not the host's /tmp*"
        ]
    )


def test_recorded_run_replays_offline_with_identical_metrics(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(
        *write_all(calc_files(tasks, pytester)),
        tool_call("submit", {"summary": "ok"}),
        tool_call("bash", {"command": "date +%N"}),  # an observation that differs on replay
        tool_call("submit", {"summary": "tested"}),
    )
    args = ("--e2e-agent=sdagent-dt",)
    pytester.runpytest(
        *args, f"--e2e-llm-base-url={llm.base_url}", "--e2e-llm-cache=record"
    ).assert_outcomes(passed=3)
    recorded = results()["tasks"][0]
    llm.stop()
    # no endpoint and no --e2e-model: the recorded answers are all replay needs
    replayed_run = pytester.runpytest(
        *args, "--e2e-llm-cache=replay", "--e2e-rerun", "-o", "e2ebench_model="
    )
    replayed_run.assert_outcomes(passed=3)
    replayed = results()["tasks"][0]
    strip = lambda m: {k: v for k, v in m.items() if k != "duration_s"}  # noqa: E731
    assert strip(replayed["metrics"]) == strip(recorded["metrics"])
    assert replayed["agent_run"]["details"]["replay_drift"] == 1


def test_replay_miss_is_an_infrastructure_error(pytester, tasks, results):
    tasks.make()
    ini(pytester)
    result = pytester.runpytest("--e2e-agent=vanilla", "--e2e-llm-cache=replay")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        ["*infrastructure error*[[]llm[]] --e2e-llm-cache=replay: no recorded answer #1*"]
    )


def test_server_error_then_success_is_retried(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester, e2ebench_llm_retries="2")
    llm.push(error(500), error(503), reply("### FILE: calc/__init__.py\n```\n\n```"))
    result = pytester.runpytest("--e2e-agent=vanilla", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(failed=3)  # answered, but the project is empty: the model's failure
    assert len(llm.requests) == 3


def test_server_failing_forever_is_an_error_not_a_failure(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester, e2ebench_llm_retries="1")
    llm.push(error(500, times=10))
    result = pytester.runpytest("--e2e-agent=sdagent-dt", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*infrastructure error (not the agent's fault): [[]llm[]]*500*"])
    assert results()["tasks"][0]["error"]["stage"] == "llm"
    assert len(llm.requests) == 2


def test_llm_agent_without_endpoint_says_what_to_set(pytester, tasks, monkeypatch):
    tasks.make()
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=sdagent-dt")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: --e2e-agent=sdagent-dt calls an LLM and needs a model: --e2e-model=NAME (or ini "
            "e2ebench_model) and an endpoint: --e2e-llm-base-url=URL (or $OPENAI_BASE_URL, or ini "
            "e2ebench_llm_base_url), with the key in $OPENAI_API_KEY. To check the harness without "
            "a model, run --e2e-agent=reference; to see an LLM agent's whole run without one, start "
            "`e2ebench demo-model` (a stand-in model that writes each task's reference) and use the "
            "options it prints."
        ]
    )


def test_base_url_from_the_environment(pytester, tasks, results, llm, monkeypatch):
    tasks.make()
    ini(pytester)
    monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
    llm.push(reply("nothing"))
    pytester.runpytest("--e2e-agent=vanilla").assert_outcomes(failed=3)
    assert (
        results()["tasks"][0]["agent_run"]["note"] == "the answer contained no '### FILE:' blocks"
    )


def test_make_llm_hook_supplies_another_client(pytester, tasks, results):
    tasks.make()
    ini(pytester)
    pytester.makeconftest(
        textwrap.dedent(
            """
        from pytest_e2ebench.llm import Completion

        class Echo:
            model = "echo"

            def complete(self, messages, *, tools=None, scope=""):
                return Completion("no files", (), "stop", 10, 2)

        def pytest_e2ebench_make_llm(config, settings):
            return Echo()
        """
        )
    )
    result = pytester.runpytest("--e2e-agent=vanilla", "--e2e-llm-base-url=http://127.0.0.1:9/v1")
    result.assert_outcomes(failed=3)
    assert results()["tasks"][0]["metrics"]["tokens_sent"] == 10


def test_agent_runs_are_cached_per_task_agent_model_and_run(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(reply("none"), reply("none"))
    args = ("--e2e-agent=vanilla", f"--e2e-llm-base-url={llm.base_url}", "--e2e-runs=2")
    pytester.runpytest(*args).assert_outcomes(failed=6)
    pytester.runpytest(*args).assert_outcomes(failed=6)
    assert len(llm.requests) == 2  # the second session reused both runs
    llm.push(reply("none"))
    pytester.runpytest(*args[:2], "--e2e-model=other-model").assert_outcomes(failed=3)
    assert len(llm.requests) == 3
