"""A toolchain task's suites run in the sandbox, their reports read as data (issue 43).

Each suite gets a fresh copy of the project (what one suite's run did to the tree cannot reach
the next) with the task's test folder laid over it: its files replace the project's at their
paths and are bound read-only into every step, so neither the project's build nor its code
changes a test source, the test makefile, an acceptance script or an expected output. The
steps, each a sandbox run with no network and the session's limits:

1. ``build`` (the project's tree writable; the report folder does not exist yet);
2. ``run``: the tests, the report written into a folder made empty for this step;
3. ``coverage`` (optional): an lcov tracefile from gcov's data (or the runner's own).

The report is the project zone's (the test process runs the project's code): it is read
bounded, parsed by the bounded parsers and held against the canary (:mod:`.reports`). A gtest
binary that crashed before it wrote its report has each test not reported run again alone
(``--gtest_filter``), so a crash in one test fails that test, not the suite's others.
"""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
from pathlib import Path

from ...errors import AgentFileError, InfrastructureError
from ...isolation.intake import IntakeLimits, copy_tree
from ...isolation.sandbox import Sandbox
from . import Suite, ToolchainSpec, toolchain_of
from .reports import canary_name, canary_source, contradictions, lcov_maps, new_token, totals_of
from .reports import read_report as parse_report
from .reports import union as coverage_union

REPORT = "report.out"
LCOV = "coverage.info"
MAX_BOUND_FILES = 2_000  # the task's files bound one by one; above, their folders
MAX_LISTED = 5_000  # lines of a gtest binary's --gtest_list_tests read
_GTEST_NAME = re.compile(r"[A-Za-z_][\w/]*")  # a gtest suite or test name (TEST_P: with /)
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "TMPDIR": "/tmp",
    "CI": "true",  # test runners: no watch mode, no colours
    "NO_COLOR": "1",
}


@dataclasses.dataclass(frozen=True)
class SuiteRun:
    """Where one suite runs: its copy of the project, its report folder and its logs."""

    suite: Suite
    work: Path
    report: Path
    logs: Path
    task_files: tuple[str, ...]  # the task's files laid over the project (relative)
    readable: tuple[Path, ...]  # bound read-only: the task's files, the shared node_modules
    token: str
    expected: tuple[str, ...]  # the ids of this suite's tests the task counts

    @property
    def canary(self) -> str:
        return canary_name(self.suite.format, self.token)


def run_suites(
    task, repo: Path, eval_dir: Path, sandbox: Sandbox, timeout: float, node_modules=None
) -> dict:
    """Every suite of ``task`` on the project ``repo``: the test run's ``extended`` record
    (tests by ``<suite>::<id>``, tamper evidence, coverage), as the grading reads it."""
    spec: ToolchainSpec = toolchain_of(task)
    missing = spec.missing_tools()
    if missing:
        raise InfrastructureError(
            "toolchain",
            f"{task.id} needs {', '.join(missing)} on PATH (see .ci/run for the Debian packages)",
        )
    sandbox = dataclasses.replace(
        sandbox, limits=dataclasses.replace(sandbox.limits, address_space=resource.RLIM_INFINITY)
    )  # V8 reserves far more address space than it uses; memory stays bounded (cgroup)
    tests, evidence, suites, maps = [], [], {}, None
    for suite in spec.suites:
        prepared = _prepare(task, suite, repo, eval_dir / suite.name, node_modules)
        result = _run_suite(prepared, sandbox, suite.timeout or timeout)
        tests += result.pop("tests")
        evidence += [f"{suite.name}: {e}" for e in result.pop("tamper_evidence")]
        maps = coverage_union(maps, result.pop("maps"))  # the suites' coverage together
        suites[suite.name] = result
    coverage = totals_of(*maps) if maps is not None else _failed_coverage(suites)
    return {
        "status": "completed",
        # the tests run in the project's process: its report is cross-checked (the canary)
        "verdict_mode": "inprocess",
        "verdict_reason": "a toolchain suite's report, cross-checked with a canary test",
        "tests": tests,
        "collect_errors": [],
        "tamper_evidence": evidence,
        "coverage": coverage,
        "toolchain": suites,
        "collected": len(tests),
    }


