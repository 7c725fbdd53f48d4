"""Command-line options, their ini twins, and the resolved :class:`Settings`.

Every option lives in the ``e2ebench`` group and has an ini twin named ``e2ebench_<name>``.
CLI defaults are ``None`` so the ini value (or the built-in default) applies when the option is
not given, as pytest-asyncio does.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .isolation.sandbox import MODES as SANDBOX_MODES
from .llm.cache import LLM_CACHE_MODES
from .proxy.tape import REPLAY_MATCHES
from .run.settings import DEFAULT_AGENT_TIMEOUT, DEFAULT_MAX_STEPS, Settings

DEFAULT_TASKS = "benchmark_tasks"
DEFAULT_OUT = ".e2ebench"
DEFAULT_TIMEOUT = 900.0
# the one option group; a method plugin's options join it (docs/architecture.md)
GROUP, GROUP_TITLE = "e2ebench", "benchmark LLM agents on whole projects (pytest-e2ebench)"
COV_REPORTS = ("term", "xml", "html")
EXECUTORS = ("local", "ray")
MISSING_MODES = ("stop", "empty", "skip")  # --e2e-missing: a dir: agent's absent outputs


def twin(parser: pytest.Parser, group, name: str, ini_default: str, help: str, **kwargs) -> None:
    """``--e2e-NAME`` (CLI default None, so the ini value applies) and its ini twin
    ``e2ebench_NAME``; a method plugin adds its own options with it (``pytest_addoption``)."""
    flag, key = f"--e2e-{name}", name.replace("-", "_")
    group.addoption(flag, dest=f"e2e_{key}", default=None, help=help, **kwargs)
    ini_type = "bool" if kwargs.get("action") == "store_true" else None
    parser.addini(f"e2ebench_{key}", f"default for {flag}", type=ini_type, default=ini_default)


def add_options(parser: pytest.Parser, rows) -> None:
    """``rows`` of (name, ini default, help, argparse keywords) as ``--e2e-NAME`` options of
    the ``e2ebench`` group, each with its ini twin; a method plugin's ``pytest_addoption``
    adds its own rows with it."""
    group = parser.getgroup(GROUP, GROUP_TITLE)
    for name, ini_default, help, kwargs in rows:
        twin(parser, group, name, ini_default, help, **kwargs)


def addoption(parser: pytest.Parser) -> None:
    """Register the ``--e2e-*`` options and their ``e2ebench_*`` ini twins."""

    rows = (
        (
            "agent",
            "",
            "run the benchmark with these agents: reference (the oracle), nop (an empty "
            "repository), dir:PATH (folders another tool wrote), cmd:COMMAND (a command run "
            "in the sandbox), the LLM agents vanilla, sdagent-single, sdagent-dt, sdagent-ddt "
            "(--e2e-model, --e2e-llm-base-url), the CLI agents claude-code, codex, "
            "mini-swe-agent, gemini-cli, aider, qwen-code, opencode (installed pinned on first "
            "use), or a "
            "plugin's agent; docs/agents.md. Without it only the project's own tests run.",
            {"metavar": "NAME[,NAME...]"},
        ),
        (
            "runs",
            "1",
            "repeat each (task, agent) N independent times (default 1).",
            {"type": int, "metavar": "N"},
        ),
        (
            "tasks",
            DEFAULT_TASKS,
            f"folder of benchmark task folders (default {DEFAULT_TASKS}).",
            {"metavar": "PATH"},
        ),
        (
            "out",
            DEFAULT_OUT,
            f"where stage outputs, caches and results.json go (default {DEFAULT_OUT}).",
            {"metavar": "DIR"},
        ),
        (
            "rerun",
            False,
            "ignore cached stage outputs and redo every stage.",
            {"action": "store_true"},
        ),
        (
            "timeout",
            str(DEFAULT_TIMEOUT),
            "wall-clock limit for one test-suite run; its process "
            f"group is killed after it (default {DEFAULT_TIMEOUT:g}).",
            {"type": float, "metavar": "SECONDS"},
        ),
        (
            "migrate",
            "static",
            "how the reference tests are adapted to the agent's code: static "
            "(default: map imported names onto the generated project), llm (a migration agent), "
            "none, or a mode a plugin adds.",
            {"metavar": "static|llm|none"},
        ),
        (
            "judge",
            "tests",
            "who decides each requirement: tests (default: all its tests pass), "
            "llm (three LLM votes must agree), both (both recorded, items follow tests), or a "
            "mode a plugin adds.",
            {"metavar": "tests|llm|both"},
        ),
        (
            "sandbox",
            "auto",
            "how generated code is isolated: auto (default: bwrap if it works, "
            "else unshare), bwrap, unshare, none (warned).",
            {"choices": SANDBOX_MODES},
        ),
        (
            "agent-env",
            "",
            "cmd: agents: the harness's environment variables they also get, comma-separated "
            "(e.g. OPENAI_BASE_URL,OPENAI_API_KEY); otherwise only PATH, HOME, TERM, TZ and the "
            "locale. A named URL on 127.0.0.1 or localhost has its port forwarded into the "
            "agent's network namespace (docs/sandbox.md).",
            {"metavar": "NAME[,NAME...]"},
        ),
        (
            "llm-key-env",
            "OPENAI_API_KEY",
            "CLI agents: the environment variable holding the upstream's key; the metering "
            "proxy sends it upstream, the agent itself gets a dummy key.",
            {"metavar": "NAME"},
        ),
        (
            "model",
            "",
            "model name for LLM agents, as the endpoint knows it.",
            {"metavar": "MODEL"},
        ),
        (
            "llm-base-url",
            "",
            "OpenAI-compatible endpoint for LLM agents (else "
            "$OPENAI_BASE_URL); the key is read from $OPENAI_API_KEY.",
            {"metavar": "URL"},
        ),
        (
            "llm-cache",
            "off",
            "record LLM answers to DIR/llm-cache, replay them offline (a miss "
            "is an error), or off (default).",
            {"choices": LLM_CACHE_MODES},
        ),
        (
            "missing",
            "stop",
            "when a dir:PATH agent has no output folder for a selected task: stop (default: "
            "the session stops before any run and names the folders), empty (grade them as "
            "empty repositories, 0 %%), skip (leave those tasks out for that agent).",
            {"choices": MISSING_MODES},
        ),
        (
            "max-steps",
            str(DEFAULT_MAX_STEPS),
            "step limit of a tool-using agent run, all roles "
            f"together (default {DEFAULT_MAX_STEPS}).",
            {"type": int, "metavar": "N"},
        ),
        (
            "html",
            "",
            "also write one self-contained HTML report (plots, per-run details) to PATH.",
            {"metavar": "PATH"},
        ),
        (
            "cov-xml",
            "",
            "write the coverage of all runs' generated projects under the reference tests "
            "as one Cobertura XML file to PATH (for CI).",
            {"metavar": "PATH"},
        ),
        (
            "cov-report",
            "",
            "session coverage reports, comma-separated: term (coverage.py's per-file table of "
            "each run), xml (all runs in DIR/coverage.xml unless --e2e-cov-xml), html (all runs "
            "in DIR/htmlcov/). Every run's eval folder has coverage.xml and htmlcov/ regardless.",
            {"metavar": "term|xml|html"},
        ),
        (
            "executor",
            "local",
            "where each (task, agent, run) pipeline runs: local (default: in this pytest "
            "process or its -n workers) or ray (a Ray task per run on a cluster; needs "
            "pip install 'pytest-e2ebench[ray]'; see docs/scaling.md).",
            {"choices": EXECUTORS},
        ),
        (
            "ray-address",
            "",
            "--e2e-executor=ray: the cluster to use (auto, or ray://HOST:PORT, or HOST:PORT "
            "of a head started with ray start); empty (default): a local cluster for the session.",
            {"metavar": "ADDRESS"},
        ),
    )
    add_options(parser, rows)
    add_options(parser, _proxy_rows())
    parser.addini(
        "e2ebench_ray_cpus", "--e2e-executor=ray: CPUs one run's Ray task reserves", default="1"
    )
    parser.addini(
        "e2ebench_ray_browsers",
        "--e2e-executor=ray: browsers (the `browser` resource) of the local cluster; a web or "
        "app run reserves one",
        default="1",
    )
    parser.addini(
        "e2ebench_ray_retries",
        "--e2e-executor=ray: times Ray reruns a run whose worker or node was lost",
        default="2",
    )
    parser.addini("e2ebench_temperature", "sampling temperature of LLM agents", default="0.2")
    parser.addini(
        "e2ebench_llm_retries", "retries of a failing LLM call (with backoff)", default="4"
    )
    parser.addini("e2ebench_llm_timeout", "seconds one LLM call may take", default="600")
    parser.addini(
        "e2ebench_agent_timeout",
        "wall-clock seconds one agent run may take (cmd: agents, agent shell commands)",
        default=str(DEFAULT_AGENT_TIMEOUT),
    )
    parser.addini(
        "e2ebench_context_tokens",
        "the model's context in tokens: a tool-using agent drops its oldest tool outputs "
        "when the conversation nears it (docs/agents.md)",
        default="32768",
    )
    parser.addini(
        "e2ebench_prices",
        "LLM prices, one line per model: MODEL PROMPT_USD_PER_MTOK COMPLETION_USD_PER_MTOK "
        "[CACHE_READ [CACHE_WRITE]]; a model without a line is priced from the shipped table "
        "(llm/prices.toml, docs/agents.md 'Cost')",
        type="linelist",
        default=[],
    )
    parser.addini(
        "e2ebench_model_params",
        "active parameters per model for the CO2 estimate: MODEL COUNT (e.g. llama-3-8b 8e9)",
        type="linelist",
        default=[],
    )
    parser.addini(
        "e2ebench_co2",
        "CO2 hardware assumptions, KEY = VALUE (peak_flops, tdp_w, efficiency, pue, intensity)",
        type="linelist",
        default=[],
    )


def _proxy_rows() -> tuple:
    """The options of a CLI agent's metering proxy: its models, its budgets, its replay."""
    return (
        (
            "agent-models",
            "",
            "CLI agents: models the agent may call at its proxy besides --e2e-model, comma-"
            "separated (e.g. a small model a CLI uses for titles); a call naming any other is "
            "sent to --e2e-model instead, and the record says which models were called.",
            {"metavar": "MODEL[,MODEL...]"},
        ),
        (
            "max-tokens",
            "",
            "CLI agents: a run's token budget (prompt + completion) at its metering proxy, "
            "reserved before each call (its output cap lowered to what is left); a call that "
            "cannot fit is refused and the run ends as the agent's failure.",
            {"metavar": "N"},
        ),
        (
            "max-cost",
            "",
            "CLI agents: a run's budget in US dollars (e2ebench_prices, else the shipped "
            "prices), as --e2e-max-tokens.",
            {"metavar": "USD"},
        ),
        (
            "replay-match",
            "content",
            "CLI agents under --e2e-llm-cache=replay: content (default: a request is answered "
            "by the recording of the same content, what varies by run left out; one that "
            "matches none is the run's error) or position (the next unused answer in recorded "
            "order, counted as replay_drift).",
            {"choices": REPLAY_MATCHES},
        ),
    )


