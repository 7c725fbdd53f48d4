"""``e2ebench demo-model``: an OpenAI-compatible server that answers like a model writing the
task's reference, so a first LLM-agent run needs no model (issue 31).

It is the :class:`~.scripted_llm.ScriptedLLM` of the plugin's own tests with one endless step:
the task is recognised from the prompt (the first line of its ``requirements.md`` appears in
it) and the answer writes the task's reference files, as one ``### FILE:`` answer for the
``vanilla`` agent or as ``create`` tool calls for tool-using agents (then "done"). Token counts
are estimated from the text (4 characters a token), so the summary's token columns fill in.
A prompt that names no task gets a plain sentence: the agent writes nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .scripted_llm import ScriptedLLM, reply, tool_calls

MAX_FILE_BYTES = 256 << 10  # a reference file larger than this is not sent (none is)
MODEL = "demo-model"


def reference_files(task: Path) -> dict[str, str]:
    """The text files of ``task/reference`` by relative path (binary and large ones left out)."""
    files = {}
    root = task / "reference"
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink() or "__pycache__" in path.parts:
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            continue
        try:
            files[str(path.relative_to(root))] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return files


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


def answer(body: dict, titles: dict[str, Path]):
    """The step answering one request: the recognised task's reference, or a sentence."""
    prompt = _prompt(body)
    found = [t for t in titles if t in prompt]
    sent = len(prompt) // 4 + 1
    if not found:
        return reply("I do not recognise this task.", prompt_tokens=sent, completion_tokens=6)
    files = reference_files(titles[max(found, key=len)])
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
    print("(any LLM agent works: vanilla, sdagent-dt, ...; Ctrl-C stops the server)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
