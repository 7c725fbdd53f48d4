"""The benchmark's metrics, computed in one place.

Definitions (rates are fractions in [0, 1]; a metric that does not apply is ``None``):

* ``impl_rate`` — implemented requirements / all requirements (inconclusive verdicts count in
  the denominator, E2EDevBench §4.1).
* ``req_acc`` — requirements whose tests all pass (at least one test) / all requirements
  (E2EDev Req.Acc). Equal to ``impl_rate`` under the ``tests`` judge.
* ``pass_rate`` — passed / (total − skipped) over the reference tests. A reference test skips
  only where it can skip on the reference: one that skips elsewhere (``unexpected_skip``, e.g.
  a project calling ``pytest.skip()``) counts as failed (issue 11, class 9).
* ``test_acc`` — passed / total (E2EDev Test.Acc: every test case counts).
* ``balanced`` — 0.6 · req_acc + 0.4 · test_acc (E2EDev §B.2).
* ``executability`` — web and app tasks: 1 when the app's page loads (HTTP 200) without an uncaught
  script error, else 0; averaged over runs it is the share of executable apps (``None`` for
  other kinds).
* ``sq`` — app tasks (RealDevWorld's Software Quality): the share of the LLM-written test
  cases that JudgeLLM judged Yes (Indeterminate counts as not passed and is reported apart
  under ``app``); 0 for an app that is not executable (``None`` for other kinds).
* coverage of the generated code: ``line_coverage`` = covered lines / statements,
  ``branch_coverage`` = covered branches / branches, with the covered counts.
* ``code_lines`` (non-blank) and ``code_files`` of the generated project's Python sources.
* agent cost: ``tokens_sent``, ``tokens_generated``, ``cost_usd``, ``co2_g``, ``steps``
  (``None`` for agents that make no LLM calls) and ``duration_s`` (the agent's wall time).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping

from .stats import describe, mean_std, pass_at_k
from .verdicts import IMPLEMENTED, PASSING, SKIPPED

REQ_WEIGHT, TEST_WEIGHT = 0.6, 0.4  # E2EDev §B.2 "Balanced Score"

METRIC_KEYS = (
    "impl_rate",
    "req_acc",
    "pass_rate",
    "test_acc",
    "balanced",
    "executability",
    "sq",
    "passed",
    "failed",
    "errors",
    "skipped",
    "line_coverage",
    "branch_coverage",
    "covered_lines",
    "covered_branches",
    "code_lines",
    "code_files",
    "tokens_sent",
    "tokens_generated",
    "cost_usd",
    "co2_g",
    "steps",
    "duration_s",
)
AGENT_KEYS = ("tokens_sent", "tokens_generated", "cost_usd", "co2_g", "steps", "duration_s")
# Metrics averaged in the summary; counts of tests are summed per run first.
SUMMARY_KEYS = (
    "impl_rate",
    "req_acc",
    "pass_rate",
    "test_acc",
    "balanced",
    "executability",
    "sq",
    "line_coverage",
    "branch_coverage",
    "code_lines",
    "tokens_sent",
    "tokens_generated",
    "cost_usd",
    "co2_g",
    "steps",
    "duration_s",
)


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when the denominator is 0 (does not apply)."""
    return None if not denominator else numerator / denominator


def test_counts(tests: Iterable[Mapping]) -> dict[str, int]:
    """passed / failed / errors / skipped counts of test records.

    A skip marked ``unexpected_skip`` (the test does not skip on the reference) counts as
    failed, so it stays in the pass rate's denominator.
    """
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for test in tests:
        outcome = test["outcome"]
        if outcome in PASSING:
            counts["passed"] += 1
        elif outcome in SKIPPED and not test.get("unexpected_skip"):
            counts["skipped"] += 1
        elif outcome in SKIPPED or outcome == "failed":
            counts["failed"] += 1
        else:
            counts["errors"] += 1
    return counts


