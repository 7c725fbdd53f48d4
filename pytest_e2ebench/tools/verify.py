"""``e2ebench verify-import pytest TASKS``: the harness's verdicts on imported references,
against the peer's own way of running the same tests.

Per task kind a verifier (:data:`VERIFIERS`) returns the verdict of each test by the peer's
way; the harness's come from a reference run of the benchmark (``pytest --e2e-agent=reference
--e2e-migrate=none``, or ``--migrate static``), read from its eval stage. For Python suites the
peer's way is plain pytest from the reference repository, run in the sandbox (the reference
is third-party code) in an environment the harness built with the reference installed. Every
disagreement is listed; the agreement is per test.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from ..environment import venv
from ..errors import E2EBenchError
from ..isolation.intake import read_regular
from ..isolation.sandbox import machine_sandbox
from ..methods.stages import IMPLEMENT
from ..run.runs import run_folders
from ..taskmodel.task import fetch_reference, find_task_dirs, load_task
from ..taskmodel.testconf import interpreter_home

JUNIT_LIMIT = 64 << 20
# what E2EDevBench's harness installs besides the project (pytest plugins its suites assume)
PEER_TOOLS = ("pytest-cov", "pytest-xdist", "pytest-asyncio", "mock")


def harness_verdicts(tasks: Path, out: Path, migrate: str = "none") -> dict[str, dict[str, str]]:
    """task id -> node id -> outcome, from a reference run of the benchmark on ``tasks``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--e2e-agent=reference",
            f"--e2e-tasks={tasks}",
            f"--e2e-out={out}",
            f"--e2e-migrate={migrate}",
            # a task whose reference cannot be fetched must not stop the others
            "--continue-on-collection-errors",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=out.parent,
        capture_output=True,
        check=False,
    )
    found: dict[str, dict[str, str]] = {}
    for key, folder in run_folders(out, "reference"):
        manifest = folder / "eval.json"
        if key.run != 1 or key.stage != IMPLEMENT or not manifest.is_file():
            continue
        data = json.loads(manifest.read_text(encoding="utf-8")).get("data") or {}
        extended = data.get("extended") or {}
        verdicts = {e["nodeid"]: "error" for e in extended.get("collect_errors") or []}
        verdicts.update({t["nodeid"]: t.get("outcome", "?") for t in extended.get("tests", [])})
        found[key.task] = verdicts
    return found


def pytest_verdicts(task, work: Path) -> tuple[dict[str, str], list[str]]:
    """Node id -> outcome of plain pytest from the reference repository (in the sandbox), and
    notes on what went wrong around it (the reference did not install)."""

    repo = work / "repo"
    shutil.copytree(task.reference_dir, repo, ignore=shutil.ignore_patterns("__pycache__"))
    if task.settings.data is not None:
        shutil.copytree(task.settings.data, repo, dirs_exist_ok=True)
    env_dir = work / "venv"
    sandbox = machine_sandbox()  # the peer's tests import the reference: never mode none
    installed = venv.build(
        env_dir,
        repo,
        work / "logs",
        (*task.test_requires, *task.settings.plugins, *PEER_TOOLS),
        sandbox,
        python=task.settings.python,
    )
    notes = [] if installed.ok else [f"the reference does not install: {installed.reason}"]
    rel = task.tests_dir.relative_to(task.reference_dir) if task.source_pin else Path("tests")
    if not task.source_pin:  # a written task: its tests sit beside the reference
        shutil.copytree(task.tests_dir, repo / "tests", dirs_exist_ok=True)
    report = work / "out" / "junit.xml"
    report.parent.mkdir()
    sandbox.run(
        [
            str(venv.python_of(env_dir)),
            "-m",
            "pytest",
            str(rel),
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            "-q",
            *(a for p, _ in task.excluded for a in ("--deselect", p)),
        ],
        cwd=repo,
        env={
            "PATH": f"{env_dir / 'bin'}:/usr/bin:/bin",
            "HOME": str(work / "out"),
            # as E2EDevBench's harness runs pytest: the repository and its src/ importable
            "PYTHONPATH": f"{repo}:{repo / 'src'}",
            **dict(task.settings.env),
        },
        timeout=1800,
        log=work / "pytest.log",
        writable=[repo, work / "out"],
        readable=[env_dir, *interpreter_home(env_dir)],
    )
    try:
        root = ET.fromstring(read_regular(report, JUNIT_LIMIT))
    except (OSError, ET.ParseError):
        return {}, [*notes, "plain pytest wrote no report (see its output)"]
    return junit_verdicts(root, repo, rel), notes


