"""``${...}`` interpolation of string values with cycle detection."""

import copy
import os
import re
from collections.abc import Mapping
from typing import Any

from .errors import InterpolationError
from .values import format_path, scalar_text

_NAME = r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*"
_WHOLE = re.compile(r"\$\{(" + _NAME + r")\}")
_VALID_NAME = re.compile(_NAME)
_TOKEN = re.compile(r"\$\$\{|\$\{(?:(?P<name>[^}]*)\})?")
_MISSING = object()


def interpolate(config: dict, environ: Mapping[str, str] | None = None) -> dict:
    """Return a copy of ``config`` with every ``${name}`` reference in strings resolved.

    A name is looked up as a dotted key of ``config`` first and as an environment variable
    second. ``environ`` defaults to ``os.environ``.
    """
    resolver = _Resolver(config, os.environ if environ is None else environ)
    return resolver.resolve((), config)


class _Resolver:
    """Resolve values depth-first, remembering finished paths and the paths in progress."""

    def __init__(self, config: dict, environ: Mapping[str, str]) -> None:
        self.config = config
        self.environ = environ
        self.finished: dict[str, Any] = {}
        self.in_progress: list[str] = []

    def resolve(self, parts: tuple, value: Any) -> Any:
        """Return the fully interpolated form of ``value`` located at ``parts``."""
        path = format_path(parts)
        if path in self.finished:
            return copy.deepcopy(self.finished[path])
        if path in self.in_progress:
            chain = self.in_progress[self.in_progress.index(path):] + [path]
            raise InterpolationError("reference cycle: " + " -> ".join(chain))
        self.in_progress.append(path)
        if isinstance(value, dict):
            done = {key: self.resolve(parts + (key,), value[key]) for key in sorted(value)}
            result = {key: done[key] for key in value}
        elif isinstance(value, list):
            result = [self.resolve(parts + (index,), item) for index, item in enumerate(value)]
        elif isinstance(value, str):
            result = self._expand(value, path)
        else:
            result = value
        self.in_progress.pop()
        self.finished[path] = result
        return copy.deepcopy(result)

    def _expand(self, text: str, path: str) -> Any:
        """Interpolate one string found at ``path``."""
        whole = _WHOLE.fullmatch(text)
        if whole:
            return self._reference(whole.group(1), path)
        pieces = []
        position = 0
        for match in _TOKEN.finditer(text):
            pieces.append(text[position:match.start()])
            position = match.end()
            if match.group(0) == "$${":
                pieces.append("${")
                continue
            name = match.group("name")
            if name is None or not _VALID_NAME.fullmatch(name):
                raise InterpolationError(f"malformed reference at {path}")
            value = self._reference(name, path)
            if isinstance(value, (dict, list)):
                raise InterpolationError(f"cannot embed table or array '${{{name}}}' at {path}")
            pieces.append(scalar_text(value))
        pieces.append(text[position:])
        return "".join(pieces)

    def _reference(self, name: str, path: str) -> Any:
        """Resolve ``name`` as a config key, else as an environment variable."""
        node: Any = self.config
        keys = tuple(name.split("."))
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                node = _MISSING
                break
            node = node[key]
        if node is not _MISSING:
            return self.resolve(keys, node)
        if name in self.environ:
            return self.environ[name]
        raise InterpolationError(f"unresolved reference '${{{name}}}' at {path}")
