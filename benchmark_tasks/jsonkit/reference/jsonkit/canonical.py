"""Canonical JSON serialization.

The canonical form of a value is unique, so two equal documents serialize to the same
string:

* object keys are sorted by code point, ``,`` and ``:`` are the only separators and no
  whitespace is written outside strings;
* strings escape only ``"``, ``\\`` and control characters (``\\b \\f \\n \\r \\t`` in
  short form, the others as ``\\u00XX`` with lower-case hex); all other characters,
  including non-ASCII ones, are written as they are;
* integers are written in decimal; a float with an integral value whose magnitude is
  below 2**53 is written as that integer (``1.0`` -> ``1``, ``-0.0`` -> ``0``), any other
  finite float as Python's shortest round-trip ``repr`` (``0.1``, ``1e-07``, ``1e+22``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import CanonicalError

#: Integral floats below this magnitude are exactly representable and written as integers.
EXACT_INTEGER_LIMIT = 2**53


def canonical_dumps(value: Any) -> str:
    """Return the canonical JSON text of *value* (no trailing newline).

    Raises :class:`CanonicalError` for NaN and infinities, for non-string object keys and
    for any value that is not a dict, list, str, int, float, bool or None.
    """
    parts: list[str] = []
    _encode(value, parts)
    return "".join(parts)


def format_number(number: int | float) -> str:
    """Return the canonical text of one number."""
    if isinstance(number, int):
        return str(int(number))
    if not math.isfinite(number):
        raise CanonicalError(f"{number!r} is not a valid JSON number")
    if number.is_integer() and abs(number) < EXACT_INTEGER_LIMIT:
        return str(int(number))
    return repr(number)


def _encode_string(text: str) -> str:
    """Return the canonical text of one string."""
    return json.dumps(text, ensure_ascii=False)


def _encode(value: Any, parts: list[str]) -> None:
    """Append the canonical text of *value* to *parts*."""
    if value is None:
        parts.append("null")
    elif isinstance(value, bool):
        parts.append("true" if value else "false")
    elif isinstance(value, (int, float)):
        parts.append(format_number(value))
    elif isinstance(value, str):
        parts.append(_encode_string(value))
    elif isinstance(value, dict):
        _encode_object(value, parts)
    elif isinstance(value, list):
        parts.append("[")
        for position, item in enumerate(value):
            if position:
                parts.append(",")
            _encode(item, parts)
        parts.append("]")
    else:
        raise CanonicalError(f"a value of type {type(value).__name__} is not JSON-serializable")


def _encode_object(value: dict, parts: list[str]) -> None:
    """Append the canonical text of an object, members sorted by key."""
    for key in value:
        if not isinstance(key, str):
            raise CanonicalError(f"object keys must be strings, not {type(key).__name__}")
    parts.append("{")
    for position, key in enumerate(sorted(value)):
        if position:
            parts.append(",")
        parts.append(_encode_string(key))
        parts.append(":")
        _encode(value[key], parts)
    parts.append("}")
