"""The plan of one run: everything that decides its stages, resolved once and frozen.

A stage's cache key is derived from the plan's fields that its stage table names
(:func:`stage_inputs`: the core's :data:`STAGE_INPUTS` and each method's own) plus the keys (or
hashes) of the stages it reads, never listed by hand where the stage runs. A method's fields are
in its slot of :attr:`RunPlan.methods` (``<slot>.<field>`` in a table), not fields of the plan.
The idea is SWE-bench's (its environment images are keyed by the hash of the spec that builds
them): what is not in the plan cannot reach a stage, so a new input goes into the plan and the
table, and the key follows. ``STAGE_FORMAT`` is part of every key (docs/architecture.md, "The
stage-cache format").
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import methods
from ..environment.venv import fingerprint
from ..evaluation import split
from ..evaluation.checks import CHECKS_DIR
from ..evaluation.planting import twins
from ..stash import Slots
from ..taskmodel.testconf import TestSettings
from .cache import Stage, key_of, tree_hash

if TYPE_CHECKING:
    from .runs import RunContext

# Part of every stage key: bump it when what a stage stores or means changes, so old caches
# rebuild (docs/architecture.md). 4: the keys derived from the plan (issue 28). 5: the static
# migration's targets and the probe's records were tightened (session 13's red-team round): a
# stage cached before could hold a migration or verdicts that a hostile project forged.
STAGE_FORMAT = 6

# The plan's fields each stage's key is made of (besides the upstream keys its caller passes):
# the core's tables. A method adds its own tables, or names of its own to a core table, in its
# plugin module's ``STAGE_INPUTS`` (pytest_e2ebench.methods.parts): a method's field is
# ``<slot>.<field>``, read from its slot of ``RunPlan.methods`` and keyed by ``<field>`` alone.
STAGE_INPUTS: dict[str, tuple[str, ...]] = {
    # the agent's output: the task as asked, its stage and inputs come with the ask
    "repo": ("agent", "run", "materials"),
    "venv": ("venv_tools", "requires", "run_dir", "python"),
    "web-venv": ("venv_tools", "requires"),
    "migrated": ("tests_hash", "migrate_reference", "migrate", "migrate_model"),
    "eval": ("test_timeout", "timeout", "test_settings", "planting", "verdict"),
    "checks": ("checks", "timeout"),
    "judge": ("judge", "judge_model"),
}


@functools.cache
def stage_inputs() -> dict[str, tuple[str, ...]]:
    """Every stage table: the core's (:data:`STAGE_INPUTS`) with the methods' added."""
    tables = dict(STAGE_INPUTS)
    for table, names in methods.parts("STAGE_INPUTS"):
        tables[table] = (*tables.get(table, ()), *names)
    return tables


@functools.cache
def plan_defaults() -> dict[str, object]:
    """A method field's value when its slot does not hold it (``PLAN_DEFAULTS`` of the methods'
    modules, ``<slot>.<field>`` -> value; else None)."""
    return dict(methods.parts("PLAN_DEFAULTS"))


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """What one (task, agent, run, stage) is, resolved from the task, agent and settings."""

    agent: str  # the agent's spec
    run: int
    run_dir: str
    requirements: str  # the task's requirements text (what every agent is asked)
    materials: str = ""  # the tree hash of the task's materials, if it has any
    requires: tuple[str, ...] = ()  # the test tools the evaluation installs
    python: str | None = None  # the task's [tests] python
    venv_tools: dict = dataclasses.field(default_factory=dict)  # venv.fingerprint()
    tests_hash: str = ""
    reference_hash: str = ""
    migrate: str = "none"
    migrate_reference: str = ""  # the reference hash when the migration reads it
    migrate_model: str = ""
    test_timeout: float | None = None
    timeout: float | None = None
    test_settings: tuple | None = None  # the [tests] settings and exclusions, when not default
    planting: int = 0  # the format of the planted decoys and honeypots (planting.twins)
    verdict: str = ""  # where verdicts are taken: evaluation.split.policy()
    checks: str = ""  # the tree hash of the task's checks/
    judge: str = "tests"  # the judge mode the run is graded with
    judge_model: str = ""
    # the methods' fields by slot (hook pytest_e2ebench_plan_fields): {slot: {field: value}}
    methods: Slots = Slots()
    not_before: float = 0.0  # --e2e-rerun: manifests written before the session are stale
    stage_format: int = STAGE_FORMAT

    def value(self, name: str) -> object:
        """The plan's field ``name``: a core field, or a method's ``<slot>.<field>``."""
        slot, dot, field = name.partition(".")
        if not dot:
            return getattr(self, name)
        found = self.methods.get(slot) or {}
        return found[field] if field in found else plan_defaults().get(name)

    def with_slot(self, slot: str, fields: dict) -> RunPlan:
        """This plan with ``fields`` in the method slot ``slot`` (added to what it holds)."""
        merged = {**(self.methods.get(slot) or {}), **fields}
        return dataclasses.replace(self, methods=self.methods.replace(**{slot: merged}))

    def key(self, table: str, **upstream: object) -> str:
        """The cache key of the stage ``table`` (an entry of :func:`stage_inputs`). A method's
        field is keyed by its own name, as when it was a field of the plan: the keys stay."""
        fields = {name.rpartition(".")[2]: self.value(name) for name in stage_inputs()[table]}
        return key_of(table, self.stage_format, fields, upstream)

    def stage(self, folder: Path, table: str, name: str = "", **upstream: object) -> Stage:
        """The cached stage ``name`` (``table`` by default) in ``folder``, keyed by the plan."""
        return Stage(folder, name or table, self.key(table, **upstream), not_before=self.not_before)


def _hash_if_dir(path: Path) -> str:
    return tree_hash(path) if path.is_dir() else ""


def plan_run(ctx: RunContext, evaluation, started_at: float) -> RunPlan:
    """The plan of the run ``ctx`` evaluated by ``evaluation`` (a run.evaluation style)."""

    task, settings = ctx.task, ctx.settings
    migrate = evaluation.migration(settings)
    judge = evaluation.judge_mode(settings)
    custom = task.settings != TestSettings()
    plan = RunPlan(
        agent=ctx.agent.spec,
        run=ctx.key.run,
        run_dir=str(ctx.run_dir),
        requirements=task.requirements_text,
        materials=tree_hash(task.materials_dir) if task.materials_dir is not None else "",
        requires=evaluation.requires(task),
        python=task.settings.python,
        venv_tools=fingerprint(),
        tests_hash=task.tests_hash,
        reference_hash=task.reference_hash,
        migrate=migrate,
        migrate_reference=task.reference_hash if migrate != "none" else "",
        migrate_model=settings.model if migrate == "llm" else "",
        test_timeout=task.test_timeout,
        timeout=settings.timeout,
        test_settings=(task.settings.key(), task.excluded) if custom else None,
        planting=twins.FORMAT * 100 + twins.LAYOUT,
        verdict=split.policy(),
        checks=_hash_if_dir(task.root / CHECKS_DIR) if task.checks else "",
        judge=judge,
        judge_model=settings.model if judge != "tests" else "",
        not_before=started_at if settings.rerun else 0.0,
    )
    # the methods fill in their own slots ({slot: {field: value}}); a lifecycle stage's
    # inputs are filled by its runner
    for found in ctx.config.hook.pytest_e2ebench_plan_fields(ctx=ctx):
        for slot, fields in (found or {}).items():
            plan = plan.with_slot(slot, fields)
    return plan


@dataclasses.dataclass
class Steps:
    """One run's way through its cached stages: its context, its plan, and a callback that
    names the stage running now (the evaluator's, named in the record of a run that fails)."""

    ctx: RunContext
    plan: RunPlan
    now: Callable[[str], None] = lambda name: None

    @property
    def config(self):
        """The session's pytest config (the hooks)."""
        return self.ctx.config

    @property
    def settings(self):
        """The session's resolved options."""
        return self.ctx.settings

    def stage(self, table: str, name: str = "", folder: Path | None = None, **upstream) -> Stage:
        """A cached stage of this run (in its folder unless ``folder``), keyed by the plan."""
        return self.plan.stage(folder or self.ctx.run_dir, table, name, **upstream)

    def no_outage_since(self, start: float) -> None:
        """The harness, not the agent, decides an outage: a stage during which the endpoint
        went away is an infrastructure error even if its code caught the exception (and what
        it produced is not cached)."""
        outage = self.ctx.outage
        if outage is not None and outage.since(start):
            outage.check()