def _path(config: pytest.Config, cli: str | None, ini_name: str) -> Path:
    if cli is not None:
        return (config.invocation_params.dir / cli).resolve()
    base = config.inipath.parent if config.inipath else config.rootpath
    return (base / str(config.getini(ini_name))).resolve()


def source(config: pytest.Config, name: str) -> str:
    """Where the value of option ``name`` came from, for messages: ``--e2e-runs`` when given on
    the command line, else ``ini option e2ebench_runs``."""
    key = name.replace("-", "_")
    given = getattr(config.option, f"e2e_{key}", None) is not None
    return f"--e2e-{name}" if given else f"ini option e2ebench_{key}"


def _optional_path(config: pytest.Config, cli: str | None, ini_name: str) -> Path | None:
    """A path option that is off when empty (CLI relative to the invocation folder)."""
    if cli is None and not str(config.getini(ini_name)).strip():
        return None
    if cli is not None and not cli.strip():
        return None
    return _path(config, cli, ini_name)


def _cov_report(config: pytest.Config, cli: str | None) -> tuple[str, ...]:
    raw = cli if cli is not None else str(config.getini("e2ebench_cov_report"))
    kinds = tuple(k.strip() for k in raw.split(",") if k.strip())
    for kind in kinds:
        if kind not in COV_REPORTS:
            source = "--e2e-cov-report" if cli is not None else "ini option e2ebench_cov_report"
            raise pytest.UsageError(
                f"{source}={raw}: unknown report {kind!r}; use a comma-separated list of "
                f"{', '.join(COV_REPORTS)}"
            )
    return kinds


