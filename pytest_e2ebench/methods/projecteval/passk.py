"""Pass@K two ways, labelled apart (issue #17.4).

ProjectEval's "Pass@5" (arXiv:2503.07010 §4) is an *average over rounds*: the share of test
cases passed in each of the K generation rounds, averaged. That is a mean pass rate, not the
chance that one of K tries succeeds. The unbiased pass@k estimator (Chen et al. 2021; see
:func:`pytest_e2ebench.grading.stats.pass_at_k`) is that chance: per requirement (and per test),
from
the n runs of which c passed, averaged over requirements (tests). Both are reported per
(agent, task level) over the ``--e2e-runs`` of the session, under distinct keys.
"""

from __future__ import annotations

from collections import defaultdict

from ...grading.stats import pass_at_k


def _test_counts(runs: list[dict]) -> list[int]:
    """Per reference test, in how many of ``runs`` it passed (a test never listed as failing
    passed in every run)."""
    counts: list[int] = []
    for rid in dict.fromkeys(r["id"] for record in runs for r in record["requirements"]):
        fails: dict[str, int] = defaultdict(int)
        total = 0
        for record in runs:
            req = next((r for r in record["requirements"] if r["id"] == rid), {})
            total = max(total, req.get("tests") or 0)
            for test in req.get("failing", []):
                fails[test["nodeid"]] += 1
        counts += [len(runs) - f for f in fails.values()]
        counts += [len(runs)] * max(0, total - len(fails))
    return counts


def summarize_passk(records: list[dict]) -> dict:
    """Per agent (and level) of the ProjectEval runs: both Pass@K figures, labelled."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        if "projecteval" not in record or record.get("status") != "ok":
            continue
        level = record.get("level")
        name = f"level-{level}" if level else "requirements.md"
        if record.get("projecteval_mode") == "cascade":
            name += "-cascade"  # ProjectEval reports its cascade apart from direct
        groups[f"{record['agent']}@{name}"].append(record)
    out: dict[str, dict] = {}
    for key, mine in sorted(groups.items()):
        by_task: dict[str, list[dict]] = defaultdict(list)
        for record in mine:
            by_task[record["task"]].append(record)
        averaged = [
            r["metrics"]["test_acc"] for r in mine if r["metrics"].get("test_acc") is not None
        ]
        n = min(len(runs) for runs in by_task.values())
        req_counts: list[tuple[int, int]] = []
        test_counts: list[tuple[int, int]] = []
        for runs in by_task.values():
            runs = sorted(runs, key=lambda r: r["run"])[:n]
            implemented: dict[str, int] = defaultdict(int)
            for record in runs:
                for req in record["requirements"]:
                    implemented[req["id"]] += req.get("verdict") == "implemented"
            req_counts += [(n, c) for c in implemented.values()]
            test_counts += [(n, c) for c in _test_counts(runs)]
        ks = [k for k in (1, 3, 5) if k <= n]
        out[key] = {
            "runs": n,
            # ProjectEval's figure: the mean test pass rate over rounds (not an estimator)
            "projecteval_pass_at_rounds_averaged": (
                sum(averaged) / len(averaged) if averaged else None
            ),
            "pass_at_k_unbiased_requirements": {
                str(k): _mean(pass_at_k(n_, c, k) for n_, c in req_counts) for k in ks
            },
            "pass_at_k_unbiased_tests": {
                str(k): _mean(pass_at_k(n_, c, k) for n_, c in test_counts) for k in ks
            },
        }
    return out


def _mean(values) -> float | None:
    xs = list(values)
    return sum(xs) / len(xs) if xs else None
