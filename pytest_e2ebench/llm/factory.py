"""Choosing the LLM client: the ``pytest_e2ebench_make_llm`` hook, then the record/replay cache."""

from __future__ import annotations

import os

import pytest

from ..run.settings import Settings
from ..stash import OUTAGE
from .accounting import Pricing
from .base import LLMUnavailable
from .cache import CachedLLM
from .client import OpenAIChat
from .outage import Guarded

NO_MODEL_HINT = (
    "To check the harness without a model, run --e2e-agent=reference; to see an LLM agent's "
    "whole run without one, start `e2ebench demo-model` (a stand-in model that writes each "
    "task's reference) and use the options it prints."
)


def require_endpoint(settings: Settings, what: str, hint: str = NO_MODEL_HINT) -> None:
    """UsageError unless ``what`` (e.g. ``--e2e-agent=sdagent-dt``) has a model and endpoint;
    ``hint`` says what to do without one."""
    missing = []
    if not settings.model and settings.llm_cache != "replay":
        missing.append("a model: --e2e-model=NAME (or ini e2ebench_model)")
    if not settings.base_url and settings.llm_cache != "replay":
        missing.append(
            "an endpoint: --e2e-llm-base-url=URL (or $OPENAI_BASE_URL, or ini "
            "e2ebench_llm_base_url), with the key in $OPENAI_API_KEY"
        )
    if missing:
        raise pytest.UsageError(f"{what} calls an LLM and needs {' and '.join(missing)}. {hint}")


class _NoEndpoint:
    """Stands in for a client when replaying without an endpoint: any live call is an error."""

    def __init__(self, model: str) -> None:
        self.model = model

    def complete(self, messages, *, tools=None, scope=""):
        raise LLMUnavailable("no --e2e-llm-base-url is set; only recorded answers are available")


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_make_llm(config: pytest.Config, settings: Settings):
    """The built-in OpenAI-compatible client."""
    try:
        pricing = Pricing.parse(
            list(settings.prices), list(settings.model_params), list(settings.co2)
        )
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not settings.base_url:
        return _NoEndpoint(settings.model)

    return OpenAIChat(
        model=settings.model,
        base_url=settings.base_url,
        api_key=os.environ.get("OPENAI_API_KEY"),
        pricing=pricing,
        temperature=settings.temperature,
        max_retries=settings.llm_retries,
        timeout=settings.llm_timeout,
    )


def make_llm(config: pytest.Config, settings: Settings):
    """The client for this process, wrapped in the record/replay cache when asked."""
    llm = config.hook.pytest_e2ebench_make_llm(config=config, settings=settings)
    if llm is None:
        raise pytest.UsageError("no plugin supplied an LLM client (pytest_e2ebench_make_llm)")
    outage = config.stash.get(OUTAGE, None)
    if settings.base_url and outage is not None:
        # Inside the record/replay cache: only live calls can find the endpoint gone.
        llm = Guarded(llm, outage)
    if settings.llm_cache != "off":
        llm = CachedLLM(llm, settings.out / "llm-cache", settings.llm_cache)
    return llm
