"""Every record results.json holds, built here: a run's (:func:`build_record`, ok, and
:func:`error_record`) and a lifecycle stage's (:func:`stage_record`, :func:`error_stage_record`).

The keys are the contract of pytest_e2ebench/schema/results.schema.json and docs/metrics.md;
``report.results`` assembles the document from these records.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RunFailed
from ..evaluation.coverage_bound import omitted_note
from ..grading.metrics import run_metrics, suite_metrics
from ..grading.verdicts import containment, sink_tampered, tampered_message
from ..isolation.intake import intake_notes, intake_summary

if TYPE_CHECKING:
    from ..agents import Agent
    from ..taskmodel.task import Task

RECORD_SCHEMA = "e2ebench-run/1"
STAGE_RECORD = "e2ebench-stage/1"
# Limits whose excess is a disk quota in containment terms (max_depth is not).
QUOTA_LIMITS = frozenset({"max_bytes", "max_files", "max_file_bytes"})


def _run_facts(agent_data: dict, install: dict, extended_run: dict, tests, migration) -> dict:
    """The record's ``migration``, ``agent_run``, ``install`` and ``test_run`` (with the
    containment labels the test run earned: a disk quota the intake hit among them)."""
    intake = agent_data.get("intake")
    labels = set(containment(extended_run, tests))
    if intake and intake.get("exceeded") in QUOTA_LIMITS:
        labels.add("disk_quota")
    return {
        "migration": {
            k: migration.get(k)
            for k in ("migrator", "packages", "mapped", "missing", "weakened", "changed")
        },
        "agent_run": {"note": agent_data.get("note"), "details": agent_data.get("details", {})},
        "install": {"method": install.get("method"), "ok": install.get("ok")},
        "test_run": {
            **{k: extended_run.get(k) for k in ("status", "returncode", "duration_s")},
            "containment": sorted(labels),
            # where the verdicts were taken (evaluation.split) and why, and how many of the
            # project's answers to a comparison its liar checks refused
            "verdict_mode": extended_run.get("verdict_mode", "inprocess"),
            "verdict_reason": extended_run.get("verdict_reason", ""),
            "refused_answers": (extended_run.get("split") or {}).get("lies", 0),
        },
    }


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
    selected: set[str] | None = None,
) -> dict:
    """The JSON-able record of one run: verdicts, metrics, suites and where things are.

    With ``selected`` (``-m``), requirements, reference tests and metrics are those of the
    selected requirements only (coverage and the agent's cost stay the whole run's).
    """
    extended_run = test_run["extended"]
    # issue 11, class 7: results contradicted by independent evidence fail every requirement
    evidence = extended_run.get("tamper_evidence") or []
    requirements = sink_tampered(judgement["verdicts"], evidence)
    requirements, tests, selection = _selected(task, requirements, tests, selected)
    extended, original, everything = _suites(test_run, tests)
    original_run = test_run.get("original")
    notes = _run_notes(agent_data, install, extended_run, evidence, migration, original_run)
    web, app = extended_run.get("web"), extended_run.get("app")
    metrics = run_metrics(requirements, extended, code, agent_data, web, app)
    record = {
        "schema": RECORD_SCHEMA,
        "task": task.id,
        "agent": agent.label,
        "agent_spec": agent.spec,
        "run": run,
        "status": "ok",
        "requirements": requirements,
        "metrics": metrics,
        # E2EDevBench Table 2: the agent's own tests, the migrated reference tests, both.
        "suites": {"original": original, "extended": extended, "all": everything},
        **_run_facts(agent_data, install, extended_run, tests, migration),
        "containment": {"tampered": bool(evidence), "evidence": evidence},
        "intake": intake_summary(agent_data.get("intake")),
        # web tasks: did the app load without a breaking script error; browser start times
        **({"web": web} if web else {}),
        # app tasks: SQ, the case verdicts, the judge's LLM cost (and the LLM-score baseline)
        **({"app": app} if app else {}),
        "notes": notes,
        "task_meta": task_meta(task),
        "dir": str(run_dir),
    }
    if selection is not None:
        record["selection"] = selection
    extra = {k: v for k, v in judgement.items() if k != "verdicts"}
    record.update(extra)
    # the keys a judge (and a method's run extras) added: results.json keeps them
    # (report.results.build)
    record["judge_extra"] = sorted(extra)
    return record


def _selected(task: Task, requirements: list[dict], tests: list[dict], selected: set[str] | None):
    """The requirements and reference tests ``-m`` selected, and the record's ``selection``
    (None when every requirement is)."""
    if selected is None or len(selected) >= len(requirements):
        return requirements, tests, None
    requirements = [r for r in requirements if r["id"] in selected]
    tests = [t for t in tests if selected.intersection(t.get("requirements", ()))]
    selection = {"requirements": [r["id"] for r in requirements], "of": len(task.requirements)}
    return requirements, tests, selection


def _suites(test_run: dict, tests: list[dict]) -> tuple[dict, dict | None, dict]:
    """E2EDevBench Table 2's suites: the migrated reference tests (``tests``), the agent's own
    (None when it wrote none) and both (coverage is the union)."""
    extended_run = test_run["extended"]
    extended = suite_metrics(tests, extended_run.get("coverage"))
    original_run = test_run.get("original")
    if original_run is None:
        return extended, None, extended
    own = original_run["tests"] + [
        {"nodeid": e["nodeid"], "outcome": "error", "message": e["message"]}
        for e in original_run["collect_errors"]
    ]
    original = suite_metrics(own, original_run.get("coverage"))
    return extended, original, suite_metrics(tests + own, test_run.get("all_coverage"))


def _run_notes(
    agent_data: dict,
    install: dict,
    extended_run: dict,
    evidence: list,
    migration: dict,
    original_run: dict | None = None,
) -> list[str]:
    """The notes of an ok run's record: what the agent, intake, install, the test run, the
    tamper checks and migration have to say."""
    notes = [n for n in (agent_data.get("note"),) if n]
    notes += intake_notes(agent_data.get("intake"))
    if not install.get("ok", True):
        # The reason names the step and its log (logs/<step>.log) when there is one.
        reason = install.get("reason") or "see venv.json in the run folder"
        notes.append(f"the project failed to install: {reason}")
    if extended_run.get("status") != "completed":
        notes.append(f"test run {extended_run.get('status')}")
    if (original_run or {}).get("start_error"):
        notes.append(f"the project's own tests did not start: {original_run['start_error']}")
    if (original_run or {}).get("over_bound"):  # the index of its tests stopped at a bound
        notes.append(original_run["over_bound"])
    left_out = omitted_note(extended_run.get("coverage"))
    if left_out:
        notes.append(left_out)
    for suite in (extended_run, original_run or {}):  # coverage's report stopped at a bound
        if (suite.get("coverage") or {}).get("over_bound"):
            notes.append(suite["coverage"]["over_bound"])
    if evidence:
        notes.append(tampered_message(evidence)[:500])
    if migration.get("over_bound"):
        notes.append(migration["over_bound"])
    if migration.get("missing"):
        notes.append(f"missing after migration: {', '.join(migration['missing'][:8])}")
    if migration.get("weakened"):
        notes.append(f"{len(migration['weakened'])} test(s) weakened by migration count as failed")
    if migration.get("changed"):
        changed = sorted(migration["changed"])
        notes.append(
            f"migration changed {len(changed)} test module(s): {', '.join(changed[:5])}"
            + (" …" if len(changed) > 5 else "")
        )
    return notes


def task_meta(task: Task) -> dict:
    """Task facts for analysis (kind, release date for leakage by quarter, size)."""
    return {
        "title": task.title,
        "kind": task.kind,
        "created": task.created.isoformat(),
        "source": task.source,
        **task.size,
    }


def error_record(
    task: Task, agent: Agent, run: int, run_dir: Path, exc: BaseException, extras=()
) -> dict:
    """The record of a run the harness could not evaluate (metrics are None, never 0), with
    the keys the methods add to it (``extras``: what ``pytest_e2ebench_error_extras`` gave,
    ProjectEval's ``level``; kept in results.json like a run's extras, a clash a ValueError).

    ``error.kind`` is ``infrastructure`` for an InfrastructureError and ``harness`` for any
    other exception (:class:`RunFailed`); ``error.traceback`` is the file with the traceback.
    """
    stage = getattr(exc, "stage", "harness")
    kind = "harness" if isinstance(exc, RunFailed) else "infrastructure"
    record = {
        "schema": RECORD_SCHEMA,
        "task": task.id,
        "agent": agent.label,
        "agent_spec": agent.spec,
        "run": run,
        "status": "error",
        "error": {
            "stage": stage,
            "kind": kind,
            "type": getattr(exc, "exc_type", type(exc).__name__),
            "message": str(exc),
            "traceback": getattr(exc, "traceback_file", None),
        },
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
    found = [dict(extra or {}) for extra in extras]
    add_keys(record, found, "pytest_e2ebench_error_extras")
    record["judge_extra"] = sorted({k for extra in found for k in extra})
    return record


def _stage_head(task, agent, run: int, stage: str, status: str) -> dict:
    """The keys every stage record starts with: which run and stage, and its status."""
    return {
        "schema": STAGE_RECORD,
        "task": task.id,
        "agent": agent.label,
        "run": run,
        "stage": stage,
        "status": status,
    }


def stage_record(ctx, agent_data: dict, grade: dict, mode: str) -> dict:
    """The record of a lifecycle stage graded in the run ``ctx`` (docs/stages.md): the agent's
    answer (``agent_data``), its grade, and the ``mode`` the stage ran in (modular or e2e)."""
    task, agent, run, stage = ctx.task, ctx.agent, ctx.key.run, ctx.key.stage
    stage_dir = ctx.run_dir
    notes = [n for n in (agent_data.get("note"), grade.get("note")) if n]
    notes += intake_notes(agent_data.get("intake"))
    return {
        **_stage_head(task, agent, run, stage, "ok"),
        "mode": mode,
        "items": grade["items"],
        "metrics": grade["metrics"],
        "details": {k: v for k, v in grade.items() if k not in ("items", "metrics", "note")},
        "agent_run": {
            k: agent_data.get(k)
            for k in ("tokens_sent", "tokens_generated", "cost_usd", "steps", "duration_s")
        },
        "notes": notes,
        "dir": str(stage_dir),
    }


def error_stage_record(task, agent, run: int, stage: str, stage_dir: Path, exc) -> dict:
    """The record of a stage the harness could not evaluate (metrics None)."""
    return {
        **_stage_head(task, agent, run, stage, "error"),
        "error": {"type": type(exc).__name__, "message": str(exc)},
        "items": {},
        "metrics": None,
        "notes": [],
        "dir": str(stage_dir),
    }


def run_extras(steps, repo: Path, repo_hash: str, migration: dict, record: dict) -> dict:
    """The keys methods and plugins add to a run's ``record`` (``pytest_e2ebench_run_extras``:
    ProjectEval's ``level`` and ``projecteval``); ``notes``: the lines they add to its notes,
    ``metrics``: the metrics they add to its metrics."""
    found = steps.config.hook.pytest_e2ebench_run_extras(
        steps=steps, repo=repo, repo_hash=repo_hash, migration=migration, record=record
    )
    notes = [str(n) for extra in found for n in (extra or {}).get("notes") or ()]
    metrics = [(extra or {}).get("metrics") for extra in found]
    metrics = add_keys({}, [m for m in metrics if m], "pytest_e2ebench_run_extras")
    keys = [
        {k: v for k, v in (extra or {}).items() if k not in ("notes", "metrics")} for extra in found
    ]
    extras = add_keys({}, keys, "pytest_e2ebench_run_extras")
    return {
        **extras,
        **({"notes": notes} if notes else {}),
        **({"metrics": metrics} if metrics else {}),
    }


def attach_extras(record: dict, extras: dict) -> dict:
    """The run's record with what ``pytest_e2ebench_run_extras`` gave: keys it does not have
    yet, kept in results.json like a judge's (``judge_extra`` lists them), its notes, and its
    metrics among the run's."""
    extras = dict(extras)
    record["notes"] = [*record.get("notes", ()), *extras.pop("notes", ())]
    if "metrics" in extras:  # a method's metrics among the run's
        add_keys(record["metrics"], [extras.pop("metrics")], "pytest_e2ebench_run_extras")
    add_keys(record, [extras], "pytest_e2ebench_run_extras")
    record["judge_extra"] = sorted({*record.get("judge_extra", ()), *extras})
    return record


def add_keys(record: dict, found: list[dict | None], hook: str) -> dict:
    """``record`` with the keys of each hook implementation's dict; a key ``record`` has
    already (or two implementations give) is a plugin's bug, a ValueError naming it."""
    for extra in found:
        clash = sorted(set(extra or {}) & set(record))
        if clash:
            raise ValueError(
                f"{hook} returned {', '.join(clash)}, which the record has already; "
                "use a key of your own"
            )
        record.update(extra or {})
    return record