def junit_verdicts(root: ET.Element, repo: Path, rel: Path) -> dict[str, str]:
    """Node ids (as the harness names them: under ``tests/``) -> outcome, from
    pytest's JUnit XML of a run from ``repo`` on its tests folder ``rel``."""
    verdicts = {}
    for case in root.iter("testcase"):
        dotted = case.get("classname", "")
        name = case.get("name", "")
        if not dotted:  # a module that could not be collected: junit names the module
            dotted, name = name, ""
        parts = dotted.split(".")
        path, inner = None, []
        for i in range(len(parts), 0, -1):
            if (repo / Path(*parts[:i])).with_suffix(".py").is_file():
                path, inner = Path(*parts[:i]).with_suffix(".py"), parts[i:]
                break
        if path is None or not path.is_relative_to(rel):
            continue
        # as the harness names it: a suite of one module is tests/<module>, like a folder's
        inside = Path(rel.name) if path == rel else path.relative_to(rel)
        file = (Path("tests") / inside).as_posix()
        nodeid = "::".join([file, *inner, name]) if name else file
        outcome = "passed"
        for tag, word in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            found = case.find(tag)
            if found is not None:
                # junit writes an expected failure as a skip of type pytest.xfail
                outcome = "xfailed" if found.get("type") == "pytest.xfail" else word
        verdicts[nodeid] = outcome
    return verdicts


# task kind -> the peer's own runner: ``verifier(task, work_dir)`` returns node id -> outcome
# (or that and a list of notes). The E2EDev/Behave verifier of web tasks joins here.
VERIFIERS = {"library": pytest_verdicts, "cli": pytest_verdicts, "data": pytest_verdicts}


def _expand(side: dict[str, str], other: dict[str, str]) -> dict[str, str]:
    """``side`` with each module-level verdict (a collection error) given to the tests the
    ``other`` side found in that module."""
    out = {n: v for n, v in side.items() if "::" in n}
    for module in [n for n in side if "::" not in n]:
        theirs = [n for n in other if n.startswith(module + "::")]
        out.update(dict.fromkeys(theirs or [module], side[module]))
    return out


def compare(harness: dict[str, str], peer: dict[str, str]) -> tuple[int, int, list[str]]:
    """(agreeing, compared, disagreements): per test, parametrised cases by their id.

    A module pytest could not collect (a node id without ``::``) stands for each of its tests.
    """
    harness, peer = _expand(harness, peer), _expand(peer, harness)
    agree, lines = 0, []
    for nodeid in sorted(set(harness) | set(peer)):
        ours, theirs = harness.get(nodeid, "absent"), peer.get(nodeid, "absent")
        if ours == theirs:
            agree += 1
        else:
            lines.append(f"{nodeid}: harness {ours}, pytest {theirs}")
    return agree, len(set(harness) | set(peer)), lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench verify-import pytest``."""
    parser.add_argument("tasks", type=Path, help="the folder of imported tasks")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument(
        "--migrate",
        choices=("none", "static"),
        default="none",
        help="how the harness migrates the reference tests (default none: the reference "
        "already has the API its tests expect)",
    )


def run(args: argparse.Namespace) -> int:
    """Verify every task under ``args.tasks``; print per project and the overall agreement."""
    report, total_agree, total = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="e2ebench-verify-import-") as tmp:
        harness = harness_verdicts(args.tasks.resolve(), Path(tmp) / "bench", args.migrate)
        for folder in find_task_dirs(args.tasks):
            try:
                task = fetch_reference(load_task(folder))
            except E2EBenchError as exc:
                print(f"{folder.name}: not verified: {str(exc).splitlines()[0]}")
                continue
            verifier = VERIFIERS.get(task.kind)
            if verifier is None or task.reference_dir is None:
                print(f"{task.id}: not verified: no verifier for a {task.kind} task")
                continue
            work = Path(tmp) / task.id
            work.mkdir()
            try:
                found = verifier(task, work)
            except E2EBenchError as exc:
                print(f"{task.id}: not verified: {exc}")
                continue
            # a verifier returns the verdicts, or the verdicts and notes
            peer, notes = found if isinstance(found, tuple) else (found, [])
            ours = harness.get(task.id, {})
            agree, count, lines = compare(ours, peer)
            total_agree, total = total_agree + agree, total + count
            passed = [sum(v == "passed" for v in side.values()) for side in (ours, peer)]
            print(
                f"{task.id}: {agree}/{count} tests agree (passed: harness {passed[0]}, "
                f"plain pytest {passed[1]})"
            )
            for note in notes:
                print(f"  note: {note}")
            for line in lines:
                print(f"  {line}")
            report.append(
                {
                    "task": task.id,
                    "agree": agree,
                    "tests": count,
                    "passed": {"harness": passed[0], "pytest": passed[1]},
                    "notes": notes,
                    "disagree": lines,
                }
            )
    share = f"{100 * total_agree / total:.1f} %" if total else "-"
    print(f"overall: {total_agree}/{total} tests agree ({share})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if total and total_agree == total else 1
