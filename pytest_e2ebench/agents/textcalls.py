"""Tool calls that a model wrote into its message text instead of the function-calling field.

Small local models served by llama.cpp, Ollama or vLLM often answer a tool request with the
call as text and ``tool_calls: null`` (issue 19: Qwen2.5-Coder 0.5B and 1.5B under
``llama-server --jinja`` wrote a fenced ```json block). The shapes recognised:

* ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (the Hermes/Qwen chat template);
* a fenced code block (```json or plain ```) holding such an object, or a list of them;
* the whole message being such an object or list.

An object is a call when it has ``name`` (one of the tools) and ``arguments`` or
``parameters`` (an object, or a string of JSON); ``{"function": {...}}`` wrappers are opened.
A call written more than once in one message runs once: a small model that repeats its
conversation (Gemma 3 270M here wrote the same call five times between chat-template tokens)
would otherwise run a command such as ``echo x >> f`` once per copy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from ..untrusted.parse import loads_json

MAX_TEXT = 200_000  # characters of a message searched for calls
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n(.*?)```", re.DOTALL)


def parse(content: str | None, tools: Collection[str]) -> list[tuple[str, str]]:
    """The (tool name, arguments as JSON text) of every call written in ``content``."""
    text = (content or "")[:MAX_TEXT]
    if not text.strip():
        return []
    for pattern in (_TAGGED, _FENCED):
        blocks = [m.group(1) for m in pattern.finditer(text)]
        calls = [call for block in blocks for call in _calls(block, tools)]
        if calls:
            return list(dict.fromkeys(calls))
    return list(dict.fromkeys(_calls(text, tools)))


def _calls(block: str, tools: Collection[str]) -> list[tuple[str, str]]:
    try:
        value = loads_json(block.strip(), "the tool call")
    except ValueError:
        return []
    items = value if isinstance(value, list) else [value]
    found = []
    for item in items:
        call = _call(item, tools)
        if call is not None:
            found.append(call)
    return found


def _call(item: object, tools: Collection[str]) -> tuple[str, str] | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or name not in tools:
        return None
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        return name, arguments
    return name, json.dumps(arguments)
