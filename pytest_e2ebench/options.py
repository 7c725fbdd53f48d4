"""Command-line options, their ini twins, and the resolved :class:`Settings`.

Every option lives in the ``e2ebench`` group and has an ini twin named ``e2ebench_<name>``.
CLI defaults are ``None`` so the ini value (or the built-in default) applies when the option is
not given, as pytest-asyncio does.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

DEFAULT_TASKS = "benchmark_tasks"
DEFAULT_OUT = ".e2ebench"
DEFAULT_TIMEOUT = 900.0


def addoption(parser: pytest.Parser) -> None:
    """Register the ``--e2e-*`` options and their ``e2ebench_*`` ini twins."""
    group = parser.getgroup("e2ebench", "benchmark LLM agents on whole projects (pytest-e2ebench)")
    group.addoption(
        "--e2e-agent",
        dest="e2e_agent",
        default=None,
        metavar="NAME[,NAME...]",
        help="run the benchmark with these agents: reference, nop, dir:PATH, or a plugin's "
        "agent. Without it only the project's own tests run.",
    )
    parser.addini("e2ebench_agent", "default for --e2e-agent", default="")
    group.addoption(
        "--e2e-runs",
        dest="e2e_runs",
        default=None,
        type=int,
        metavar="N",
        help="repeat each (task, agent) N independent times (default 1).",
    )
    parser.addini("e2ebench_runs", "default for --e2e-runs", default="1")
    group.addoption(
        "--e2e-tasks",
        dest="e2e_tasks",
        default=None,
        metavar="PATH",
        help=f"folder of benchmark task folders (default {DEFAULT_TASKS}).",
    )
    parser.addini("e2ebench_tasks", "default for --e2e-tasks", default=DEFAULT_TASKS)
    group.addoption(
        "--e2e-out",
        dest="e2e_out",
        default=None,
        metavar="DIR",
        help=f"where stage outputs, caches and results.json go (default {DEFAULT_OUT}).",
    )
    parser.addini("e2ebench_out", "default for --e2e-out", default=DEFAULT_OUT)
    group.addoption(
        "--e2e-rerun",
        dest="e2e_rerun",
        action="store_true",
        default=None,
        help="ignore cached stage outputs and redo every stage.",
    )
    parser.addini("e2ebench_rerun", "default for --e2e-rerun", type="bool", default=False)
    group.addoption(
        "--e2e-timeout",
        dest="e2e_timeout",
        default=None,
        type=float,
        metavar="SECONDS",
        help=f"wall-clock limit for one test-suite run; its process group is killed after it "
        f"(default {DEFAULT_TIMEOUT:g}).",
    )
    parser.addini("e2ebench_timeout", "default for --e2e-timeout", default=str(DEFAULT_TIMEOUT))


@dataclasses.dataclass(frozen=True)
class Settings:
    """The benchmark configuration after CLI, ini and defaults are merged."""

    agents: tuple[str, ...]
    runs: int
    tasks: Path
    out: Path
    rerun: bool
    timeout: float

    @property
    def active(self) -> bool:
        """True when ``--e2e-agent`` (or its ini twin) asks for a benchmark run."""
        return bool(self.agents)


def _path(config: pytest.Config, cli: str | None, ini_name: str) -> Path:
    if cli is not None:
        return (config.invocation_params.dir / cli).resolve()
    base = config.inipath.parent if config.inipath else config.rootpath
    return (base / str(config.getini(ini_name))).resolve()


def _number(config: pytest.Config, cli, ini_name: str, option: str, kind):
    raw = cli if cli is not None else config.getini(ini_name)
    try:
        return kind(raw)
    except (TypeError, ValueError):
        source = option if cli is not None else f"ini option {ini_name}"
        raise pytest.UsageError(f"{source}={raw!r}: not a number") from None


def resolve(config: pytest.Config) -> Settings:
    """Merge CLI, ini and defaults into :class:`Settings`, failing early with the fix."""
    opt = config.option
    raw_agents = opt.e2e_agent if opt.e2e_agent is not None else config.getini("e2ebench_agent")
    agents = tuple(a.strip() for a in str(raw_agents).split(",") if a.strip())
    if opt.e2e_agent is not None and not agents:
        raise pytest.UsageError("--e2e-agent is empty; name an agent, e.g. --e2e-agent=reference")
    runs = _number(config, opt.e2e_runs, "e2ebench_runs", "--e2e-runs", int)
    if runs < 1:
        raise pytest.UsageError(f"--e2e-runs={runs}: must be 1 or more")
    timeout = _number(config, opt.e2e_timeout, "e2ebench_timeout", "--e2e-timeout", float)
    if timeout <= 0:
        raise pytest.UsageError(f"--e2e-timeout={timeout:g}: must be a positive number of seconds")
    rerun = (
        bool(opt.e2e_rerun) if opt.e2e_rerun is not None else bool(config.getini("e2ebench_rerun"))
    )
    return Settings(
        agents=agents,
        runs=runs,
        tasks=_path(config, opt.e2e_tasks, "e2ebench_tasks"),
        out=_path(config, opt.e2e_out, "e2ebench_out"),
        rerun=rerun,
        timeout=timeout,
    )
