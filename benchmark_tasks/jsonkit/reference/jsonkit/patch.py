"""JSON Patch (RFC 6902) application.

:func:`apply_patch` works on a deep copy of the document, so the input is never mutated
and a patch that fails part-way leaves nothing half-applied: either every operation
succeeds and the new document is returned, or an exception is raised.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import (
    InvalidPatchError,
    PatchConflictError,
    PatchError,
    PatchTestError,
    PointerResolveError,
    PointerSyntaxError,
)
from .pointer import array_index, parse_pointer, walk
from .values import json_equal, json_type

#: The members each operation requires besides ``op``.
REQUIRED_MEMBERS: dict[str, tuple[str, ...]] = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}


@dataclass(frozen=True)
class Operation:
    """One validated patch operation with its pointers already parsed."""

    op: str
    pointer: str
    path: list[str]
    from_pointer: str | None = None
    source: list[str] | None = None
    value: Any = None


def parse_operation(raw: Any) -> Operation:
    """Validate one raw operation and return it parsed.

    Raises :class:`InvalidPatchError` (without an index) when the operation is malformed.
    """
    if not isinstance(raw, dict):
        raise InvalidPatchError(f"an operation must be an object, not {json_type(raw)}")
    if "op" not in raw:
        raise InvalidPatchError("missing member 'op'")
    op = raw["op"]
    if not isinstance(op, str) or op not in REQUIRED_MEMBERS:
        raise InvalidPatchError(f"unknown op {op!r}")
    for member in REQUIRED_MEMBERS[op]:
        if member not in raw:
            raise InvalidPatchError(f"missing member '{member}'")
    path = _parse_member("path", raw["path"])
    from_pointer = source = None
    if op in ("move", "copy"):
        from_pointer = raw["from"]
        source = _parse_member("from", from_pointer)
    if op == "move" and len(source) < len(path) and path[: len(source)] == source:
        raise InvalidPatchError("cannot move a value into one of its own children")
    return Operation(op, raw["path"], path, from_pointer, source, raw.get("value"))


def _parse_member(member: str, pointer: Any) -> list[str]:
    """Parse the pointer held by the ``path`` or ``from`` member of an operation."""
    if not isinstance(pointer, str):
        raise InvalidPatchError(f"member '{member}' must be a string, not {json_type(pointer)}")
    try:
        return parse_pointer(pointer)
    except PointerSyntaxError as exc:
        raise InvalidPatchError(f"member '{member}': {exc}") from exc


def _locate(document: Any, tokens: list[str], pointer: str, *, allow_end: bool) -> tuple[Any, Any]:
    """Return the container holding the last token of *tokens* and the key or index in it."""
    parent = walk(document, tokens[:-1], pointer)
    token = tokens[-1]
    if isinstance(parent, dict):
        return parent, token
    if isinstance(parent, list):
        return parent, array_index(parent, token, pointer, allow_end=allow_end)
    raise PointerResolveError(pointer, f"cannot descend into {json_type(parent)}")


def _add(document: Any, tokens: list[str], pointer: str, value: Any) -> Any:
    """Insert or set *value* at *tokens*; the root is replaced outright."""
    if not tokens:
        return value
    parent, key = _locate(document, tokens, pointer, allow_end=True)
    if isinstance(parent, list):
        parent.insert(key, value)
    else:
        parent[key] = value
    return document


def _remove(document: Any, tokens: list[str], pointer: str) -> Any:
    """Remove the existing value at *tokens* and return it."""
    if not tokens:
        raise PatchConflictError("cannot remove the document root")
    parent, key = _locate(document, tokens, pointer, allow_end=False)
    if isinstance(parent, dict) and key not in parent:
        raise PointerResolveError(pointer, f"no member '{key}'")
    return parent.pop(key)


def _do_add(document: Any, operation: Operation) -> Any:
    """Apply an ``add`` operation."""
    return _add(document, operation.path, operation.pointer, copy.deepcopy(operation.value))


def _do_remove(document: Any, operation: Operation) -> Any:
    """Apply a ``remove`` operation."""
    _remove(document, operation.path, operation.pointer)
    return document


def _do_replace(document: Any, operation: Operation) -> Any:
    """Apply a ``replace`` operation; the target must already exist."""
    value = copy.deepcopy(operation.value)
    if not operation.path:
        return value
    parent, key = _locate(document, operation.path, operation.pointer, allow_end=False)
    if isinstance(parent, dict) and key not in parent:
        raise PointerResolveError(operation.pointer, f"no member '{key}'")
    parent[key] = value
    return document


def _do_move(document: Any, operation: Operation) -> Any:
    """Apply a ``move`` operation: remove at ``from``, then add at ``path``."""
    if operation.source == operation.path:
        walk(document, operation.source, operation.from_pointer)
        return document
    value = _remove(document, operation.source, operation.from_pointer)
    return _add(document, operation.path, operation.pointer, value)


def _do_copy(document: Any, operation: Operation) -> Any:
    """Apply a ``copy`` operation: add a deep copy of the value at ``from``."""
    value = copy.deepcopy(walk(document, operation.source, operation.from_pointer))
    return _add(document, operation.path, operation.pointer, value)


def _do_test(document: Any, operation: Operation) -> Any:
    """Apply a ``test`` operation; the document is returned unchanged."""
    try:
        actual = walk(document, operation.path, operation.pointer)
    except PointerResolveError as exc:
        raise PatchTestError(f"test failed: {exc}") from exc
    if not json_equal(actual, operation.value):
        raise PatchTestError(f"test failed: value at '{operation.pointer}' differs")
    return document


_HANDLERS: dict[str, Callable[[Any, Operation], Any]] = {
    "add": _do_add,
    "remove": _do_remove,
    "replace": _do_replace,
    "move": _do_move,
    "copy": _do_copy,
    "test": _do_test,
}


def apply_patch(document: Any, patch: list[dict[str, Any]]) -> Any:
    """Apply the JSON Patch *patch* to *document* and return the patched document.

    Neither argument is mutated and the result shares no mutable object with them.
    Operations are processed in order; the first one that is malformed or fails raises a
    :class:`PatchError` subclass whose ``index`` and ``operation`` identify it.
    """
    if not isinstance(patch, list):
        raise InvalidPatchError(f"a patch must be an array of operations, not {json_type(patch)}")
    result = copy.deepcopy(document)
    for index, raw in enumerate(patch):
        try:
            operation = parse_operation(raw)
            result = _HANDLERS[operation.op](result, operation)
        except PointerResolveError as exc:
            raise PatchConflictError(str(exc), index=index, operation=raw) from exc
        except PatchError as exc:
            exc.index, exc.operation = index, raw
            raise
    return result
