"""The reference gate every import ends with (issue 47): an imported task is gradable only when
its reference builds and passes its tests the way grading will run them.

``e2ebench import FORMAT SRC OUT`` (and ``e2ebench fetch``) then grades the imported
references in one benchmark session (``pytest --e2e-agent=reference -n JOBS``, into
``OUT/.gate``, its progress shown) and reads its results:

* a reference that does not install (memor 0.5's sdist: its ``setup.py`` reads a file the sdist
  does not ship) is the task's defect: the task folder moves to ``OUT/.not-gradable/<id>/``
  with ``REASON.txt``, so no agent is graded on it and scored 0 for it;
* a reference that fails some of its tests stays, named with the count and the first failure
  (a test the reference fails is one no agent can be asked to pass);
* a run the harness could not grade here (an infrastructure error: no network for a git
  reference, no browser) stays, named with the error: the machine's, not the task's.

``OUT/gate.json`` has every task's finding; the exit status is 1 when any task is not clean.
``--no-gate`` writes the files only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ...errors import AgentFileError
from ...evaluation import split
from ...taskmodel.task import TASK_FILE
from ...untrusted import parse
from . import write_task_toml

GATE_DIR = ".gate"  # the gate's session folder, in the tasks' folder
NOT_GRADABLE = ".not-gradable"  # tasks whose reference does not build


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--no-gate`` and ``--gate-jobs`` of every import command."""
    parser.add_argument(
        "--no-gate",
        action="store_true",
        help="write the task folders only: do not build and test each imported reference",
    )
    parser.add_argument(
        "--gate-jobs",
        type=int,
        default=2,
        metavar="N",
        help="references graded at once by the gate (pytest -n; default 2)",
    )


def gated(run):
    """An importer's ``run`` followed by the gate on what it wrote (unless ``--no-gate``)."""

    def run_then_gate(args: argparse.Namespace) -> int:
        status = run(args)
        if status != 0 or getattr(args, "no_gate", False):
            return status
        return check(Path(args.out), getattr(args, "gate_jobs", 2))

    return run_then_gate


def check(tasks: Path, jobs: int = 2) -> int:
    """Grade every reference in ``tasks``, move out those that do not build, report; 0 when
    every task's reference builds and passes every test."""
    tasks = tasks.resolve()  # the session runs in it: a relative OUT named tasks/tasks there
    print(f"gate: grading each imported reference in {tasks} (pytest -n {jobs}) ...", flush=True)
    out = tasks / GATE_DIR
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "pytest", "--e2e-agent=reference", f"--e2e-tasks={tasks}",
               f"--e2e-out={out}", "--continue-on-collection-errors", "-q", "-p",
               "no:cacheprovider", *(("-n", str(jobs)) if jobs > 1 else ())]  # fmt: skip
    _session(command, tasks)
    findings = _findings(tasks, out)
    _in_one_process(tasks, command, findings)
    (tasks / "gate.json").write_text(json.dumps(findings, indent=2) + "\n", encoding="utf-8")
    for task_id, found in sorted(findings.items()):
        if found["verdict"] == "does not build":
            _set_aside(tasks, task_id, found["why"])
        if found["verdict"] != "ok":
            print(f"gate: {task_id}: {found['verdict']}: {found['why']}")
    clean = sum(f["verdict"] == "ok" for f in findings.values())
    print(f"gate: {clean} of {len(findings)} references build and pass every test")
    return 0 if clean == len(findings) else 1


