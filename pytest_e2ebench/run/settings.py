"""The benchmark configuration every layer reads: ``Settings``, resolved from the
command line, the ini file and the defaults by :func:`pytest_e2ebench.options.resolve`.

It sits at the base of the layer order (docs/architecture.md): the agents, the
LLM client and the run read it, the options that fill it are the pytest face's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

# Every run is of one lifecycle stage (RunKey.stage); "implement" is the run of every task,
# the others are DevEval's (methods/stages, docs/stages.md). Here, at the base, so the run's
# identity does not depend on the stages method.
STAGES = ("design", "setup", "implement", "acceptance-tests", "unit-tests")
IMPLEMENT = "implement"
DEFAULT_MAX_STEPS = 200  # E2EDevBench §4.1
DEFAULT_AGENT_TIMEOUT = 3600.0
DEFAULT_APP_STEPS = 20  # actions per test case of the app judge's browser agent


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
    max_steps: int = DEFAULT_MAX_STEPS
    temperature: float = 0.2
    llm_retries: int = 4
    llm_timeout: float = 600.0
    agent_timeout: float = DEFAULT_AGENT_TIMEOUT
    agent_env: tuple[str, ...] = ()  # --e2e-agent-env: variables a cmd: agent also gets
    max_tokens: int | None = None  # --e2e-max-tokens: a CLI agent's budget at its proxy
    max_cost: float | None = None  # --e2e-max-cost
    llm_key_env: str = "OPENAI_API_KEY"  # --e2e-llm-key-env: the upstream key's variable
    context_tokens: int = 32768
    prices: tuple[str, ...] = ()
    model_params: tuple[str, ...] = ()
    co2: tuple[str, ...] = ()
    app_cases: tuple[int, int] = (15, 20)
    app_steps: int = DEFAULT_APP_STEPS
    stages: tuple[str, ...] = ("implement",)
    stage_mode: str = "modular"
    html: Path | None = None
    cov_xml: Path | None = None
    cov_report: tuple[str, ...] = ()
    executor: str = "local"
    missing: str = "stop"
    ray_address: str = ""
    ray_cpus: float = 1.0
    ray_browsers: int = 1
    ray_retries: int = 2
    # The methods' fields, resolved by their plugins from their own options (hook
    # pytest_e2ebench_settings): ProjectEval's input level and mode (direct or cascade, #17)
    level: int | None = None
    projecteval_mode: str = "direct"

    @property
    def active(self) -> bool:
        """True when ``--e2e-agent`` (or its ini twin) asks for a benchmark run."""
        return bool(self.agents)
