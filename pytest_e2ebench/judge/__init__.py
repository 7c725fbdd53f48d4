"""Judges: from test results (and the code) to a verdict per requirement.

The ``pytest_e2ebench_judge_requirements`` hook picks the judge; the built-ins, chosen with
``--e2e-judge``, are ``tests`` (default: implemented iff the requirement has at least one test
and all of them pass, E2EDev's Req.Acc), ``llm`` (three independent LLM votes, E2EDevBench
§3.1.2) and ``both`` (both verdict sets, their agreement and Cohen's kappa; items follow
``tests``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..errors import InfrastructureError
from ..verdicts import judge_by_tests

MODES = ("tests", "llm", "both")


def judge(
    config: pytest.Config, task, repo: Path, tests: list[dict], mode: str, run_dir: Path
) -> dict:
    """``{"verdicts": [...], ...}`` from the hook; extra keys go into the run's record."""
    result = config.hook.pytest_e2ebench_judge_requirements(
        config=config, task=task, repo=repo, tests=tests, mode=mode, run_dir=run_dir
    )
    if result is None:
        raise InfrastructureError("judge", f"no judge handles --e2e-judge={mode}")
    return result


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_judge_requirements(
    config, task, repo: Path, tests: list[dict], mode: str, run_dir: Path
):
    """The built-in judges."""
    by_tests = judge_by_tests(task, tests)
    if mode == "tests":
        return {"verdicts": by_tests}
    if mode not in ("llm", "both"):
        return None
    from .llm import llm_verdicts

    llm = llm_verdicts(config, task, repo, tests, run_dir)
    classes = llm["failure_classes"]
    if mode == "llm":
        merged = [
            {
                **t,
                "verdict": llm["verdicts"][t["id"]],
                "test_verdict": t["verdict"],
                "failure_class": classes.get(t["id"]),
            }
            for t in by_tests
        ]
        return {"verdicts": merged, "llm_judge": llm}
    both = [
        {**t, "llm_verdict": llm["verdicts"][t["id"]], "failure_class": classes.get(t["id"])}
        for t in by_tests
    ]
    return {"verdicts": both, "llm_judge": llm}
