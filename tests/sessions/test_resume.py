"""kill -9 at any moment, then the same command again: the benchmark finishes from where it was.

Completed stages are not redone, no process of the killed session lives on, and results.json
has the metrics of an uninterrupted session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.processes import (
    TASK_IDS,
    comparable,
    count,
    descendants,
    manifests,
    processes,
    survivors,
)
from helpers.tasks import CALC_CODE

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
OUTCOMES = {"passed": 5, "failed": 4}  # t1: 3; t3: 2 + 1 (R3 broken); t4 (no output): 3
START_LIMIT = 120.0  # seconds to wait for the moment to kill
DEATH_LIMIT = 2.0  # seconds the killed session's processes get to be gone (PDEATHSIG)


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