def suite_metrics(tests: list[Mapping], coverage: Mapping | None) -> dict:
    """Counts, rates and coverage of one test suite run."""
    counts = test_counts(tests)
    total = sum(counts.values())
    cov = coverage or {}
    note = cov.get("error")
    if note is None and counts["passed"] and cov.get("statements") and not cov.get("covered_lines"):
        # Tests that pass without running a line of the project ran it where coverage could
        # not follow (a server killed before it saved its data, a program not in Python): 0 %
        # would be a wrong number, so the coverage is unknown and says why (issue 31).
        note = (
            f"no line of the project was measured although {counts['passed']} test(s) passed: "
            "the tests ran it in a process coverage could not follow (killed before it saved "
            "its data, or not Python)"
        )
        cov = {}
    line = ratio(cov.get("covered_lines", 0), cov.get("statements", 0))
    branch = ratio(cov.get("covered_branches", 0), cov.get("branches", 0))
    if cov.get("over_bound"):  # coverage's report stopped at a bound the project drove it to
        line = branch = 0.0  # the agent's failure (issue 40, item 5)
    return {
        **counts,
        "total": total,
        "unexpected_skips": sum(1 for t in tests if t.get("unexpected_skip")),
        "pass_rate": ratio(counts["passed"], total - counts["skipped"]),
        "test_acc": ratio(counts["passed"], total),
        "line_coverage": line,
        "branch_coverage": branch,
        "covered_lines": cov.get("covered_lines") if cov else None,
        "covered_branches": cov.get("covered_branches") if cov else None,
        # coverage.py's XML and HTML reports of this suite, where the harness wrote them
        "coverage_reports": cov.get("reports") or None,
        # why line and branch coverage are null although the suite ran, or 0 because its
        # report stopped at a bound (None: neither)
        "coverage_note": note,
    }


def run_metrics(
    requirements: list[Mapping],
    suite: Mapping,
    code: Mapping[str, int],
    agent: Mapping,
    web: Mapping | None = None,
    app: Mapping | None = None,
) -> dict:
    """All metrics of one (task, agent, run) in the order of :data:`METRIC_KEYS`."""
    n = len(requirements)
    implemented = sum(1 for r in requirements if r["verdict"] == IMPLEMENTED)
    tests_pass = sum(1 for r in requirements if r["tests"] and r["passed"] == r["tests"])
    req_acc = ratio(tests_pass, n)
    test_acc = suite["test_acc"]
    balanced = (
        None
        if req_acc is None or test_acc is None
        else REQ_WEIGHT * req_acc + TEST_WEIGHT * test_acc
    )
    values = {
        "impl_rate": ratio(implemented, n),
        "req_acc": req_acc,
        "pass_rate": suite["pass_rate"],
        "test_acc": test_acc,
        "balanced": balanced,
        "executability": None if not web else float(bool(web.get("executable"))),
        "sq": None if not app else app.get("sq"),
        **{k: suite[k] for k in ("passed", "failed", "errors", "skipped")},
        **{
            k: suite[k]
            for k in ("line_coverage", "branch_coverage", "covered_lines", "covered_branches")
        },
        "code_lines": code.get("code_lines"),
        "code_files": code.get("code_files"),
        **{k: agent.get(k) for k in AGENT_KEYS},
    }
    return {k: values[k] for k in METRIC_KEYS}


