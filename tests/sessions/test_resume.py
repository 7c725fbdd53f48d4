"""kill -9 at any moment, then the same command again: the benchmark finishes from where it was.

Completed stages are not redone, no process of the killed session lives on, and results.json
has the metrics of an uninterrupted session.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CALC_CODE
from pytest_e2ebench.schema import results_problems

ARGS = (
    "--e2e-agent=dir:out",
    "--e2e-tasks=tasks",
    "-n",
    "2",
    "-p",
    "no:cacheprovider",
    "--e2e-missing=empty",
)
TASK_IDS = ("t1", "t3", "t4")  # issue 27: t1, t3 and t4 differ; a t2 like t1 added a run
RUNS = "dir-out/*/run-1"
OUTCOMES = {"passed": 5, "failed": 4}  # t1: 3; t3: 2 + 1 (R3 broken); t4 (no output): 3
START_LIMIT = 120.0  # seconds to wait for the moment to kill
DEATH_LIMIT = 2.0  # seconds the killed session's processes get to be gone (PDEATHSIG)
Table = dict[int, tuple[int, int, int]]


def processes() -> Table:
    """pid -> (ppid, pgid, sid) of every live process (zombies are dead: left out)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        state, ppid, pgid, sid = stat[stat.rindex(")") + 2 :].split()[:4]
        if state not in ("Z", "X"):
            found[int(entry.name)] = (int(ppid), int(pgid), int(sid))
    return found


def descendants(root: int, table: Table) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    seen, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in table and pid not in seen:
            seen.add(pid)
            todo += children.get(pid, [])
    return seen


def describe(pid: int) -> str:
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    return f"(in {cwd}) " + " ".join(a.decode(errors="replace") for a in argv)


def survivors(leader: int, sessions: set[int], folder: Path) -> dict[int, str]:
    """Live processes of the killed session: its process group, the sessions it started (the
    harness runs its commands in new ones), or anything working on its output folder."""
    found = {}
    for pid, (_, pgid, sid) in processes().items():
        text = describe(pid)
        if pgid == leader or sid in sessions or str(folder) in text:
            found[pid] = text
    found.pop(os.getpid(), None)
    return found


def count(out: Path, manifest: str) -> int:
    return len(list(out.glob(f"{RUNS}/{manifest}")))


def manifests(out: Path) -> dict[str, float]:
    """relative path -> written_at of every stage manifest of every run."""
    found = {}
    for path in out.glob(f"{RUNS}/*.json"):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "written_at" in doc:
            found[path.relative_to(out).as_posix()] = doc["written_at"]
    return found


def comparable(doc: dict) -> dict:
    """(task, agent, run) -> (requirements, metrics without times)."""
    return {
        (run["task"], run["agent"], run["run"]): (
            run["requirements"],
            {k: v for k, v in run["metrics"].items() if k != "duration_s"},
        )
        for run in doc["tasks"]
    }


def kill_leftovers(leader: int, sessions: set[int], folder: Path) -> None:
    """SIGKILL, by process group, whatever the killed session left behind (never our group)."""
    table = processes()
    for pid in survivors(leader, sessions, folder):
        pgid = table.get(pid, (0, 0, 0))[1]
        if pgid > 1 and pgid != os.getpgrp():
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.slow
def test_kill_9_then_the_same_command_resumes_with_the_same_results(pytester, tasks, results):
    for task_id in TASK_IDS:
        tasks.make(task_id)
    out = pytester.path / "out"
    tasks.reference(out / "t1", CALC_CODE)
    tasks.reference(out / "t3", dict(CALC_CODE, mul="def mul(a, b):\n    return 0\n"))
    # t4 has no output: graded as an empty repository

    base = pytester.runpytest_subprocess(*ARGS, "--e2e-out=base", timeout=120)
    base.assert_outcomes(**OUTCOMES)

    killed = pytester.path / "killed"
    log = pytester.path / "killed.log"
    command = [sys.executable, "-m", "pytest", f"--basetemp={pytester.path / 'tmp-killed'}"]
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [*command, *ARGS, "--e2e-out=killed"],
            cwd=pytester.path,
            stdin=subprocess.DEVNULL,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    sessions = {proc.pid}  # the sessions of the harness's commands are added as they appear
    try:
        # Kill once a run is complete but not all are, at best while the harness runs a command.
        deadline, ready_since = time.monotonic() + START_LIMIT, None
        while True:
            table = processes()
            below = descendants(proc.pid, table)
            sessions |= {table[pid][2] for pid in below}
            if 1 <= count(killed, "judge.json") < len(TASK_IDS):
                ready_since = ready_since or time.monotonic()
                commands = [pid for pid in below if table[pid][2] != proc.pid]
                if commands or time.monotonic() - ready_since > 1.0:
                    break
            assert proc.poll() is None, f"the session ended before the kill:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no run finished in time:\n{log.read_text()}"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=DEATH_LIMIT)
        # The xdist workers die with the group. The harness's own commands (uv, coverage) run in
        # sessions of their own and are orphaned, not killed: they get the same grace to end.
        deadline = time.monotonic() + DEATH_LIMIT
        while (left := survivors(proc.pid, sessions, killed)) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        kill_leftovers(proc.pid, sessions, killed)
    finished = count(killed, "judge.json")
    assert 1 <= finished < len(TASK_IDS), f"{finished} of {len(TASK_IDS)} runs done at the kill"
    before = manifests(killed)

    again = pytester.runpytest_subprocess(*ARGS, "--e2e-out=killed", timeout=120)
    again.assert_outcomes(**OUTCOMES)
    after = manifests(killed)
    assert {path: after.get(path) for path in before} == before  # completed stages not redone
    assert count(killed, "judge.json") == len(TASK_IDS)
    assert len(comparable(results("base"))) == len(TASK_IDS)
    assert comparable(results("killed")) == comparable(results("base"))
    # Checked last, so that the resume itself is checked too (the leftovers were killed above).
    assert not left, (
        f"processes of the killed session outlived it by {DEATH_LIMIT:g} s:\n"
        + "\n".join(f"{pid}: {text}" for pid, text in left.items())
    )


def test_an_interrupted_session_says_which_runs_never_ran(pytester, tasks, results):
    """Issue 44: after an interrupt, results.json said nothing of the runs that never ran; it
    read as a whole session. ``-x`` stops at nop's first failing requirement: the reference's
    run is collected and never run."""
    tasks.make()
    result = pytester.runpytest("--e2e-agent=nop,reference", "--e2e-tasks=tasks", "-x")
    assert result.ret == 1
    document = results()
    assert document["interrupted"] is True
    assert document["not_run"] == ["reference/calc/run-1"], document["not_run"]
    result.stdout.fnmatch_lines(["interrupted: 1 run(s) never ran*the same command resumes*"])
    problems = results_problems(document)
    assert not problems, problems
