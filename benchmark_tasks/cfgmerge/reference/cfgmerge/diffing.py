"""Key-by-key comparison of two configurations."""

from typing import Any

from .values import canonical, compact_json


def flatten(config: dict, prefix: str = "") -> dict[str, Any]:
    """Map dotted keys to leaf values; lists and empty tables are leaves."""
    flat: dict[str, Any] = {}
    for name, value in config.items():
        key = f"{prefix}.{name}" if prefix else name
        if isinstance(value, dict) and value:
            flat.update(flatten(value, key))
        else:
            flat[key] = value
    return flat


def diff(old: dict, new: dict) -> list[str]:
    """List the added (``+``), removed (``-``) and changed (``~``) keys, sorted by key."""
    before = flatten(old)
    after = flatten(new)
    lines = []
    for key in sorted(before.keys() | after.keys()):
        if key not in before:
            lines.append(f"+ {key} = {compact_json(after[key])}")
        elif key not in after:
            lines.append(f"- {key} = {compact_json(before[key])}")
        elif canonical(before[key]) != canonical(after[key]):
            lines.append(f"~ {key}: {compact_json(before[key])} -> {compact_json(after[key])}")
    return lines
