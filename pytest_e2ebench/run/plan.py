"""The plan of one run: everything that decides its stages, resolved once and frozen.

A stage's cache key is derived from the plan's fields that :data:`STAGE_INPUTS` names for it
plus the keys (or hashes) of the stages it reads, never listed by hand where the stage runs.
The idea is SWE-bench's (its environment images are keyed by the hash of the spec that builds
them): what is not in the plan cannot reach a stage, so a new input goes into the plan and the
table, and the key follows. ``STAGE_FORMAT`` is part of every key (docs/architecture.md, "The
stage-cache format").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..environment.venv import fingerprint
from ..evaluation import split
from ..evaluation.checks import CHECKS_DIR
from ..evaluation.planting import twins
from ..taskmodel.testconf import TestSettings
from .cache import Stage, key_of, tree_hash

if TYPE_CHECKING:
    from .runs import RunContext

# Part of every stage key: bump it when what a stage stores or means changes, so old caches
# rebuild (docs/architecture.md). 4: the keys derived from the plan (issue 28). 5: the static
# migration's targets and the probe's records were tightened (session 13's red-team round): a
# stage cached before could hold a migration or verdicts that a hostile project forged.
STAGE_FORMAT = 6

# The plan's fields each stage's key is made of (besides the upstream keys its caller passes).
STAGE_INPUTS: dict[str, tuple[str, ...]] = {
    # the agent's output: the task as asked, its stage and inputs come with the ask
    "repo": ("agent", "run", "materials"),
    "venv": ("venv_tools", "requires", "run_dir", "python"),
    "web-venv": ("venv_tools", "requires"),
    "migrated": ("pv_repo", "tests_hash", "migrate_reference", "migrate", "migrate_model"),
    "eval": ("test_timeout", "timeout", "test_settings", "planting", "verdict"),
    "app-eval": (
        *("materials", "app", "app_steps", "test_timeout", "app_judge", "timeout"),
        *("requirements", "model", "app_cases"),
    ),
    "app-cases": ("requirements", "model", "app_cases"),
    "checks": ("checks", "timeout"),
    "judge": ("judge", "judge_model"),
    "similarity": ("reference_hash", "projecteval"),
    "stage-grade": (
        *("reference_hash", "design_hash", "setup_hash", "tests_hash", "mutants_hash"),
        *("stage_judge", "stage_judge_model", "variant_format"),
    ),
    "cascade-grade": ("reference_hash", "projecteval", "checklist_raw"),
    # a toolchain task's suites (methods.toolchain.style: its spec and npm packages upstream)
    "toolchain-eval": ("tests_hash", "timeout", "requires", "test_timeout"),
    "toolchain-npm": (),
}


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
    pv_repo: str = ""  # ProjectEval (its plugin fills it): the repository path in the pv file
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
    # filled by the methods (hook pytest_e2ebench_plan_fields): the apps'
    app: dict | None = None
    app_steps: int = 0
    app_cases: int = 0
    app_judge: str = ""  # --e2e-judge of an app run (the LLM-score baseline)
    model: str = ""  # the model that writes and judges an app's cases
    # ProjectEval's
    projecteval: dict | None = None
    checklist_raw: tuple = ()
    # a lifecycle stage's grade (DevEval): the task's reference artefacts, hashed
    design_hash: str = ""
    setup_hash: str = ""
    mutants_hash: str = ""
    stage_judge: str = ""
    stage_judge_model: str = ""
    variant_format: int = 0
    not_before: float = 0.0  # --e2e-rerun: manifests written before the session are stale
    stage_format: int = STAGE_FORMAT

    def key(self, table: str, **upstream: object) -> str:
        """The cache key of the stage ``table`` (an entry of :data:`STAGE_INPUTS`)."""
        fields = {name: getattr(self, name) for name in STAGE_INPUTS[table]}
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
    # the methods fill in their own fields (ProjectEval's, the apps'); a lifecycle stage's
    # inputs (design_hash, ... variant_format) are filled by methods.stages.run.stage_plan
    for fields in ctx.config.hook.pytest_e2ebench_plan_fields(ctx=ctx):
        plan = dataclasses.replace(plan, **(fields or {}))
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
