"""The acceptance- and unit-test stages: the agent's tests run against the reference.

DevBench (arXiv:2403.08604, Table 1): tests the agent writes from the requirements (and, for
unit tests, the source) are graded by the *oracle test*: run against the reference
implementation they must pass; and by the statement coverage of the reference they reach.
Issue 16 adds the mutation score: the share of the task's mutants (degraded references,
``mutants.toml``) on which the tests fail, counted only for tests that pass on the
reference (a suite failing everywhere catches nothing).

The tests run like every other suite (:func:`pytest_e2ebench.evaluation.runner.run_suite`): copied
into
a harness folder, sandboxed, per-test results from the signed probe, coverage combined by the
harness. They are the agent's own code, so no honeypot is planted into them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ...environment import backend, venv
from ...errors import InfrastructureError
from ...evaluation import runner
from ...isolation.sandbox import Sandbox
from ...run.cache import key_of, locked, remove, tree_hash
from ...taskmodel import mutants as mutant_tools
from ...taskmodel.testindex import is_test_module
from . import variants

VARIANT_FAILURE = (
    "passes on the reference but not on its behaviour-preserving variant (reformatted, locals "
    "renamed, docstrings changed, functions reordered): it tests how the source is written, "
    "not what it does"
)


WRITTEN_EVIDENCE = (
    "the tests read the code under test (its source files or code objects), which a test of "
    "behaviour does not do"
)


def test_modules(folder: Path) -> list[Path]:
    """The test modules under ``folder`` (regular files only)."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(
        p for p in folder.rglob("*.py") if is_test_module(p) and p.is_file() and not p.is_symlink()
    )


def _requires(task) -> tuple[str, ...]:
    """What the task's tests need installed besides the tools: its test requirements and
    pytest plugins (as the implementation stage installs them)."""
    return (*task.test_requires, *task.settings.plugins)


def reference_env(source: Path, shared: Path, sandbox: Sandbox, task=None) -> tuple[Path, Path]:
    """A copy of ``source`` (the reference, or a mutant) and an environment with it installed,
    with the task's test requirements and plugins.

    Built once per content and kept under ``shared`` for every stage, agent and run: the test
    runs only read both (they are not among a run's writable folders).
    """
    requires = _requires(task) if task is not None else ()
    python_version = task.settings.python if task is not None else None
    key = key_of(
        "reference-env", tree_hash(source), venv.fingerprint(), requires, python_version or ""
    )[:16]
    where = shared / f"reference-env-{key}"
    with locked(where):
        if not (where / "complete").is_file():
            for name in ("project", "venv", "logs"):
                remove(where / name)
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(source, where / "project", ignore=ignore)
            built = venv.build(
                where / "venv",
                where / "project",
                where / "logs",
                requires,
                sandbox,
                python=python_version,
                wheels=backend.store_in(shared),  # the runs' wheel of the same content (#27)
            )
            if not built.ok:
                raise InfrastructureError(
                    "tests", f"the reference did not install ({where / 'logs'}): {built.reason}"
                )
            (where / "complete").write_text(built.log + "\n")
    return where / "project", venv.python_of(where / "venv")


def _oracle(tests: Path, task, work: Path, shared: Path, sandbox: Sandbox, timeout: float):
    """The agent's tests on the reference, then on a variant of it: the reference's run, every
    case's outcome (collection errors as errors) and the tamper evidence of both runs."""
    suite = _suite_on("oracle", task.reference_dir, tests, task, work, shared, sandbox, timeout)
    results = suite["tests"] + [
        {"nodeid": e["nodeid"], "outcome": "error", "message": e.get("message", "")}
        for e in suite["collect_errors"]
    ]
    evidence = list(suite.get("tamper_evidence") or [])
    if suite["status"] == "completed" and any(t["outcome"] == "passed" for t in results):
        # issue 26: a test passes only if it also passes on a variant written differently
        variant = variants.shared_variant(task.reference_dir, shared)
        on_variant = _suite_on("variant", variant, tests, task, work, shared, sandbox, timeout)
        results = _with_variant(results, on_variant)
        evidence += on_variant.get("tamper_evidence") or []
    return suite, results, evidence


