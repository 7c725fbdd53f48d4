"""-n 2 gives the same results as -n 0, and each (task, agent, run) is built once."""

from __future__ import annotations

import re

from conftest import CALC_CODE

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

WITHOUT_TIMES = ("duration_s",)


def comparable(doc: dict) -> list:
    out = []
    for run in doc["tasks"]:
        metrics = {k: v for k, v in run["metrics"].items() if k not in WITHOUT_TIMES}
        out.append((run["task"], run["agent"], run["run"], run["requirements"], metrics))
    return out


def summaries(doc: dict) -> dict:
    return {
        agent: {k: v for k, v in stats.items() if k not in WITHOUT_TIMES}
        for agent, stats in doc["summary"].items()
    }


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
    args = ("--e2e-agent=counting,nop", "--e2e-tasks=tasks", "--e2e-runs=2")

    serial = pytester.runpytest_subprocess(*args, "--e2e-out=serial", "-p", "no:xdist")
    serial.assert_outcomes(passed=8, failed=16)
    parallel = pytester.runpytest_subprocess(*args, "--e2e-out=parallel", "-n", "2", "-v")
    parallel.assert_outcomes(passed=8, failed=16)
    workers: dict[str, set[str]] = {}
    for line in parallel.outlines:
        match = re.match(r"\[(gw\d+)\] .* (?:PASSED|FAILED) .*::(\w+)\[(\S+)-R\d+\]", line)
        if match:
            workers.setdefault(f"{match[2]}/{match[3]}", set()).add(match[1])
    assert len(workers) == 8  # 2 tasks x 2 agents x 2 runs
    assert all(len(w) == 1 for w in workers.values()), workers  # a run stays on one worker

    assert comparable(results("serial")) == comparable(results("parallel"))
    assert summaries(results("serial")) == summaries(results("parallel"))
    calls = count.read_text().splitlines()
    # 2 tasks x 2 runs, once for the serial session and once for the parallel one.
    assert sorted(calls) == sorted([f"{t} {r}" for t in ("alpha", "beta") for r in (1, 2)] * 2)
    assert results("parallel")["tasks"][0]["metrics"]["steps"] == 3
