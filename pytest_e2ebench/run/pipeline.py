"""Evaluate one (task, agent, run): agent → repo → venv → test run → verdicts → metrics.

Each stage writes under ``<out>/<agent>/<task>/run-<n>/`` and is cached by a hash of its
inputs (see :mod:`pytest_e2ebench.run.cache`), so a second session, or a session that was killed,
reuses what is still valid. The run directory is locked while a process works on it.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .. import methods
from ..agents.builtin import ReferenceAgent
from ..contracts import RunRecord
from ..environment.workspace import code_size, suffixes_for
from ..errors import InfrastructureError, RunFailed, TaskError
from ..evaluation.checks import run_checks
from ..grading.verdicts import census, effective_tests
from ..judge import judge
from ..taskmodel.task import MATERIALS_DIR, fetch_reference
from . import census_store, progress
from .cache import locked, remove
from .evaluation import evaluation_for
from .generate import Ask, LeadIn, generate
from .plan import STAGE_FORMAT, Steps, plan_run
from .record import attach_extras, build_record, error_record, run_extras
from .runs import RunContext, RunKey, run_folder
from .settings import IMPLEMENT, Settings

if TYPE_CHECKING:
    from ..agents import Agent
    from ..taskmodel.task import Task
    from .executor import RayExecutor

__all__ = ["ERROR_FILE", "REFERENCE", "STAGE_FORMAT", "Evaluator"]

REFERENCE = "reference"  # the oracle agent: its run fixes how many cases each test has
ERROR_FILE = "error.txt"  # in the run folder: the traceback of a run that ended in an error


@dataclasses.dataclass
class Evaluator:
    """Evaluates runs on this process and remembers each one (or its error) for the session."""

    config: pytest.Config
    settings: Settings
    started_at: float
    _done: dict[RunKey, dict | InfrastructureError | RunFailed] = dataclasses.field(
        default_factory=dict
    )
    _delivered: set[RunKey] = dataclasses.field(default_factory=set)
    stage_now: str = "agent"  # the stage running, named in the record of a run that fails
    # task id -> the reference's test cases by base node id (the denominator of every agent)
    _census: dict[str, dict[str, dict]] = dataclasses.field(default_factory=dict)
    # -m: the run's key -> the requirement ids selected; None when all are
    selected: dict[RunKey, set[str]] | None = None
    # --e2e-executor=ray: the driver's executor.RayExecutor (None: pipelines run here)
    executor: RayExecutor | None = None
    # False in a Ray worker: the driver announces the run (pytest_e2ebench_run_finished)
    announce: bool = True
    # issue 26: the session's implement runs by task id (set at collection); no stage reveals
    # a task's reference before they are done (settle_implements)
    implement_runs: dict[str, list[tuple[Task, Agent, int]]] = dataclasses.field(
        default_factory=dict
    )
    # implement outcomes had by settle_implements for runs whose items come later (or never,
    # on this process: another xdist worker has them and reads them from the disk cache)
    _settled: dict[RunKey, dict | InfrastructureError | RunFailed] = dataclasses.field(
        default_factory=dict
    )
    # (task, agent label, run) of the runs the session selected (pytest_collection_modifyitems)
    session_runs: set = dataclasses.field(default_factory=set)
    # the runs' progress callbacks by progress file (Evaluator.progress_for)
    _writers: dict[Path, progress.Writer] = dataclasses.field(default_factory=dict)

    def first_delivery(self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT) -> bool:
        """True the first time it is asked for a run: that item carries the run's record."""
        key = RunKey.of(task, agent, run, stage)
        if key in self._delivered:
            return False
        self._delivered.add(key)
        return True

    def progress_for(self, key: RunKey | Path):
        """The progress callback of the run ``key`` (it prints in a plain session)."""
        path = progress.progress_file(self.settings.out, key)
        if path in self._writers:  # one per run: its heartbeat ends with the run's pipeline
            return self._writers[path]
        reporter = self.config.pluginmanager.get_plugin("e2ebench-reporter")
        show = reporter.live_line if reporter is not None and not reporter.distributed else None
        # how far the session is: only a plain session's process sees every run it starts (a
        # run the harness makes for itself, the reference's census, has no place)
        selected = isinstance(key, RunKey) and (key.task, key.agent, key.run) in self.session_runs
        position = f"{len(self._done) + 1}/{len(self.session_runs)}" if show and selected else ""
        found = self._writers[path] = progress.writer(
            path, show, key=key if isinstance(key, RunKey) else None, position=position
        )
        return found

    def run_dir(self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT) -> Path:
        """Where the stages of (task, agent, run) live (a ProjectEval level has its own)."""
        return run_folder(self.settings.out, RunKey.of(task, agent, run, stage))

    def context(self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT) -> RunContext:
        """The context of (task, agent, run, stage), handed to each of its stages (#13.3)."""
        key = RunKey.of(task, agent, run, stage)
        return RunContext(
            self.config,
            self.settings,
            run_folder(self.settings.out, key),
            self.progress_for(key),
            stage=stage,
            key=key,
            task=task,
            agent=agent,
        )

    def evaluate(self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT) -> dict:
        """The run record of (task, agent, run), or its stage record for another ``stage``.

        Raises InfrastructureError, or RunFailed for any other exception, when it cannot be
        had. Either way the run is tried once per session and process: every item of the run
        gets the same outcome, and the traceback is in ``<run>/error.txt``.
        """
        key = RunKey.of(task, agent, run, stage)
        if key not in self._done:
            settled = self._settled.pop(key, None)
            result = settled if settled is not None else self.outcome(task, agent, run, stage)
            self._done[key] = result
            self.progress_for(key)({"done": True})  # the run's stages said what they did
            if stage == IMPLEMENT and self.announce:
                # the task as the run had it (its fetched reference, when it got that far)
                ctx = self.context(fetch_reference(task, download=False), agent, run)
                if not isinstance(result, dict):
                    result = self.error_record(ctx.task, agent, run, result)
                ctx.record = result
                self.config.hook.pytest_e2ebench_run_finished(
                    config=self.config,
                    record=result,
                    run_record=RunRecord.from_dict(result),
                    ctx=ctx,
                )
        result = self._done[key]
        if isinstance(result, InfrastructureError | RunFailed):
            raise result
        return result

    def error_record(self, task: Task, agent: Agent, run: int, exc: BaseException) -> dict:
        """The record of the run (task, agent, run) that ended with ``exc``, with the keys the
        methods add to it (``pytest_e2ebench_error_extras``): the one builder of the error
        record, for the run's hook and its first item alike."""
        extras = self.config.hook.pytest_e2ebench_error_extras(task=task)
        return error_record(task, agent, run, self.run_dir(task, agent, run), exc, extras)

    def settle_implements(self, task_id: str, revealing: str) -> None:
        """Before the stage ``revealing`` shows the reference of ``task_id`` to an agent: have
        every implement run of that task in this session done (evaluated here now if no item
        of this process has done it yet; another worker's run comes from the disk cache or is
        waited for through its lock).

        An agent that remembers across runs (its own service, a provider's memory) would
        otherwise carry the reference from one run's test-writing stage into another run's
        implement stage (issue 26). Raises InfrastructureError when one of those runs could
        not be evaluated: the reference is not shown while it is still to be done.
        """
        for task, agent, run in self.implement_runs.get(task_id, ()):
            key = RunKey.of(task, agent, run)
            result = self._done.get(key) or self._settled.get(key)
            if result is None:
                stage_now = self.stage_now  # the revealing stage's, named if it fails
                result = self._settled[key] = self.outcome(task, agent, run)
                self.stage_now = stage_now
            if not isinstance(result, dict):
                raise InfrastructureError(
                    "stages",
                    f"{revealing} of {task_id} is not run: it shows the task's reference, and "
                    f"the implement stage of {key.name} in this session could not be "
                    f"evaluated first ({result}); an agent remembering across runs would "
                    "carry the reference into it. Fix that run's problem and rerun",
                )

    def outcome(
        self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT
    ) -> dict | InfrastructureError | RunFailed:
        """Run the pipeline of (task, agent, run, stage) now, uncached by this process: its
        record, or the failure that ended it (the traceback written to ``<run>/error.txt``).

        With ``--e2e-executor=ray`` the pipeline runs in a Ray task and this waits for it.
        """
        run_dir = self.run_dir(task, agent, run, stage)
        try:
            if self.executor is not None:
                # The Ray task settled its failures itself (error.txt is written on its node).
                return self.executor.outcome(task, agent, run, stage)
            ctx = self.context(self.reference(task), agent, run, stage)
            if stage == IMPLEMENT:
                return self._evaluate(ctx)
            self.stage_now = stage
            return dict(methods.parts("STAGE_RUNNERS"))[stage](self, ctx)  # DevEval's
        except (KeyboardInterrupt, pytest.exit.Exception):
            raise
        except BaseException as exc:  # noqa: BLE001 - every run ends with a record (#13.5)
            return self._failed(run_dir, exc)
        finally:
            self.progress_for(RunKey.of(task, agent, run, stage))({"done": True})

    def reference(self, task: Task) -> Task:
        """The run's first stage: ``task`` with its fetched reference (``[source]``: a PyPI
        sdist or a git commit) at hand, downloaded once into the cache
        (:func:`~pytest_e2ebench.taskmodel.task.fetch_reference`; collection never fetches).

        An index or git host that does not answer, a download that does not match its pin,
        or reference tests that do not match task.toml: an InfrastructureError of the
        ``source`` stage (the task's inputs, never the agent's failure).
        """
        self.now("source")
        try:
            fetched = fetch_reference(task)
        except TaskError as exc:
            raise InfrastructureError("source", str(exc)) from None
        self.now("agent")
        return fetched

    def _failed(self, run_dir: Path, exc: BaseException) -> InfrastructureError | RunFailed:
        """Keep the traceback in the run folder; wrap anything unexpected in RunFailed."""
        path = run_dir / ERROR_FILE
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
        except OSError:
            pass  # the record still says what happened
        if isinstance(exc, InfrastructureError):
            exc.traceback_file = str(path)
            return exc
        return RunFailed(self.stage_now, exc, str(path))

    def _reference_census(self, task: Task) -> dict[str, dict]:
        """The test cases of the reference implementation's run 1 of ``task`` (evaluated, or
        taken from the cache, once per process); empty when it cannot be had (then the static
        count stands)."""
        if task.id not in self._census:
            ctx = self.context(task, ReferenceAgent(), 1)
            stored = self._stored_census(ctx)
            if stored is not None:  # an earlier session's run 1 of the same reference (#27)
                self._census[task.id] = stored
                return stored
            stage_now = self.stage_now
            try:
                self._evaluate(ctx)
            except Exception:  # noqa: BLE001 - the reference's own session reports its errors
                self._census[task.id] = {}
            finally:
                self.stage_now = stage_now
                ctx.progress({"done": True})
        return self._census.get(task.id, {})

    def _stored_census(self, ctx: RunContext) -> dict[str, dict] | None:
        """The census store's entry for the reference's run ``ctx`` (its plan resolved now), or
        None: the store is off, has none, or ``--e2e-rerun`` evaluates everything again."""
        if census_store.store() is None or self.settings.rerun:
            return None
        if not evaluation_for(ctx.task).shares_census:
            return None
        plan = self.steps(ctx).plan
        return census_store.load(census_store.census_key(plan, ctx.task, ctx.sandbox.mode))

    def steps(self, ctx: RunContext) -> Steps:
        """The way of the run ``ctx`` through its cached stages (its plan resolved now)."""
        plan = plan_run(ctx, evaluation_for(ctx.task), self.started_at)
        return Steps(ctx, plan, now=self.now)

    def now(self, stage: str) -> None:
        """Name the stage running now (the record of a run that fails names it)."""
        self.stage_now = stage

    def _evaluate(self, ctx: RunContext) -> dict:
        """generate -> take in -> environment -> run -> verdicts -> record, each step cached."""
        evaluation = evaluation_for(ctx.task)
        steps = self.steps(ctx)
        self.now("agent")
        with locked(ctx.run_dir):
            remove(ctx.run_dir / ERROR_FILE)  # from an earlier session's failed attempt
            ask, cascade = self._ask(steps, evaluation)
            agent_data = generate(steps, ask)
            repo, repo_hash = ctx.run_dir / "repo", agent_data["repo_hash"]
            self.now("venv")
            env = evaluation.environment(steps, repo, repo_hash)
            outcomes = evaluation.run(steps, env, repo, repo_hash)
            self.now("judge")
            tests, judgement = self._verdicts(steps, repo, repo_hash, env, outcomes)
            code = code_size(repo, suffixes_for(ctx.task.kind))
            self.now("record")
            record = build_record(
                ctx.task,
                ctx.agent,
                ctx.key.run,
                ctx.run_dir,
                cascade.total(agent_data) if cascade is not None else agent_data,
                env.install,
                outcomes.test_run,
                code,
                outcomes.migration,
                tests,
                judgement,
                self.selected.get(ctx.key) if self.selected is not None else None,
            )
            # a method's figures (ProjectEval's similarity), its stages cached in the run
            extras = run_extras(steps, repo, repo_hash, outcomes.migration, record)
        attach_extras(record, extras)
        if cascade is not None:
            cascade.finish(record, agent_data)
        return record

    def _ask(self, steps: Steps, evaluation) -> tuple[Ask, LeadIn | None]:
        """What the agent is asked in the run's generate step: the task (after ProjectEval's
        cascade steps, #17, with the agent's own checklist) and what its workspace holds."""
        ctx = steps.ctx
        task, agent = ctx.task, ctx.agent
        # a method's steps before the code (ProjectEval's cascade: the code step gets the
        # agent's own checklist and skeleton)
        cascade = self.config.hook.pytest_e2ebench_lead_in(steps=steps)
        if cascade is not None:
            task = cascade.task
            self.now("agent")
        handed = task.materials_dir if agent.receives_materials else None

        def prepare(workspace: Path) -> None:
            if handed is not None:
                # app tasks: supplementary materials are handed to the agent (issue #15)
                shutil.copytree(handed, workspace / MATERIALS_DIR)
            # a method's starting point (ProjectEval's level-3 skeleton, #17)
            self.config.hook.pytest_e2ebench_prepare_workspace(workspace=workspace, ctx=ctx)
            if cascade is not None:
                cascade.prepare(workspace, agent)  # the agent's own skeleton

        ask = Ask(
            task,
            ctx.run_dir,
            given=cascade.key if cascade is not None else "",
            prepare=prepare,
            ended=cascade.ended if cascade is not None else None,
            drop_materials=handed if evaluation.drops_materials else None,
        )
        return ask, cascade

    def _verdicts(self, steps: Steps, repo, repo_hash, env, outcomes) -> tuple[list, dict]:
        """Verdicts per requirement over the tests the reference's run has (issue 12.7),
        with the task's own checks: the tests counted and the judgement (cached)."""
        ctx = steps.ctx
        task, agent, run = ctx.task, ctx.agent, ctx.key.run
        extended = outcomes.test_run["extended"]
        if agent.spec == REFERENCE:
            # the reference's run is held to its own census (its tests, its skips); run 1's
            # is every other agent's
            reference = census(extended)
            if run == 1:
                self._census[task.id] = reference
                shared = evaluation_for(task).shares_census
                if shared and census_store.store() and extended.get("status") == "completed":
                    # a run cut short or crashed is not kept: the next session tries again
                    key = census_store.census_key(steps.plan, task, ctx.sandbox.mode)
                    census_store.keep(key, reference, replace=self.settings.rerun)
        else:
            # Holding this run's lock while the reference's is taken cannot deadlock: the
            # reference's run never waits for another run.
            if task.id not in self._census:  # the reference's own line says its steps
                ctx.progress({"doing": "taking the reference's census (its run 1)"})
            reference = self._reference_census(task)
        weakened = set(outcomes.migration.get("weakened", []))
        tests = effective_tests(task, extended, weakened, reference)
        # the task's own checks count toward their requirements like reference tests
        checks_key, checks = self._checks(steps, repo, env, repo_hash)
        tests += checks
        stage = steps.stage("judge", tests=outcomes.key, reference=reference, checks=checks_key)
        judgement = stage.load()
        if judgement is None:
            stage.reset()
            start = time.monotonic()
            mode = steps.plan.judge
            if mode != "tests":  # the tests' verdicts are drawn at once; a model takes a while
                ctx.progress({"doing": f"judging the requirements ({mode} judge)"})
            judged = judge(self.config, task, repo, tests, mode, ctx.run_dir, ctx)
            steps.no_outage_since(start)
            judgement = stage.commit(judged)
        return tests, judgement

    def _checks(self, steps: Steps, repo, env, repo_hash) -> tuple[str, list]:
        """The task's own checks (``checks/``) on the project: their stage key and records."""
        task = steps.ctx.task
        if not task.checks:
            return "", []

        self.now("checks")
        stage = steps.stage("checks", venv=env.key, repo_hash=repo_hash)
        result = stage.load()
        if result is None:
            steps.ctx.progress({"doing": f"running the task's checks ({len(task.checks)} tests)"})
            result = stage.commit(
                run_checks(
                    task,
                    repo,
                    env.python,
                    stage.reset(),
                    sandbox=steps.ctx.sandbox.mode,
                    timeout=self.settings.timeout,
                )
            )
        return stage.key, result["tests"]

    def select(self, items) -> None:
        """``-m``: note the requirements each run has selected; metrics are over them."""
        self.selected = {}
        for item in items:
            key = RunKey.of(item.task, item.agent, item.run)
            requirement = getattr(item, "requirement", None)  # stage items have none
            if requirement is not None:
                self.selected.setdefault(key, set()).add(requirement.id)
