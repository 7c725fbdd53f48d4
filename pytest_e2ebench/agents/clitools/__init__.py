"""Built-in CLI agents (issue 29): ``claude-code``, ``codex``, ``mini-swe-agent``, each a pinned,
hash-checked install in the tool cache, run sandboxed in the run's workspace behind the run's
metering proxy (:mod:`pytest_e2ebench.proxy`); ``NAME@VERSION`` pins another version."""

from __future__ import annotations

import pytest

from ...stash import SETTINGS
from ..base import Agent
from .runner import make
from .specs import SPECS


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_make_agent(spec: str, config: pytest.Config) -> Agent | None:
    """Make a built-in CLI agent for ``NAME`` or ``NAME@VERSION``."""
    name, at, version = spec.partition("@")
    if name not in SPECS:
        return None
    if at and not version.strip():
        raise pytest.UsageError(f"--e2e-agent={spec}: write NAME@VERSION, e.g. {name}@1.2.3")
    settings = config.stash[SETTINGS]
    if not settings.model:
        raise pytest.UsageError(
            f"--e2e-agent={spec} needs --e2e-model=NAME (the model its proxy asks for) and, "
            "unless replaying (--e2e-llm-cache=replay), --e2e-llm-base-url=URL with the key "
            "in the variable --e2e-llm-key-env names (default OPENAI_API_KEY)"
        )
    if not settings.base_url and settings.llm_cache != "replay":
        raise pytest.UsageError(
            f"--e2e-agent={spec} needs an upstream: --e2e-llm-base-url=URL (or "
            "$OPENAI_BASE_URL), or --e2e-llm-cache=replay of a recorded session"
        )

    return make(spec, settings)


def pytest_e2ebench_agent_names(config: pytest.Config) -> list[str]:
    """The built-in CLI agents' names."""
    return [f"{name}[@VERSION]" for name in SPECS]
