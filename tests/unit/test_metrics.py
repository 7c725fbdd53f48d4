"""Metric definitions checked against hand-computed examples."""

from __future__ import annotations

import pytest

from pytest_e2ebench.grading.metrics import (
    METRIC_KEYS,
    mean_std,
    ratio,
    run_metrics,
    suite_metrics,
    summarize,
)


def t(outcome: str) -> dict:
    return {"outcome": outcome}


def req(verdict: str, tests: int, passed: int) -> dict:
    return {"verdict": verdict, "tests": tests, "passed": passed}


def test_suite_counts_rates_and_coverage():
    tests = (
        [t("passed")] * 6
        + [t("failed")] * 2
        + [t("error")]
        + [t("skipped")]
        + [t("xpassed"), t("xfailed")]
    )
    suite = suite_metrics(
        tests, {"statements": 200, "covered_lines": 150, "branches": 40, "covered_branches": 10}
    )
    assert (suite["passed"], suite["failed"], suite["errors"], suite["skipped"]) == (7, 2, 1, 2)
    assert suite["total"] == 12
    assert suite["pass_rate"] == pytest.approx(7 / 10)  # passed / (total - skipped)
    assert suite["test_acc"] == pytest.approx(7 / 12)  # passed / total
    assert suite["line_coverage"] == 0.75
    assert suite["branch_coverage"] == 0.25
    assert (suite["covered_lines"], suite["covered_branches"]) == (150, 10)


def test_metrics_that_do_not_apply_are_none_not_zero():
    suite = suite_metrics([], None)
    assert suite["pass_rate"] is None and suite["test_acc"] is None
    assert suite["line_coverage"] is None and suite["covered_lines"] is None
    only_skipped = suite_metrics(
        [t("skipped")], {"statements": 0, "covered_lines": 0, "branches": 0, "covered_branches": 0}
    )
    assert only_skipped["pass_rate"] is None
    assert only_skipped["test_acc"] == 0.0
    assert only_skipped["line_coverage"] is None and only_skipped["covered_lines"] == 0


def test_run_metrics_hand_computed():
    # 4 requirements: R1 and R2 pass all tests, R3 fails one of 3, R4 has 2 tests both failing.
    reqs = [
        req("implemented", 2, 2),
        req("implemented", 1, 1),
        req("not_implemented", 3, 2),
        req("not_implemented", 2, 0),
    ]
    tests = [t("passed")] * 5 + [t("failed")] * 3
    suite = suite_metrics(tests, None)
    m = run_metrics(reqs, suite, {"code_lines": 120, "code_files": 3}, {"duration_s": 1.5})
    assert list(m) == list(METRIC_KEYS)
    assert m["impl_rate"] == 0.5
    assert m["req_acc"] == 0.5
    assert m["pass_rate"] == pytest.approx(5 / 8)
    assert m["test_acc"] == pytest.approx(5 / 8)
    assert m["balanced"] == pytest.approx(0.6 * 0.5 + 0.4 * 5 / 8)  # 0.55
    assert m["balanced"] == pytest.approx(0.55)
    assert (m["code_lines"], m["code_files"], m["duration_s"]) == (120, 3, 1.5)
    assert m["tokens_sent"] is None and m["cost_usd"] is None and m["steps"] is None


def test_inconclusive_counts_in_the_impl_rate_denominator():
    reqs = [req("implemented", 1, 1), req("inconclusive", 1, 1), req("not_implemented", 1, 0)]
    m = run_metrics(reqs, suite_metrics([t("passed"), t("passed"), t("failed")], None), {}, {})
    assert m["impl_rate"] == pytest.approx(1 / 3)
    assert m["req_acc"] == pytest.approx(2 / 3)  # tests-based: R2's tests all pass


def test_requirement_without_tests_is_never_accurate():
    m = run_metrics([req("not_implemented", 0, 0)], suite_metrics([], None), {}, {})
    assert m["req_acc"] == 0.0
    assert m["balanced"] is None  # test_acc does not apply without tests


def test_mean_std_is_sample_std_and_skips_none():
    assert mean_std([0.5, 0.7, 0.9]) == {
        "mean": pytest.approx(0.7),
        "std": pytest.approx(0.2),
        "n": 3,
    }
    assert mean_std([1.0, None]) == {"mean": 1.0, "std": None, "n": 1}
    assert mean_std([]) == {"mean": None, "std": None, "n": 0}


def test_ratio():
    assert ratio(1, 4) == 0.25
    assert ratio(0, 0) is None


def _record(task, run, impl, agent="a"):
    metrics = dict.fromkeys(METRIC_KEYS)
    metrics["impl_rate"] = impl
    return {"task": task, "agent": agent, "run": run, "metrics": metrics}


def test_summary_is_mean_std_over_runs_of_the_task_average():
    records = [
        _record("t1", 1, 1.0),
        _record("t2", 1, 0.5),  # run 1 average 0.75
        _record("t1", 2, 0.5),
        _record("t2", 2, 0.5),  # run 2 average 0.5
        _record("t1", 3, 1.0),
        _record("t2", 3, 1.0),  # run 3 average 1.0
        {"task": "t3", "agent": "a", "run": 1, "metrics": None},  # infrastructure error
    ]
    summary = summarize(records)["a"]
    assert summary["impl_rate"]["mean"] == pytest.approx(0.75)
    assert summary["impl_rate"]["std"] == pytest.approx(0.25)
    assert summary["runs"] == 3
    assert summary["tasks"] == 3
    assert summary["errored_runs"] == 1
    assert summary["cost_usd"] == {"mean": None, "std": None, "n": 0, "ci95": None}