def grade(
    tests: Path,
    task,
    work: Path,
    shared: Path,
    sandbox: Sandbox,
    timeout: float,
    *,
    with_mutants: bool = True,
) -> dict:
    """Run the agent's tests in ``tests`` against the reference (and its mutants).

    ``shared`` keeps the reference's (and mutants') environments for other stages and runs.
    """
    modules = test_modules(tests)
    if not modules:
        message = f"no test modules (test_*.py) in {tests.name}/"
        # The agent was asked for tests and wrote none: every number is 0 (DevEval scores a
        # missing answer as failed), not "does not apply".
        return {
            "items": {"oracle": {"passed": False, "message": message}},
            "metrics": _metrics(0.0, 0.0, 0.0 if task.mutants else None),
            "note": message,
        }
    suite, results, evidence = _oracle(tests, task, work, shared, sandbox, timeout)
    passed = [t for t in results if t["outcome"] == "passed"]
    pass_rate = len(passed) / len(results) if results else 0.0
    coverage = suite.get("coverage") or {}
    statement = (
        coverage["covered_lines"] / coverage["statements"] if coverage.get("statements") else None
    )
    ok = bool(results) and len(passed) == len(results) and suite["status"] == "completed"
    # a test that reads the reference's sources or code objects (the guard's audit hook saw
    # it) tests how the code is written: the oracle fails whatever the outcomes say
    ok = ok and not evidence
    failing = [t for t in results if t["outcome"] != "passed"]
    message = "" if ok else _explain(suite, results, failing, evidence)
    score = None
    killed: list[str] = []
    if with_mutants and ok and task.mutants:
        killed = _mutation(tests, task, work, shared, sandbox, timeout)
        score = len(killed) / len(task.mutants)
    return {
        "items": {"oracle": {"passed": ok, "message": message}},
        "metrics": _metrics(pass_rate, statement, score),
        "tests": len(results),
        "passed": len(passed),
        "status": suite["status"],
        "killed_mutants": killed,
        "tamper_evidence": evidence,
        "variant_failures": [
            t["nodeid"] for t in failing if t["message"].startswith(VARIANT_FAILURE)
        ],
    }


def _explain(suite: dict, results: list[dict], failing: list[dict], evidence=()) -> str:
    if suite["status"] != "completed":
        return f"the test run {suite['status']}"
    if evidence and not failing:
        shown = "; ".join(evidence[:3])
        return f"{WRITTEN_EVIDENCE}: {shown}"
    if not results:
        return "no test ran"
    on_variant = any(t["message"].startswith(VARIANT_FAILURE) for t in failing)
    where = " or on its behaviour-preserving variant" if on_variant else ""
    lines = [f"{len(failing)} of {len(results)} tests fail on the reference implementation{where}:"]
    for test in failing[:10]:
        first = (test.get("message") or "").strip().splitlines()[:1]
        shown = first[0][:160] if first else ""
        lines.append(f"  {test['outcome'].upper():7} {test['nodeid']} {shown}")
    return "\n".join(lines)


def _suite_on(
    name: str, source: Path, tests: Path, task, work: Path, shared: Path, sandbox, timeout: float
) -> dict:
    """The agent's tests run against ``source`` (the reference, its variant or a mutant)."""
    project, python = reference_env(source, shared, sandbox, task)
    return runner.run_suite(
        name,
        tests=tests,
        venv_python=python,
        repo=project,
        eval_dir=work / "eval",
        timeout=timeout,
        test_timeout=task.test_timeout,
        sandbox=sandbox,
        honeypots=False,
        written=True,  # an agent's test that reads the reference's sources is evidence
        # the working directory, data, environment and plugins the task's tests run with
        settings=task.settings,
    )


def _with_variant(results: list[dict], on_variant: dict) -> list[dict]:
    """``results`` (on the reference) with each test that passed there but not on the
    behaviour-preserving variant turned into a failure that says so."""
    outcome = {t["nodeid"]: t["outcome"] for t in on_variant["tests"]}
    broken = on_variant["status"] != "completed" or bool(on_variant["collect_errors"])
    merged = []
    for test in results:
        other = "not run" if broken else outcome.get(test["nodeid"], "not run")
        if test["outcome"] == "passed" and other != "passed":
            test = {
                **test,
                "outcome": "failed",
                "message": f"{VARIANT_FAILURE} (there: {other})",
            }
        merged.append(test)
    return merged


def _mutation(
    tests: Path, task, work: Path, shared: Path, sandbox: Sandbox, timeout: float
) -> list[str]:
    """Names of the task's mutants on which the tests do not all pass."""
    killed = []
    for index, mutant in enumerate(task.mutants):
        source = mutant_tools.apply(task.reference_dir, mutant, work / f"mutant-src-{index}")
        suite = _suite_on(f"mutant-{index}", source, tests, task, work, shared, sandbox, timeout)
        outcomes = [t["outcome"] for t in suite["tests"]]
        if (
            suite["status"] != "completed"
            or suite["collect_errors"]
            or any(o != "passed" for o in outcomes)
        ):
            killed.append(mutant.name)
    return killed


def _metrics(pass_rate, statement, mutation) -> dict:
    return {
        "test_pass_rate": None if pass_rate is None else round(pass_rate, 4),
        "oracle_pass": None if pass_rate is None else float(pass_rate == 1.0),
        "statement_coverage": None if statement is None else round(statement, 4),
        "mutation_score": None if mutation is None else round(mutation, 4),
    }
