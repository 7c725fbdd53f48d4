"""Web tasks: Gherkin scenarios in headless Chromium against the served app (black-box)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.batch import Batch, SharedSession, batch_folder, run_result
from helpers.web import APP, FEATURE, SCRIPT, make_web_task

from pytest_e2ebench.probe.e2ebench_web import map_url
from pytest_e2ebench.taskmodel.features import parse_feature

browser = pytest.mark.browser


def browser_processes(marker: str) -> list[str]:
    """Live (not zombie) processes whose environment names ``marker`` (our test's folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
        except OSError:
            continue
        if marker.encode() in environ and state != "Z" and "chrom" in cmd:
            found.append(f"{entry.name}: {cmd}")
    return found


# --- without a browser: reading scenarios -------------------------------------------------


def test_feature_scenarios_are_read_statically(tmp_path):
    path = tmp_path / "greet.feature"
    path.write_text(FEATURE)
    scenarios, problems = parse_feature(path)
    assert problems == []
    assert [(s["function"], s["requirements"], s["cases"]) for s in scenarios] == [
        ("test_greet_a_name", ["R1"], 2),
        ("test_enter_greets_too", ["R1"], 1),
        ("test_empty_name_is_refused", ["R1", "R2"], 1),
        ("test_every_scenario_starts_with_empty_storage", ["R1", "R2"], 1),
    ]


def test_invalid_web_tasks_are_collection_errors_naming_file_and_fix(pytester, tasks):
    root = make_web_task(tasks, app=False)
    tasks.write(root / "reference" / "app.js", SCRIPT)
    tasks.write(
        root / "tests" / "features" / "more.feature",
        "Feature: More\n  Scenario: Untagged\n    Given the app is open\n"
        "  Scenario: Untagged\n    Given the app is open\n",
    )
    tasks.write(root / "tests" / "features" / "bad.feature", "Scenario without feature\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(
        [
            "*greet/tests/features/bad.feature:1: not valid Gherkin: Misplaced*",
            "*greet/tests/features/more.feature: two scenarios are named 'Untagged'; rename one*",
            "*greet/tests/features/more.feature::test_untagged (line *): no requirement tag; "
            "add a tag like @R1*",
            "*greet/reference/index.html: missing; a web task's reference app starts at "
            "index.html*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # other tasks would run (issue 31)


def test_file_urls_map_onto_the_served_app(tmp_path):
    (tmp_path / "css").mkdir()
    (tmp_path / "index.html").write_text("x")
    (tmp_path / "css" / "a.css").write_text("x")
    base = "http://127.0.0.1:5000/"
    assert map_url("file://index.html", base, tmp_path) == base + "index.html"
    assert (
        map_url("file:///home/u/E2ESD_Bench_01/source_projcet/index.html?x=1#top", base, tmp_path)
        == base + "index.html?x=1#top"
    )
    assert map_url("file:///elsewhere/css/a.css", base, tmp_path) == base + "css/a.css"
    assert map_url("http://localhost:8000/index.html", base, tmp_path) == base + "index.html"
    assert map_url("https://example.com/x", base, tmp_path) == "https://example.com/x"


# --- with the browser ---------------------------------------------------------------------


@browser
def test_hung_page_fails_its_scenario_only_and_the_browser_recovers(pytester, tasks, results):
    """A click handler that never returns: that scenario times out, the next ones pass."""
    make_web_task(tasks, spin=True, timeout=10)
    # spin.feature sorts after greet.feature: its hang comes last, so run it first by name
    os.rename(
        tasks.tasks / "greet" / "tests" / "features" / "spin.feature",
        tasks.tasks / "greet" / "tests" / "features" / "a_spin.feature",
    )
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*R3 not implemented*", "*Timeout*"])
    record = results()["tasks"][0]
    assert [r["verdict"] for r in record["requirements"]] == [
        "implemented",
        "implemented",
        "not_implemented",
    ]
    assert "test_timeout" in record["test_run"]["containment"]
    assert browser_processes(str(pytester.path)) == []


@browser
def test_e2edev_import_converts_and_grades_and_reports_what_it_could_not(
    pytester, results, tmp_path
):
    from helpers.e2edev_sample import PROMPT, write_sample

    from pytest_e2ebench.cli import main

    src = write_sample(tmp_path / "E2EDev_data")
    out = pytester.path / "tasks"
    assert (
        main(["import", "e2edev", "--no-gate", str(src), str(out), "--created", "2025-10-01"]) == 0
    )
    report = {r["project"]: r for r in json.loads((out / "import-report.json").read_text())}
    assert report["Counter_01"]["converted"] == 3 and report["Counter_01"]["failed"] == []
    assert [(f["requirement"], f["case"]) for f in report["Broken_02"]["failed"]] == [
        ("R1", 2),
        ("R2", 1),
    ]
    assert "no source_projcet/index.html" in report["NoApp_03"]["error"]
    steps = (out / "counter_01" / "tests" / "r1_1" / "conftest.py").read_text()
    assert "= webdriver.Chrome()" not in steps and "from behave" not in steps
    # the prompt verbatim (leading blank lines trimmed), then one heading per requirement
    requirements = (out / "counter_01" / "requirements.md").read_text()
    assert requirements.startswith(PROMPT.strip("\n") + "\n")
    assert "### R1: A counter starts at 0." in requirements
    assert not (out / "counter_01" / "reference" / "info").exists()

    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*E2EDev test case not converted: step code is not valid*"])
    runs = {r["task"]: r for r in results()["tasks"]}
    assert runs["counter_01"]["metrics"]["req_acc"] == 1.0
    assert runs["counter_01"]["metrics"]["balanced"] == 1.0
    assert runs["broken_02"]["metrics"]["req_acc"] == 0.0


# --- the reference, nop and a wrong app on two tasks: one serial session ---------------------

WRONG_SCRIPT = SCRIPT.replace("Hello, ", "Hi, ") + "console.error('oops');\n"


@pytest.fixture(scope="module")
def web_batch(request, tmp_path_factory) -> SharedSession:
    """One serial session of ``reference,nop,dir:outputs`` on greet (a wrong app in
    ``outputs``) and greet2, read by ``TestBatchWeb``; the serial half of its -n 2 test."""
    with batch_folder(request, tmp_path_factory, "web-batch") as root:
        batch = SharedSession(root)
        make_web_task(batch.tasks)
        make_web_task(batch.tasks, "greet2")
        batch.tasks.write(root / "outputs" / "greet" / "index.html", APP)
        batch.tasks.write(root / "outputs" / "greet" / "app.js", WRONG_SCRIPT)
        # greet2 has no output: its dir: run is an empty one, no browser needed
        args = ("--e2e-agent=reference,nop,dir:outputs", "--e2e-missing=empty")
        batch.run(*args, "--e2e-tasks=tasks")
        batch.left = browser_processes(str(root))
        yield batch


@pytest.fixture(scope="module")
def web_parallel(web_batch: SharedSession) -> dict:
    """The reference and nop on both tasks again, under ``-n 2`` (its own ``--e2e-out``)."""
    root = web_batch.root
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-n", "2", "--e2e-out=par")
    done = Batch.run(web_batch, *args, f"--basetemp={root}/basetemp-par")
    return {"result": run_result(done), "left": browser_processes(str(root))}


def web_metrics(document: dict) -> dict:
    """The metrics of the reference's and nop's runs by (task, agent), without times."""
    return {
        (r["task"], r["agent"]): {k: v for k, v in r["metrics"].items() if k != "duration_s"}
        for r in document["tasks"]
        if r["agent"] in ("reference", "nop")
    }


@browser
@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchWeb:
    """The readers of the one serial web session (one xdist worker runs it)."""

    def test_reference_passes_nop_fails_and_a_failure_has_screenshot(self, web_batch):
        outcomes = [
            outcome
            for agent in ("reference", "nop", "dir-outputs")
            for outcome in web_batch.outcomes(agent, 1, "greet").values()
        ]
        assert sorted(outcomes) == ["failure"] * 3 + ["passed"] * 3, outcomes
        web_batch.lines().fnmatch_lines(
            [
                "*R1 not implemented (nop, run 1): Greeting",
                "*the app has no page at / (HTTP 404)*",
                "*R1 not implemented (dir-outputs, run 1): Greeting",
                "*FAILED*test_greet_a_name*Hi, Ann*",
                "*screenshot: *artifacts/*.png",
                "*browser console*",
                "*oops*",
                "*task*agent*balanced*exec*",
                "greet*nop*0.0%*0.0%*",
            ]
        )
        runs = {r["agent"]: r for r in web_batch.results()["tasks"] if r["task"] == "greet"}
        ref, nop, wrong_run = runs["reference"], runs["nop"], runs["dir-outputs"]
        assert ref["metrics"]["req_acc"] == 1.0 and ref["metrics"]["passed"] == 5
        assert ref["web"]["executable"] is True and ref["web"]["browser_start_s"] > 0
        assert ref["metrics"]["executability"] == 1.0
        assert nop["web"]["executable"] is False and nop["web"]["status"] == 404
        assert nop["metrics"]["executability"] == 0.0 and nop["metrics"]["test_acc"] == 0.0
        assert ref["install"]["method"] == "served"
        assert ref["metrics"]["code_files"] == 2  # index.html and app.js count as the app's code
        # a console.error does not make the app non-executable; it is listed
        assert wrong_run["web"]["executable"] is True
        assert any("oops" in e for e in wrong_run["web"]["console_errors"])
        assert wrong_run["metrics"]["req_acc"] == 0.5
        failing = wrong_run["requirements"][0]["failing"][0]
        assert Path(failing["properties"]["screenshot"]).stat().st_size > 0
        assert "oops" in failing["properties"]["console"]
        assert web_batch.left == []

    def test_parallel_equals_serial(self, web_batch, web_parallel):
        serial_outcomes = [
            outcome
            for task in ("greet", "greet2")
            for agent in ("reference", "nop")
            for outcome in web_batch.outcomes(agent, 1, task).values()
        ]
        assert sorted(serial_outcomes) == ["failure"] * 4 + ["passed"] * 4, serial_outcomes
        web_parallel["result"].assert_outcomes(passed=4, failed=4)
        serial = web_metrics(web_batch.results())
        assert serial == web_metrics(web_batch.results("par")) and len(serial) == 4
        assert web_parallel["left"] == []
