"""Classification, numeric-aware ordering and formatting of cell values.

All cells are strings.  A cell is *numeric* when it is a decimal number
literal; the ordering used everywhere in csvq puts empty cells first, then
numeric cells by value, then all other cells by code point.
"""

import math
import re

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def is_number(value: str) -> bool:
    """Return True if ``value`` is a decimal number literal such as ``-1.5e3``."""
    return _NUMBER.fullmatch(value) is not None


def is_integer(value: str) -> bool:
    """Return True if ``value`` is an integer literal such as ``+42``."""
    return _INTEGER.fullmatch(value) is not None


def order_key(value: str) -> tuple[int, float, str]:
    """Return a sort key implementing csvq's total order of cell values."""
    if value == "":
        return (0, 0.0, "")
    if is_number(value):
        return (1, float(value), "")
    return (2, 0.0, value)


def compare_values(a: str, b: str) -> int:
    """Compare two cell values; return -1, 0 or 1 like a classic ``cmp``."""
    key_a, key_b = order_key(a), order_key(b)
    return (key_a > key_b) - (key_a < key_b)


def format_number(number: float) -> str:
    """Format a computed number with at most six decimals and no trailing zeros."""
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def sum_values(values: list[str]) -> str:
    """Add numeric literals; integers stay exact, anything else is rounded."""
    if all(is_integer(value) for value in values):
        return str(sum(int(value) for value in values))
    return format_number(math.fsum(float(value) for value in values))


def mean_values(values: list[str]) -> str:
    """Return the arithmetic mean of numeric literals, or ``""`` if there are none."""
    if not values:
        return ""
    if all(is_integer(value) for value in values):
        return format_number(sum(int(value) for value in values) / len(values))
    return format_number(math.fsum(float(value) for value in values) / len(values))
