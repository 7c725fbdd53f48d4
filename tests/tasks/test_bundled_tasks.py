"""The bundled benchmark is self-checking, and big and varied enough to separate agents."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pytest_e2ebench.taskmodel.task import fetch_reference, find_task_dirs, load_task
from pytest_e2ebench.tools.selfcheck import check

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "benchmark_tasks"
# Names and kinds only, from task.toml: loading a task at collection fetched the references of
# the PyPI-sourced tasks before a single test ran (the tests load what they check).
TASK_DIRS = find_task_dirs(TASKS)
KINDS = {d.name: tomllib.loads((d / "task.toml").read_text())["kind"] for d in TASK_DIRS}
# The default run checks one task through the whole pipeline; every bundled task is a check of
# the tasks, not of the harness: the self-check (--selfcheck) runs all of them.
REPRESENTATIVE = "semverkit"


def _per_task(dirs: list[Path]) -> list:
    """One param per task folder; all but the representative only under --selfcheck."""
    return [
        pytest.param(d, id=d.name, marks=() if d.name == REPRESENTATIVE else pytest.mark.selfcheck)
        for d in dirs
    ]


def test_there_are_bundled_tasks_of_several_kinds():
    kinds = list(KINDS.values())
    assert len(TASK_DIRS) >= 3
    assert {"library", "cli", "data", "web"} <= set(kinds)
    assert kinds.count("web") >= 6
    assert REPRESENTATIVE in KINDS


@pytest.mark.parametrize("task_dir", _per_task(TASK_DIRS))
def test_task_is_valid_with_tests_for_every_requirement_and_four_mutant_classes(task_dir):
    task = fetch_reference(load_task(task_dir))
    for req in task.requirements:
        assert task.tests_for(req.id), req.id
    assert {m.cls for m in task.mutants} == {
        "missing_feature",
        "stub",
        "wrong_logic",
        "wrong_format",
    }


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_representative_reference_passes_and_its_empty_repository_fails(tmp_path):
    """One bundled task through the whole pipeline in the default run: 100 % and 0 %."""
    problems = check(
        [load_task(TASKS / REPRESENTATIVE)], tmp_path, runs=1, workers="0", mutants=False
    )
    assert not problems, "\n".join(problems)


def _each_task() -> list:
    """One param per bundled task, the web tasks marked ``browser`` (headless Chromium)."""
    return [
        pytest.param(d, id=d.name, marks=[pytest.mark.browser] if KINDS[d.name] == "web" else [])
        for d in TASK_DIRS
    ]


@pytest.mark.slow
@pytest.mark.selfcheck
# ~3 min a task on 2 idle cores (8 test runs: 3 of the reference, the empty repository, 4
# mutants); the limit bounds one task on a machine loaded several times over, not a hang
# (each run has its own --e2e-timeout)
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("task_dir", _each_task())
def test_bundled_task_is_self_checking(task_dir, tmp_path):
    """Reference 100 % in each of 3 runs of one session, with the same verdict for every
    requirement in each (issue 30), the empty repository 0 %, and each mutant failing exactly
    the requirements it declares.

    One test per task: the timeout bounds one task and a failure names it. Three sessions
    (reference, nop, mutants) in one output folder; the reference's wheel is built once (the
    wheel store), so its runs 2 and 3 cost a venv from that wheel (2-4 s) and their test runs
    (20-30 s each for cronexpr under load). The outer ``-n 2`` runs two tasks at a time, each
    session without xdist.
    """
    problems = check([load_task(task_dir)], tmp_path, runs=3, workers="0")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "task_dir", [d for d in TASK_DIRS if KINDS[d.name] == "web"], ids=lambda d: d.name
)
def test_web_task_has_three_scenarios_per_requirement(task_dir):
    task = load_task(task_dir)
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
