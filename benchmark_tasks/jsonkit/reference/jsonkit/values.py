"""Helpers that classify and compare JSON values held as Python objects.

A JSON value is represented by ``dict`` (object, string keys), ``list`` (array), ``str``,
``int`` or ``float`` (number), ``bool`` and ``None``.
"""

from __future__ import annotations

from typing import Any


def json_type(value: Any) -> str:
    """Return the JSON type name of *value*.

    The names are ``object``, ``array``, ``string``, ``number``, ``boolean`` and ``null``;
    any other Python object yields its class name.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def json_equal(left: Any, right: Any) -> bool:
    """Compare two JSON values the way RFC 6902's ``test`` operation does.

    Numbers are equal when numerically equal (``1 == 1.0``), booleans are never equal to
    numbers, objects are equal when they have the same keys with equal values regardless of
    order, and arrays are equal when they have equal elements in the same order.
    """
    left_type, right_type = json_type(left), json_type(right)
    if left_type != right_type:
        return False
    if left_type == "object":
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    if left_type == "array":
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right))
    return left == right
