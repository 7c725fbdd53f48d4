"""App tasks (issue #15): a browser agent judges feature-list apps, against a scripted endpoint."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from helpers.app import CASES, SCRIPT, make_app_task, make_command_app, run, scripted
from helpers.batch import SharedSession, batch_folder
from helpers.llm import ini

from pytest_e2ebench.errors import TaskError
from pytest_e2ebench.methods.app.cases import parse_cases
from pytest_e2ebench.methods.app.judge import parse_verdict
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.testing.scripted_app import app_judge_script, find_node
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply

browser = pytest.mark.browser


# --- unit: strict parsing ------------------------------------------------------------------


def test_cases_are_parsed_strictly_and_numbered_per_feature():
    text = json.dumps({"cases": [*CASES, {**CASES[1], "case": "Click Add one"}]})
    cases = parse_cases(text, ["F1", "F2", "F3"], (3, 6))
    assert [c["id"] for c in cases] == ["F1-1", "F2-1", "F2-2", "F3-1"]
    assert "between 3 and 6" in parse_cases(json.dumps({"cases": CASES[:2]}), ["F1"], (3, 6))
    assert "features without a case: F3" in parse_cases(
        json.dumps({"cases": [CASES[0], CASES[1], CASES[1]]}), ["F1", "F2", "F3"], (3, 6)
    )
    assert "'F9' is not one of" in parse_cases(
        json.dumps({"cases": [{**CASES[0], "feature": "F9"}, *CASES]}), ["F1", "F2", "F3"], (3, 6)
    )
    assert "not a JSON object" in parse_cases("sure!", ["F1"], (1, 2))
    assert parse_verdict('{"verdict": "Yes", "reason": "ok"}')["verdict"] == "Yes"
    assert "must be one of" in parse_verdict('{"verdict": "Pass"}')


def test_find_node_reads_the_numbered_tree():
    tree = '[1] heading "Greeter"\n  [2] textbox "Your name"\n  [3] button "Greet"'
    assert find_node(tree, "greet", "button") == 3
    assert find_node(tree, "Your name") == 2
    assert find_node(tree, "Missing") is None


# --- validation ----------------------------------------------------------------------------


def test_an_app_task_is_validated_with_file_field_and_fix(tasks):
    root = make_app_task(tasks, toml_extra='command = ["python3", "s.py"]\nwhat = 1\n')
    (root / "requirements.md").write_text("# x\n\n### F1 Greeting\n")
    with pytest.raises(TaskError) as info:
        load_task(root)
    text = str(info.value)
    assert "greeter/requirements.md:3: '### F1 Greeting' is not a feature heading" in text
    assert "field 'app.command' is set but app.launch is \"static\"" in text
    assert "unknown field(s) app.what" in text


def test_a_valid_app_task_has_features_as_requirements(tasks):
    task = load_task(make_app_task(tasks))
    assert [r.id for r in task.requirements] == ["F1", "F2", "F3"]
    assert task.requirements[0].tags == ("core",)
    assert task.slots["app"].launch == "static" and task.tests == ()


def test_a_command_app_needs_its_command(tasks):
    root = make_app_task(tasks)
    text = (root / "task.toml").read_text().replace('launch = "static"', 'launch = "command"')
    (root / "task.toml").write_text(text)
    with pytest.raises(TaskError, match="field 'app.command' is missing"):
        load_task(root)


# --- end to end, in the browser ----------------------------------------------------------


@browser
def test_the_empty_project_scores_executability_0_and_sq_0_without_asking_the_model(
    pytester, tasks, results, llm
):
    make_app_task(tasks)
    ini(pytester, e2ebench_app_cases="3-6")
    # no endpoint at all: an app that does not start needs no model
    result = pytester.runpytest_subprocess("--e2e-agent=nop", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=3)
    record = results()["tasks"][0]
    assert record["metrics"]["executability"] == 0.0
    assert record["metrics"]["sq"] == 0.0
    assert llm.requests == []  # an app that does not run is not tested
    # the reference starts, so it needs the model: without one it is an infrastructure error
    needs = pytester.runpytest_subprocess("--e2e-agent=reference", "-p", "no:cacheprovider")
    needs.assert_outcomes(errors=3)
    needs.stdout.fnmatch_lines(["*infrastructure error*--e2e-llm-base-url=URL*"])
    result.stdout.fnmatch_lines(["*cases/F1 — not tested: the app is not executable*"])


@browser
def test_an_endpoint_outage_is_an_infrastructure_error_not_a_failed_feature(
    pytester, tasks, results, llm
):
    make_app_task(tasks)
    llm.push(error(500, times=20))
    result = run(pytester, llm, "--e2e-agent=reference")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*infrastructure error*"])
    assert results()["tasks"][0]["status"] == "error"


@browser
def test_malformed_cases_are_asked_again_once_then_an_infrastructure_error(
    pytester, tasks, results, llm
):
    make_app_task(tasks)
    llm.push(reply("here are some tests"), reply('{"cases": []}'))
    result = run(pytester, llm, "--e2e-agent=reference")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*no valid test cases for greeter (twice)*"])
    assert len(llm.requests) == 2
    assert "Invalid answer" in llm.requests[1]["messages"][-1]["content"]


# a click handler that never returns
SPIN = (
    SCRIPT + "document.getElementById('greet').addEventListener('click', () => { for (;;) {} });\n"
)
SERVER = """import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=".")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


