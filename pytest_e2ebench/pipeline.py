"""Evaluate one (task, agent, run): agent → repo → venv → test run → verdicts → metrics.

Each stage writes under ``<out>/<agent>/<task>/run-<n>/`` and is cached by a hash of its
inputs (see :mod:`pytest_e2ebench.cache`), so a second session, or a session that was killed,
reuses what is still valid. The run directory is locked while a process works on it.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from . import progress, runner, venv
from .agents import Agent, RunContext
from .cache import Stage, key_of, locked, tree_hash
from .errors import InfrastructureError
from .judge import judge
from .metrics import run_metrics, suite_metrics
from .migrate import run_migration
from .options import Settings
from .stash import SANDBOX
from .task import Task
from .verdicts import containment, effective_tests, sink_tampered, tampered_message
from .web import web_requirements
from .workspace import code_size, suffixes_for

RECORD_SCHEMA = "e2ebench-run/1"
# Part of every stage key: bump it when what a stage stores changes, so old caches rebuild.
STAGE_FORMAT = 3


@dataclasses.dataclass
class Evaluator:
    """Evaluates runs on this process and remembers each one (or its error) for the session."""

    config: pytest.Config
    settings: Settings
    started_at: float
    _done: dict[tuple[str, str, int], dict | InfrastructureError] = dataclasses.field(
        default_factory=dict
    )
    _delivered: set[tuple[str, str, int]] = dataclasses.field(default_factory=set)

    def first_delivery(self, task: Task, agent: Agent, run: int) -> bool:
        """True the first time it is asked for a run: that item carries the run's record."""
        key = (task.id, agent.label, run)
        if key in self._delivered:
            return False
        self._delivered.add(key)
        return True

    def progress_for(self, run_dir: Path):
        """The progress callback of the run in ``run_dir``."""
        return progress.writer(progress.progress_file(self.settings.out, run_dir))

    def run_dir(self, task: Task, agent: Agent, run: int) -> Path:
        """Where the stages of (task, agent, run) live."""
        return self.settings.out / agent.label / task.id / f"run-{run}"

    def evaluate(self, task: Task, agent: Agent, run: int) -> dict:
        """The run record of (task, agent, run); raises InfrastructureError if it cannot be had."""
        key = (task.id, agent.label, run)
        if key not in self._done:
            try:
                record = self._evaluate(task, agent, run)
            except InfrastructureError as exc:
                self._done[key] = exc
            else:
                self._done[key] = record
                self.config.hook.pytest_e2ebench_run_finished(config=self.config, record=record)
        result = self._done[key]
        if isinstance(result, InfrastructureError):
            raise result
        return result

    def _stage(self, run_dir: Path, name: str, *key_parts: object) -> Stage:
        not_before = self.started_at if self.settings.rerun else 0.0
        return Stage(run_dir, name, key_of(name, STAGE_FORMAT, *key_parts), not_before=not_before)

    def _evaluate(self, task: Task, agent: Agent, run: int) -> dict:
        run_dir = self.run_dir(task, agent, run)
        with locked(run_dir):
            # 1. the agent writes the project
            stage = self._stage(
                run_dir, "repo", agent.spec, agent.cache_key(task, run), task.requirements_text, run
            )
            agent_data = stage.load()
            if agent_data is None:
                workspace = stage.reset()
                start = time.monotonic()
                ctx = RunContext(self.config, self.settings, run_dir, self.progress_for(run_dir))
                try:
                    outcome = agent.generate(task, run, workspace, ctx)
                finally:
                    ctx.progress({"done": True})
                duration = round(time.monotonic() - start, 3)
                # Hash now: installing the project later adds build files to the folder.
                agent_data = stage.commit(
                    {**outcome.to_dict(), "duration_s": duration, "repo_hash": tree_hash(workspace)}
                )
            repo = stage.dir
            repo_hash = agent_data["repo_hash"]

            # 2. a virtual environment with the project installed
            web = task.kind == "web"
            if web:
                stage, install = self._web_venv(task, repo)
            else:
                stage = self._stage(
                    run_dir, "venv", repo_hash, venv.fingerprint(), task.test_requires, str(run_dir)
                )
                install = self._venv(stage, repo, run_dir / "logs", task.test_requires)
            python = venv.python_of(stage.dir)

            venv_key = stage.key

            # 3. the reference tests migrated onto the project (which must stay untouched)
            # Scenarios drive the app through the browser: there is nothing to migrate.
            mode = "none" if web else self.settings.migrate
            stage = self._stage(
                run_dir,
                "migrated",
                repo_hash,
                task.tests_hash,
                task.reference_hash if mode != "none" else "",
                mode,
                self.settings.model if mode == "llm" else "",
            )
            migration = stage.load()
            if migration is None:
                out = stage.reset(create=False)  # the migrator creates it
                migration = stage.commit(run_migration(self.config, task, repo, out, mode))
            migrated = stage.dir

            # 4. the suites: migrated reference tests and the agent's own tests
            stage = self._stage(
                run_dir, "eval", venv_key, stage.key, task.test_timeout, self.settings.timeout
            )
            test_run = stage.load()
            if test_run is None:
                eval_dir = stage.reset()
                test_run = stage.commit(
                    runner.run_all(
                        task,
                        migrated,
                        python,
                        repo,
                        eval_dir,
                        self.settings.timeout,
                        self.config.stash[SANDBOX],
                    )
                )

            # 5. verdicts per requirement
            tests = effective_tests(task, test_run["extended"], set(migration.get("weakened", [])))
            stage = self._stage(
                run_dir,
                "judge",
                stage.key,
                self.settings.judge,
                self.settings.model if self.settings.judge != "tests" else "",
            )
            judgement = stage.load()
            if judgement is None:
                stage.reset()
                judgement = stage.commit(
                    judge(self.config, task, repo, tests, self.settings.judge, run_dir)
                )
            code = code_size(repo, suffixes_for(task.kind))
        return build_record(
            task,
            agent,
            run,
            run_dir,
            agent_data,
            install,
            test_run,
            code,
            migration,
            tests,
            judgement,
        )

    def _web_venv(self, task: Task, repo: Path) -> tuple[Stage, dict]:
        """The test environment of a web task's runs, shared by all with the same requirements.

        A web app is not installed into it, so one environment serves every run.
        """
        requires = (*task.test_requires, *web_requirements())
        shared = self.settings.out / ".shared"
        with locked(shared):
            stage = self._stage(
                shared,
                f"web-venv-{key_of('requires', *requires)[:12]}",
                venv.fingerprint(),
                requires,
            )
            install = self._venv(stage, repo, shared / "logs", requires, install_project=False)
        return stage, install

    def _venv(
        self, stage: Stage, repo: Path, logs: Path, requires, *, install_project: bool = True
    ) -> dict:
        """The environment of ``stage``: cached, or built now (and the project installed)."""
        install = stage.load()
        if install is None:
            built = venv.build(
                stage.reset(),
                repo,
                logs,
                requires,
                self.config.stash[SANDBOX],
                install_project=install_project,
            )
            install = stage.commit(built.to_dict())
        return install


