"""``e2ebench demo-model``: a server that answers like a model writing the task's reference,
so a first agent run needs no model (issue 31; the CLI agents: issue 42).

It is the :class:`~.scripted_llm.ScriptedLLM` of the plugin's own tests with one endless step,
in every API a built-in agent speaks (OpenAI chat completions, Anthropic Messages, OpenAI
Responses, Gemini). The task is recognised from the request: the first line of its
``requirements.md`` in the prompt (an LLM agent's prompt holds the requirements), else the
requirements document whose path the prompt names (a CLI agent is told only that path: the
server runs beside the harness and reads the file's first line), else the task folder named
in that path. The answer writes the task's reference files:

* for a built-in CLI agent (told by the tools it offers, :func:`.cli_scripts.agent_of`), one
  file per call through that agent's own file-writing or shell tool, then a last message
  (:class:`.cli_scripts.Driver`; the next file is the one after the tool calls already in the
  conversation, so concurrent runs need no state here);
* for ``vanilla``, one ``### FILE:`` answer; for the tool-using LLM agents, ``create`` calls,
  then "done".

Token counts are estimated from the text (4 characters a token), so the summary's token
columns fill in. A request that names no task gets a plain sentence: the agent writes nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from ...errors import AgentFileError
from ...untrusted.parse import read_data
from .cli_scripts import Driver, actions_done, agent_of, reference_files, tool_names
from .scripted_llm import ScriptedLLM, reply, tool_calls

MODEL = "demo-model"
PRICES = f"e2ebench_prices={MODEL} 3 15"  # US$ per million tokens, made up
MAX_REQUIREMENTS_BYTES = 1 << 20  # a requirements document named in a prompt read up to this
# a requirements document's path as a CLI agent's prompt names it (agents.clitools.specs.PROMPT:
# <out>/<agent>/<task>/run-<n>/agent/requirements.md), in the request's JSON text
_PATH_PART = r"[^\s\"'\\]*?"
_REQUIREMENTS = re.compile(
    rf"(/{_PATH_PART}/([A-Za-z0-9_.-]+)/run-\d+/{_PATH_PART}requirements\.md)"
)


def task_titles(tasks: Path) -> dict[str, Path]:
    """The first line of each task's requirements.md -> the task folder."""
    titles = {}
    for req in sorted(tasks.glob("*/requirements.md")):
        lines = [x.strip() for x in req.read_text(encoding="utf-8").splitlines() if x.strip()]
        if lines and (req.parent / "reference").is_dir():
            titles[lines[0]] = req.parent
    return titles


def _prompt(body: dict) -> str:
    parts = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def _first_line(path: Path) -> str | None:
    """The first non-empty line of a requirements document, or None (a path the request names:
    read by the bounded reader, a regular file of at most :data:`MAX_REQUIREMENTS_BYTES`, so a
    FIFO or a link there reads nothing)."""
    try:
        data = read_data(path.parent, path.name, max_bytes=MAX_REQUIREMENTS_BYTES)
    except (AgentFileError, OSError):
        return None
    text = (data or b"").decode("utf-8", errors="replace")
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return lines[0] if lines else None


def find_task(body: dict, titles: dict[str, Path]) -> Path | None:
    """The task folder a request is about: its title in the prompt, else the title of the
    requirements document the prompt names, else the task folder named in that path."""
    prompt = _prompt(body)
    found = [t for t in titles if t in prompt]
    if found:
        return titles[max(found, key=len)]
    named = _REQUIREMENTS.search(json.dumps(body, ensure_ascii=False))
    if named is None:
        return None
    path = Path(named.group(1))
    title = _first_line(path) if path.name == "requirements.md" else None
    if title in titles:
        return titles[title]
    by_folder = {folder.name: folder for folder in titles.values()}
    return by_folder.get(named.group(2))


def cli_agent(body: dict) -> str | None:
    """The built-in CLI agent whose main loop sent ``body`` (None: an LLM agent's request, or
    a CLI agent's side call such as a title)."""
    tools = tool_names(body)
    if "create" in tools:  # the LLM agents' tools (agents/tools.py) include a bash as well
        return None
    return agent_of(tools, body)


def answer(body: dict, titles: dict[str, Path]):
    """The step answering one request: the recognised task's reference, or a sentence."""
    task = find_task(body, titles)
    agent = cli_agent(body)
    if task is not None and agent is not None:
        driver = Driver.writing(agent, reference_files(task))
        return driver.answer(body, actions_done(body, agent))
    prompt = _prompt(body)
    sent = len(prompt) // 4 + 1
    if task is None:
        return reply("I do not recognise this task.", prompt_tokens=sent, completion_tokens=6)
    files = dict(reference_files(task))
    if body.get("tools"):
        done = any(m.get("role") == "tool" for m in body["messages"] if isinstance(m, dict))
        if done:
            return reply("done", prompt_tokens=sent, completion_tokens=1)
        calls = [("create", {"path": p, "content": text}) for p, text in files.items()]
        size = sum(len(t) for t in files.values()) // 4 + 1
        return tool_calls(calls, prompt_tokens=sent, completion_tokens=size)
    text = "".join(f"### FILE: {p}\n```\n{t.rstrip()}\n```\n\n" for p, t in files.items())
    return reply(text, prompt_tokens=sent, completion_tokens=len(text) // 4 + 1)


def start(tasks: Path) -> ScriptedLLM:
    """The running server (``stop()`` it): every request is answered by :func:`answer`."""
    titles = task_titles(tasks)
    server = ScriptedLLM(model=MODEL)

    def step(body: dict):
        server.push(step)  # endless: each request puts the next answer back
        return answer(body, titles)

    server.push(step)
    return server.start()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``e2ebench demo-model``."""
    parser.add_argument(
        "--tasks",
        type=Path,
        default=Path("benchmark_tasks"),
        help="the task folders whose references it writes (default benchmark_tasks)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C, after printing the pytest options that use the server."""
    if not args.tasks.is_dir():
        print(f"e2ebench demo-model: --tasks={args.tasks}: no such folder of task folders")
        return 2
    server = start(args.tasks)
    count = len(task_titles(args.tasks))
    print(
        f"demo model on {server.base_url}: answers like a model writing the reference of the "
        f"{count} task(s) in {args.tasks}. In another terminal:",
        flush=True,
    )
    print(
        f"  pytest --e2e-agent=vanilla --e2e-model={MODEL} --e2e-llm-base-url={server.base_url}"
        f" --e2e-tasks={args.tasks} -k semverkit",
        flush=True,
    )
    print(
        f"  pytest --e2e-agent=claude-code --e2e-model={MODEL} --e2e-llm-base-url="
        f"{server.base_url} --e2e-tasks={args.tasks} -k semverkit -o '{PRICES}'",
        flush=True,
    )
    print(
        "(any LLM agent works: vanilla, sdagent-dt, ...; so does any built-in CLI agent: "
        "claude-code, codex, aider, mini-swe-agent, gemini-cli, qwen-code, opencode, which "
        "writes the "
        f"files through its own tools; {PRICES!r} is a made-up price, so the cost column fills "
        "in; Ctrl-C stops the server)",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
