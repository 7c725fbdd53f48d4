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

from ..contracts import Judgement
from ..errors import InfrastructureError
from ..grading.verdicts import judge_by_tests
from .llm import llm_verdicts

MODES = ("tests", "llm", "both")
# Keys of a run record a judge's extra keys may not replace (pipeline.build_record).
RESERVED = frozenset(
    "schema task agent agent_spec run status error requirements metrics suites migration "
    "agent_run install test_run containment intake web app notes task_meta dir selection "
    "judge_extra".split()
)
FACTS = ("title", "tags", "tests", "passed", "failing")  # filled in from the test run


def judge(
    config: pytest.Config, task, repo: Path, tests: list[dict], mode: str, run_dir: Path, ctx
) -> dict:
    """``{"verdicts": [...], ...}`` from the hook; extra keys go into the run's record."""
    result = config.hook.pytest_e2ebench_judge_requirements(
        config=config, task=task, repo=repo, tests=tests, mode=mode, run_dir=run_dir, ctx=ctx
    )
    if result is None:
        raise InfrastructureError("judge", f"no judge handles --e2e-judge={mode}")
    return completed(task, tests, Judgement.coerce(result), mode)


def completed(task, tests: list[dict], judgement: Judgement, mode: str) -> dict:
    """The judgement as a record stores it: one verdict per requirement, in the task's order,
    the test-run facts a judge left out (:data:`FACTS`) filled in.

    A judge that skips a requirement, decides one twice or one the task does not have, or
    returns a reserved key, is a bug of its plugin: a ValueError saying which.
    """
    facts = {v["id"]: v for v in judge_by_tests(task, tests)}
    where = f"--e2e-judge={mode} (pytest_e2ebench_judge_requirements)"
    given: dict[str, dict] = {}
    for verdict in judgement.verdicts:
        if verdict.id not in facts:
            raise ValueError(
                f"{where}: a verdict for {verdict.id!r}, which task {task.id} does not have "
                f"(its requirements: {', '.join(facts)})"
            )
        if verdict.id in given:
            raise ValueError(f"{where}: two verdicts for {verdict.id}; return one each")
        given[verdict.id] = verdict.to_dict()
    missing = [rid for rid in facts if rid not in given]
    if missing:
        raise ValueError(
            f"{where}: no verdict for {', '.join(missing)}; decide every requirement "
            "(RequirementVerdict(id, 'inconclusive') when it cannot)"
        )
    clash = sorted(RESERVED.intersection(judgement.extra))
    if clash:
        raise ValueError(
            f"{where}: returned {', '.join(clash)}, which the run record reserves; "
            "put your findings under a key of your own"
        )
    verdicts = [{**{k: facts[rid][k] for k in FACTS}, **given[rid]} for rid in facts]
    return {**judgement.extra, "verdicts": verdicts}


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_judge_modes(config) -> list[str]:
    """The built-in judges' ``--e2e-judge`` modes."""
    return list(MODES)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_judge_requirements(tests: list[dict], mode: str, ctx):
    """The built-in judges (the task, the project and the run's folder are on ``ctx``)."""
    by_tests = judge_by_tests(ctx.task, tests)
    if mode == "tests":
        return {"verdicts": by_tests}
    if mode not in ("llm", "both"):
        return None

    llm = llm_verdicts(ctx, ctx.repo, tests)
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
