"""ProjectEval as a built-in plugin (docs/projecteval.md): the level-3 skeleton in the
workspace, the agent's parameter answers for its tests, the similarity indicators of a run,
and its report section (Pass@K in results.json, similarity and the cascade's steps
in the terminal), through the hooks an outside plugin would implement.

Registered by :func:`pytest_e2ebench.plugin.pytest_configure` as ``e2ebench-projecteval``.
"""

from __future__ import annotations

import pytest

from . import report
from .cascade import run_cascade
from .params import read_answers, write_pv_file
from .similarity import indicators
from .skeleton import write_skeleton


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_report_sections(config) -> list:
    """results.json's ``projecteval`` and the ``e2ebench projecteval`` section."""
    return [report.SECTION]


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_tests_migrated(repo, tests_dir, ctx) -> dict | None:
    """The agent's parameter values, checked, for the tests' ``pv`` fixture (#17); the
    migration record keeps them as ``parameters``."""
    spec = ctx.task.projecteval
    if spec is None:
        return None
    answers = read_answers(repo, spec)
    write_pv_file(tests_dir, answers, repo)
    return {"parameters": answers}


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_prepare_workspace(workspace, ctx) -> None:
    """Level 3: the code skeleton in the agent's workspace (#17)."""
    task = ctx.task
    if task.projecteval is not None and task.level == 3 and ctx.agent.receives_materials:
        write_skeleton(task, workspace)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_run_extras(steps, repo, repo_hash, migration) -> dict | None:
    """The run's level, parameter answers and similarity indicators (cached); None for a
    task of another benchmark."""
    task = steps.ctx.task
    if task.projecteval is None:
        return None
    stage = steps.stage("similarity", repo_hash=repo_hash)
    found = stage.load()
    if found is None:
        stage.reset()
        found = stage.commit(indicators(task.projecteval, task.reference_dir, repo))
    return {
        "level": task.level,
        "projecteval": {"level": task.level, "parameters": migration.get("parameters"), **found},
    }


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_lead_in(steps):
    """``--e2e-projecteval-mode=cascade`` at level 1 or 2: the checklist and skeleton steps
    before the code (``cascade.Cascade``); None for any other run."""
    task = steps.ctx.task
    return run_cascade(steps, task) if task.cascade else None
