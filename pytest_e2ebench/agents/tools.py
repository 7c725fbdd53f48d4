"""The tool layer every LLM agent shares, in the spirit of SWE-agent's interface.

All workflows get the same tools, so they are compared on equal terms: run a shell command,
view a window of a file, create a file, replace a unique string, find files, grep, and submit.
Tools never raise: an error becomes the observation the model reads next. Paths are relative
to the workspace and may not leave it.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from pathlib import Path

from ..isolation.intake import MAX_SOURCE_BYTES, read_bytes
from ..isolation.sandbox import Sandbox
from ..llm.base import Completion, ToolCall
from ..untrusted.deadline import TooSlow, time_bound
from ..untrusted.parse import loads_json
from . import textcalls

OUTPUT_LIMIT = 10_000  # characters of a command's output shown to the model
VIEW_LINES = 200
MAX_MATCHES = 100
COMMAND_TIMEOUT = 300.0
# What the model reads after an answer in which no tool call was recognised (issue 19: a bare
# "continue" made a small model repeat the same unrecognised answer eight times).
NO_CALL = (
    "No tool call was recognised in your answer, so nothing ran. Call one of the tools "
    "({tools}) through function calling, or write exactly one JSON object "
    '{{"name": "<tool>", "arguments": {{...}}}} in a ```json block. Call submit when your '
    "part is done."
)
EMPTY = "Your answer was empty. " + NO_CALL
CUT = (
    "Your answer was cut off at the output token limit before a tool call was complete. "
    "Take smaller steps (e.g. create a large file in parts). " + NO_CALL
)
_SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".pytest_cache"}
# The workspace is written by sandboxed commands: what the harness reads of it is bounded.
MAX_READ_BYTES = MAX_SOURCE_BYTES
GREP_SECONDS = 10.0  # one grep call's search, in the harness's process
MAX_LISTED_FILES = 20_000


class ToolError(Exception):
    """A tool could not do what was asked; the message goes back to the model."""


def _schema(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_STR = {"type": "string"}
_INT = {"type": "integer"}
TOOL_SCHEMAS = [
    _schema(
        "bash",
        "Run a shell command in the repository root (bash -c). Output is "
        f"truncated to {OUTPUT_LIMIT} characters.",
        {"command": _STR},
        ["command"],
    ),
    _schema(
        "view",
        f"Show up to {VIEW_LINES} numbered lines of a file, from start_line (1-based).",
        {"path": _STR, "start_line": _INT},
        ["path"],
    ),
    _schema(
        "create",
        "Create or overwrite a file with the given content (folders are made).",
        {"path": _STR, "content": _STR},
        ["path", "content"],
    ),
    _schema(
        "str_replace",
        "Replace old_str, which must occur exactly once, by new_str.",
        {"path": _STR, "old_str": _STR, "new_str": _STR},
        ["path", "old_str", "new_str"],
    ),
    _schema(
        "find",
        "List files whose path matches a glob pattern, e.g. '**/*.py'.",
        {"pattern": _STR},
        ["pattern"],
    ),
    _schema(
        "grep",
        "Search files for a regular expression; shows path:line: text.",
        {"pattern": _STR, "path": _STR},
        ["pattern"],
    ),
    _schema(
        "submit",
        "Finish your part of the work, with a short summary for the next role.",
        {"summary": _STR},
        ["summary"],
    ),
]
TOOL_NAMES = tuple(t["function"]["name"] for t in TOOL_SCHEMAS)
_PARAMETERS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOL_SCHEMAS}


def signature(name: str) -> str:
    """A tool's arguments as the model should write them, e.g. ``view(path: string, ...)``."""
    schema = _PARAMETERS[name]
    parts = [
        f"{key}: {spec['type']}" + ("" if key in schema["required"] else ", optional")
        for key, spec in schema["properties"].items()
    ]
    return f"{name}({'; '.join(parts)})"


def _check_arguments(name: str, args: dict) -> dict:
    """``args`` for tool ``name``, converted where the schema says integer; ToolError naming
    the tool's signature when a key is unknown, missing or of the wrong type."""
    schema = _PARAMETERS[name]
    unknown = sorted(set(args) - set(schema["properties"]))
    missing = [key for key in schema["required"] if key not in args]
    problems = []
    if unknown:
        problems.append(f"unknown argument(s) {', '.join(map(repr, unknown))}")
    if missing:
        problems.append(f"missing {', '.join(map(repr, missing))}")
    checked = {}
    for key, value in args.items():
        kind = schema["properties"].get(key, {}).get("type")
        if kind == "integer" and not isinstance(value, bool):
            try:
                value = int(value)
            except (TypeError, ValueError):
                problems.append(f"{key!r} must be an integer")
        elif kind == "string" and not isinstance(value, str):
            problems.append(f"{key!r} must be a string")
        checked[key] = value
    if problems:
        raise ToolError(f"bad arguments for {name}: {'; '.join(problems)}. Use {signature(name)}")
    return checked


