"""The bundled benchmark is self-checking: the oracle scores 100 %, the empty repo 0 %."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_e2ebench.task import find_task_dirs, load_task

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "benchmark_tasks"
TASK_DIRS = find_task_dirs(TASKS)


def test_there_are_bundled_tasks_of_several_kinds():
    kinds = {load_task(d).kind for d in TASK_DIRS}
    assert len(TASK_DIRS) >= 3
    assert {"library", "cli", "data"} <= kinds


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=[d.name for d in TASK_DIRS])
def test_task_is_valid_and_every_requirement_has_tests(task_dir):
    task = load_task(task_dir)
    assert task.requirements
    for req in task.requirements:
        assert task.tests_for(req.id), req.id


def test_reference_scores_100_and_nop_scores_0(pytester, results):
    result = pytester.runpytest_subprocess(
        "--e2e-agent=reference,nop", f"--e2e-tasks={TASKS}", "-n", "2", "-q", "-p", "no:randomly"
    )
    doc = results()
    by_agent: dict[str, list[dict]] = {}
    for run in doc["tasks"]:
        by_agent.setdefault(run["agent"], []).append(run)
    assert {r["task"] for r in by_agent["reference"]} == {d.name for d in TASK_DIRS}
    for run in by_agent["reference"]:
        assert run["metrics"]["impl_rate"] == 1.0, (run["task"], run["requirements"])
        assert run["metrics"]["pass_rate"] == 1.0, run["task"]
    for run in by_agent["nop"]:
        assert run["metrics"]["impl_rate"] == 0.0, run["task"]
        assert run["metrics"]["passed"] == 0, run["task"]
    n_reqs = sum(len(load_task(d).requirements) for d in TASK_DIRS)
    result.assert_outcomes(passed=n_reqs, failed=n_reqs)
