"""Structural diff: compute a JSON Patch that turns one document into another.

The algorithm is deterministic so that its output can be relied upon:

* equal values (in the sense of :func:`jsonkit.json_equal`) produce no operation;
* two objects are compared key by key over the union of their keys in sorted order:
  a key only in the source is removed, a key only in the target is added, a key in both
  is diffed recursively;
* two arrays lose their longest common prefix and then their longest common suffix
  (never overlapping the prefix); the remaining middle parts are diffed position by
  position, surplus source elements are removed from the highest index down and surplus
  target elements are added in ascending index order;
* anything else (different types, different scalars) is a single ``replace``.
"""

from __future__ import annotations

import copy
from typing import Any

from .pointer import format_pointer
from .values import json_equal

Path = list[str | int]


def diff(source: Any, target: Any) -> list[dict[str, Any]]:
    """Return a JSON Patch that transforms *source* into *target*.

    ``apply_patch(source, diff(source, target))`` equals *target*.  Only ``add``,
    ``remove`` and ``replace`` operations are produced; their values are deep copies.
    """
    operations: list[dict[str, Any]] = []
    _diff(source, target, [], operations)
    return operations


def _diff(source: Any, target: Any, path: Path, operations: list[dict[str, Any]]) -> None:
    """Append to *operations* the changes from *source* to *target* below *path*."""
    if json_equal(source, target):
        return
    if isinstance(source, dict) and isinstance(target, dict):
        _diff_objects(source, target, path, operations)
    elif isinstance(source, list) and isinstance(target, list):
        _diff_arrays(source, target, path, operations)
    else:
        operations.append(_operation("replace", path, target))


def _diff_objects(source: dict, target: dict, path: Path, operations: list[dict[str, Any]]) -> None:
    """Compare two objects over the sorted union of their keys."""
    for key in sorted(source.keys() | target.keys()):
        if key not in target:
            operations.append(_operation("remove", path + [key]))
        elif key not in source:
            operations.append(_operation("add", path + [key], target[key]))
        else:
            _diff(source[key], target[key], path + [key], operations)


def _diff_arrays(source: list, target: list, path: Path, operations: list[dict[str, Any]]) -> None:
    """Compare two arrays after trimming their common prefix and suffix."""
    shorter = min(len(source), len(target))
    prefix = 0
    while prefix < shorter and json_equal(source[prefix], target[prefix]):
        prefix += 1
    suffix = 0
    while suffix < shorter - prefix and json_equal(source[-1 - suffix], target[-1 - suffix]):
        suffix += 1
    paired_end = shorter - suffix
    for index in range(prefix, paired_end):
        _diff(source[index], target[index], path + [index], operations)
    for index in reversed(range(paired_end, len(source) - suffix)):
        operations.append(_operation("remove", path + [index]))
    for index in range(paired_end, len(target) - suffix):
        operations.append(_operation("add", path + [index], target[index]))


def _operation(op: str, path: Path, *value: Any) -> dict[str, Any]:
    """Build one patch operation; *value* is given for ``add`` and ``replace``."""
    operation: dict[str, Any] = {"op": op, "path": format_pointer(path)}
    if value:
        operation["value"] = copy.deepcopy(value[0])
    return operation
