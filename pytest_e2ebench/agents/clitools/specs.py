"""The built-in CLI agents: what to install, how to start each one non-interactively.

Every agent talks to the run's metering proxy only (``proxy`` below is its base URL,
``http://127.0.0.1:PORT/v1``, the one port forwarded into the step's namespace), holds a dummy
key, and has its permission prompts answered by its command line or its configuration in the
run's own ``HOME``. ``prompt`` is the instruction every agent gets: the requirements document's
path and the workspace, nothing else.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

DUMMY_KEY = "sk-e2ebench-proxy"  # the agent's key: the proxy holds the real one
PROMPT = (
    "Read the requirements document at {requirements} and build the whole project it "
    "describes in the current folder ({workspace}). Work without asking questions; stop when "
    "the project is complete."
)


@dataclasses.dataclass(frozen=True)
class Launch:
    """What one run of an agent needs: its command, environment and files in ``HOME``."""

    argv: list[str]
    env: dict[str, str]
    files: dict[str, str] = dataclasses.field(default_factory=dict)  # HOME-relative path: text


@dataclasses.dataclass(frozen=True)
class CLISpec:
    """A built-in CLI agent. ``kind`` is ``npm`` or ``pypi``; ``binary`` the executable under
    the installed tool folder; ``launch(tool, proxy, model, prompt, max_steps)`` builds a
    :class:`Launch`."""

    name: str
    package: str
    version: str
    kind: str
    api: str
    binary: str
    launch: Callable[[Path, str, str, str, int], Launch]
    # bytes of address space (RLIMIT_AS) if the sandbox's default is too small; resident
    # memory stays bounded by the run's memory cgroup
    address_space: int | None = None
    # how npm installs the shipped lock: ``ci`` (exactly the lock) unless npm itself cannot
    npm_install: tuple[str, ...] = ("ci",)


def _origin(proxy: str) -> str:
    return proxy.removesuffix("/v1")


# the platform package's native binary: the main package's bin/claude.exe is a stub that its
# install script replaces, and installs run no scripts (npm ci --ignore-scripts)
CLAUDE_BINARY = "node_modules/@anthropic-ai/claude-code-linux-x64/claude"


def claude_code(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """Claude Code in print mode: its tools allowed by name (no permission prompt), no
    telemetry, updates or other traffic; it appends ``/v1/messages`` to its base URL."""
    argv = [
        str(tool / CLAUDE_BINARY),
        "-p",
        prompt,
        "--model",
        model,
        "--max-turns",
        str(max_steps),
        "--output-format",
        "json",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash,Edit,Write,Read,Glob,Grep,MultiEdit,LS",
    ]
    env = {
        "ANTHROPIC_BASE_URL": _origin(proxy),
        "ANTHROPIC_API_KEY": DUMMY_KEY,
        "ANTHROPIC_SMALL_FAST_MODEL": model,
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": model,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    }
    return Launch(argv, env)


def codex(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """Codex ``exec``: a provider of its config pointing at the proxy (Responses API), no
    approvals, its own sandbox off (the harness's is around it)."""
    config = (
        f'model = "{model}"\nmodel_provider = "e2ebench"\napproval_policy = "never"\n'
        'sandbox_mode = "danger-full-access"\n\n[model_providers.e2ebench]\n'
        f'name = "e2ebench proxy"\nbase_url = "{proxy}"\nenv_key = "OPENAI_API_KEY"\n'
        'wire_api = "responses"\n'
    )
    argv = [
        str(tool / "node_modules/.bin/codex"),
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        prompt,
    ]
    env = {"OPENAI_API_KEY": DUMMY_KEY, "CODEX_HOME": "{home}/.codex"}
    return Launch(argv, env, {".codex/config.toml": config})


def mini_swe_agent(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """mini-swe-agent's ``mini`` without its interactive front end (``-y``: yolo mode),
    through litellm's OpenAI provider at the proxy; ``step_limit`` from --e2e-max-steps."""
    config = {
        "agent": {"step_limit": max_steps, "cost_limit": 0, "mode": "yolo", "confirm_exit": False},
        "model": {
            "model_name": f"openai/{model}",
            "model_kwargs": {"api_base": proxy, "api_key": DUMMY_KEY},
            "cost_tracking": "ignore_errors",
        },
    }
    argv = [
        str(tool / "bin/mini"),
        "--yolo",
        "--exit-immediately",
        "-c",
        "mini.yaml",
        "-c",
        "{home}/e2ebench.yaml",
        "-t",
        prompt,
        "-o",
        "{home}/trajectory.json",
    ]
    env = {
        "MSWEA_CONFIGURED": "true",
        "MSWEA_COST_TRACKING": "ignore_errors",
        "OPENAI_API_KEY": DUMMY_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    return Launch(argv, env, {"e2ebench.yaml": json.dumps(config)})  # JSON is YAML


def gemini_cli(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """Gemini CLI headless (``-p``), ``--yolo`` (every tool call approved), an API-key login
    chosen in its settings, the Gemini SDK's base URL set to the proxy, telemetry off."""
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {
            "disableAutoUpdate": True,
            "disableUpdateNag": True,
            "checkpointing": {"enabled": False},
        },
        "model": {"maxSessionTurns": max_steps},
    }
    argv = [str(tool / "node_modules/.bin/gemini"), "-p", prompt, "-m", model, "--yolo"]
    env = {
        "GEMINI_API_KEY": DUMMY_KEY,
        "GOOGLE_GEMINI_BASE_URL": _origin(proxy),
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "GEMINI_TELEMETRY_ENABLED": "false",
    }
    return Launch(argv, env, {".gemini/settings.json": json.dumps(settings)})


def aider(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """aider with one message and no questions (``--yes-always``), the ``whole`` edit format
    (a file is written as its path and a fenced block), no git, no streaming, no analytics,
    through litellm's OpenAI provider at the proxy."""
    argv = [
        str(tool / "bin/aider"),
        "--message",
        prompt,
        "--model",
        f"openai/{model}",
        "--openai-api-base",
        proxy,
        "--openai-api-key",
        DUMMY_KEY,
        "--edit-format",
        "whole",
        "--yes-always",
        "--no-git",
        "--no-stream",
        "--no-analytics",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-auto-lint",
        "--no-auto-test",
        "--no-pretty",
        "--no-fancy-input",
        "--map-tokens",
        "0",
        "--read",
        "{requirements}",
    ]
    env = {"AIDER_ANALYTICS": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return Launch(argv, env)


def qwen_code(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """Qwen Code (a Gemini CLI fork) headless with ``--yolo``, its OpenAI-compatible login
    pointed at the proxy (chat completions), telemetry off."""
    settings = {
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "model": {"maxSessionTurns": max_steps},
    }
    script = str(tool / "node_modules/@qwen-code/qwen-code/cli-entry.js")
    argv = ["node", script, "-p", prompt, "-m", model, "--yolo"]
    env = {"OPENAI_API_KEY": DUMMY_KEY, "OPENAI_BASE_URL": proxy, "OPENAI_MODEL": model}
    return Launch(argv, env, {".qwen/settings.json": json.dumps(settings)})


# the platform package's own binary (Bun-compiled); its ``baseline`` build needs no AVX2, so it
# starts on any x86-64 CPU. The main package's bin/ is a stub its install script replaces.
OPENCODE_BINARY = "node_modules/opencode-linux-x64-baseline/bin/opencode"


def opencode(tool: Path, proxy: str, model: str, prompt: str, max_steps: int) -> Launch:
    """opencode's ``run`` with ``--auto`` (permissions granted), its model the only one of an
    OpenAI-compatible provider whose base URL is the proxy (chat completions, streamed; the
    AI SDK's openai-compatible provider is built into the binary), the model catalogue's
    fetch, updates and sharing off, at most ``max_steps`` steps of its build agent."""
    config = {
        "provider": {
            "e2ebench": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "e2ebench proxy",
                "options": {"baseURL": proxy, "apiKey": DUMMY_KEY},
                "models": {model: {"name": model}},
            }
        },
        "model": f"e2ebench/{model}",
        "small_model": f"e2ebench/{model}",
        "autoupdate": False,
        "share": "disabled",
        "agent": {"build": {"steps": max_steps}},
    }
    argv = [str(tool / OPENCODE_BINARY), "run", "-m", f"e2ebench/{model}", "--auto", prompt]
    env = {
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    }
    return Launch(argv, env, {".config/opencode/opencode.json": json.dumps(config)})


SPECS = {
    spec.name: spec
    for spec in (
        CLISpec(
            "claude-code",
            "@anthropic-ai/claude-code",
            "2.1.332",
            "npm",
            "Anthropic Messages (streamed)",
            CLAUDE_BINARY,
            claude_code,
        ),
        CLISpec(
            "codex",
            "@openai/codex",
            "0.169.0",
            "npm",
            "OpenAI Responses (streamed)",
            "node_modules/.bin/codex",
            codex,
        ),
        CLISpec(
            "gemini-cli",
            "@google/gemini-cli",
            "0.61.0",
            "npm",
            "Gemini generateContent (streamed)",
            "node_modules/.bin/gemini",
            gemini_cli,
            # V8 reserves ~10 GiB of guard pages per WebAssembly memory (its HTTP parser is
            # Wasm, twice: undici in its bundle and in node): under 4 GiB and 16 GiB "Cannot
            # allocate Wasm memory"; node 20 cannot turn the guard pages off
            address_space=64 << 30,
        ),
        CLISpec(
            "aider",
            "aider-chat",
            "0.86.2",
            "pypi",
            "OpenAI chat completions (litellm), whole; text edit format",
            "bin/aider",
            aider,
        ),
        CLISpec(
            "qwen-code",
            "@qwen-code/qwen-code",
            "0.24.4",
            "npm",
            "OpenAI chat completions (streamed)",
            "node_modules/@qwen-code/qwen-code/cli-entry.js",
            qwen_code,
            address_space=64 << 30,  # node's Wasm guard pages, as gemini-cli
            # npm writes a lock without the other platforms' builds of a clipboard package
            # it declares with an empty version, then `npm ci` calls that lock out of sync;
            # `npm install` with the lock still checks every locked package's integrity
            npm_install=("install", "--no-save"),
        ),
        CLISpec(
            "opencode",
            "opencode-ai",
            "1.18.33",
            "npm",
            "OpenAI chat completions (streamed, openai-compatible provider)",
            OPENCODE_BINARY,
            opencode,
            address_space=64 << 30,  # Bun's JavaScriptCore reserves its heap's cage up front
            # the lock holds only this platform's builds of its optional binaries: `npm ci`
            # calls it out of sync (as qwen-code's); `npm install` checks the locked hashes
            npm_install=("install", "--no-save"),
        ),
        CLISpec(
            "mini-swe-agent",
            "mini-swe-agent",
            "2.4.6",
            "pypi",
            "OpenAI chat completions (litellm)",
            "bin/mini",
            mini_swe_agent,
        ),
    )
}
