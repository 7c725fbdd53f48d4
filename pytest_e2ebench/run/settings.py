"""The benchmark configuration every layer reads: ``Settings``, resolved from the
command line, the ini file and the defaults by :func:`pytest_e2ebench.options.resolve`.

It sits at the base of the layer order (docs/architecture.md): the agents, the
LLM client and the run read it, the options that fill it are the pytest face's."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

# Every run is of one lifecycle stage (RunKey.stage); "implement" is the run of every task,
# the others are DevEval's (methods/stages, docs/stages.md). Here, at the base, so the run's
# identity does not depend on the stages method.
STAGES = ("design", "setup", "implement", "acceptance-tests", "unit-tests")
IMPLEMENT = "implement"
DEFAULT_MAX_STEPS = 200  # E2EDevBench §4.1
DEFAULT_AGENT_TIMEOUT = 3600.0


@dataclasses.dataclass(frozen=True)
class MethodSettings:
    """A method's own settings: each method's plugin subclasses it (a frozen dataclass of its
    fields), resolves it from its options (hook ``pytest_e2ebench_settings``, key
    ``methods``) and reads it back with :meth:`Settings.method`; the centre reads none."""

    def session_task(self, task):
        """``task`` as the session's settings of this method take it (unchanged by default):
        called on every task collected or run (``taskmodel.task.at_level``)."""
        return task


@dataclasses.dataclass(frozen=True)
class Settings:
    """The benchmark configuration after CLI, ini and defaults are merged."""

    agents: tuple[str, ...]
    runs: int
    tasks: Path
    out: Path
    rerun: bool
    timeout: float
    sandbox: str = "auto"
    migrate: str = "static"
    judge: str = "tests"
    model: str = ""
    base_url: str = ""
    llm_cache: str = "off"
    replay_match: str = "content"  # --e2e-replay-match: a CLI agent's replay, by content
    max_steps: int = DEFAULT_MAX_STEPS
    temperature: float = 0.2
    llm_retries: int = 4
    llm_timeout: float = 600.0
    agent_timeout: float = DEFAULT_AGENT_TIMEOUT
    agent_env: tuple[str, ...] = ()  # --e2e-agent-env: variables a cmd: agent also gets
    agent_models: tuple[str, ...] = ()  # --e2e-agent-models: a CLI agent's other models
    max_tokens: int | None = None  # --e2e-max-tokens: a CLI agent's budget at its proxy
    max_cost: float | None = None  # --e2e-max-cost
    llm_key_env: str = "OPENAI_API_KEY"  # --e2e-llm-key-env: the upstream key's variable
    context_tokens: int = 32768
    prices: tuple[str, ...] = ()
    model_params: tuple[str, ...] = ()
    co2: tuple[str, ...] = ()
    # the lifecycle stages the session runs, in order (DevEval's option, methods/stages): a
    # run's identity (RunKey.stage) and the collection and order of its items depend on them
    stages: tuple[str, ...] = ("implement",)
    html: Path | None = None
    cov_xml: Path | None = None
    cov_report: tuple[str, ...] = ()
    executor: str = "local"
    missing: str = "stop"
    ray_address: str = ""
    ray_cpus: float = 1.0
    ray_browsers: int = 1
    ray_retries: int = 2
    # Each method's own settings by its name (a MethodSettings), resolved by its plugin from
    # its options (hook pytest_e2ebench_settings): the apps' cases and steps, DevEval's stage
    # mode, ProjectEval's input level and mode (#17). Left out of the hash: a dict.
    methods: Mapping[str, MethodSettings] = dataclasses.field(default_factory=dict, hash=False)

    def method(self, name: str, default: MethodSettings) -> MethodSettings:
        """The settings of the method ``name``; ``default`` (its defaults) when its plugin
        resolved none (settings made without pytest, e.g. by a tool)."""
        return self.methods.get(name, default)

    @property
    def active(self) -> bool:
        """True when ``--e2e-agent`` (or its ini twin) asks for a benchmark run."""
        return bool(self.agents)
