"""Hooks of pytest-e2ebench, added with ``pytest_addhooks`` (guide: docs/plugins.md).

Implement them in a ``conftest.py`` or a plugin (a ``pytest11`` entry point). Factory hooks are
``firstresult``: the first implementation returning something other than None wins, and the
built-ins run last. What hooks return is typed (:mod:`pytest_e2ebench.contracts`); the plain
dicts of earlier versions are still accepted.

The hooks about one run also get ``ctx``, the run's :class:`~pytest_e2ebench.run.runs.RunContext`
(its :class:`~pytest_e2ebench.run.runs.RunKey` is ``ctx.key``). It was added after the other
arguments: an implementation that does not name it is called without it, as pluggy does.
Arguments that repeat what ``ctx`` holds (``task``, ``repo``, ``run_dir``, ``record``,
``run_record``, ...) are still passed, so plugins written for earlier versions keep working;
new implementations name ``ctx`` and what it does not hold (docs/plugins.md lists which).

The built-in methods (DevEval's stages, ProjectEval, RealDevWorld's apps) implement these hooks
as any plugin does: ``pytest_e2ebench.methods.*.plugin``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from .agents import Agent
    from .contracts import (
        Design,
        DesignJudgement,
        Judgement,
        MigrationResult,
        ReportSection,
        RequirementVerdict,
        RunRecord,
    )
    from .llm import LLM
    from .run.generate import LeadIn
    from .run.plan import Steps
    from .run.runs import RunContext
    from .run.settings import Settings
    from .taskmodel.task import Task


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_make_agent(spec: str, config: pytest.Config) -> Agent | None:
    """Return the agent for the ``--e2e-agent`` name ``spec``, or None if it is not yours.

    :param spec: one comma-separated part of ``--e2e-agent`` as typed, e.g. ``"dir:./out"``.
    :param config: the pytest config.

    Raise :class:`pytest.UsageError` for a name that is yours but malformed.
    """


@pytest.hookspec
def pytest_e2ebench_agent_names(config: pytest.Config) -> list[str]:
    """Return the agent names your plugin offers, for ``--help`` and error messages.

    Every implementation is called; the lists are joined.
    """


@pytest.hookspec
def pytest_e2ebench_run_finished(
    config: pytest.Config, record: dict, run_record: RunRecord, ctx: RunContext
) -> None:
    """Called on the worker that evaluated a (task, agent, run), once, when its record is done.

    New implementations take ``ctx`` alone: ``ctx.record`` is the record, ``ctx.run_record`` the
    same typed. ``record`` and ``run_record`` are the same again, kept for earlier plugins.

    :param record: the JSON-able entry ``results.json`` will hold under ``tasks`` (also for a
        run that ended in an error: ``status`` is ``"error"``, ``metrics`` None).
    :param run_record: the same, typed (:class:`~pytest_e2ebench.contracts.RunRecord`).
    :param ctx: the run's context: ``ctx.key`` says which run, ``ctx.run_dir`` is its folder,
        ``ctx.record`` is ``record``.

    Do not mutate either; the return value is ignored.
    """


@pytest.hookspec
def pytest_e2ebench_judge_modes(config: pytest.Config) -> list[str]:
    """Return the ``--e2e-judge`` modes your ``pytest_e2ebench_judge_requirements`` handles.

    Every implementation is called; a mode none of them names is refused at start with the list
    of known ones.
    """


@pytest.hookspec
def pytest_e2ebench_migrate_modes(config: pytest.Config) -> list[str]:
    """Return the ``--e2e-migrate`` modes your ``pytest_e2ebench_migrate_tests`` handles.

    Every implementation is called; a mode none of them names is refused at start.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_make_llm(config: pytest.Config, settings: Settings) -> LLM | None:
    """Return the LLM client agents use, or None to leave it to the next implementation.

    The built-in implementation (tried last) is an OpenAI-compatible client configured by
    ``--e2e-model``, ``--e2e-llm-base-url`` and ``OPENAI_API_KEY``. The harness wraps whatever
    is returned with the ``--e2e-llm-cache`` record/replay cache.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_migrate_tests(
    config: pytest.Config, task: Task, repo: Path, out: Path, mode: str, ctx: RunContext
) -> MigrationResult | None:
    """Write the task's reference tests, adapted to the project in ``repo``, into ``out``.

    :param task: the task; its tests are in ``task.tests_dir`` (copy them with
        ``task.copy_tests(out)``).
    :param out: a folder that does not exist yet: create it and write the tests there.
    :param mode: the ``--e2e-migrate`` value; return None for modes that are not yours
        (announce yours with ``pytest_e2ebench_migrate_modes``).
    :param ctx: the run's context (``ctx.key``, ``ctx.run_dir``, ``ctx.llm()``, ``ctx.sandbox``).
    :returns: a :class:`~pytest_e2ebench.contracts.MigrationResult` (``migrator`` names you;
        ``mapped``, ``missing``, ``packages`` and ``extra`` are optional). A dict of the same
        keys is accepted too.

    ``repo`` is read-only while this runs and is hashed before and after: a migration that
    changes it is rejected. Keep each test's name and requirement markers; a test with fewer
    assertions than its original, or a dropped test, counts as failed.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_judge_requirements(
    config: pytest.Config,
    task: Task,
    repo: Path,
    tests: list[dict],
    mode: str,
    run_dir: Path,
    ctx: RunContext,
) -> Judgement | list[RequirementVerdict] | None:
    """Decide every requirement of ``task`` for the project in ``repo``.

    New implementations take ``tests``, ``mode`` and ``ctx``: ``task``, ``repo``, ``run_dir``
    and ``config`` are ``ctx.task``, ``ctx.repo``, ``ctx.run_dir`` and ``ctx.config``, still
    passed for earlier plugins.

    :param repo: the generated project (read it with :mod:`pytest_e2ebench.isolation.intake`'s
        bounded readers; never import or run it here).
    :param tests: the results of the reference tests and the task's checks, one dict per case
        (``nodeid``, ``outcome``, ``message``, ``requirements``).
    :param mode: the ``--e2e-judge`` value; return None for modes that are not yours
        (announce yours with ``pytest_e2ebench_judge_modes``).
    :param run_dir: the run's folder, for files of your own (``ctx.run_dir``).
    :param ctx: the run's context (``ctx.key``, ``ctx.settings``, ``ctx.llm()``, ``ctx.scope``
        to name your conversations in the LLM cache).
    :returns: a :class:`~pytest_e2ebench.contracts.Judgement` (or just its list of
        :class:`~pytest_e2ebench.contracts.RequirementVerdict`): one verdict per requirement,
        ``id`` and ``verdict`` (``implemented``, ``not_implemented`` or ``inconclusive``) and
        whatever else in ``extra``, which the requirement's entry in results.json keeps. The
        harness fills in ``title``, ``tags``, ``tests``, ``passed`` and ``failing`` from the test
        run when you leave them out. ``Judgement.extra`` keys go into the run's entry of
        results.json. The dict of earlier versions (``{"verdicts": [{"id", "verdict", ...}],
        ...}``) is accepted too.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_judge_design(
    config: pytest.Config,
    task: Task,
    answer: Design,
    baseline: Design,
    scope: str,
    ctx: RunContext,
) -> DesignJudgement | dict | None:
    """Compare an agent's software design with a baseline design (DevEval's pairwise judge).

    :param answer: the agent's design files by artefact (a
        :class:`~pytest_e2ebench.contracts.Design`): exactly the keys of
        :data:`~pytest_e2ebench.contracts.DESIGN_ARTEFACTS` (``class``, ``sequence``,
        ``architecture``), each the text or None when missing (checked before the call by
        :func:`~pytest_e2ebench.contracts.check_design`).
    :param baseline: the baseline design, same shape (the task's ``design/baseline/`` or its
        reference design).
    :param scope: names the conversations in the LLM cache.
    :param ctx: the context of the design stage's run (``ctx.key.stage`` is ``"design"``;
        ``ctx.task`` is ``task``).
    :returns: None to leave it to the next implementation (the built-in runs only with
        ``--e2e-judge=llm|both``), else a :class:`~pytest_e2ebench.contracts.DesignJudgement`:
        ``win_rate`` and ``win_rate_no_ties`` (fractions in [0, 1], or None; they join the
        stage's ``metrics``) and ``extra``, whatever else to keep: ``to_dict()`` is the stage
        record's ``details.judge`` in results.json. A dict with the two rates is accepted too;
        anything else (a rate outside [0, 1], a missing rate) ends the stage as a harness error
        naming the field. Ask each comparison twice with the order swapped: a preference that
        does not survive the swap is a tie.
    """


@pytest.hookspec
def pytest_e2ebench_report_sections(config: pytest.Config | None) -> list[ReportSection]:
    """Return the report sections your plugin adds (every implementation is called; the lists
    are joined in registration order, the built-ins last).

    A :class:`~pytest_e2ebench.contracts.ReportSection` names its key in results.json, builds
    its content from the session's run and stage records (``summarize``, None to leave it
    out) and writes its terminal lines from the finished document (``write``). The built-in
    ``stages`` (DevEval) and ``projecteval`` sections are made this way. ``config`` is None
    when ``e2ebench report`` rebuilds a document outside pytest.
    """


@pytest.hookspec
def pytest_e2ebench_tests_migrated(repo: Path, tests_dir: Path, ctx: RunContext) -> dict | None:
    """Called on a run's reference tests once they are migrated into ``tests_dir``, before they
    run (not when the migration comes from the cache): prepare what the tests read.

    :param repo: the generated project (data: read it with the bounded readers of
        :mod:`pytest_e2ebench.isolation.intake` or :mod:`pytest_e2ebench.untrusted.parse`;
        never import or run it here).
    :param tests_dir: the migrated tests; files you write there are seen by the test run.
    :returns: None, or a JSON-able dict of keys to add to the run's migration record
        (``migration.json``; ProjectEval's ``parameters``, the agent's checked answers, are
        added this way). A key the record already has is refused as a plugin bug.
    """


@pytest.hookspec
def pytest_e2ebench_prepare_workspace(workspace: Path, ctx: RunContext) -> None:
    """Called on a run's fresh workspace before the agent is asked (not for a cached
    generation): put there what the agent starts from. ProjectEval writes its level-3 code
    skeleton this way. ``ctx.agent.receives_materials`` is False for agents whose output was
    made elsewhere (``dir:``, ``reference``): leave their workspace alone. The return value
    is ignored.
    """


@pytest.hookspec
def pytest_e2ebench_run_extras(
    steps: Steps, repo: Path, repo_hash: str, migration: dict, record: dict
) -> dict | None:
    """Extra figures of a run (a method's own metrics), once its tests are judged.

    :param steps: the run's cached stages (``steps.ctx`` is the run's context); cache your work
        in ``steps.stage(table, **upstream)`` under a stage table of yours (``STAGE_INPUTS`` of
        your method's module, ``run.plan.stage_inputs``).
    :param repo: the generated project (data only; never import or run it here) and
        ``repo_hash`` its content hash.
    :param migration: the run's migration record (what ``pytest_e2ebench_tests_migrated``
        added is in it).
    :param record: the run's record as the harness built it (its ``requirements`` with their
        verdicts, after ``-m`` and the tamper checks, and its ``metrics``); read it, do not
        change it.
    :returns: None, or a JSON-able dict of keys to add to the run's record and its entry of
        results.json (ProjectEval's ``level`` and ``projecteval``: similarity and parameters).
        A key the record already has is refused as a plugin bug, but ``notes``: a list of
        lines added to the record's notes (ProjectEval's: a comparison stopped at its bound),
        and ``metrics``: a dict of metrics added to the run's ``metrics`` (a name the record's
        metrics have already is refused).
    """


@pytest.hookspec
def pytest_e2ebench_error_extras(task: Task) -> dict | None:
    """The keys your method adds to the record of a run of ``task`` that ended in an error
    (the error path's twin of ``pytest_e2ebench_run_extras``: ProjectEval's ``level``), or
    None. A key the record has already is refused as a plugin bug.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_lead_in(steps: Steps) -> LeadIn | None:
    """Run a method's steps before the run's own generate step, or return None.

    :param steps: the run's cached stages (``steps.ctx`` its context): run each step as a
        generate step of its own (``pytest_e2ebench.run.generate.generate``) in a folder of the
        run, cached, so a stopped session resumes after the last finished step.
    :returns: a :class:`~pytest_e2ebench.run.generate.LeadIn`: the task the code step is asked,
        its cache key, what goes into its workspace, the cost to add and the record's part.
        ProjectEval's cascade (checklist, skeleton, then the code) is the built-in one.
    """


