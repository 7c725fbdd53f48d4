"""How a generated project is evaluated: one small protocol, one implementation per style.

A library's or a command's tests (:class:`TestSuite`), a web app's scenarios in a browser
(:class:`WebScenarios`) and an app's LLM-written cases played by a browser agent
(``methods.app.style.AppCases``) each prepare an environment and run, returning the outcomes
the verdicts are drawn from. :func:`evaluation_for` picks one from the task's kind, once per
run, through the :data:`EVALUATIONS` table, so the run (``pipeline.Evaluator``) names no kind.
The shape is pytest-xdist's (each scheduling mode behind ``scheduler/protocol.py``) and Inspect
AI's (a task composed from a scorer and a sandbox). A new kind is a new entry in
:data:`EVALUATIONS` (docs/architecture.md).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import methods
from ..environment import backend, venv
from ..environment.web import web_requirements
from ..evaluation import runner
from ..evaluation.planting import values
from ..migrate import run_migration
from .cache import key_of, locked
from .record import add_keys

if TYPE_CHECKING:
    from ..taskmodel.task import Task
    from .plan import Steps


@dataclasses.dataclass(frozen=True)
class Environment:
    """Where the project's tests run: the interpreter, the install record, the stage key."""

    python: Path
    install: dict
    key: str


@dataclasses.dataclass(frozen=True)
class Outcomes:
    """What running gave: the test run (``extended`` outcomes by node id), the migration's
    record, and the key of the stage whose outcomes they are (part of the judge's key)."""

    test_run: dict
    migration: dict
    key: str


class Evaluation(Protocol):
    """One way of evaluating a project (a task kind's, chosen through :data:`EVALUATIONS`)."""

    # the materials handed to the agent are removed after intake when left as handed (they
    # are the task's input, not the project); an app keeps them (they are part of the app)
    drops_materials: bool
    # runs a browser (a Ray node must offer the browser resource: run.executor)
    uses_browser: bool
    # the reference's census is a function of the run's plan (its tests, the task), so the
    # census store may share it across sessions; not where a model writes the cases (an app)
    shares_census: bool

    def requires(self, task: Task) -> tuple[str, ...]:
        """The test tools installed into the environment (part of its key)."""

    def migration(self, settings) -> str:
        """The migration mode of the reference tests (``none`` when nothing is migrated)."""

    def judge_mode(self, settings) -> str:
        """The judge mode the run's verdicts are drawn with."""

    def environment(self, steps: Steps, repo: Path, repo_hash: str) -> Environment:
        """The environment the project is evaluated in (cached)."""

    def run(self, steps: Steps, env: Environment, repo: Path, repo_hash: str) -> Outcomes:
        """Evaluate the project in ``env`` (cached): the outcomes."""


def build_venv(steps: Steps, stage, repo: Path, logs: Path, **options) -> dict:
    """The environment of ``stage``: cached, or built now (and the project installed unless
    ``install_project=False``)."""
    install = stage.load()
    if install is None:
        # the longest wait of a cold session (minutes): say so (issue 31)
        steps.ctx.progress({"doing": "building its environment (the project and the test tools)"})
        built = venv.build(
            stage.reset(), repo, logs, steps.plan.requires, steps.ctx.sandbox, **options
        )
        install = stage.commit(built.to_dict())
    return install