def _prepare(task, suite: Suite, repo: Path, where: Path, node_modules) -> SuiteRun:
    """A fresh copy of the project with the task's files over it and the canary appended."""
    if where.exists():
        shutil.rmtree(where)
    work, report, logs = where / "work", where / "report", where / "logs"
    logs.mkdir(parents=True)
    copy_tree(repo, work, IntakeLimits(), ignore=("node_modules", ".git"))
    files = _lay_over(task.tests_dir, work)
    token = new_token()
    if suite.canary:
        target = work / suite.canary
        if suite.canary not in files:
            raise InfrastructureError(
                "toolchain",
                f"{task.id}/task.toml: toolchain suite {suite.name}: canary = "
                f"{suite.canary!r} is not a file of the task's test folder",
            )
        with target.open("a", encoding="utf-8") as out:
            out.write(canary_source(suite.format, token))
    readable = _bound(work, files)
    if node_modules is not None:
        (work / "node_modules").symlink_to(node_modules, target_is_directory=True)
        readable.append(Path(node_modules))
    prefix = f"{suite.name}::"
    expected = tuple(t.nodeid[len(prefix) :] for t in task.tests if t.nodeid.startswith(prefix))
    return SuiteRun(suite, work, report, logs, tuple(files), tuple(readable), token, expected)


def _lay_over(tests_dir: Path | None, work: Path) -> list[str]:
    """Copy the task's test folder (harness zone) over ``work``; its files, relative."""
    files = []
    if tests_dir is None or not tests_dir.is_dir():
        return files
    for path in sorted(tests_dir.rglob("*")):
        if path.is_symlink() or not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(tests_dir)
        target = work / rel
        for parent in reversed([work / p for p in rel.parents if str(p) != "."]):
            if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
                parent.unlink()  # the project's file where the task has a folder
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)  # the project's folder where the task has a file
        elif target.exists() or target.is_symlink():
            target.unlink()
        shutil.copy2(path, target)
        os.chmod(target, 0o755 if os.access(path, os.X_OK) else 0o644)
        files.append(rel.as_posix())
    return files


def _bound(work: Path, files: list[str]) -> list[Path]:
    """What is bound read-only over the writable tree: each of the task's files (or, past
    :data:`MAX_BOUND_FILES`, the folders holding them)."""
    if len(files) <= MAX_BOUND_FILES:
        return [work / rel for rel in files]
    return sorted({work / Path(rel).parts[0] for rel in files})


def _step(run: SuiteRun, sandbox: Sandbox, name: str, command: str, timeout: float, **extra):
    """One sandboxed step of the suite (``writable``: the tree, and the report folder when
    given); its Completed."""
    writable = [run.work, *extra.pop("writable", [])]
    env = {**ENV, "HOME": str(run.work), **extra.pop("env", {})}
    return sandbox.run(
        ["/bin/sh", "-c", command],
        cwd=run.work,
        env=env,
        timeout=timeout,
        log=run.logs / f"{name}.log",
        writable=writable,
        readable=list(run.readable),
    )


def _run_suite(run: SuiteRun, sandbox: Sandbox, timeout: float) -> dict:
    """Build, run and measure one suite: its record (tests, evidence, coverage, steps)."""
    suite, steps = run.suite, {}
    if suite.build:
        built = _step(run, sandbox, "build", suite.build, timeout)
        steps["build"] = _said(built)
    records, done = _test_step(run, sandbox, suite.run, timeout)
    steps["run"] = _said(done)
    evidence = []
    if suite.format == "exit":
        passed = done.returncode == 0 and not done.timed_out
        message = "" if passed else f"exit status {done.returncode}: {done.tail(8)}"[-800:]
        unbuilt = [p for p in suite.programs if not _built(run.work / p)]
        if passed and unbuilt:
            passed, message = False, f"exit status 0, but {', '.join(unbuilt)} was not built"
        records = [{"id": suite.name, "outcome": "passed" if passed else "failed",
                    "message": message, "duration": done.duration_s}]  # fmt: skip
    elif records is None or done.timed_out:
        records = _one_by_one(run, sandbox, timeout, records or [], done)
    else:
        evidence = contradictions(records, run.canary, done.returncode)
    coverage, maps = _coverage(run, sandbox, timeout) if suite.coverage else (None, None)
    return {
        "tests": [_record(suite, r) for r in records if r["id"] != run.canary],
        "tamper_evidence": evidence,
        "coverage": coverage,
        "maps": maps,
        "steps": steps,
        "canary": run.canary if suite.format != "exit" else None,
    }