@browser
@pytest.mark.slow
def test_a_step_limit_and_a_stuck_agent_end_as_uncertain_never_hanging(
    pytester, tasks, results, llm
):
    make_app_task(tasks)
    cases = [
        # three clicks that change nothing after the first: stuck
        {**CASES[0], "steps": [("click", "Greet")] * 6},
        # more actions than --e2e-app-steps allows
        {**CASES[1], "steps": [("click", "Add one")] * 5, "expect": ["Count: 5"]},
        CASES[2],
    ]
    scripted(llm, cases)
    result = run(pytester, llm, "--e2e-agent=reference", "--e2e-app-steps=4")
    result.assert_outcomes(passed=1, failed=2)
    record = results()["tasks"][0]
    assert record["app"]["indeterminate"] == 2 and record["app"]["yes"] == 1
    run_dir = pytester.path / ".e2ebench" / "reference" / "greeter" / "run-1" / "eval" / "cases"
    stuck = json.loads((run_dir / "F1-1.json").read_text())["report"]
    limited = json.loads((run_dir / "F2-1.json").read_text())["report"]
    assert (stuck["ended"], stuck["result"], stuck["steps"]) == ("stuck", "Uncertain", 4)
    assert (limited["ended"], limited["result"], limited["steps"]) == ("step_limit", "Uncertain", 4)


CONTEXT_TOKENS = 1000  # e2ebench_context_tokens: 3,000 characters of conversation


def _text_of(body: dict) -> int:
    """The characters of text a chat request holds (its screenshots left out)."""
    return sum(
        len(m["content"]) if isinstance(m.get("content"), str)
        else sum(len(p.get("text", "")) for p in m.get("content") or [])
        for m in body["messages"]
    )  # fmt: skip


def _refusing_past(limit: list[int], step):
    """A model whose context is ``limit[0]`` characters of text for the tester: a longer
    request of its is refused (413), as a server refuses a prompt over its context; every
    other request (the case writer's, the judge's) answered by ``step``."""

    def answer(body: dict):
        text = _text_of(body)
        tester = "software tester" in str(body["messages"][0]["content"])
        if tester and text > limit[0]:
            return error(413, f"{text} characters is over the context")
        return step(body)

    return answer