def number(config: pytest.Config, cli, ini_name: str, option: str, kind):
    """The option's value (``cli``, else the ini's) as ``kind``; a usage error if it is not."""
    raw = cli if cli is not None else config.getini(ini_name)
    try:
        return kind(raw)
    except (TypeError, ValueError):
        where = option if cli is not None else f"ini option {ini_name}"
        raise pytest.UsageError(f"{where}={raw!r}: not a number") from None


def resolve(config: pytest.Config) -> Settings:
    """Merge CLI, ini and defaults into :class:`Settings`, failing early with the fix."""
    opt = config.option
    agents = _agents(config)
    counts = _counts(config)
    modes = _modes(config)
    rerun = (
        bool(opt.e2e_rerun) if opt.e2e_rerun is not None else bool(config.getini("e2ebench_rerun"))
    )
    base_url = opt.e2e_llm_base_url or str(config.getini("e2ebench_llm_base_url"))
    migrate = opt.e2e_migrate or str(config.getini("e2ebench_migrate"))
    judge = opt.e2e_judge or str(config.getini("e2ebench_judge"))
    return Settings(
        **counts,
        **modes,
        sandbox=opt.e2e_sandbox or str(config.getini("e2ebench_sandbox")),
        migrate=migrate,
        judge=judge,
        agents=agents,
        tasks=_path(config, opt.e2e_tasks, "e2ebench_tasks"),
        out=_path(config, opt.e2e_out, "e2ebench_out"),
        rerun=rerun,
        model=opt.e2e_model or str(config.getini("e2ebench_model")),
        base_url=base_url or os.environ.get("OPENAI_BASE_URL", ""),
        temperature=number(config, None, "e2ebench_temperature", "", float),
        llm_retries=number(config, None, "e2ebench_llm_retries", "", int),
        llm_timeout=number(config, None, "e2ebench_llm_timeout", "", float),
        agent_timeout=number(config, None, "e2ebench_agent_timeout", "", float),
        agent_env=_agent_env(config),
        agent_models=_names(opt.e2e_agent_models, config.getini("e2ebench_agent_models")),
        max_tokens=_budget(config, "max-tokens", int),
        max_cost=_budget(config, "max-cost", float),
        llm_key_env=opt.e2e_llm_key_env or str(config.getini("e2ebench_llm_key_env")),
        context_tokens=number(config, None, "e2ebench_context_tokens", "", int),
        prices=tuple(config.getini("e2ebench_prices")),
        model_params=tuple(config.getini("e2ebench_model_params")),
        co2=tuple(config.getini("e2ebench_co2")),
        html=_optional_path(config, opt.e2e_html, "e2ebench_html"),
        cov_xml=_optional_path(config, opt.e2e_cov_xml, "e2ebench_cov_xml"),
        cov_report=_cov_report(config, opt.e2e_cov_report),
        ray_address=opt.e2e_ray_address or str(config.getini("e2ebench_ray_address")),
        ray_cpus=number(config, None, "e2ebench_ray_cpus", "", float),
        ray_browsers=number(config, None, "e2ebench_ray_browsers", "", int),
        ray_retries=number(config, None, "e2ebench_ray_retries", "", int),
        **_from_plugins(config),
    )


