"""Evaluate one (task, agent, run): agent → repo → venv → test run → verdicts → metrics.

Each stage writes under ``<out>/<agent>/<task>/run-<n>/`` and is cached by a hash of its
inputs (see :mod:`pytest_e2ebench.cache`), so a second session, or a session that was killed,
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

from . import backend, progress, runner, venv
from .agents import Agent, AgentOutcome
from .app import MATERIALS_DIR
from .cache import Stage, key_of, locked, remove, tree_hash
from .contracts import RunRecord
from .errors import InfrastructureError, RunFailed
from .intake import IntakeLimits
from .judge import judge
from .migrate import run_migration
from .options import Settings
from .planting import twins, values
from .run.record import build_record, error_record
from .runs import RunContext, RunKey, run_folder
from .stages import IMPLEMENT
from .stages import run as stage_run
from .task import Task
from .testconf import TestSettings
from .verdicts import census, effective_tests
from .web import web_requirements
from .workspace import code_size, suffixes_for, take_in

if TYPE_CHECKING:
    from .executor import RayExecutor

REFERENCE = "reference"  # the oracle agent: its run fixes how many cases each test has
# Part of every stage key: bump it when what a stage stores changes, so old caches rebuild.
STAGE_FORMAT = 4
# What an app task without a model needs: its judge is an LLM whatever agent wrote the app.
APP_WITHOUT_MODEL = (
    "An app task's cases are played by an LLM driving a browser, for every agent (the "
    "reference too): give it a model, or leave the app tasks out (the default --e2e-tasks="
    "benchmark_tasks has none; benchmark_apps/ holds them, docs/apps.md)."
)
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
    _stage_now: str = "agent"  # the stage running, named in the record of a run that fails
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

    def first_delivery(self, task: Task, agent: Agent, run: int, stage: str = IMPLEMENT) -> bool:
        """True the first time it is asked for a run: that item carries the run's record."""
        key = RunKey.of(task, agent, run, stage)
        if key in self._delivered:
            return False
        self._delivered.add(key)
        return True

    def progress_for(self, key: RunKey | Path):
        """The progress callback of the run ``key`` (it prints in a plain session)."""
        reporter = self.config.pluginmanager.get_plugin("e2ebench-reporter")
        show = reporter.live_line if reporter is not None and not reporter.distributed else None
        path = progress.progress_file(self.settings.out, key)
        # how far the session is: only a plain session's process sees every run it starts (a
        # run the harness makes for itself, the reference's census, has no place)
        selected = isinstance(key, RunKey) and (key.task, key.agent, key.run) in self.session_runs
        position = f"{len(self._done) + 1}/{len(self.session_runs)}" if show and selected else ""
        return progress.writer(
            path, show, key=key if isinstance(key, RunKey) else None, position=position
        )

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
                ctx = self.context(task, agent, run)
                if not isinstance(result, dict):
                    result = error_record(task, agent, run, ctx.run_dir, result)
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
                stage_now = self._stage_now  # the revealing stage's, named if it fails
                result = self._settled[key] = self.outcome(task, agent, run)
                self._stage_now = stage_now
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
        ctx = self.context(task, agent, run, stage)
        try:
            if self.executor is not None:
                # The Ray task settled its failures itself (error.txt is written on its node).
                return self.executor.outcome(task, agent, run, stage)
            if stage == IMPLEMENT:
                return self._evaluate(ctx)
            self._stage_now = stage
            return stage_run.evaluate(self, ctx)
        except (KeyboardInterrupt, pytest.exit.Exception):
            raise
        except BaseException as exc:  # noqa: BLE001 - every run ends with a record (#13.5)
            return self._failed(ctx.run_dir, exc)

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
        return RunFailed(self._stage_now, exc, str(path))

    def _reference_census(self, task: Task) -> dict[str, dict]:
        """The test cases of the reference implementation's run 1 of ``task`` (evaluated, or
        taken from the cache, once per process); empty when it cannot be had (then the static
        count stands)."""
        if task.id not in self._census:
            from .agents.builtin import ReferenceAgent

            stage_now = self._stage_now
            try:
                self._evaluate(self.context(task, ReferenceAgent(), 1))
            except Exception:  # noqa: BLE001 - the reference's own session reports its errors
                self._census[task.id] = {}
            finally:
                self._stage_now = stage_now
        return self._census.get(task.id, {})

    def _no_outage_since(self, ctx: RunContext, start: float) -> None:
        """The harness, not the agent, decides an outage: a stage during which the endpoint
        went away is an infrastructure error even if its code caught the exception (and what
        it produced is not cached)."""
        outage = ctx.outage
        if outage is not None and outage.since(start):
            outage.check()

    def _stage(self, run_dir: Path, name: str, *key_parts: object) -> Stage:
        not_before = self.started_at if self.settings.rerun else 0.0
        return Stage(run_dir, name, key_of(name, STAGE_FORMAT, *key_parts), not_before=not_before)

    def _evaluate(self, ctx: RunContext) -> dict:
        task, agent, run, run_dir = ctx.task, ctx.agent, ctx.key.run, ctx.run_dir
        self._stage_now = "agent"
        with locked(run_dir):
            remove(run_dir / ERROR_FILE)  # from an earlier session's failed attempt
            cascade = None
            if task.cascade:
                from .projecteval.cascade import run_cascade

                # ProjectEval's cascade (#17): checklist and skeleton steps, each graded; the
                # code step below gets the agent's own checklist and skeleton
                cascade = run_cascade(self, ctx, task)
                task = cascade.task
                self._stage_now = "agent"
            # 1. the agent writes the project
            stage = self._stage(
                run_dir,
                "repo",
                agent.spec,
                agent.cache_key(task, run),
                task.requirements_text,
                run,
                *((tree_hash(task.materials_dir),) if task.materials_dir is not None else ()),
                *((cascade.key,) if cascade is not None else ()),
            )
            agent_data = stage.load()
            if agent_data is None:
                workspace = stage.reset()
                if task.materials_dir is not None and agent.receives_materials:
                    # app tasks: supplementary materials are handed to the agent (issue #15)
                    shutil.copytree(task.materials_dir, workspace / MATERIALS_DIR)
                if task.level == 3 and agent.receives_materials:
                    from .projecteval.skeleton import write_skeleton

                    write_skeleton(task, workspace)  # ProjectEval level 3 (#17)
                if cascade is not None:
                    cascade.prepare(workspace, agent)  # the agent's own skeleton
                ctx.clear_artifacts()  # an earlier attempt's leftovers are the agent's
                start = time.monotonic()
                try:
                    if cascade is not None and cascade.ended:
                        outcome = AgentOutcome(note=cascade.ended)  # graded as empty
                    else:
                        outcome = agent.generate(task, run, workspace, ctx)
                finally:
                    ctx.progress({"done": True})
                self._no_outage_since(ctx, start)
                duration = round(time.monotonic() - start, 3)
                self._stage_now = "intake"
                if isinstance(outcome, dict):  # the form of earlier versions
                    outcome = AgentOutcome.from_dict(outcome)
                outcome_data = outcome.to_dict()
                earlier = outcome_data["details"].pop("intake", None)  # the dir: agent's copy
                intake = take_in(workspace, IntakeLimits(), earlier)
                handed = workspace / MATERIALS_DIR
                if (
                    task.kind != "app"
                    and task.materials_dir is not None
                    and agent.receives_materials
                    and handed.is_dir()
                    and tree_hash(handed) == tree_hash(task.materials_dir)
                ):
                    # materials are the task's input, not the project (nor a package that
                    # setuptools' discovery would trip over): left as handed, they go
                    shutil.rmtree(handed)
                # Hash now: installing the project later adds build files to the folder.
                agent_data = stage.commit(
                    {
                        **outcome_data,
                        "duration_s": duration,
                        "intake": intake.to_dict(),
                        "repo_hash": tree_hash(workspace),
                    }
                )
            repo = stage.dir
            repo_hash = agent_data["repo_hash"]

            # 2. a virtual environment with the project installed
            self._stage_now = "venv"
            web = task.kind in ("web", "app")
            if web:
                stage, install = self._web_venv(ctx, repo)
            else:
                # the task's test requirements and pytest plugins, installed with the tools
                requires = (*task.test_requires, *task.settings.plugins)
                stage = self._stage(
                    run_dir,
                    "venv",
                    repo_hash,
                    venv.fingerprint(),
                    requires,
                    str(run_dir),
                    *((task.settings.python,) if task.settings.python else ()),
                )
                install = self._venv(
                    ctx, stage, repo, run_dir / "logs", requires, python=task.settings.python
                )
            python = venv.python_of(stage.dir)

            venv_key = stage.key

            if task.kind == "app":
                # 3-4. an app has no tests: LLM test cases, run by a browser agent (issue #15)
                self._stage_now = "tests"
                stage = self._app_eval(ctx, repo_hash, repo, python, venv_key)
                test_run, migration = stage.load(), {}
            else:
                stage, test_run, migration = self._tests(
                    ctx, repo_hash, repo, python, venv_key, web
                )

            # 5. verdicts per requirement, over the tests the reference's run has (issue 12.7)
            self._stage_now = "judge"
            if agent.spec == REFERENCE:
                # the reference's run is held to its own census (its tests, its skips); run 1's
                # is every other agent's
                reference = census(test_run["extended"])
                if run == 1:
                    self._census[task.id] = reference
            else:
                # Holding this run's lock while the reference's is taken cannot deadlock: the
                # reference's run never waits for another run.
                reference = self._reference_census(task)
            weakened = set(migration.get("weakened", []))
            tests = effective_tests(task, test_run["extended"], weakened, reference)
            # the task's own checks count toward their requirements like reference tests
            checks_key, checks = self._checks(ctx, repo, python, venv_key, repo_hash)
            tests += checks
            # app tasks: the browser agent's cases decide; --e2e-judge=llm adds the LLM-score
            # baseline to the run (evaluate_app), not votes on the features
            mode = "tests" if task.kind == "app" else self.settings.judge
            stage = self._stage(
                run_dir,
                "judge",
                stage.key,
                mode,
                self.settings.model if mode != "tests" else "",
                reference,
                *((checks_key,) if checks_key else ()),
            )
            judgement = stage.load()
            if judgement is None:
                stage.reset()
                start = time.monotonic()
                judged = judge(self.config, task, repo, tests, mode, run_dir, ctx)
                self._no_outage_since(ctx, start)
                judgement = stage.commit(judged)
            code = code_size(repo, suffixes_for(task.kind))
            projecteval = (
                self._projecteval(ctx, repo, repo_hash, migration)
                if task.projecteval is not None
                else None
            )
        self._stage_now = "record"
        record = build_record(
            task,
            agent,
            run,
            run_dir,
            cascade.total(agent_data) if cascade is not None else agent_data,
            install,
            test_run,
            code,
            migration,
            tests,
            judgement,
            self.selected.get(ctx.key) if self.selected is not None else None,
        )
        if projecteval is not None:
            record["level"] = task.level
            record["projecteval"] = projecteval
        if cascade is not None:
            record["projecteval_mode"] = "cascade"
            projecteval["cascade"] = cascade.summary(record, agent_data)
            record["notes"] += [f"{s['step']} step: {n}" for s in cascade.steps for n in s["notes"]]
        return record

    def _projecteval(self, ctx, repo, repo_hash, migration) -> dict:
        """ProjectEval's level, parameter answers and similarity indicators of a run (#17)."""
        from .projecteval.similarity import indicators

        task, run_dir = ctx.task, ctx.run_dir
        stage = self._stage(
            run_dir, "similarity", repo_hash, task.reference_hash, task.projecteval.to_dict()
        )
        found = stage.load()
        if found is None:
            stage.reset()
            found = stage.commit(indicators(task.projecteval, task.reference_dir, repo))
        return {
            "level": task.level,
            "parameters": migration.get("parameters"),
            **found,
        }

    def _tests(self, ctx, repo_hash, repo, python, venv_key, web):
        """Stages 3 and 4 of a task with tests: migration, then the test runs."""
        task, run_dir = ctx.task, ctx.run_dir
        # 3. the reference tests migrated onto the project (which must stay untouched)
        # Scenarios drive the app through the browser: there is nothing to migrate.
        self._stage_now = "migrate"
        mode = "none" if web else self.settings.migrate
        stage = self._stage(
            run_dir,
            "migrated",
            repo_hash,
            str(repo) if task.projecteval is not None else "",  # written into the pv file
            task.tests_hash,
            task.reference_hash if mode != "none" else "",
            mode,
            self.settings.model if mode == "llm" else "",
        )
        migration = stage.load()
        if migration is None:
            ctx.progress({"doing": f"adapting the reference tests ({mode} migration)"})
            out = stage.reset(create=False)  # the migrator creates it
            start = time.monotonic()
            migrated_now = run_migration(self.config, task, repo, out, mode, ctx)
            self._no_outage_since(ctx, start)
            if task.projecteval is not None:
                from .projecteval.params import read_answers, write_pv_file

                # the agent's parameter values, checked, for the tests' pv fixture (#17)
                migrated_now["parameters"] = read_answers(repo, task.projecteval)
                write_pv_file(out, migrated_now["parameters"], repo)
            migration = stage.commit(migrated_now)
        migrated = stage.dir

        # 4. the suites: migrated reference tests and the agent's own tests
        self._stage_now = "tests"
        stage = self._stage(
            run_dir,
            "eval",
            venv_key,
            stage.key,
            task.test_timeout,
            self.settings.timeout,
            *((task.settings.key(), task.excluded) if task.settings != TestSettings() else ()),
            f"planting-{twins.FORMAT}",
        )
        test_run = stage.load()
        if test_run is None:
            recorded = []
            if not web:
                ctx.progress({"doing": "recording the reference's values for decoy tests"})
                shared = self.settings.out / ".shared"
                recorded = values.recorded(task, shared, ctx.sandbox, self.settings.timeout)
            ctx.progress({"doing": "running the reference tests"})
            eval_dir = stage.reset()
            test_run = stage.commit(
                runner.run_all(
                    task,
                    migrated,
                    python,
                    repo,
                    eval_dir,
                    self.settings.timeout,
                    ctx.sandbox,
                    recorded=recorded,
                )
            )

        return stage, test_run, migration

    def _checks(self, ctx, repo, python, venv_key, repo_hash) -> tuple[str, list]:
        """The task's own checks (``checks/``) on the project: their stage key and records."""
        task, run_dir = ctx.task, ctx.run_dir
        if not task.checks:
            return "", []
        from .checks import CHECKS_DIR, run_checks

        self._stage_now = "checks"
        stage = self._stage(
            run_dir,
            "checks",
            venv_key,
            repo_hash,
            tree_hash(task.root / CHECKS_DIR),
            self.settings.timeout,
        )
        result = stage.load()
        if result is None:
            result = stage.commit(
                run_checks(
                    task,
                    repo,
                    python,
                    stage.reset(),
                    sandbox=ctx.sandbox.mode,
                    timeout=self.settings.timeout,
                )
            )
        return stage.key, result["tests"]

    def _app_eval(self, ctx, repo_hash, repo, python, venv_key) -> Stage:
        """Stage 3-4 of an app task: Executability, LLM test cases, the browser agent, judged."""
        from .app.cases import generate_cases
        from .app.evaluate import evaluate_app
        from .llm.factory import require_endpoint

        task, run_dir, settings = ctx.task, ctx.run_dir, ctx.settings
        materials = tree_hash(task.materials_dir) if task.materials_dir is not None else ""
        key = (task.requirements_text, settings.model, settings.app_cases)
        stage = self._stage(
            run_dir,
            "eval",
            venv_key,
            repo_hash,
            materials,
            task.app.to_dict(),
            settings.app_steps,
            task.test_timeout,  # app tasks: the limit of one browser command
            settings.judge,
            settings.timeout,
            *key,
        )
        if stage.load() is not None:
            return stage

        def llm_of():
            # Only an executable app needs a model: the empty project is graded without one.
            try:
                require_endpoint(
                    settings,
                    f"the app task {task.id} (judged by a browser agent, whatever the agent)",
                    APP_WITHOUT_MODEL,
                )
            except pytest.UsageError as exc:
                raise InfrastructureError("judge", str(exc)) from None
            return ctx.llm()

        shared = settings.out / ".shared"

        def cases_of(llm) -> list[dict]:
            # One set of cases per task and model, shared by every agent and run (cached).
            with locked(shared):
                cases = self._stage(shared, f"app-cases-{task.id}", *key)
                found = cases.load()
                if found is None:
                    cases.reset()
                    found = cases.commit(
                        generate_cases(llm, task, settings.app_cases, f"app/{task.id}")
                    )
            return found["cases"]

        eval_dir = stage.reset()
        stage.commit(
            {
                "extended": evaluate_app(
                    task,
                    repo,
                    python,
                    eval_dir,
                    llm_of=llm_of,
                    cases_of=cases_of,
                    sandbox=ctx.sandbox,
                    timeout=settings.timeout,
                    max_steps=settings.app_steps,
                    baseline=settings.judge in ("llm", "both"),
                    scope=f"{ctx.scope}/app",
                ),
                "original": None,
                "all_coverage": None,
            }
        )
        return stage

    def select(self, items) -> None:
        """``-m``: note the requirements each run has selected; metrics are over them."""
        self.selected = {}
        for item in items:
            key = RunKey.of(item.task, item.agent, item.run)
            requirement = getattr(item, "requirement", None)  # stage items have none
            if requirement is not None:
                self.selected.setdefault(key, set()).add(requirement.id)

    def _web_venv(self, ctx: RunContext, repo: Path) -> tuple[Stage, dict]:
        """The test environment of a web task's runs, shared by all with the same requirements.

        A web app is not installed into it, so one environment serves every run.
        """
        task = ctx.task
        requires = (*task.test_requires, *web_requirements())
        shared = self.settings.out / ".shared"
        with locked(shared):
            stage = self._stage(
                shared,
                f"web-venv-{key_of('requires', *requires)[:12]}",
                venv.fingerprint(),
                requires,
            )
            install = self._venv(ctx, stage, repo, shared / "logs", requires, install_project=False)
        return stage, install

    def _venv(
        self,
        ctx: RunContext,
        stage: Stage,
        repo: Path,
        logs: Path,
        requires,
        *,
        install_project: bool = True,
        python: str | None = None,
    ) -> dict:
        """The environment of ``stage``: cached, or built now (and the project installed)."""
        install = stage.load()
        if install is None:
            # the longest wait of a cold session (minutes): say so (issue 31)
            ctx.progress({"doing": "building its environment (the project and the test tools)"})
            built = venv.build(
                stage.reset(),
                repo,
                logs,
                requires,
                ctx.sandbox,
                install_project=install_project,
                python=python,
                # a wheel built from identical content by another run of the session
                wheels=backend.store_for(self.settings.out),
            )
            install = stage.commit(built.to_dict())
        return install