@pytest.hookspec
def pytest_e2ebench_settings(config: pytest.Config) -> dict | None:
    """Return the :class:`~pytest_e2ebench.run.settings.Settings` fields your own options
    resolve to (field name -> value), checked: raise :class:`pytest.UsageError` with the fix
    for a wrong value. Every implementation is called; the dicts are merged, and so are their
    ``methods`` entries.

    A method adds its options in its own ``pytest_addoption`` (``options.add_options``: the
    option and its ini twin in the ``e2ebench`` group) and resolves them here into its own
    settings, a frozen :class:`~pytest_e2ebench.run.settings.MethodSettings` under its name in
    ``methods`` (``{"methods": {name: settings}}``), which it reads back with
    ``Settings.method(name, default)``: DevEval's stage mode, ProjectEval's level and mode
    (whose ``session_task`` sets a task's level), the apps' cases and steps. DevEval's
    ``stages`` are a field of ``Settings`` itself (a run's identity depends on them).
    """


@pytest.hookspec
def pytest_e2ebench_plan_fields(ctx: RunContext) -> dict | None:
    """Return your method's fields of the :class:`~pytest_e2ebench.run.plan.RunPlan` of the run
    ``ctx``, in your method's slot (``{slot: {field: value}}``, JSON-able values), or None when
    the run's task is not yours. Every implementation is called; the slots are filled in turn.

    Each stage's cache key is made of the plan's fields its stage table names
    (``run.plan.stage_inputs``: the core's tables and each method module's ``STAGE_INPUTS``,
    a method's field written ``<slot>.<field>``), so what a method's stages read must come
    through here (or its stage's own upstream keys), never from the task or the settings behind
    the plan's back: ProjectEval fills ``projecteval`` (its table, the checklist as written,
    the repository path of its parameter file); the apps fill ``apps`` (their table, steps,
    cases, judge and model).
    """


@pytest.hookspec
def pytest_e2ebench_run_items(
    collector: pytest.File, task: Task, agent: Agent, run: int
) -> list[pytest.Item] | None:
    """Return the items your method adds to one run of a task besides its requirement items
    (DevEval's stage items: one per graded artefact of each selected stage), made with
    ``collector.item(cls, name, task=..., agent=..., run=..., ...)``; None or [] for none.

    Called at collection for each (agent, run) of the task, after its requirement items;
    every implementation is called and the lists are joined. Raise
    :class:`~pytest_e2ebench.errors.TaskError` for a task your method cannot collect: that
    task's collection error, the other tasks still run.
    """