def _from_plugins(config: pytest.Config) -> dict:
    """The Settings fields plugins resolve from their own options (a method's options:
    hook ``pytest_e2ebench_settings``); the methods' own settings, each answer's entry
    ``methods``, merged into the field ``methods``."""
    found: dict = {}
    by_method: dict = {}
    for fields in config.hook.pytest_e2ebench_settings(config=config):
        fields = dict(fields or {})
        by_method.update(fields.pop("methods", {}))
        found.update(fields)
    return {**found, "methods": by_method}


def _agents(config: pytest.Config) -> tuple[str, ...]:
    """``--e2e-agent``: the agent names, comma-separated."""
    opt = config.option
    raw_agents = opt.e2e_agent if opt.e2e_agent is not None else config.getini("e2ebench_agent")
    agents = tuple(a.strip() for a in str(raw_agents).split(",") if a.strip())
    if opt.e2e_agent is not None and not agents:
        raise pytest.UsageError("--e2e-agent is empty; name an agent, e.g. --e2e-agent=reference")
    return agents


def _counts(config: pytest.Config) -> dict:
    """``runs``, ``timeout``, ``max_steps``: numbers, each checked for range."""
    opt = config.option
    runs = number(config, opt.e2e_runs, "e2ebench_runs", "--e2e-runs", int)
    if runs < 1:
        raise pytest.UsageError(f"{source(config, 'runs')}={runs}: must be 1 or more")
    timeout = number(config, opt.e2e_timeout, "e2ebench_timeout", "--e2e-timeout", float)
    if timeout <= 0:
        raise pytest.UsageError(
            f"{source(config, 'timeout')}={timeout:g}: must be a positive number of seconds"
        )
    max_steps = number(config, opt.e2e_max_steps, "e2ebench_max_steps", "--e2e-max-steps", int)
    if max_steps < 1:
        raise pytest.UsageError(f"{source(config, 'max-steps')}={max_steps}: must be 1 or more")
    return {"runs": runs, "timeout": timeout, "max_steps": max_steps}


