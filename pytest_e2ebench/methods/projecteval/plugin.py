"""ProjectEval as a built-in plugin (docs/projecteval.md): the level-3 skeleton in the
workspace, the agent's parameter answers for its tests, the similarity indicators of a run,
and its report section (Pass@K in results.json, similarity and the cascade's steps
in the terminal), through the hooks an outside plugin would implement.

An entry of the ``pytest_e2ebench.methods`` registry (``pytest_e2ebench.methods.BUILTIN``),
registered as the pytest plugin ``e2ebench-projecteval``.
"""

from __future__ import annotations

import pytest

from ...options import add_options, source
from . import CASCADE, LEVELS, MODES, SECTION, ProjectEvalSettings, report, spec_of
from .cascade import run_cascade
from .params import read_answers, write_pv_file
from .similarity import indicators, over_bound
from .skeleton import write_skeleton

OPTIONS = (
    (
        "level",
        "",
        "ProjectEval input level for tasks with a [projecteval] table: 1 (one-paragraph "
        "prompt), 2 (+ checklist), 3 (+ code skeleton). Default: requirements.md.",
        {"metavar": "1|2|3"},
    ),
    (
        "projecteval-mode",
        "direct",
        "ProjectEval mode at --e2e-level 1 or 2: direct (the agent goes from its level's "
        "input to the code in one run) or cascade (checklist, then skeleton, then code, "
        "each from its own previous output and each graded). Default direct.",
        {"choices": MODES},
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--e2e-level`` and ``--e2e-projecteval-mode`` (and their ini twins)."""
    add_options(parser, OPTIONS)


def pytest_e2ebench_settings(config: pytest.Config) -> dict:
    """ProjectEval's :class:`ProjectEvalSettings`: ``level`` (None: requirements.md, or one of
    the levels 1-3) and ``mode`` (direct or cascade), checked."""
    raw = config.option.e2e_level
    raw = str(raw if raw is not None else config.getini("e2ebench_level")).strip()
    if raw and raw not in {str(n) for n in LEVELS}:
        raise pytest.UsageError(
            f"{source(config, 'level')}={raw}: use 1 (prompt), 2 (prompt and checklist) or "
            "3 (prompt, checklist and code skeleton)"
        )
    given = config.option.e2e_projecteval_mode or str(config.getini("e2ebench_projecteval_mode"))
    mode = given.strip() or "direct"
    if mode not in MODES:
        raise pytest.UsageError(
            f"{source(config, 'projecteval-mode')}={given}: use direct (one run from the "
            "level's input) or cascade (checklist, skeleton, then code)"
        )
    level = int(raw) if raw else None
    return {"methods": {SECTION: ProjectEvalSettings(level=level, mode=mode)}}


def pytest_itemcollected(item: pytest.Item) -> None:
    """``-k level2``, ``-k cascade``: a run's items at a level, or in the cascade mode."""
    task = getattr(item, "task", None)
    spec = spec_of(task) if task is not None else None
    if spec is not None and spec.level is not None:
        item.extra_keyword_matches.add(f"level{spec.level}")
    if spec is not None and spec.cascade:
        item.extra_keyword_matches.add(CASCADE)


def pytest_e2ebench_plan_fields(ctx) -> dict | None:
    """A ProjectEval task's plan: its table, the checklist as written, and the repository
    path its parameter file names (the keys of the migration, similarity and cascade)."""
    pe = spec_of(ctx.task)
    if pe is None:
        return None
    fields = {
        "projecteval": pe.to_dict(),
        "checklist_raw": tuple(pe.checklist_raw),
        "pv_repo": str(ctx.run_dir / "repo"),
    }
    return {SECTION: fields}


def pytest_e2ebench_error_extras(task) -> dict | None:
    """A run at a level that ended in an error: its record's ``level`` (and mode)."""
    spec = spec_of(task)
    if spec is None or spec.level is None:
        return None
    return {"level": spec.level, **({"projecteval_mode": CASCADE} if spec.cascade else {})}


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_report_sections(config) -> list:
    """results.json's ``projecteval`` and the ``e2ebench projecteval`` section."""
    return [report.SECTION]


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_tests_migrated(repo, tests_dir, ctx) -> dict | None:
    """The agent's parameter values, checked, for the tests' ``pv`` fixture (#17); the
    migration record keeps them as ``parameters``."""
    spec = spec_of(ctx.task)
    if spec is None:
        return None
    answers = read_answers(repo, spec)
    write_pv_file(tests_dir, answers, repo)
    return {"parameters": answers}


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_prepare_workspace(workspace, ctx) -> None:
    """Level 3: the code skeleton in the agent's workspace (#17)."""
    task = ctx.task
    spec = spec_of(task)
    if spec is not None and spec.level == 3 and ctx.agent.receives_materials:
        write_skeleton(task, workspace)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_run_extras(steps, repo, repo_hash, migration) -> dict | None:
    """The run's level, parameter answers and similarity indicators (cached); None for a
    task of another benchmark."""
    task = steps.ctx.task
    spec = spec_of(task)
    if spec is None:
        return None
    stage = steps.stage("similarity", repo_hash=repo_hash)
    found = stage.load()
    if found is None:
        stage.reset()
        found = stage.commit(indicators(spec, task.reference_dir, repo))
    return {
        "level": spec.level,
        "projecteval": {"level": spec.level, "parameters": migration.get("parameters"), **found},
        "notes": over_bound(found.get("similarity_notes") or {}),  # a comparison's bound
    }


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_lead_in(steps):
    """``--e2e-projecteval-mode=cascade`` at level 1 or 2: the checklist and skeleton steps
    before the code (``cascade.Cascade``); None for any other run."""
    task = steps.ctx.task
    spec = spec_of(task)
    return run_cascade(steps, task) if spec is not None and spec.cascade else None
