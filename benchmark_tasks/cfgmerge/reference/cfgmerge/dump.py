"""Rendering a configuration as JSON, TOML, INI or environment-variable lines."""

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from .values import plain_text, scalar_text

DUMP_FORMATS = ("json", "toml", "ini", "env")

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n",
                 "\f": "\\f", "\r": "\\r"}


def dumps(config: dict, fmt: str = "json", *, env_prefix: str = "APP") -> str:
    """Render ``config`` in ``fmt`` (``json``, ``toml``, ``ini`` or ``env``)."""
    if fmt == "json":
        return json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if fmt == "toml":
        return _sectioned(config, _toml_key, toml_value)
    if fmt == "ini":
        return _sectioned(config, str, plain_text)
    if fmt == "env":
        return _env_lines(config, env_prefix)
    raise ValueError(f"unknown format: {fmt!r}")


def _sectioned(config: dict, key: Callable[[str], str], value: Callable[[Any], str]) -> str:
    """Shared block layout of TOML and INI output.

    The root's non-table entries come first, then one block per table in depth-first
    order, each starting with its ``[dotted.path]`` header; blocks are separated by one
    empty line and every line ends with a newline.
    """
    blocks = []

    def emit(table: dict, path: list[str]) -> None:
        lines = ["[" + ".".join(key(part) for part in path) + "]"] if path else []
        for name in sorted(table):
            if not isinstance(table[name], dict):
                lines.append(f"{key(name)} = {value(table[name])}")
        if lines:
            blocks.append("\n".join(lines) + "\n")
        for name in sorted(table):
            if isinstance(table[name], dict):
                emit(table[name], path + [name])

    emit(config, [])
    return "\n".join(blocks)


def toml_string(text: str) -> str:
    """Quote ``text`` as a TOML basic string."""
    out = []
    for char in text:
        if char in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_key(name: str) -> str:
    """Write a key bare when possible, otherwise as a quoted string."""
    return name if _BARE_KEY.fullmatch(name) else toml_string(name)


def toml_value(value: Any) -> str:
    """Render a value in TOML syntax; tables inside arrays become inline tables."""
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = ", ".join(f"{_toml_key(name)} = {toml_value(value[name])}"
                          for name in sorted(value))
        return "{ " + items + " }"
    return scalar_text(value)


def _leaves(table: dict, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Yield ``(key path, value)`` for every non-table value, descending into tables."""
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _leaves(value, path + (name,))
        else:
            yield path + (name,), value


def _env_lines(config: dict, prefix: str) -> str:
    """One ``PREFIX__A__B=value`` line per leaf, sorted by variable name."""
    lines = []
    for path, value in _leaves(config):
        name = "__".join([prefix] + [part.upper() for part in path])
        lines.append((name, f"{name}={plain_text(value)}\n"))
    return "".join(line for _, line in sorted(lines))