@browser
@pytest.mark.slow
def test_pages_past_the_models_context_are_dropped_and_a_refusal_ends_the_case_as_uncertain(
    pytester, tasks, results, llm
):
    """The tester's conversation grows by a page per action: it is fitted to
    ``e2ebench_context_tokens`` before each request (F2's ten clicks pass under a model that
    refuses more than 6,000 characters: unfitted, its eleventh request holds about 9,000),
    and a model that refuses what follows the case's first request ends the case as
    Uncertain, the run graded (before: the conversation was sent whole and the refusal was
    an infrastructure error)."""
    make_app_task(tasks)
    clicks = {**CASES[1], "case": "Click Add one ten times", "expected": "Count: 10"}
    clicks |= {"steps": [("click", "Add one")] * 10, "expect": ["Count: 10"]}
    cases = [CASES[0], clicks, CASES[2]]
    step = app_judge_script({"# Greeter": cases})
    limit = [6000]
    llm.push(*[_refusing_past(limit, step)] * 400)
    ini(pytester, e2ebench_app_cases="3-6", e2ebench_context_tokens=str(CONTEXT_TOKENS))
    args = ("--e2e-agent=reference", "--e2e-app-steps=12", "-p", "no:cacheprovider")
    result = pytester.runpytest_subprocess(f"--e2e-llm-base-url={llm.base_url}", *args)
    result.assert_outcomes(passed=3)
    assert results()["tasks"][0]["app"]["yes"] == 3
    first = next(b for b in llm.requests if "ten times" in str(b["messages"][1]["content"]))
    limit[0] = _text_of(first) + 50  # the case's first request, and no second
    pytester.path.joinpath(".e2ebench").rename(pytester.path / "first")
    result = pytester.runpytest_subprocess(f"--e2e-llm-base-url={llm.base_url}", *args)
    record = results()["tasks"][0]
    assert record.get("status") != "infrastructure_error", record.get("notes")
    run_dir = pytester.path / ".e2ebench" / "reference" / "greeter" / "run-1" / "eval" / "cases"
    report = json.loads((run_dir / "F2-1.json").read_text())["report"]
    assert (report["ended"], report["result"]) == ("context", "Uncertain"), report


@browser
@pytest.mark.slow
def test_the_llm_score_baseline_scores_each_feature_from_the_code(pytester, tasks, results, llm):
    make_app_task(tasks)
    score = json.dumps({"F1": {"score": 1}, "F2": {"score": 0.5}, "F3": 0})

    def answer(body):
        if "review the source code" in body["messages"][0]["content"]:
            return reply(score)
        return app_judge_script({"# Greeter": CASES})(body)

    llm.push(*[answer] * 100)
    run(pytester, llm, "--e2e-agent=reference", "--e2e-judge=llm").assert_outcomes(passed=3)
    baseline = results()["tasks"][0]["app"]["llm_score"]
    assert baseline == {
        "features": {"F1": 1.0, "F2": 0.5, "F3": 0.0},
        "completeness": 0.5,
        "score": 0.5,
    }
    code = next(r for r in llm.requests if "review the source code" in r["messages"][0]["content"])[
        "messages"
    ][1]["content"]
    assert "### app.js" in code and "### index.html" in code


def test_an_app_task_without_a_reference_cannot_be_run_by_the_reference_agent(pytester, tasks, llm):
    root = make_app_task(tasks)
    shutil.rmtree(root / "reference")
    result = run(pytester, llm, "--e2e-agent=reference")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*task greeter has no reference app*"])


