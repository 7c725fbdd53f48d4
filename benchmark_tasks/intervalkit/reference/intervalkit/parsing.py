"""The textual form of intervals: ``[1, 5)``, ``(-inf, 0]``, ``[2.5, +inf)`` and ``∅``.

A bracket means the endpoint belongs to the interval, a parenthesis that it does not.  The
lower endpoint ``-inf`` and the upper endpoint ``+inf`` (or ``inf``) mark unbounded ends,
which must be written with parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .errors import IntervalParseError

EMPTY_TEXT = "∅"
LOWER_INFINITY = "-inf"
UPPER_INFINITY = "+inf"

_LOWER_INFINITY_TOKENS = frozenset({LOWER_INFINITY})
_UPPER_INFINITY_TOKENS = frozenset({UPPER_INFINITY, "inf"})
_ENDPOINT = r"([^,\s](?:[^,]*[^,\s])?)"
_INTERVAL_RE = re.compile(rf"([\[(])\s*{_ENDPOINT}\s*,\s*{_ENDPOINT}\s*([\])])")
_INT_RE = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")

Converter = Callable[[str], Any]


def format_endpoint(value: Any, *, lower: bool) -> str:
    """Write one endpoint; ``None`` is the infinity of the matching side."""
    if value is None:
        return LOWER_INFINITY if lower else UPPER_INFINITY
    return str(value)


def parse_number(token: str) -> int | float:
    """Convert an endpoint token to ``int`` if it is an integer literal, else to ``float``."""
    if _INT_RE.fullmatch(token):
        return int(token)
    if _FLOAT_RE.fullmatch(token):
        return float(token)
    raise ValueError(f"not a number: {token!r}")


def parse_interval_text(
    text: str, convert: Converter | None = None
) -> tuple[Any, Any, str] | None:
    """Split interval text into ``(lower, upper, bounds)``, or ``None`` for ``∅``.

    ``lower``/``upper`` are ``None`` for unbounded ends; ``bounds`` is one of ``"[]"``,
    ``"[)"``, ``"(]"`` and ``"()"``.  Endpoint tokens are converted with ``convert``
    (default: :func:`parse_number`); a ``ValueError`` or ``TypeError`` raised by the
    conversion becomes :class:`IntervalParseError`.
    """
    if not isinstance(text, str):
        raise TypeError(f"interval text must be a str, got {type(text).__name__}")
    stripped = text.strip()
    if stripped == EMPTY_TEXT:
        return None
    match = _INTERVAL_RE.fullmatch(stripped)
    if match is None:
        raise IntervalParseError(f"invalid interval text {text!r}")
    left, lower_token, upper_token, right = match.groups()
    converter = convert or parse_number
    lower = _endpoint(lower_token, _LOWER_INFINITY_TOKENS, left == "[", converter, text)
    upper = _endpoint(upper_token, _UPPER_INFINITY_TOKENS, right == "]", converter, text)
    return lower, upper, left + right


def _endpoint(
    token: str, infinities: frozenset[str], closed: bool, converter: Converter, text: str
) -> Any:
    """Convert one endpoint token; ``None`` stands for the side's infinity."""
    if token in infinities:
        if closed:
            raise IntervalParseError(f"unbounded end {token!r} must be open in {text!r}")
        return None
    if token in _LOWER_INFINITY_TOKENS | _UPPER_INFINITY_TOKENS:
        raise IntervalParseError(f"infinity {token!r} on the wrong side in {text!r}")
    try:
        return converter(token)
    except (ValueError, TypeError) as exc:
        raise IntervalParseError(f"invalid endpoint {token!r} in {text!r}") from exc
