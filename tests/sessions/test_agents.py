"""Agents from plugins: the make-agent hook and the pytest_e2ebench.agents entry-point group."""

from __future__ import annotations

import textwrap

from helpers.tasks import CALC_CODE

PLUGIN_AGENT = '''
from pathlib import Path

from pytest_e2ebench.agents import Agent, AgentOutcome


class CopyAgent(Agent):
    """Writes the calc project from a string table (an agent that got everything right)."""

    def __init__(self, spec, config):
        self.spec = spec
        self.label = spec.replace(":", "-")

    def cache_key(self, task, run):
        return "copy-v1"

    def generate(self, task, run, workspace, ctx):
        assert "### R1: Addition" in task.requirements_text
        for rel, text in FILES.items():
            path = workspace / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return AgentOutcome(tokens_sent=100, tokens_generated=50, cost_usd=0.25, steps=7)
'''


def files_table(tasks, pytester) -> str:
    where = tasks.reference(pytester.path / "_src", CALC_CODE)
    table = {str(p.relative_to(where)): p.read_text() for p in where.rglob("*") if p.is_file()}
    return f"FILES = {table!r}\n"


def test_hook_supplies_an_agent(pytester, tasks, results):
    tasks.make()
    pytester.makeconftest(
        files_table(tasks, pytester)
        + PLUGIN_AGENT
        + textwrap.dedent(
            """
            def pytest_e2ebench_make_agent(spec, config):
                return CopyAgent(spec, config) if spec.startswith("copier") else None

            def pytest_e2ebench_agent_names(config):
                return ["copier[:VARIANT]"]
            """
        )
    )
    result = pytester.runpytest("--e2e-agent=copier:fast", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)
    metrics = results()["tasks"][0]["metrics"]
    assert (
        metrics["tokens_sent"],
        metrics["tokens_generated"],
        metrics["cost_usd"],
        metrics["steps"],
    ) == (100, 50, 0.25, 7)
    result = pytester.runpytest("--e2e-agent=unknown", "--e2e-tasks=tasks")
    result.stderr.fnmatch_lines(
        [
            "*choose one of reference, nop, dir:PATH, claude-code[[]@VERSION[]], *, vanilla, *, cmd:COMMAND, copier[[]:VARIANT[]]*"
        ]
    )


def test_entry_point_group_supplies_an_agent(pytester, tasks, results, monkeypatch):
    tasks.make()
    site = pytester.path / "site"
    (site / "copyagent.py").parent.mkdir()
    (site / "copyagent.py").write_text(files_table(tasks, pytester) + PLUGIN_AGENT)
    dist = site / "copyagent-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: copyagent\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest_e2ebench.agents]\ncopyagent = copyagent:CopyAgent\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    result = pytester.runpytest_subprocess("--e2e-agent=copyagent:v2", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)
    assert results()["tasks"][0]["agent"] == "copyagent-v2"
    assert results()["tasks"][0]["agent_spec"] == "copyagent:v2"


def test_a_plugin_agent_that_is_not_an_agent_is_refused(pytester, tasks):
    tasks.make()
    pytester.makeconftest("def pytest_e2ebench_make_agent(spec, config):\n    return object()\n")
    result = pytester.runpytest("--e2e-agent=x", "--e2e-tasks=tasks")
    result.stderr.fnmatch_lines(
        [
            "ERROR: --e2e-agent=x: the plugin returned <object object at *>, "
            "not a pytest_e2ebench Agent"
        ]
    )


def test_agent_infrastructure_error_is_an_error(pytester, tasks, results):
    tasks.make()
    pytester.makeconftest(
        textwrap.dedent(
            """
            from pytest_e2ebench.agents import Agent
            from pytest_e2ebench.errors import AgentError

            class Down(Agent):
                spec = label = "down"
                def cache_key(self, task, run):
                    return "x"
                def generate(self, task, run, workspace, ctx):
                    raise AgentError("endpoint http://127.0.0.1:9/v1 refused the connection")

            def pytest_e2ebench_make_agent(spec, config):
                return Down() if spec == "down" else None
            """
        )
    )
    result = pytester.runpytest("--e2e-agent=down", "--e2e-tasks=tasks")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*infrastructure error (not the agent's fault): [[]agent[]] "
            "endpoint http://127.0.0.1:9/v1 refused the connection"
        ]
    )
    assert results()["tasks"][0]["error"]["stage"] == "agent"
    # Nothing was cached: the next session tries the agent again.
    assert not (pytester.path / ".e2ebench" / "down" / "calc" / "run-1" / "repo.json").exists()