def _in_one_process(tasks: Path, command: list[str], findings: dict[str, dict]) -> None:
    """The references that failed tests split, graded again in one process: where more pass
    there, the channel does not carry that suite (a project's threads calling back into the
    tests at once, a log record the suite's ``caplog`` waits for), and the task is written to
    be graded in one process (``[tests] inprocess``, with the counts) so no agent is scored on
    what the split could not carry. Its finding says which."""
    again = {i for i, f in findings.items() if f.get("mode") == "split" and f["failed"]}
    if not again:
        return
    print(f"gate: {len(again)} reference(s) failed tests split; grading them in one process")
    out = tasks / f"{GATE_DIR}-inprocess"
    shutil.rmtree(out, ignore_errors=True)
    chosen = [f"--e2e-out={out}" if c.startswith("--e2e-out=") else c for c in command]
    chosen += ["-k", " or ".join(sorted(again))]
    _session(chosen, tasks, {split.MODE_ENV: split.INPROCESS})
    second = _findings(tasks, out)
    for task_id in sorted(again):
        split_failed, one = findings[task_id]["failed"], second.get(task_id, {})
        if one.get("verdict") == "not graded" or one.get("failed", split_failed) >= split_failed:
            continue
        why = (
            f"the reference fails {split_failed} of {one['total']} tests split and "
            f"{one['failed']} in one process (the import gate)"
        )
        _set_inprocess(tasks / task_id, why)
        findings[task_id] = {
            **one,
            "why": f"{one['why']}; graded in one process: {why}".strip("; "),
        }


def _set_inprocess(folder: Path, why: str) -> None:
    """``[tests] inprocess = why`` in the task's task.toml (the importer's own file)."""
    meta = parse.read_toml(folder, TASK_FILE) or {}
    meta.setdefault("tests", {})["inprocess"] = why
    write_task_toml(folder, meta)


def _session(command: list[str], cwd: Path, env: dict | None = None) -> None:
    """The gate's benchmark session, its output (progress lines included) relayed to stderr."""
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", env={**os.environ, **(env or {})},
                          ) as session:  # fmt: skip
        for line in session.stdout:
            sys.stderr.write(line)


def _findings(tasks: Path, out: Path) -> dict[str, dict]:
    """Per task folder: its verdict (ok, does not build, fails tests, not graded) and why."""
    ids = sorted(p.parent.name for p in tasks.glob("*/task.toml"))
    try:
        document = parse.read_json(out, "results.json", max_bytes=256 << 20)
    except AgentFileError:  # no results at all: every task is reported so
        document = {}
    document = document if isinstance(document, dict) else {}  # (none written: None)
    records = {r.get("task"): r for r in document.get("tasks", []) if isinstance(r, dict)}
    return {i: _finding(records.get(i)) for i in ids}


def _finding(record: dict | None) -> dict:
    if record is None:
        why = "the task did not load or its run never ended (see .gate/ and the output above)"
        return {"verdict": "not graded", "why": why}
    if record.get("status") != "ok":
        error = (record.get("error") or {}).get("message") or "an error"
        return {"verdict": "not graded", "why": str(error).splitlines()[-1][:300]}
    if not (record.get("install") or {}).get("ok", True):
        notes = [n for n in record.get("notes") or () if "failed to install" in n]
        return {"verdict": "does not build", "why": (notes or ["it does not install"])[0][:300]}
    suite = (record.get("suites") or {}).get("extended") or {}
    bad = (suite.get("failed") or 0) + (suite.get("errors") or 0)
    counts = {
        "mode": (record.get("test_run") or {}).get("verdict_mode"),
        "failed": bad,
        "total": suite.get("total"),
    }
    if bad:
        first = _first_failure(record)
        why = f"{bad} of {suite.get('total')} reference tests fail on the reference{first}"
        return {"verdict": "fails tests", "why": why, **counts}
    return {"verdict": "ok", "why": "", **counts}


def _first_failure(record: dict) -> str:
    for requirement in record.get("requirements") or ():
        for failing in requirement.get("failing") or ():
            message = str(failing.get("message") or "").strip().splitlines()
            return f" (first: {failing.get('nodeid')}: {message[-1][:160] if message else ''})"
    return ""


def _set_aside(tasks: Path, task_id: str, why: str) -> None:
    """Move a task whose reference does not build out of the gradable tasks, saying why."""
    where = tasks / NOT_GRADABLE
    where.mkdir(exist_ok=True)
    shutil.rmtree(where / task_id, ignore_errors=True)
    shutil.move(str(tasks / task_id), str(where / task_id))
    (where / task_id / "REASON.txt").write_text(why + "\n", encoding="utf-8")