def summarize(records: list[Mapping]) -> dict:
    """Per agent: each metric's mean ± std and 95 % CI over runs of the macro-average across tasks.

    E2EDev reports mean ± std over three runs; a run's score is the mean over its tasks.
    Records without metrics (a run that ended in an error) are left out of the means, never
    silently: ``evaluated_runs`` says how many (task, run) records the means are over,
    ``errored_runs`` how many were left out, and ``partial`` is true when any was (issue 11,
    class 8). Each metric's ``n`` is the number of runs its mean is over. ``pass_at_k`` and
    ``best_of_n`` pool the runs per requirement; ``by_quarter`` groups the tasks by the quarter
    of their ``created`` date (E2EDevBench §5, leakage).
    """
    summary: dict[str, dict] = {}
    by_agent: dict[str, list[Mapping]] = {}
    for rec in records:
        by_agent.setdefault(rec["agent"], []).append(rec)
    for agent, recs in sorted(by_agent.items()):
        evaluated = [r for r in recs if r.get("metrics") is not None]
        summary[agent] = {
            **_over_runs(evaluated, SUMMARY_KEYS),
            "runs": len({r["run"] for r in evaluated}),  # runs the means are over
            "tasks": len({r["task"] for r in recs}),
            "evaluated_runs": len(evaluated),
            "errored_runs": len(recs) - len(evaluated),
            "partial": len(recs) > len(evaluated),
            **pooled_requirements(evaluated),
            "by_quarter": by_quarter(evaluated),
        }
    return summary


def _over_runs(records: list[Mapping], keys: Iterable[str]) -> dict:
    """Each key's mean, std and CI over runs of the per-run mean across the records' tasks."""
    runs: dict[int, list[Mapping]] = {}
    for rec in records:
        runs.setdefault(rec["run"], []).append(rec["metrics"])
    return {
        key: describe(mean_std(m[key] for m in metrics)["mean"] for metrics in runs.values())
        for key in keys
    }


def pooled_requirements(records: list[Mapping]) -> dict:
    """pass@k and best-of-N over the evaluated runs of each requirement, macro over tasks.

    ``pass_at_k[str(k)]`` averages the unbiased estimator over a task's requirements, then over
    tasks, for k up to the fewest runs any task has (so pass@1 equals the mean Impl-Rate when
    no run errored). ``best_of_n`` is the share of a task's requirements that some run
    implements, averaged over tasks, with ``runs`` the most runs pooled.
    """
    tasks: dict[str, dict[str, list[bool]]] = {}
    for rec in records:
        reqs = tasks.setdefault(rec["task"], {})
        for req in rec.get("requirements") or ():
            reqs.setdefault(req["id"], []).append(req["verdict"] == IMPLEMENTED)
    tasks = {t: reqs for t, reqs in tasks.items() if reqs}
    if not tasks:
        return {"pass_at_k": {}, "best_of_n": {"impl_rate": None, "runs": 0}}
    fewest = min(len(v) for reqs in tasks.values() for v in reqs.values())
    pass_k = {
        str(k): statistics.fmean(
            statistics.fmean(pass_at_k(len(v), sum(v), k) for v in reqs.values())
            for reqs in tasks.values()
        )
        for k in range(1, fewest + 1)
    }
    best = statistics.fmean(
        statistics.fmean(any(v) for v in reqs.values()) for reqs in tasks.values()
    )
    most = max(len(v) for reqs in tasks.values() for v in reqs.values())
    return {"pass_at_k": pass_k, "best_of_n": {"impl_rate": best, "runs": most}}


QUARTER_KEYS = ("impl_rate", "req_acc", "pass_rate", "balanced")


def quarter(created: str | None) -> str:
    """``2026-11-22`` → ``2026Q4`` (``unknown`` without a date)."""
    if not created:
        return "unknown"
    year, month = created[:4], int(created[5:7])
    return f"{year}Q{(month - 1) // 3 + 1}"


def by_quarter(records: list[Mapping]) -> dict:
    """The main rates over runs per quarter of the tasks' ``created`` date, oldest first."""
    groups: dict[str, list[Mapping]] = {}
    for rec in records:
        created = (rec.get("task_meta") or {}).get("created")
        groups.setdefault(quarter(created), []).append(rec)
    return {
        q: {"tasks": len({r["task"] for r in recs}), **_over_runs(recs, QUARTER_KEYS)}
        for q, recs in sorted(groups.items())
    }
