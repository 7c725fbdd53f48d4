"""Scalar coercion and the textual rendering of values shared by several modules."""

import json
import re
from collections.abc import Sequence
from typing import Any

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def contains_null(value: Any) -> bool:
    """Return True if ``value`` is None or holds None at any depth."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(contains_null(item) for item in value.values())
    if isinstance(value, list):
        return any(contains_null(item) for item in value)
    return False


def _json_or_none(text: str) -> Any:
    """Decode ``text`` as JSON, returning None when it is not valid JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def coerce(text: str) -> Any:
    """Convert an INI value or environment variable value to a typed value."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        decoded = _json_or_none(text)
        if isinstance(decoded, str):
            return decoded
    elif text.startswith("["):
        decoded = _json_or_none(text)
        if isinstance(decoded, list) and not contains_null(decoded):
            return decoded
    return text


def canonical(value: Any) -> str:
    """Return the canonical JSON text used to decide whether two values are the same."""
    return json.dumps(value, sort_keys=True)


def compact_json(value: Any) -> str:
    """Serialise ``value`` as one line of JSON with sorted keys, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def scalar_text(value: Any) -> str:
    """Render a string, boolean, integer or float as plain text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _needs_quotes(text: str) -> bool:
    """Tell whether a string must be quoted to survive a round trip through ``coerce``."""
    if text == "" or text != text.strip():
        return True
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        return True
    result = coerce(text)
    return not (isinstance(result, str) and result == text)


def plain_text(value: Any) -> str:
    """Render a leaf value for INI and env output so that ``coerce`` reads it back."""
    if isinstance(value, (list, dict)):
        return compact_json(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if _needs_quotes(value) else value
    return scalar_text(value)


def format_path(parts: Sequence[str | int]) -> str:
    """Format a key path: keys joined with ``.``, list indices as ``[i]``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = part
    return text or "<root>"
