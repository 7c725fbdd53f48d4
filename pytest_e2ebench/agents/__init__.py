"""The agent registry: built-ins, plugin hooks and the ``pytest_e2ebench.agents`` entry points.

Resolution order for a name given to ``--e2e-agent``: the ``pytest_e2ebench_make_agent`` hook
(plugins first, built-ins last), then an entry point in the ``pytest_e2ebench.agents`` group
whose name is the part before the first ``:`` (``myagent:opts`` -> ``myagent``). An entry point
names an :class:`Agent` subclass or a factory; either is called as ``obj(spec, config)``.
"""

from __future__ import annotations

import importlib.metadata

import pytest

from ..run.runs import name_problem
from .base import Agent, AgentOutcome, RunContext, safe_label

ENTRY_POINT_GROUP = "pytest_e2ebench.agents"

__all__ = [
    "Agent",
    "AgentOutcome",
    "ENTRY_POINT_GROUP",
    "RunContext",
    "known_names",
    "make_agents",
    "safe_label",
]


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def known_names(config: pytest.Config) -> list[str]:
    """Every agent name offered by the built-ins, plugins and entry points."""
    names: list[str] = []
    for chunk in config.hook.pytest_e2ebench_agent_names(config=config):
        names.extend(chunk)
    names.extend(sorted(_entry_points()))
    return list(dict.fromkeys(names))


def make_agent(spec: str, config: pytest.Config) -> Agent:
    """The agent for one ``--e2e-agent`` name, or a UsageError listing the choices."""
    agent = config.hook.pytest_e2ebench_make_agent(spec=spec, config=config)
    if agent is None:
        ep = _entry_points().get(spec.split(":", 1)[0])
        if ep is not None:
            try:
                agent = ep.load()(spec, config)
            except pytest.UsageError:
                raise
            except Exception as exc:  # a broken third-party agent must say who broke
                raise pytest.UsageError(
                    f"--e2e-agent={spec}: entry point {ep.value!r} of group "
                    f"{ENTRY_POINT_GROUP} failed: {exc!r}"
                ) from exc
    if agent is None:
        raise pytest.UsageError(
            f"--e2e-agent={spec}: unknown agent; choose one of "
            f"{', '.join(known_names(config))} (agents from plugins use the "
            f"{ENTRY_POINT_GROUP} entry-point group)"
        )
    if not isinstance(agent, Agent):
        raise pytest.UsageError(
            f"--e2e-agent={spec}: the plugin returned {agent!r}, not a pytest_e2ebench Agent"
        )
    problem = name_problem("label", getattr(agent, "label", None))
    if problem is not None:  # it names the agent's output folder (runs.run_folder)
        raise pytest.UsageError(
            f"--e2e-agent={spec}: the agent's {problem}; make it with agents.safe_label(spec)"
        )
    return agent


def make_agents(config: pytest.Config, specs: tuple[str, ...]) -> list[Agent]:
    """Agents for all names, refusing two that would share an output folder."""
    agents = [make_agent(spec, config) for spec in specs]
    seen: dict[str, str] = {}
    for agent in agents:
        if agent.spec == seen.get(agent.label):
            raise pytest.UsageError(
                f"--e2e-agent: {agent.spec!r} is named twice; name each agent once "
                "(--e2e-runs=N repeats its runs)"
            )
        if agent.label in seen:
            raise pytest.UsageError(
                f"--e2e-agent: {seen[agent.label]!r} and {agent.spec!r} both map to the label "
                f"{agent.label!r}; rename one of the folders or drop the duplicate"
            )
        seen[agent.label] = agent.spec
    return agents
