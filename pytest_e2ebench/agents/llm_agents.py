"""Registers the agents that need more than the task folder: LLM workflows and ``cmd:``."""

from __future__ import annotations

import pytest

from ..llm.factory import require_endpoint
from ..stash import SETTINGS
from .base import Agent
from .cmd import CommandAgent
from .sdagent import SDAgent
from .vanilla import VanillaAgent

LLM_AGENT_NAMES = ("vanilla", "sdagent-single", "sdagent-dt", "sdagent-ddt")


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_make_agent(spec: str, config: pytest.Config) -> Agent | None:
    """Make ``vanilla``, ``sdagent-*`` and ``cmd:COMMAND``."""
    settings = config.stash[SETTINGS]
    if spec.startswith("cmd:"):
        command = spec[len("cmd:") :].strip()
        if not command:
            raise pytest.UsageError(
                "--e2e-agent=cmd: needs a command, e.g. "
                "cmd:'my-agent --spec {requirements} --out {workspace}'"
            )

        return CommandAgent(spec, command, settings.agent_timeout, settings.agent_env)
    if spec not in LLM_AGENT_NAMES:
        return None

    require_endpoint(settings, f"--e2e-agent={spec}")
    if spec == "vanilla":
        return VanillaAgent(settings)

    return SDAgent(spec, settings)


def pytest_e2ebench_agent_names(config: pytest.Config) -> list[str]:
    """Names of the LLM agents and ``cmd:``."""
    return [*LLM_AGENT_NAMES, "cmd:COMMAND"]
