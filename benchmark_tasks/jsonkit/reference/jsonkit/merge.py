"""JSON Merge Patch (RFC 7396)."""

from __future__ import annotations

import copy
from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply the merge patch *patch* to *target* and return the result.

    An object patch is merged member by member: a ``null`` member deletes the key, any
    other member is merged recursively into the target's value (a non-object target is
    treated as an empty object).  A patch that is not an object replaces the target.
    Neither argument is mutated and the result shares no mutable object with them.
    """
    return _merge(copy.deepcopy(target), patch)


def _merge(target: Any, patch: Any) -> Any:
    """Merge *patch* into *target*, which the caller owns and may be modified in place."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge(target.get(key), value)
    return target