class TestSuite:
    """A library's, command's or data task's pytest tests: the reference tests migrated onto
    the project, run in a virtual environment with the project installed."""

    __test__ = False  # not a test class, whatever pytest thinks of the name
    drops_materials = True
    uses_browser = False
    shares_census = True
    plants_decoys = True  # the reference's values recorded for decoy and honeypot pairs

    def requires(self, task: Task) -> tuple[str, ...]:
        """The task's test requirements and pytest plugins."""
        return (*task.test_requires, *task.settings.plugins)

    def migration(self, settings) -> str:
        """``--e2e-migrate``."""
        return settings.migrate

    def judge_mode(self, settings) -> str:
        """``--e2e-judge``."""
        return settings.judge

    def environment(self, steps: Steps, repo: Path, repo_hash: str) -> Environment:
        """A virtual environment of the run's own, the project installed in it."""
        stage = steps.stage("venv", repo_hash=repo_hash)
        run_dir = steps.ctx.run_dir
        # a wheel built from identical content by another run of the session is reused
        wheels = backend.store_for(steps.settings.out)
        install = build_venv(
            steps, stage, repo, run_dir / "logs", python=steps.plan.python, wheels=wheels
        )
        return Environment(venv.python_of(stage.dir), install, stage.key)

    def run(self, steps: Steps, env: Environment, repo: Path, repo_hash: str) -> Outcomes:
        """Migration of the reference tests, then the test runs."""
        task, ctx = steps.ctx.task, steps.ctx
        steps.now("migrate")
        migrated = steps.stage("migrated", repo_hash=repo_hash)
        migration = migrated.load()
        if migration is None:
            mode = steps.plan.migrate
            ctx.progress({"doing": f"adapting the reference tests ({mode} migration)"})
            out = migrated.reset(create=False)  # the migrator creates it
            start = time.monotonic()
            migration = run_migration(steps.config, task, repo, out, mode, ctx)
            steps.no_outage_since(start)
            migration = migrated.commit(tests_migrated(steps.config, migration, repo, out, ctx))
        # the suites: migrated reference tests and the agent's own tests
        steps.now("tests")
        stage = steps.stage("eval", venv=env.key, migrated=migrated.key)
        test_run = stage.load()
        if test_run is None:
            recorded, sides = [], None
            if self.plants_decoys:  # the recording says its steps when it is not cached
                shared = steps.settings.out / ".shared"
                timeout = steps.settings.timeout
                recorded = values.recorded(task, shared, ctx.sandbox, timeout, ctx.progress)
                sides = values.sides(task)
            eval_dir = stage.reset()
            test_run = stage.commit(
                runner.run_all(
                    task,
                    migrated.dir,
                    env.python,
                    repo,
                    eval_dir,
                    steps.settings.timeout,
                    ctx.sandbox,
                    recorded=recorded,
                    sides=sides,
                    seed=values.seed(task, ctx.key.run),
                    progress=ctx.progress,
                )
            )
        return Outcomes(test_run, migration, stage.key)


def tests_migrated(config, migration: dict, repo: Path, tests_dir: Path, ctx) -> dict:
    """The migration record with what ``pytest_e2ebench_tests_migrated`` added (ProjectEval's
    parameter answers, for the tests' ``pv`` fixture)."""
    found = config.hook.pytest_e2ebench_tests_migrated(repo=repo, tests_dir=tests_dir, ctx=ctx)
    return add_keys(migration, found, "pytest_e2ebench_tests_migrated")


class WebScenarios(TestSuite):
    """A web app's Gherkin scenarios, driven through a browser: nothing to migrate, and one
    shared environment of the web test tools (the app is not installed into it)."""

    plants_decoys = False  # scenarios get no planted tests
    uses_browser = True

    def requires(self, task: Task) -> tuple[str, ...]:
        """The task's test requirements and the harness's web test tools."""
        return (*task.test_requires, *web_requirements())

    def migration(self, settings) -> str:
        """Scenarios drive the app through the browser: there is nothing to migrate."""
        return "none"

    def environment(self, steps: Steps, repo: Path, repo_hash: str) -> Environment:
        """The environment of every run with the same requirements (shared, locked)."""
        shared = steps.settings.out / ".shared"
        name = f"web-venv-{key_of('requires', *steps.plan.requires)[:12]}"
        with locked(shared):
            stage = steps.stage("web-venv", name, folder=shared)
            install = build_venv(steps, stage, repo, shared / "logs", install_project=False)
        return Environment(venv.python_of(stage.dir), install, stage.key)


# The evaluation style of each task kind; the methods add theirs (RealDevWorld's apps:
# ``methods.app.style``) through their modules' ``EVALUATIONS`` (``methods.parts``).
EVALUATIONS: dict[str, Evaluation] = {
    "library": TestSuite(),
    "cli": TestSuite(),
    "data": TestSuite(),
    "web": WebScenarios(),
}


def evaluation_for(task: Task) -> Evaluation:
    """The evaluation of ``task``'s kind."""
    found = EVALUATIONS.get(task.kind)
    return found if found is not None else dict(methods.parts("EVALUATIONS"))[task.kind]
