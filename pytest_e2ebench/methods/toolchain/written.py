"""DevEval's test-writing stages for a toolchain task (issue 43): the agent's tests run on the
reference, DevEval's *oracle test* (Li et al., 2024, §3: written tests are run against the
reference implementation; their coverage is the unit-test stage's metric).

The agent writes the stage's test folder (``[toolchain.stages]``: e.g. ``unit_tests/`` for the
unit suite); the task's test folder with that folder replaced by the agent's files (copied as
project-zone data: no link followed, bounded) is laid over the reference, and the stage's suite
runs as the implement stage runs it (:mod:`.runner`): sandboxed, its report read bounded and
held against the canary, appended to the agent's first test file. The oracle passes when at
least one test ran and every one passed; the statement (line) coverage comes from the suite's
lcov tracefile.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from ...isolation.intake import IntakeLimits, copy_tree
from . import KIND, toolchain_of
from .runner import run_suites


def _canary_file(suite, folder: str, written: Path) -> str:
    """The agent's test file the canary goes into: the task's own name if the agent wrote it,
    else its first file with that suffix (else any first file)."""
    if (written / Path(suite.canary).name).is_file() and suite.canary.startswith(f"{folder}/"):
        return suite.canary
    suffix = Path(suite.canary).suffix
    files = sorted(p for p in written.rglob("*") if p.is_file() and not p.is_symlink())
    chosen = next((p for p in files if p.suffix == suffix), files[0] if files else None)
    return f"{folder}/{chosen.relative_to(written).as_posix()}" if chosen else ""


def grade(
    task, stage: str, repo: Path, work: Path, sandbox, timeout: float, node_modules=None
) -> dict:
    """The stage's grade (as :func:`pytest_e2ebench.methods.stages.testing.grade` gives it);
    ``node_modules``: the task's npm packages (the implement stage's environment)."""
    suite, folder, _ = toolchain_of(task).stage_suite(stage)
    written = repo / folder
    if written.is_symlink() or not written.is_dir() or not any(written.iterdir()):
        message = f"no tests in {folder}/"
        return _grade(False, message, 0.0, 0.0, [], {"note": message})
    tests = work / "tests"
    shutil.copytree(task.tests_dir, tests, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(tests / folder, ignore_errors=True)
    copy_tree(written, tests / folder, IntakeLimits(), ignore=(".git",))
    canary = _canary_file(suite, folder, tests / folder) if suite.format != "exit" else ""
    spec = dataclasses.replace(
        toolchain_of(task), suites=(dataclasses.replace(suite, canary=canary),), requirements=()
    )
    variant = dataclasses.replace(
        task, tests_dir=tests, tests=(), slots=task.slots.replace(**{KIND: spec})
    )
    extended = run_suites(
        variant, task.reference_dir, work / "eval", sandbox, timeout, node_modules
    )
    results = [t for t in extended["tests"] if t["nodeid"].split("::", 1)[-1]]
    passed = [t for t in results if t["outcome"] == "passed"]
    evidence = extended["tamper_evidence"]
    ok = bool(results) and len(passed) == len(results) and not evidence
    coverage = extended.get("coverage") or {}
    statement = (
        coverage["covered_lines"] / coverage["statements"] if coverage.get("statements") else None
    )
    failing = [t for t in results if t["outcome"] != "passed"]
    message = "" if ok else _explain(results, failing, evidence)
    rate = len(passed) / len(results) if results else 0.0
    facts = {"tests": len(results), "passed": len(passed), "tamper_evidence": evidence}
    return _grade(ok, message, rate, statement, failing, facts)


def _explain(results, failing, evidence) -> str:
    if evidence:
        return "the report is contradicted: " + "; ".join(evidence[:3])
    if not results:
        return "no test ran"
    shown = "; ".join(f"{t['nodeid']}: {t['message'][:120]}" for t in failing[:3])
    return f"{len(failing)} of {len(results)} tests fail on the reference: {shown}"


def _grade(ok: bool, message: str, rate, statement, failing, facts: dict) -> dict:
    return {
        "items": {"oracle": {"passed": ok, "message": message}},
        "metrics": {
            "test_pass_rate": round(rate, 4),
            "oracle_pass": float(ok),
            "statement_coverage": None if statement is None else round(statement, 4),
            "mutation_score": None,
        },
        "status": "completed",
        "failing": [t["nodeid"] for t in failing],
        **facts,
    }