def build_record(
    task: Task,
    agent: Agent,
    run: int,
    run_dir: Path,
    agent_data: dict,
    install: dict,
    test_run: dict,
    code: dict,
    migration: dict,
    tests: list[dict],
    judgement: dict,
) -> dict:
    """The JSON-able record of one run: verdicts, metrics, suites and where things are."""
    extended_run = test_run["extended"]
    # issue 11, class 7: results contradicted by independent evidence fail every requirement
    evidence = extended_run.get("tamper_evidence") or []
    requirements = sink_tampered(judgement["verdicts"], evidence)
    extended = suite_metrics(tests, extended_run.get("coverage"))
    original_run = test_run.get("original")
    if original_run is None:
        original, everything = None, extended
    else:
        own = original_run["tests"] + [
            {"nodeid": e["nodeid"], "outcome": "error", "message": e["message"]}
            for e in original_run["collect_errors"]
        ]
        original = suite_metrics(own, original_run.get("coverage"))
        everything = suite_metrics(tests + own, test_run.get("all_coverage"))
    notes = [n for n in (agent_data.get("note"),) if n]
    if not install.get("ok", True):
        # The reason names the step and its log (logs/<step>.log) when there is one.
        notes.append(f"the project failed to install: {install.get('reason') or 'see logs/'}")
    if extended_run.get("status") != "completed":
        notes.append(f"test run {extended_run.get('status')}")
    if evidence:
        notes.append(tampered_message(evidence)[:500])
    if migration.get("missing"):
        notes.append(f"missing after migration: {', '.join(migration['missing'][:8])}")
    if migration.get("weakened"):
        notes.append(f"{len(migration['weakened'])} test(s) weakened by migration count as failed")
    record = {
        "schema": RECORD_SCHEMA,
        "task": task.id,
        "agent": agent.label,
        "agent_spec": agent.spec,
        "run": run,
        "status": "ok",
        "requirements": requirements,
        "metrics": run_metrics(requirements, extended, code, agent_data, extended_run.get("web")),
        # E2EDevBench Table 2: the agent's own tests, the migrated reference tests, both.
        "suites": {"original": original, "extended": extended, "all": everything},
        "migration": {
            k: migration.get(k) for k in ("migrator", "packages", "mapped", "missing", "weakened")
        },
        "agent_run": {"note": agent_data.get("note"), "details": agent_data.get("details", {})},
        "install": {"method": install.get("method"), "ok": install.get("ok")},
        "test_run": {
            **{k: extended_run.get(k) for k in ("status", "returncode", "duration_s")},
            "containment": containment(extended_run, tests),
        },
        "containment": {"tampered": bool(evidence), "evidence": evidence},
        # web tasks: did the app load without a breaking script error; browser start times
        **({"web": extended_run["web"]} if extended_run.get("web") else {}),
        "notes": notes,
        "task_meta": task_meta(task),
        "dir": str(run_dir),
    }
    record.update({k: v for k, v in judgement.items() if k != "verdicts"})
    return record


def task_meta(task: Task) -> dict:
    """Task facts for analysis (kind, release date for leakage by quarter, size)."""
    return {
        "title": task.title,
        "kind": task.kind,
        "created": task.created.isoformat(),
        "source": task.source,
        **task.size,
    }


def error_record(task: Task, agent: Agent, run: int, run_dir: Path, exc: Exception) -> dict:
    """The record of a run the harness could not evaluate (metrics are None, never 0)."""
    stage = getattr(exc, "stage", "harness")
    return {
        "schema": RECORD_SCHEMA,
        "task": task.id,
        "agent": agent.label,
        "agent_spec": agent.spec,
        "run": run,
        "status": "error",
        "error": {"stage": stage, "kind": "infrastructure", "message": str(exc)},
        "requirements": [
            {"id": r.id, "title": r.title, "tags": list(r.tags), "verdict": "inconclusive"}
            for r in task.requirements
        ],
        "metrics": None,
        "suites": {"original": None, "extended": None, "all": None},
        "notes": [],
        "task_meta": task_meta(task),
        "dir": str(run_dir),
    }
