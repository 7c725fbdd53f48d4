"""Scripts that drive a CLI agent's own tools to write a task's reference (for
:class:`~.scripted_llm.ScriptedLLM`, in the agent's API through the metering proxy).

A :class:`Driver` is a callable script step: a request that offers the agent's file-writing
tool is the agent's main loop and gets the next action (one file written per call, then a
last message that ends the agent's work); any other request (a title, a summary, a quota
probe some agents send) gets a short text reply and does not advance the script. The files
come from a task's ``reference/`` folder, so an agent that carries the calls out scores 1.0;
``files=[]`` makes a script that writes nothing.

The plugin's tests count a run's main-loop calls in the driver (one driver per run);
``e2ebench demo-model`` serves runs it cannot tell apart by connection, so it asks
:func:`actions_done` how far the conversation in the request already is
(:meth:`Driver.answer`). What each agent's calls look like is here, once, for both.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from .scripted_llm import reply, tool_call

SKIPPED = ("__pycache__", ".pytest_cache", ".egg-info")
MAX_FILE_BYTES = 256 << 10  # a reference file larger than this is not written (none is)
# the workspace, as the harness's prompt names it (agents.clitools.specs.PROMPT)
_CWD = re.compile(r"in the current folder \((/[^)]+)\)")
DONE_MINI = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"  # mini-swe-agent's way to finish


def reference_files(task_dir: Path) -> list[tuple[str, str]]:
    """(relative path, text) of every text file of a task's reference implementation (a
    binary file or one over :data:`MAX_FILE_BYTES` left out: none of the bundled tasks has
    one, and a tool call carries text)."""
    root = task_dir / "reference"
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink() or any(p in str(path) for p in SKIPPED):
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            continue
        try:
            found.append((path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return found


def heredoc(path: str, text: str) -> str:
    """A shell command that writes ``text`` to ``path`` (folders made)."""
    folder = str(Path(path).parent)
    mkdir = f"mkdir -p {shlex.quote(folder)} && " if folder != "." else ""
    return f"{mkdir}cat > {shlex.quote(path)} <<'E2EBENCH_EOF'\n{text}\nE2EBENCH_EOF"


def tool_names(body: dict) -> set[str]:
    """The names of the tools a request offers (chat, Messages, Responses or Gemini form)."""
    names = set()
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        for declared in tool.get("functionDeclarations") or []:  # Gemini
            names.add(str(declared.get("name")))
        name = tool.get("name") or (tool.get("function") or {}).get("name")
        names.add(str(name))
    return names


def _cwd(body: dict) -> str:
    """The workspace the harness's prompt names (tools that want absolute paths)."""
    match = _CWD.search(json.dumps(body))
    return match.group(1) if match else "."


# the tool each agent writes files with, and the one it runs commands with
RUN_TOOL = {
    "claude-code": "Bash",
    "mini-swe-agent": "bash",
    "gemini-cli": "run_shell_command",
    "qwen-code": "run_shell_command",
    "opencode": "bash",
}
CODEX_TOOLS = ("exec_command", "shell", "shell_command")
_TASK = re.compile(r"/([A-Za-z0-9_.-]+)/run-\d+/agent/requirements\.md")


def agent_of(tools: set[str], body: dict | None = None) -> str | None:
    """Which built-in CLI agent offers ``tools`` (None: a side call); aider offers none but
    asks for its text edit format (``body``)."""
    if not tools and body is not None and "file listing" in json.dumps(body).lower():
        return "aider"
    if "Write" in tools:
        return "claude-code"
    if "write_file" in tools:  # Qwen Code, a Gemini CLI fork, speaks chat completions
        return "gemini-cli" if body is None or "contents" in body else "qwen-code"
    if any(t in tools for t in CODEX_TOOLS):
        return "codex"
    if {"bash", "write", "todowrite"} <= tools:  # opencode (its bash would read as mini's)
        return "opencode"
    if "bash" in tools:
        return "mini-swe-agent"
    return None


def _assistant_turns(body: dict) -> list:
    """What the model said before in a request's conversation: the assistant messages
    (chat, Messages), the model's contents (Gemini) or the model's output items given back
    as input (Responses)."""
    turns = []
    for key, role in (("messages", "assistant"), ("contents", "model")):
        for item in body.get(key) or []:
            if isinstance(item, dict) and item.get("role") == role:
                turns.append(item)
    items = body.get("input")
    if isinstance(items, list):
        turns += [i for i in items if isinstance(i, dict) and i.get("type") in RESPONSES_CALLS]
    return turns


# the output items of the model's own actions a Responses request gives back
RESPONSES_CALLS = ("function_call", "custom_tool_call", "local_shell_call")


