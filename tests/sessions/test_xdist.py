"""-n 2 gives the same results as -n 0, and each (task, agent, run) is built once."""

from __future__ import annotations

import re

from helpers.tasks import CALC_CODE
from helpers.xdist import comparable, summaries

COUNTING_AGENT = """
import os
from pathlib import Path

import pytest

from pytest_e2ebench.agents import Agent, AgentOutcome


class Counting(Agent):
    spec = label = "counting"

    def cache_key(self, task, run):
        return "v1"

    def generate(self, task, run, workspace, ctx):
        with open(os.environ["COUNT_FILE"], "a") as fh:
            fh.write(f"{task.id} {run}\\n")
        src = Path(os.environ["SRC_DIR"])
        for path in src.rglob("*"):
            if path.is_file():
                target = workspace / path.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
        return AgentOutcome(steps=3)


def pytest_e2ebench_make_agent(spec, config):
    return Counting() if spec == "counting" else None
"""


def test_parallel_equals_serial_and_builds_each_run_once(pytester, tasks, results, monkeypatch):
    tasks.make("alpha")
    tasks.make("beta")
    src = tasks.reference(
        pytester.path / "src", dict(CALC_CODE, mul="def mul(a, b):\n    return 0\n")
    )
    pytester.makeconftest(COUNTING_AGENT)
    count = pytester.path / "count.txt"
    monkeypatch.setenv("COUNT_FILE", str(count))
    monkeypatch.setenv("SRC_DIR", str(src))
    # one run each (issue 27): 2 tasks x 2 agents already give both workers runs to build
    args = ("--e2e-agent=counting,nop", "--e2e-tasks=tasks", "--e2e-runs=1")

    serial = pytester.runpytest_subprocess(*args, "--e2e-out=serial", "-p", "no:xdist")
    serial.assert_outcomes(passed=4, failed=8)
    parallel = pytester.runpytest_subprocess(*args, "--e2e-out=parallel", "-n", "2", "-v")
    parallel.assert_outcomes(passed=4, failed=8)
    workers: dict[str, set[str]] = {}
    for line in parallel.outlines:
        match = re.match(r"\[(gw\d+)\] .* (?:PASSED|FAILED) .*::(\w+)\[(\S+)-R\d+\]", line)
        if match:
            workers.setdefault(f"{match[2]}/{match[3]}", set()).add(match[1])
    assert len(workers) == 4  # 2 tasks x 2 agents
    assert all(len(w) == 1 for w in workers.values()), workers  # a run stays on one worker

    assert comparable(results("serial")) == comparable(results("parallel"))
    assert summaries(results("serial")) == summaries(results("parallel"))
    calls = count.read_text().splitlines()
    # 2 tasks x 1 run, once for the serial session and once for the parallel one.
    assert sorted(calls) == sorted([f"{t} 1" for t in ("alpha", "beta")] * 2)
    assert results("parallel")["tasks"][0]["metrics"]["steps"] == 3


def item_ids(result) -> set[str]:
    return set(re.findall(r"tasks/calc/task.toml::\S+\]", "\n".join(result.outlines)))


def test_last_failed_is_the_same_with_and_without_xdist(pytester, tasks):
    """Item ids do not depend on -n: --lf re-runs exactly the recorded failures, either way."""
    tasks.make()
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "--e2e-runs=2")
    serial = pytester.runpytest_subprocess(*args, "-v")
    serial.assert_outcomes(passed=6, failed=6)
    again = pytester.runpytest_subprocess(*args, "--lf", "-n", "2", "-v")
    again.assert_outcomes(failed=6)
    again.stdout.fnmatch_lines(["2 workers [[]6 items[]]", "scheduling tests via RunScheduling"])
    again.stdout.no_fnmatch_line("*reference-run*")

    parallel = pytester.runpytest_subprocess(*args, "--cache-clear", "-n", "2", "-v")
    parallel.assert_outcomes(passed=6, failed=6)
    assert item_ids(parallel) == item_ids(serial)  # no "@group" suffix under -n
    serial = pytester.runpytest_subprocess(*args, "--lf")
    serial.assert_outcomes(failed=6)
    serial.stdout.fnmatch_lines(["run-last-failure: rerun previous 6 failures*"])
    # --sw under -n starts from the failure a serial --sw session stopped at
    pytester.runpytest_subprocess(*args, "--sw").assert_outcomes(passed=6, failed=1)
    stepwise = pytester.runpytest_subprocess(*args, "--sw", "-n", "2", "-v")
    stepwise.stdout.fnmatch_lines(["2 workers [[]6 items[]]"])  # the 6 passed ones skipped
    stepwise.stdout.no_fnmatch_line("*reference-run*")