@browser
@pytest.mark.slow
def test_an_app_evaluation_is_recorded_and_replayed_offline_with_identical_verdicts(
    pytester, tasks, results, llm
):
    # the mutant: its F2 fails, so the replay must reproduce a No as well as Yeses
    make_app_task(tasks, script=SCRIPT.replace("n += 1;", "n += 0;"))
    scripted(llm)
    run(pytester, llm, "--e2e-agent=reference", "--e2e-llm-cache=record").assert_outcomes(
        passed=2, failed=1
    )
    recorded = results()["tasks"][0]
    calls = len(llm.requests)
    roles = {r["messages"][0]["content"].split(".")[0] for r in llm.requests}
    assert len(roles) == 3  # the case writer, the execution agent and JudgeLLM were all asked
    llm.stop()
    out = pytester.path / ".e2ebench"
    assert len(list((out / "llm-cache").rglob("*.json"))) == calls
    # drop the cached stages (cases, evaluation): the replay must do the evaluation again
    shutil.rmtree(out / ".shared")
    for stage in out.glob("reference/greeter/run-*/eval"):
        shutil.rmtree(stage)
    # no endpoint and no --e2e-model: the recorded answers are all the replay needs
    replayed_run = pytester.runpytest_subprocess(
        "--e2e-agent=reference",
        "--e2e-llm-cache=replay",
        "-o",
        "e2ebench_model=",
        "-p",
        "no:cacheprovider",
    )
    replayed_run.assert_outcomes(passed=2, failed=1)
    replayed = results()["tasks"][0]
    assert replayed["metrics"]["sq"] == recorded["metrics"]["sq"] == pytest.approx(2 / 3)
    verdicts = lambda r: [(v["id"], v["verdict"]) for v in r["app"]["verdicts"]]  # noqa: E731
    assert verdicts(replayed) == verdicts(recorded)
    assert [r["verdict"] for r in replayed["requirements"]] == [
        r["verdict"] for r in recorded["requirements"]
    ]
    assert list((out / "reference/greeter").glob("run-1/eval/cases/F2-1.json"))


