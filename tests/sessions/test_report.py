"""results.json (the contract scripts read) and the terminal summary table."""

from __future__ import annotations

from conftest import CALC_CODE
from pytest_e2ebench.metrics import METRIC_KEYS


def test_results_json_has_the_contract_keys(pytester, tasks, results):
    tasks.make()
    pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    doc = results()
    assert doc["schema"] == "e2ebench-results/1"
    (run,) = doc["tasks"]
    assert {"task", "agent", "run", "requirements", "metrics", "suites"} <= set(run)
    assert set(run["metrics"]) == set(METRIC_KEYS)
    assert set(run["suites"]) == {"original", "extended", "all"}
    assert run["requirements"][0]["verdict"] == "implemented"
    assert run["task_meta"] == {
        "title": "A calculator",
        "kind": "library",
        "created": "2026-11-01",
        "source": "tests",
        "requirements": 3,
        "tests": 7,
        "reference_files": 4,
        "reference_lines": 12,
    }
    for key, value in run["metrics"].items():
        if key.endswith(("_rate", "_acc", "balanced", "_coverage")) and value is not None:
            assert 0.0 <= value <= 1.0, key
    assert doc["summary"]["reference"]["impl_rate"] == {
        "mean": 1.0,
        "std": None,
        "n": 1,
        "ci95": None,
    }


def test_table_shows_mean_and_std_over_runs(pytester, tasks):
    tasks.make()
    tasks.reference(pytester.path / "out" / "calc" / "run-1", CALC_CODE)
    tasks.reference(
        pytester.path / "out" / "calc" / "run-2",
        dict(CALC_CODE, sub="def sub(a, b):\n    return 0\n"),
    )
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks", "--e2e-runs=2")
    result.stdout.fnmatch_lines(
        [
            "*= e2ebench summary =*",
            "task*agent*runs*impl*req_acc*pass*balanced*line*branch*tok_in*tok_out*cost$*steps*time_s",
            "calc*dir-out*2*83.3%*83.3%*",
            "overall*dir-out*2*83.3%±23.6*",
            "results: */.e2ebench/results.json",
        ]
    )


def test_failing_item_lists_its_failing_tests_and_first_error_lines(pytester, tasks):
    tasks.make()
    tasks.reference(
        pytester.path / "out" / "calc",
        dict(CALC_CODE, add="def add(a, b):\n    raise ValueError('no adding today')\n"),
    )
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(
        [
            "*R1 not implemented (dir-out, run 1): Addition",
            "3 of 3 tests did not pass:",
            "  FAILED  tests/test_calc.py::test_add[[]1-2-3[]] — ValueError: no adding today",
            "details: */.e2ebench/dir-out/calc/run-1",
        ]
    )


def test_collect_only_writes_no_results(pytester, tasks):
    tasks.make()
    pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks", "--collect-only")
    assert not (pytester.path / ".e2ebench" / "results.json").exists()


def test_no_table_without_agent(pytester):
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest()
    result.stdout.no_fnmatch_line("*e2ebench summary*")
