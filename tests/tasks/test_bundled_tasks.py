"""The bundled benchmark is self-checking, and big and varied enough to separate agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_e2ebench.selfcheck import check
from pytest_e2ebench.task import find_task_dirs, load_task

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "benchmark_tasks"
TASK_DIRS = find_task_dirs(TASKS)
LOADED = [load_task(d) for d in TASK_DIRS]
PYTHON_TASKS = [t for t in LOADED if t.kind != "web"]
WEB_TASKS = [t for t in LOADED if t.kind == "web"]


def test_there_are_bundled_tasks_of_several_kinds():
    kinds = [t.kind for t in LOADED]
    assert len(TASK_DIRS) >= 3
    assert {"library", "cli", "data", "web"} <= set(kinds)
    assert kinds.count("web") >= 6


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=[d.name for d in TASK_DIRS])
def test_task_is_valid_with_tests_for_every_requirement_and_four_mutant_classes(task_dir):
    task = load_task(task_dir)
    for req in task.requirements:
        assert task.tests_for(req.id), req.id
    assert {m.cls for m in task.mutants} == {
        "missing_feature",
        "stub",
        "wrong_logic",
        "wrong_format",
    }


# The web tasks run in headless Chromium.
GROUPS = [
    pytest.param(PYTHON_TASKS, id="python"),
    pytest.param(WEB_TASKS, id="web", marks=pytest.mark.browser),
]


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("group", GROUPS)
def test_every_bundled_reference_passes_and_every_empty_repository_fails(group, tmp_path):
    """One run each: every reference scores 100 %, every empty repository 0 %."""
    problems = check(group, tmp_path, runs=1, workers="2", mutants=False)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.selfcheck
@pytest.mark.timeout(2400)
@pytest.mark.parametrize("group", GROUPS)
def test_bundled_tasks_are_self_checking(group, tmp_path):
    """Reference 100 % in 3 runs, empty repo 0 %, each mutant fails exactly what it declares."""
    problems = check(group, tmp_path, runs=3, workers="2")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("task", WEB_TASKS, ids=lambda t: t.id)
def test_web_task_has_three_scenarios_per_requirement(task):
    assert len(task.requirements) >= 5
    for req in task.requirements:
        assert sum(t.cases for t in task.tests_for(req.id)) >= 3, req.id


def test_collect_only_shows_the_task_catalog(pytester, tasks):
    tasks.make()
    result = pytester.runpytest(
        "--e2e-agent=reference,nop", "--e2e-tasks=tasks", "--collect-only", "-q"
    )
    result.stdout.fnmatch_lines(
        [
            "*= e2ebench tasks =*",
            "task*kind*created*source*requirements*tests*mutants*ref files*ref lines",
            "calc*library*2026-11-01*written here*3*7*0*4*12",
            "1 tasks*3*7*0*4*12",
        ]
    )
