"""Every run has a record (issue 11 class 8, issue 13.5): an exception is an error, never a gap."""

from __future__ import annotations

import textwrap
from pathlib import Path

BOOM_AGENT = """
import shutil
from pathlib import Path
from pytest_e2ebench.agents import Agent, AgentOutcome

CALLS = Path(__file__).with_name("calls.txt")

class Boom(Agent):
    spec = label = "boom"

    def cache_key(self, task, run):
        return "boom"

    def generate(self, task, run, workspace, ctx):
        with CALLS.open("a") as fh:
            fh.write(f"{run}\\n")
        if run == 2:
            raise RuntimeError("the agent's own bug")
        shutil.copytree(task.reference_dir, workspace, dirs_exist_ok=True)
        return AgentOutcome()

def pytest_e2ebench_make_agent(spec, config):
    return Boom() if spec == "boom" else None
"""


def test_a_plain_exception_is_one_error_record_and_counted(pytester, tasks, results) -> None:
    tasks.make()
    pytester.makeconftest(textwrap.dedent(BOOM_AGENT))
    result = pytester.runpytest("--e2e-agent=boom", "--e2e-tasks=tasks", "--e2e-runs=2")
    # run 1 is graded; every item of run 2 is an error, and the agent ran once per run
    result.assert_outcomes(passed=3, errors=3)
    assert (pytester.path / "calls.txt").read_text().split() == ["1", "2"]
    result.stdout.fnmatch_lines(["*harness error*[[]agent[]] RuntimeError: the agent's own bug*"])

    doc = results()
    assert [(r["run"], r["status"]) for r in doc["tasks"]] == [(1, "ok"), (2, "error")]
    error = doc["tasks"][1]["error"]
    assert (error["stage"], error["kind"], error["type"]) == ("agent", "harness", "RuntimeError")
    assert "RuntimeError: the agent's own bug" in Path(error["traceback"]).read_text()
    assert Path(error["traceback"]) == Path(doc["tasks"][1]["dir"]) / "error.txt"

    summary = doc["summary"]["boom"]
    assert (summary["errored_runs"], summary["evaluated_runs"], summary["partial"]) == (1, 1, True)
    assert summary["impl_rate"]["mean"] == 1.0
    result.stdout.fnmatch_lines(
        [
            "calc*boom*1/2[*]*100.0%*",
            "overall*boom*1[*]*100.0%*",
            "1 run(s) ended in an error (harness; *",
            "*boom: means over 1 of 2 task runs (1 errored)",
        ]
    )