def actions_done(body: dict, agent: str) -> int:
    """How many of its script's actions the agent has carried out in the conversation
    ``body`` holds: the tool calls the model made in it (aider, which calls no tool: the
    model's answers), so a stateless server knows which step comes next."""
    turns = _assistant_turns(body)
    if agent == "aider":
        return len(turns)
    done = 0
    for turn in turns:
        if turn.get("type") in RESPONSES_CALLS:
            done += 1
            continue
        done += len(turn.get("tool_calls") or [])  # chat completions
        for part in turn.get("content") or turn.get("parts") or []:
            if not isinstance(part, dict):
                continue  # a chat message's text
            if part.get("type") == "tool_use" or "functionCall" in part:  # Anthropic, Gemini
                done += 1
    return done


def _said(body: dict, text: str) -> bool:
    """Whether the model already said ``text`` in the conversation ``body`` holds (aider's
    prompt has assistant turns of its own: examples of its edit format, "Ok." after each file
    it shows, so the turns alone do not say whether the model answered)."""
    for turn in _assistant_turns(body):
        content = turn.get("content")
        parts = content if isinstance(content, list) else [content]
        for part in parts:
            said = part.get("text") if isinstance(part, dict) else part
            if isinstance(said, str) and text in said:
                return True
    return False


class Driver:
    """The script of one agent run: ``actions`` are ``("write", path, text)`` or
    ``("run", command)``, one per main-loop call, then a message that ends the work."""

    def __init__(self, agent: str, actions: list[tuple[str, ...]]) -> None:
        self.agent = agent
        self.actions = list(actions)
        self.main_calls = 0
        self.side_calls = 0

    @classmethod
    def writing(cls, agent: str, files: list[tuple[str, str]]) -> Driver:
        """A driver that writes ``files`` (relative path, text), one per call."""
        return cls(agent, [("write", path, text) for path, text in files])

    def __call__(self, body: dict[str, Any]):
        if agent_of(tool_names(body), body) != self.agent:
            self.side_calls += 1
            return reply("ok")
        index = self.main_calls
        self.main_calls += 1
        return self.answer(body, index)

    def answer(self, body: dict[str, Any], index: int):
        """The step of main-loop call ``index`` (counted from 0): the next action, or the
        message that ends the work once they are all done."""
        tools = tool_names(body)
        if self.agent == "aider":  # one answer: the files, unless the conversation holds it
            whole = self._whole()
            return reply("Done." if _said(body, whole) else whole)
        if index < len(self.actions):
            action = self.actions[index]
            if action[0] == "write":
                return self._write(tools, action[1], action[2], body)
            return self._run(tools, action[1])
        if self.agent == "mini-swe-agent":
            return tool_call("bash", {"command": DONE_MINI})
        return reply("The project is complete.")

    def _whole(self) -> str:
        """aider's ``whole`` edit format: each file as its path, then a fenced block."""
        blocks = [f"{a[1]}\n```\n{a[2]}\n```" for a in self.actions if a[0] == "write"]
        return "\n\n".join(blocks) or "Nothing to change."

    def _run(self, tools: set[str], command: str):
        if self.agent == "codex":
            tool = next(t for t in CODEX_TOOLS if t in tools)
            if tool == "shell":
                return tool_call("shell", {"command": ["bash", "-lc", command]})
            # exec_command (0.169) takes its shell line as ``cmd``
            return tool_call(tool, {"cmd" if tool == "exec_command" else "command": command})
        if self.agent == "opencode":  # its bash tool asks what the command is for
            return tool_call("bash", {"command": command, "description": "run a command"})
        return tool_call(RUN_TOOL[self.agent], {"command": command})

    def _write(self, tools: set[str], path: str, text: str, body: dict):
        if self.agent in ("claude-code", "gemini-cli", "qwen-code"):
            tool = "Write" if self.agent == "claude-code" else "write_file"
            return tool_call(tool, {"file_path": f"{_cwd(body)}/{path}", "content": text})
        if self.agent == "opencode":
            return tool_call("write", {"filePath": f"{_cwd(body)}/{path}", "content": text})
        return self._run(tools, heredoc(path, text))


class Dispatcher:
    """One script step for a whole session: each request goes to the driver of its agent
    (told by the tools it offers) and task (told by the requirements path in the prompt);
    side calls and unknown runs get a short reply."""

    def __init__(self, drivers: dict[tuple[str, str], Driver]) -> None:
        self.drivers = drivers

    def __call__(self, body: dict[str, Any]):
        agent = agent_of(tool_names(body), body)
        match = _TASK.search(json.dumps(body))
        driver = self.drivers.get((agent or "", match.group(1) if match else ""))
        return driver(body) if driver is not None else reply("ok")