class Toolbox:
    """The tools, bound to one workspace and one environment for shell commands."""

    def __init__(
        self,
        workspace: Path,
        env: dict[str, str],
        logs: Path,
        command_timeout: float = COMMAND_TIMEOUT,
        writable: str | None = None,
        *,
        sandbox: Sandbox,
        extra_writable: tuple[Path, ...] = (),
        extra_readable: tuple[Path, ...] = (),
        shell_writes: bool = True,
    ) -> None:
        self.workspace = workspace.resolve()
        # False: shell commands see the workspace read-only (they may run code the tools'
        # writes must be safe from: the LLM migrator runs the project's tests)
        self.shell_writes = shell_writes
        self.writable = writable  # if set, only this subfolder may be changed
        # required: no default that would run the agent's shell commands unsandboxed
        self.sandbox = sandbox
        self.extra_writable = extra_writable  # e.g. the agent's own venv, for pip install
        self.extra_readable = extra_readable
        self.env = env
        self.logs = logs
        self.command_timeout = command_timeout
        self.written: list[str] = []  # relative paths created or edited, in order
        self.submitted: str | None = None

    def run(self, name: str, arguments: str) -> str:
        """Execute one tool call and return the observation (never raises)."""
        try:
            method = getattr(self, f"tool_{name}", None)
            if name not in TOOL_NAMES or method is None:
                raise ToolError(f"unknown tool {name!r}; use one of {', '.join(TOOL_NAMES)}")
            try:
                args = loads_json(arguments or "{}", "the arguments")
            except ValueError as exc:
                raise ToolError(
                    f"the arguments of {name} are not valid JSON ({exc}); write a JSON object: "
                    f"{signature(name)}"
                ) from None
            if not isinstance(args, dict):
                raise ToolError(f"the arguments must be a JSON object: {signature(name)}")
            return method(**_check_arguments(name, args))
        except (ToolError, OSError, UnicodeDecodeError, re.error) as exc:
            return f"ERROR: {exc}"
        except (ValueError, OverflowError, RecursionError, TypeError) as exc:
            # what the model's own arguments make the tools raise (a NUL in a path or a
            # command, start_line 1e999, a pattern nested 3,000 deep): its observation, not a
            # crash of the run (before: a harness error, the run out of the means)
            return f"ERROR: {type(exc).__name__}: {str(exc)[:300]}"

    def _path(self, rel: str) -> Path:
        path = (self.workspace / rel).resolve()
        if path != self.workspace and self.workspace not in path.parents:
            raise ToolError(f"{rel}: outside the repository")
        return path

    def _read(self, path: Path, shown: str) -> str:
        """A file's text, read without following links (a FIFO would block), bounded."""
        data = read_bytes(self.workspace, path.relative_to(self.workspace), MAX_READ_BYTES)
        if data is None and not os.path.lexists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), shown)
        if data is None:
            raise ToolError(
                f"{shown}: not a regular file, or larger than {MAX_READ_BYTES} bytes "
                "(use bash for large files)"
            )
        return data.decode("utf-8")

    def _write(self, path: Path, text: str) -> None:
        # O_NONBLOCK: opening a FIFO for writing fails at once instead of waiting for a reader.
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(path, flags | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolError(f"{path.name}: not a regular file")
            fh.write(text)

    def tool_bash(self, command: str) -> str:
        """Run ``command`` with bash in the workspace."""
        mine = [self.workspace] if self.shell_writes else []
        done = self.sandbox.run(
            ["bash", "-c", command],
            writable=[*mine, *self.extra_writable],
            readable=[*self.extra_readable, *([] if mine else [self.workspace])],
            cwd=self.workspace,
            env=self.env,
            timeout=self.command_timeout,
            log=self.logs / "last-command.log",
            limit=OUTPUT_LIMIT * 4,
        )
        out = done.output
        if len(out) > OUTPUT_LIMIT:
            out = (
                out[:OUTPUT_LIMIT]
                + f"\n[output truncated: {len(out) - OUTPUT_LIMIT} more characters]"
            )
        if done.timed_out:
            return f"{out}\n[command killed after {self.command_timeout:g} s]"
        return f"{out}\n[exit code {done.returncode}]"

    def tool_view(self, path: str, start_line: int = 1) -> str:
        """Numbered lines of a file."""
        lines = self._read(self._path(path), path).splitlines()
        start = max(1, int(start_line))
        window = lines[start - 1 : start - 1 + VIEW_LINES]
        body = "\n".join(f"{n:6d}  {text}" for n, text in enumerate(window, start=start))
        more = len(lines) - (start - 1 + len(window))
        return body + (f"\n[{more} more lines]" if more > 0 else "") if window else "[empty]"

    def _writable_path(self, rel: str) -> Path:
        path = self._path(rel)
        if self.writable is not None:
            allowed = (self.workspace / self.writable).resolve()
            if path != allowed and allowed not in path.parents:
                raise ToolError(f"{rel}: only files under {self.writable}/ may be changed")
        return path

    def tool_create(self, path: str, content: str) -> str:
        """Write a file."""
        target = self._writable_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        self._write(target, content)
        self.written.append(target.relative_to(self.workspace).as_posix())
        return f"wrote {path} ({len(content.splitlines())} lines)"

    def tool_str_replace(self, path: str, old_str: str, new_str: str) -> str:
        """Replace a unique occurrence."""
        target = self._writable_path(path)
        text = self._read(target, path)
        count = text.count(old_str)
        if count != 1:
            raise ToolError(f"old_str occurs {count} times in {path}; it must occur exactly once")
        self._write(target, text.replace(old_str, new_str))
        self.written.append(target.relative_to(self.workspace).as_posix())
        return f"edited {path}"

    def _files(self):
        listed = 0
        for dirpath, dirnames, filenames in os.walk(self.workspace):  # never enters links
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for name in sorted(filenames):
                listed += 1
                if listed > MAX_LISTED_FILES:
                    return
                yield Path(dirpath, name).relative_to(self.workspace).as_posix()

    def tool_find(self, pattern: str) -> str:
        """Files matching a glob."""
        hits = [
            p
            for p in self._files()
            if fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(p, pattern.removeprefix("**/"))
        ]
        return "\n".join(hits[:MAX_MATCHES]) or "[no files match]"

    def tool_grep(self, pattern: str, path: str = ".") -> str:
        """Lines matching a regular expression, searched for at most GREP_SECONDS.

        The agent writes both the expression and the files: ``(a|aa)+b`` over a line of 60
        ``a`` backtracked for years in the harness's process, and its session never ended.
        """
        regex = re.compile(pattern)
        try:  # off the main thread no timer interrupts it (docs/sandbox.md: remains)
            with time_bound(GREP_SECONDS):
                return self._grep(regex, self._path(path))
        except TooSlow:
            return (
                f"[the search took over {GREP_SECONDS:g} s and was stopped: the expression "
                "backtracks; simplify it]"
            )

    def _grep(self, regex: re.Pattern, base: Path) -> str:
        hits: list[str] = []
        for rel in self._files():
            file = self.workspace / rel
            if base != self.workspace and base not in file.parents and file != base:
                continue
            # Links are not read (one may point at /proc or a FIFO); large files are skipped.
            data = read_bytes(self.workspace, rel, MAX_READ_BYTES)
            try:
                text = data.decode("utf-8") if data is not None else ""
            except UnicodeDecodeError:
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                if regex.search(line):
                    hits.append(f"{rel}:{number}: {line[:200]}")
                    if len(hits) >= MAX_MATCHES:
                        return "\n".join(hits) + "\n[more matches not shown]"
        return "\n".join(hits) or "[no matches]"

    def step(self, llm, messages: list[dict], scope: str) -> tuple[Completion, list[dict]]:
        """One agent step: ask the model, run the tools it called, extend ``messages``.

        Returns the completion and the observations (id, name, arguments, output, and
        ``"text": true`` for a call found in the message text) of its tool calls. Calls the
        model wrote as text (:mod:`.textcalls`) run like native ones; their results come back
        in one user message. An answer without a recognised call gets a message saying so.
        """
        completion = llm.complete(messages, tools=TOOL_SCHEMAS, scope=scope)
        messages.append(completion.message())
        calls, textual = completion.tool_calls, False
        if not calls:
            found = textcalls.parse(completion.content, TOOL_NAMES)
            calls = tuple(ToolCall(f"text-{i}", name, args) for i, (name, args) in enumerate(found))
            textual = bool(calls)
        observations = []
        for call in calls:
            output = self.run(call.name, call.arguments)
            if not textual:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            observations.append(
                {"id": call.id, "name": call.name, "arguments": call.arguments, "output": output}
                | ({"text": True} if textual else {})
            )
        if textual:
            results = "\n\n".join(f"[{o['name']} result]\n{o['output']}" for o in observations)
            messages.append({"role": "user", "content": results})
        elif not calls:
            messages.append({"role": "user", "content": self.no_call(completion)})
        return completion, observations

    @staticmethod
    def no_call(completion: Completion) -> str:
        """What the model reads after an answer without a recognised tool call."""
        if completion.finish_reason == "length":
            template = CUT
        elif not (completion.content or "").strip():
            template = EMPTY
        else:
            template = NO_CALL
        return template.format(tools=", ".join(TOOL_NAMES))

    def tool_submit(self, summary: str = "") -> str:
        """End the current role."""
        self.submitted = summary
        return "submitted"
