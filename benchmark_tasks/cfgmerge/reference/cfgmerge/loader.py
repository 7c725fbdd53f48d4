"""Reading configuration layers from JSON, TOML and INI text."""

import datetime
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import LoadError
from .values import coerce

FORMATS_BY_SUFFIX = {".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini"}

_TOML_POSITION = re.compile(r"^(?P<detail>.*) \(at line (?P<line>\d+), column \d+\)$", re.S)


def load(path: str | os.PathLike) -> dict:
    """Read one configuration file; its format is chosen by the file name extension."""
    name = str(path)
    suffix = Path(name).suffix.lower()
    fmt = FORMATS_BY_SUFFIX.get(suffix)
    if fmt is None:
        raise LoadError(name, None, f"unsupported file type '{suffix}'")
    try:
        with open(name, encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        raise LoadError(name, None, "cannot read file") from None
    return loads(text, fmt, name=name)


def loads(text: str, fmt: str, *, name: str = "<string>") -> dict:
    """Parse configuration text in format ``"json"``, ``"toml"`` or ``"ini"``."""
    if fmt == "json":
        return _parse_json(text, name)
    if fmt == "toml":
        return _parse_toml(text, name)
    if fmt == "ini":
        return IniParser(name).parse(text)
    raise ValueError(f"unknown format: {fmt!r}")


def _parse_json(text: str, name: str) -> dict:
    """Parse a JSON layer: an object whose nulls may only be member values outside arrays."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(name, exc.lineno, exc.msg) from None
    if not isinstance(data, dict):
        raise LoadError(name, None, "top-level value must be an object")
    _reject_nulls_in_arrays(data, name, inside_array=False)
    return data


def _reject_nulls_in_arrays(value: Any, name: str, *, inside_array: bool) -> None:
    """Raise LoadError if a null occurs inside an array at any depth."""
    if value is None and inside_array:
        raise LoadError(name, None, "null is not allowed inside arrays")
    if isinstance(value, dict):
        for item in value.values():
            _reject_nulls_in_arrays(item, name, inside_array=inside_array)
    elif isinstance(value, list):
        for item in value:
            _reject_nulls_in_arrays(item, name, inside_array=True)


def _parse_toml(text: str, name: str) -> dict:
    """Parse a TOML layer with tomllib, turning dates and times into ISO 8601 strings."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_POSITION.match(message)
        if match:
            raise LoadError(name, int(match["line"]), match["detail"]) from None
        raise LoadError(name, None, message) from None
    return _stringify_dates(data)


def _stringify_dates(value: Any) -> Any:
    """Replace date, time and datetime objects by their ``isoformat()`` text."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _stringify_dates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_stringify_dates(item) for item in value]
    return value


class IniParser:
    """Line-oriented parser for the INI dialect described in the requirements."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.root: dict = {}
        self.current: dict = self.root
        self.declared: set[tuple[str, ...]] = set()

    def parse(self, text: str) -> dict:
        """Parse the whole text and return the resulting nested dict."""
        for number, raw in enumerate(text.split("\n"), start=1):
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                self._section(line, number)
            elif "=" in line:
                self._assignment(line, number)
            else:
                self._fail(number, "expected 'key = value'")
        return self.root

    def _fail(self, number: int, detail: str) -> None:
        raise LoadError(self.name, number, detail)

    def _section(self, line: str, number: int) -> None:
        """Handle a ``[a.b]`` header: create nested tables and make the last one current."""
        if not line.endswith("]"):
            self._fail(number, "invalid section header")
        parts = tuple(part.strip() for part in line[1:-1].split("."))
        if any(not part for part in parts):
            self._fail(number, "invalid section header")
        if parts in self.declared:
            self._fail(number, f"duplicate section '{'.'.join(parts)}'")
        self.declared.add(parts)
        table = self.root
        for part in parts:
            child = table.setdefault(part, {})
            if not isinstance(child, dict):
                self._fail(number, f"duplicate key '{part}'")
            table = child
        self.current = table

    def _assignment(self, line: str, number: int) -> None:
        """Handle ``key = value`` in the current section."""
        key, _, value = line.partition("=")
        key = key.strip()
        if not key:
            self._fail(number, "empty key")
        if key in self.current:
            self._fail(number, f"duplicate key '{key}'")
        self.current[key] = coerce(value.strip())