def _test_step(run: SuiteRun, sandbox: Sandbox, command: str, timeout: float, name="run"):
    """The test command with an empty report folder: (its records or None, its Completed).
    A report the bounded parser refuses is the project's: its records are none."""
    if run.report.exists():
        shutil.rmtree(run.report)
    run.report.mkdir()
    report = run.report / REPORT
    env = {"E2EBENCH_REPORT": str(report)}
    if run.suite.format == "gtest":
        env["GTEST_OUTPUT"] = f"xml:{report}"
    command = command.replace("{report}", str(report)).replace("{lcov}", str(run.report / LCOV))
    done = _step(run, sandbox, name, command, timeout, writable=[run.report], env=env)
    if run.suite.format == "exit":
        return None, done
    try:
        return parse_report(run.report, REPORT, run.suite.format), done
    except AgentFileError as exc:
        return [{"id": "", "outcome": "failed", "message": str(exc)[:800], "duration": 0.0}], done


def _one_by_one(run: SuiteRun, sandbox: Sandbox, timeout: float, records, done) -> list[dict]:
    """A suite whose runner ended without a report (a crash, the timeout): a gtest binary's
    tests each run alone, with the canary (its report held against it); any other suite's
    tests are not run (counted as errors by the grading, saying why)."""
    why = "timed out" if done.timed_out else f"exit status {done.returncode}, no report"
    if run.suite.format != "gtest":
        return [{"id": "", "outcome": "failed", "message": f"the suite {why}", "duration": 0.0}]
    binary = run.suite.run.split()[0]
    if not _built(run.work / binary):  # nothing built: nothing to run alone
        message = f"the suite {why}; {binary} was not built"
        return [{"id": t, "outcome": "failed", "message": message, "duration": 0.0}
                for t in run.expected]  # fmt: skip
    found: list[dict] = []
    for test in run.expected or _listed(run, sandbox, binary, timeout):
        command = f"{binary} --gtest_filter='{test}:{run.canary}'"
        alone, step = _test_step(run, sandbox, command, timeout, name="alone")
        alone = alone or []
        if contradictions(alone, run.canary, step.returncode):
            message = f"crashed or stopped when run alone ({why} in the suite's run)"
            alone = [{"id": test, "outcome": "failed", "message": message, "duration": 0.0}]
        found += [r for r in alone if r["id"] == test]
    return found


def _listed(run: SuiteRun, sandbox: Sandbox, binary: str, timeout: float) -> list[str]:
    """A gtest binary's tests as it lists them (``--gtest_list_tests``: ``Suite.`` lines, each
    test indented below), for a suite the task lists no tests of (an agent's written tests);
    the canary left out, names not C++ identifiers refused."""
    done = _step(run, sandbox, "list", f"{binary} --gtest_list_tests", timeout)
    found, suite = [], ""
    for line in done.output.splitlines()[:MAX_LISTED]:
        name = line.split("#", 1)[0].rstrip()
        if _GTEST_NAME.fullmatch(name.strip().rstrip(".")):
            if not line.startswith(" "):
                suite = name.rstrip(".")
            elif suite:
                found.append(f"{suite}.{name.strip()}")
    return [t for t in dict.fromkeys(found) if t != run.canary]


def _coverage(run: SuiteRun, sandbox: Sandbox, timeout: float) -> tuple:
    """The suite's coverage totals from its lcov tracefile (None: no data), and its line and
    branch maps (for the union of the suites)."""
    lcov = run.report / LCOV
    command = run.suite.coverage.replace("{lcov}", str(lcov))
    done = _step(run, sandbox, "coverage", command, timeout, writable=[run.report])
    try:
        maps = lcov_maps(run.report, LCOV, run.work, set(run.task_files))
    except AgentFileError as exc:
        return {"error": f"coverage report refused: {exc}"}, None
    if maps is None and done.returncode != 0:
        failed = f"coverage step failed (exit status {done.returncode}): {done.tail(3)}"
        return {"error": failed}, None
    return (totals_of(*maps) if maps is not None else None), maps


def _failed_coverage(suites: dict) -> dict | None:
    """No suite measured coverage: the first suite's error, if one failed to."""
    errors = [s["coverage"] for s in suites.values() if (s.get("coverage") or {}).get("error")]
    return errors[0] if errors else None


def _record(suite: Suite, rec: dict) -> dict:
    """A report's test as a test record of the grading."""
    nodeid = suite.name if suite.format == "exit" else f"{suite.name}::{rec['id']}"
    return {
        "nodeid": nodeid,
        "outcome": rec["outcome"],
        "message": rec.get("message", ""),
        "duration": rec.get("duration", 0.0),
    }


def _built(path: Path) -> bool:
    """A regular file (not a link) the project's build left at ``path``."""
    return not path.is_symlink() and path.is_file()


def _said(done) -> dict:
    """A step's facts (its output stays in its log)."""
    return {
        "returncode": done.returncode,
        "timed_out": done.timed_out,
        "duration_s": round(done.duration_s, 3),
        "tail": done.tail(5)[-600:],
    }
