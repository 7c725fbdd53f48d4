"""results.json (the contract scripts read) and the terminal summary table."""

from __future__ import annotations

import pytest

from pytest_e2ebench.grading.metrics import METRIC_KEYS
from pytest_e2ebench.report.results import build


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Readers of tests/conftest.py's one calc session (reference, nop, ``dir:out`` whose run 1
    has R2 broken, two runs each): on one xdist worker with every other ``TestSharedCalc``."""

    def test_results_json_has_the_contract_keys(self, calc_session):
        doc = calc_session.results()
        assert doc["schema"] == "e2ebench-results/1"
        run = calc_session.record("calc", 1, "reference")
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
        for rec in doc["tasks"]:
            for key, value in rec["metrics"].items():
                if key.endswith(("_rate", "_acc", "balanced", "_coverage")) and value is not None:
                    assert 0.0 <= value <= 1.0, key
        summary = doc["summary"]["reference"]["impl_rate"]
        assert summary == {"mean": 1.0, "std": 0.0, "n": 2, "ci95": [1.0, 1.0]}
        # one run alone has no spread: std and ci95 are null, not 0 (built in-process)
        alone = build([run])["summary"]["reference"]["impl_rate"]
        assert alone == {"mean": 1.0, "std": None, "n": 1, "ci95": None}

    def test_table_shows_mean_and_std_over_runs(self, calc_session):
        calc_session.lines().fnmatch_lines(
            [
                "*= e2ebench summary =*",
                "task*agent*runs*impl*req_acc*pass*balanced*line*branch*tok_in*tok_out*cost$*"
                "steps*time_s",
                "calc*dir-out*2*83.3%*83.3%*",
                "overall*dir-out*2*83.3%±23.6*",
                "results: */.e2ebench/results.json",
            ]
        )

    def test_failing_item_lists_its_failing_tests_and_first_error_lines(self, calc_session):
        calc_session.lines().fnmatch_lines(
            [
                "*R2 not implemented (dir-out, run 1): Subtraction",
                "2 of 2 tests did not pass:",
                "  FAILED  tests/test_calc.py::test_sub — *assert 8 == 2*",
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