KILLER = """import contextlib, functools, http.server, os, signal, sys
# Hostile: it signals every process it may. It runs apart from the driver and the browser (its
# own uid and PID namespace), so there are none: it serves as if nothing happened.
with contextlib.suppress(ProcessLookupError):
    os.kill(-1, signal.SIGKILL)  # every process this uid may signal, but itself
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=".")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


# --- the reference, a mutant and an app that breaks on load: one session ---------------------


class AppBatch(SharedSession):
    """The app session and what its scripted model was asked."""

    requests: list = []


@pytest.fixture(scope="module")
def app_batch(request, tmp_path_factory) -> AppBatch:
    """One session of the reference agent on six app tasks (read by ``TestBatchApp``): the
    greeter, a mutant, one that breaks on load, two served by their own command (one of them
    hostile) and one whose page hangs. Runs of a session do not overlap, so each task's run
    is as alone as in a session of its own."""
    with batch_folder(request, tmp_path_factory, "app-batch") as root:
        batch = AppBatch(root)
        make_app_task(batch.tasks)
        make_app_task(batch.tasks, "mutant", script=SCRIPT.replace("n += 1;", "n += 0;"))
        make_app_task(batch.tasks, "broken", script="undefinedFunction();\n" + SCRIPT)
        make_command_app(batch.tasks, SERVER, "served")
        make_command_app(batch.tasks, KILLER, "killer")
        make_app_task(batch.tasks, "spin", script=SPIN, toml_extra="\n[tests]\ntimeout = 3\n")
        options = {"e2ebench_model": "scripted-model", "e2ebench_llm_retries": "0"}
        options["e2ebench_app_cases"] = "3-6"
        lines = ["[pytest]", *(f"{k} = {v}" for k, v in options.items())]
        (root / "pytest.ini").write_text("\n".join(lines) + "\n")
        with ScriptedLLM() as llm:
            scripted(llm, n=1200)
            began = time.monotonic()
            batch.run(
                f"--e2e-llm-base-url={llm.base_url}",
                "--e2e-agent=reference",
                "--e2e-tasks=tasks",
                "--junitxml=junit.xml",
                "-p",
                "no:cacheprovider",
            )
            batch.requests = list(llm.requests)
        print(f"\nreference app, 6 tasks: {time.monotonic() - began:.1f} s (session)")
        yield batch


@browser
@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchApp:
    """The readers of the one app session (one xdist worker builds it)."""

    def test_a_scripted_agent_clicking_through_the_reference_passes_every_feature(self, app_batch):
        assert set(app_batch.outcomes("reference", 1, "greeter").values()) == {"passed"}
        record = app_batch.record("greeter", 1, "reference")
        assert record["metrics"]["executability"] == 1.0
        assert record["metrics"]["sq"] == 1.0
        app = record["app"]
        assert (app["cases"], app["yes"], app["no"], app["indeterminate"]) == (3, 3, 0, 0)
        # the agent saw the accessibility tree and a screenshot, and acted on numbered nodes
        agent_requests = [
            r for r in app_batch.requests if "meticulous" in r["messages"][0]["content"]
        ]
        first = agent_requests[0]["messages"][1]["content"]
        assert 'button "Greet"' in first[0]["text"]
        assert first[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        assert {t["function"]["name"] for t in agent_requests[0]["tools"]} >= {"click", "report"}
        # the evidence is kept: the trace and the final screenshot of every case
        run_dir = Path(record["dir"])
        kept = json.loads(next(run_dir.glob("eval/cases/F2-1.json")).read_text())
        assert [t["action"] for t in kept["report"]["trace"]] == ["click", "click"]
        assert "Count: 2" in kept["final_page"]
        assert next(run_dir.glob("eval/cases/F2-1.jpg")).read_bytes()[:2] == b"\xff\xd8"

    def test_a_mutant_loses_exactly_the_feature_its_mutation_breaks(self, app_batch):
        outcomes = app_batch.outcomes("reference", 1, "mutant")
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        failures = app_batch.failures("reference", 1, "mutant")
        assert "F2 not implemented" in failures
        assert re.search(r"FAILED.*cases/F2-1 — No: .*Count: 2", failures), failures
        record = app_batch.record("mutant", 1, "reference")
        assert record["metrics"]["sq"] == pytest.approx(2 / 3)
        assert [r["id"] for r in record["requirements"] if r["verdict"] != "implemented"] == ["F2"]
        assert (app_batch.root / "tasks" / "mutant").exists()

    def test_an_app_whose_script_breaks_on_load_is_not_executable(self, app_batch):
        outcomes = app_batch.outcomes("reference", 1, "broken")
        assert list(outcomes.values()) == ["failure"] * 3, outcomes
        web = app_batch.record("broken", 1, "reference")["web"]
        assert not web["executable"]
        assert any("undefinedFunction" in e for e in web["errors"])

    def test_an_app_that_serves_itself_is_started_with_its_command_on_the_harness_port(
        self, app_batch
    ):
        outcomes = app_batch.outcomes("reference", 1, "served")
        assert list(outcomes.values()) == ["passed"] * 3, outcomes
        web = app_batch.record("served", 1, "reference")["web"]
        assert web["executable"] and web["url"].startswith("http://127.0.0.1:")

    def test_a_page_stuck_in_an_endless_loop_ends_its_case_as_uncertain_and_the_next_runs(
        self, app_batch
    ):
        outcomes = app_batch.outcomes("reference", 1, "spin")
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        record = app_batch.record("spin", 1, "reference")
        assert record["test_run"]["duration_s"] < 120  # the hang is cut, not waited out
        assert record["app"]["sessions"] == 2  # a fresh browser after the stuck one
        failing = next(r for r in record["requirements"] if r["id"] == "F1")["failing"][0]
        assert "Indeterminate" in failing["message"] and "browser" in failing["message"]

    def test_a_command_app_that_kills_what_it_can_does_not_reach_the_driver_or_the_browser(
        self, app_batch
    ):
        # The app runs apart from the browser and its driver (issue 26): its kill(-1) finds
        # nothing to signal, and the app is graded as the honest one.
        outcomes = app_batch.outcomes("reference", 1, "killer")
        assert list(outcomes.values()) == ["passed"] * 3, outcomes
        record = app_batch.record("killer", 1, "reference")
        assert record["status"] != "error"
        assert record["metrics"]["executability"] == 1.0
