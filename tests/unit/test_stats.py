"""The statistics module and the statistics results.json carries (issue 14)."""

from __future__ import annotations

import itertools
import math

import pytest

from pytest_e2ebench.grading.metrics import METRIC_KEYS, quarter, summarize
from pytest_e2ebench.grading.stats import bootstrap_ci, describe, pass_at_k, sign_test


def _brute_pass_at_k(outcomes: list[bool], k: int) -> float:
    """The share of k-subsets of the runs with at least one success (the definition)."""
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 7))
def test_pass_at_k_equals_the_closed_form_and_the_definition(n):
    for c in range(n + 1):
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            closed = 1 - math.comb(n - c, k) / math.comb(n, k)
            assert pass_at_k(n, c, k) == pytest.approx(closed)
            assert pass_at_k(n, c, k) == pytest.approx(_brute_pass_at_k(outcomes, k))


def test_pass_at_1_is_the_success_share_and_k_above_n_is_refused():
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="k <= n"):
        pass_at_k(2, 1, 3)


def test_identical_runs_give_a_zero_width_ci():
    assert bootstrap_ci([0.6, 0.6, 0.6]) == [0.6, 0.6]
    assert describe([0.6, 0.6, 0.6])["std"] == 0


def test_bootstrap_ci_is_deterministic_and_holds_the_mean():
    values = [0.2, 0.5, 0.9, 0.4, 0.7]
    first, second = bootstrap_ci(values), bootstrap_ci(list(values))
    assert first == second
    assert first[0] < sum(values) / len(values) < first[1]
    assert min(values) <= first[0] and first[1] <= max(values)
    assert bootstrap_ci([0.5]) is None
    assert bootstrap_ci([None, 0.5, float("nan")]) is None


def test_sign_test_is_the_exact_binomial_tail():
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32)
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(8, 2) == pytest.approx(2 * sum(math.comb(10, i) for i in range(3)) / 1024)
    assert sign_test(3, 3) == 1.0


def _run(task, run, verdicts, created="2026-02-01"):
    metrics = dict.fromkeys(METRIC_KEYS)
    metrics["impl_rate"] = sum(verdicts) / len(verdicts)
    return {
        "task": task,
        "agent": "a",
        "run": run,
        "metrics": metrics,
        "task_meta": {"created": created},
        "requirements": [
            {"id": f"R{i}", "verdict": "implemented" if ok else "not_implemented"}
            for i, ok in enumerate(verdicts, 1)
        ],
    }


def test_summary_pass_at_k_best_of_n_and_quarters():
    records = [
        _run("t1", 1, [True, False, False]),
        _run("t1", 2, [True, True, False]),
        _run("t1", 3, [True, False, False]),
        _run("t2", 1, [False, False], created="2025-11-30"),
        _run("t2", 2, [True, False], created="2025-11-30"),
        _run("t2", 3, [False, False], created="2025-11-30"),
    ]
    summary = summarize(records)["a"]
    t1 = [pass_at_k(3, 3, 2), pass_at_k(3, 1, 2), pass_at_k(3, 0, 2)]
    t2 = [pass_at_k(3, 1, 2), pass_at_k(3, 0, 2)]
    assert summary["pass_at_k"]["2"] == pytest.approx((sum(t1) / 3 + sum(t2) / 2) / 2)
    # pass@1 is the mean Impl-Rate when every run was evaluated
    assert summary["pass_at_k"]["1"] == pytest.approx(summary["impl_rate"]["mean"])
    assert set(summary["pass_at_k"]) == {"1", "2", "3"}
    assert summary["best_of_n"] == {"impl_rate": pytest.approx((2 / 3 + 1 / 2) / 2), "runs": 3}
    assert list(summary["by_quarter"]) == ["2025Q4", "2026Q1"]
    assert summary["by_quarter"]["2026Q1"]["tasks"] == 1
    assert summary["by_quarter"]["2026Q1"]["impl_rate"]["mean"] == pytest.approx(4 / 9)
    low, high = summary["impl_rate"]["ci95"]
    assert low <= summary["impl_rate"]["mean"] <= high


def test_quarter():
    assert quarter("2026-01-01") == "2026Q1"
    assert quarter("2026-12-31") == "2026Q4"
    assert quarter(None) == "unknown"
