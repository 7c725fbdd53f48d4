"""Scripts that drive a CLI agent's own tools to write a task's reference (for
:class:`~.scripted_llm.ScriptedLLM`, in the agent's API through the metering proxy).

A :class:`Driver` is a callable script step: a request that offers the agent's file-writing
tool is the agent's main loop and gets the next action (one file written per call, then a
last message that ends the agent's work); any other request (a title, a summary, a quota
probe some agents send) gets a short text reply and does not advance the script. The files
come from a task's ``reference/`` folder, so an agent that carries the calls out scores 1.0;
``files=[]`` makes a script that writes nothing.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from .scripted_llm import reply, tool_call

SKIPPED = ("__pycache__", ".pytest_cache", ".egg-info")
_CWD = re.compile(r"[Ww]orking directory: (/[^\s`'\"]+)")
DONE_MINI = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"  # mini-swe-agent's way to finish


def reference_files(task_dir: Path) -> list[tuple[str, str]]:
    """(relative path, text) of every file of a task's reference implementation."""
    root = task_dir / "reference"
    return [
        (path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*"))
        if path.is_file() and not any(part in str(path) for part in SKIPPED)
    ]


def heredoc(path: str, text: str) -> str:
    """A shell command that writes ``text`` to ``path`` (folders made)."""
    folder = str(Path(path).parent)
    mkdir = f"mkdir -p {shlex.quote(folder)} && " if folder != "." else ""
    return f"{mkdir}cat > {shlex.quote(path)} <<'E2EBENCH_EOF'\n{text}\nE2EBENCH_EOF"


def _tools(body: dict) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            names.add(str(name))
    return names


def _cwd(body: dict) -> str:
    """The working directory an agent states in its system prompt (Claude Code does)."""
    match = _CWD.search(repr(body.get("system", "")) + repr(body.get("messages", "")[:1]))
    return match.group(1).rstrip("\\n.") if match else "."


class Driver:
    """The script of one agent run: a callable step to push once per expected call."""

    def __init__(self, agent: str, files: list[tuple[str, str]]) -> None:
        self.agent = agent
        self.files = list(files)
        self.main_calls = 0
        self.side_calls = 0

    def __call__(self, body: dict[str, Any]):
        tools = _tools(body)
        tool = {"claude-code": "Write", "mini-swe-agent": "bash"}.get(self.agent)
        if self.agent == "codex":
            tool = next((t for t in ("shell", "shell_command", "exec_command") if t in tools), "")
        if not tool or tool not in tools:
            self.side_calls += 1
            return reply("ok")
        index = self.main_calls
        self.main_calls += 1
        if index < len(self.files):
            return self._write(tool, *self.files[index], body)
        if self.agent == "mini-swe-agent":
            return tool_call("bash", {"command": DONE_MINI})
        return reply("The project is complete.")

    def _write(self, tool: str, path: str, text: str, body: dict):
        if self.agent == "claude-code":
            return tool_call("Write", {"file_path": f"{_cwd(body)}/{path}", "content": text})
        if self.agent == "codex" and tool == "shell":
            return tool_call("shell", {"command": ["bash", "-lc", heredoc(path, text)]})
        if self.agent == "codex":  # exec_command (0.169) takes its shell line as ``cmd``
            key = "cmd" if tool == "exec_command" else "command"
            return tool_call(tool, {key: heredoc(path, text)})
        return tool_call("bash", {"command": heredoc(path, text)})
