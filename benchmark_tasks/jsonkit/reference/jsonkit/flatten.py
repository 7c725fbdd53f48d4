"""Flattening a document into pointer/leaf pairs and rebuilding it.

A *leaf* is a scalar (string, number, boolean, null) or an empty object or array.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from .errors import UnflattenError
from .pointer import format_pointer, parse_pointer


def flatten(document: Any) -> dict[str, Any]:
    """Map the pointer of every leaf in *document* to (a copy of) that leaf.

    Entries appear in document order: object members in insertion order, array elements
    by index, depth first.  A document that is itself a leaf gives ``{"": document}``.
    """
    leaves: dict[str, Any] = {}
    _collect(document, [], leaves)
    return leaves


def _collect(value: Any, path: list[str | int], leaves: dict[str, Any]) -> None:
    """Add the leaves below *value*, which sits at *path*, to *leaves*."""
    if isinstance(value, dict) and value:
        for key, child in value.items():
            _collect(child, path + [key], leaves)
    elif isinstance(value, list) and value:
        for index, child in enumerate(value):
            _collect(child, path + [index], leaves)
    else:
        leaves[format_pointer(path)] = copy.deepcopy(value)


class _Node:
    """A location in the document being rebuilt: either a leaf or a container of children."""

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.pointer: str | None = None
        self.value: Any = None

    @property
    def is_leaf(self) -> bool:
        """Whether a value has been placed at this node."""
        return self.pointer is not None

    def build(self) -> Any:
        """Return the JSON value this node stands for."""
        if self.is_leaf:
            return copy.deepcopy(self.value)
        keys = self.children.keys()
        if keys == {str(index) for index in range(len(keys))}:
            return [self.children[str(index)].build() for index in range(len(keys))]
        return {key: child.build() for key, child in self.children.items()}


def unflatten(leaves: Mapping[str, Any]) -> Any:
    """Rebuild a document from a pointer-to-value mapping such as :func:`flatten` returns.

    A container whose child tokens are exactly ``"0"`` to ``"n-1"`` becomes an array,
    every other container an object with keys in first-appearance order.  An empty mapping
    gives ``{}``.  Raises :class:`UnflattenError` when one pointer is a proper prefix of
    another, and :class:`PointerSyntaxError` for a malformed pointer.
    """
    if not leaves:
        return {}
    root = _Node()
    for pointer, value in leaves.items():
        node = root
        for token in parse_pointer(pointer):
            if node.is_leaf:
                raise UnflattenError(f"conflicting pointers '{node.pointer}' and '{pointer}'")
            node = node.children.setdefault(token, _Node())
        if node.children:
            other = next(iter(_leaf_pointers(node)))
            raise UnflattenError(f"conflicting pointers '{pointer}' and '{other}'")
        node.pointer, node.value = pointer, value
    return root.build()


def _leaf_pointers(node: _Node) -> Iterator[str]:
    """Yield the pointers of the leaves at or below *node*."""
    if node.is_leaf:
        yield node.pointer
    for child in node.children.values():
        yield from _leaf_pointers(child)