def _modes(config: pytest.Config) -> dict:
    """``llm_cache``, ``executor``, ``missing``: each one of its known values."""
    opt = config.option
    llm_cache = opt.e2e_llm_cache or str(config.getini("e2ebench_llm_cache"))
    if llm_cache not in LLM_CACHE_MODES:
        raise pytest.UsageError(
            f"{source(config, 'llm-cache')}={llm_cache}: use one of {', '.join(LLM_CACHE_MODES)}"
        )
    executor = opt.e2e_executor or str(config.getini("e2ebench_executor"))
    if executor not in EXECUTORS:
        raise pytest.UsageError(
            f"ini option e2ebench_executor={executor!r}: use one of {', '.join(EXECUTORS)}"
        )
    missing = opt.e2e_missing or str(config.getini("e2ebench_missing"))
    if missing not in MISSING_MODES:
        raise pytest.UsageError(
            f"ini option e2ebench_missing={missing!r}: use one of {', '.join(MISSING_MODES)}"
        )
    replay_match = opt.e2e_replay_match or str(config.getini("e2ebench_replay_match"))
    if replay_match not in REPLAY_MATCHES:
        raise pytest.UsageError(
            f"ini option e2ebench_replay_match={replay_match!r}: use one of "
            f"{', '.join(REPLAY_MATCHES)}"
        )
    return {
        "llm_cache": llm_cache,
        "executor": executor,
        "missing": missing,
        "replay_match": replay_match,
    }


def _budget(config: pytest.Config, name: str, kind):
    """``--e2e-max-tokens`` / ``--e2e-max-cost``: None when unset, else a positive number."""
    key = name.replace("-", "_")
    raw = getattr(config.option, f"e2e_{key}")
    raw = str(raw if raw is not None else config.getini(f"e2ebench_{key}")).strip()
    if not raw:
        return None
    value = number(config, raw, f"e2ebench_{key}", f"--e2e-{name}", kind)
    if value <= 0:
        raise pytest.UsageError(f"{source(config, name)}={raw}: must be more than 0")
    return value


def _names(cli: str | None, ini) -> tuple[str, ...]:
    """A comma-separated option (or its ini twin) as names, each once, in order."""
    raw = str(cli if cli is not None else ini)
    return tuple(dict.fromkeys(n.strip() for n in raw.split(",") if n.strip()))


def _agent_env(config: pytest.Config) -> tuple[str, ...]:
    """``--e2e-agent-env``: names of environment variables, checked."""
    raw = config.option.e2e_agent_env
    raw = str(raw if raw is not None else config.getini("e2ebench_agent_env"))
    names = tuple(dict.fromkeys(n.strip() for n in raw.split(",") if n.strip()))
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    if bad:
        raise pytest.UsageError(
            f"{source(config, 'agent-env')}={raw}: {bad[0]!r} is not a variable name; name "
            "variables of the harness's environment, comma-separated, e.g. "
            "OPENAI_BASE_URL,OPENAI_API_KEY"
        )
    return names
