"""Deep merging of configuration layers and environment-variable overrides."""

import copy
from collections.abc import Mapping
from typing import Any

from .values import canonical, coerce

LIST_STRATEGIES = ("append", "replace", "unique")


def merge(base: dict, overlay: dict, *, list_strategy: str = "replace") -> dict:
    """Return a new dict: ``overlay`` deep-merged onto ``base``; inputs are not modified.

    Dicts merge recursively, a None value in ``overlay`` deletes the key, two lists are
    combined according to ``list_strategy``, anything else in ``overlay`` replaces the value.
    """
    if list_strategy not in LIST_STRATEGIES:
        raise ValueError(f"unknown list strategy: {list_strategy!r}")
    result = copy.deepcopy(base)
    for key, value in overlay.items():
        current = result.get(key)
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            start = current if isinstance(current, dict) else {}
            result[key] = merge(start, value, list_strategy=list_strategy)
        elif isinstance(value, list) and isinstance(current, list):
            result[key] = _combine_lists(current, value, list_strategy)
        else:
            result[key] = copy.deepcopy(value)
    return result


def _combine_lists(base: list, overlay: list, strategy: str) -> list:
    """Combine two lists with the ``append``, ``replace`` or ``unique`` strategy."""
    if strategy == "replace":
        return copy.deepcopy(overlay)
    combined = list(base)
    if strategy == "append":
        return combined + copy.deepcopy(overlay)
    seen = {canonical(item) for item in combined}
    for item in overlay:
        key = canonical(item)
        if key not in seen:
            seen.add(key)
            combined.append(copy.deepcopy(item))
    return combined


def apply_env(config: dict, environ: Mapping[str, str], *, prefix: str = "APP") -> dict:
    """Return a copy of ``config`` with ``PREFIX__A__B=value`` variables applied as ``a.b``.

    Variables are applied in sorted name order; their values go through ``coerce``.
    """
    result = copy.deepcopy(config)
    marker = prefix + "__"
    for name in sorted(environ):
        if not name.startswith(marker):
            continue
        parts = name[len(marker):].split("__")
        if any(not part for part in parts):
            continue
        _set_path(result, [part.lower() for part in parts], coerce(environ[name]))
    return result


def _set_path(table: dict, keys: list[str], value: Any) -> None:
    """Assign ``value`` at ``keys``, replacing missing or non-dict intermediates by dicts."""
    for key in keys[:-1]:
        child = table.get(key)
        if not isinstance(child, dict):
            child = {}
            table[key] = child
        table = child
    table[keys[-1]] = value
