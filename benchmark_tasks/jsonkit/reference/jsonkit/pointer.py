"""JSON Pointer (RFC 6901): parsing, escaping and resolution.

A pointer is either the empty string (the whole document) or a sequence of ``/``-prefixed
reference tokens in which ``~0`` stands for ``~`` and ``~1`` for ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .errors import PointerResolveError, PointerSyntaxError
from .values import json_type

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_BAD_ESCAPE = re.compile(r"~(?![01])")

#: The reference token that names the (nonexistent) element after the last one of an array.
END_OF_ARRAY = "-"


def escape_token(token: str) -> str:
    """Escape one reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """Undo :func:`escape_token`.

    Raises :class:`PointerSyntaxError` when a ``~`` is not followed by ``0`` or ``1``.
    """
    if _BAD_ESCAPE.search(token):
        raise PointerSyntaxError(f"invalid escape sequence in reference token '{token}'")
    # ``~1`` must be decoded first so that ``~01`` yields ``~1`` and not ``/``.
    return token.replace("~1", "/").replace("~0", "~")


def parse_pointer(pointer: str) -> list[str]:
    """Split *pointer* into its unescaped reference tokens.

    ``""`` gives ``[]`` and ``"/"`` gives ``[""]``.  Raises :class:`PointerSyntaxError` for a
    non-string, for a non-empty string that does not start with ``/`` and for bad escapes.
    """
    if not isinstance(pointer, str):
        raise PointerSyntaxError(f"a pointer must be a string, not {type(pointer).__name__}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerSyntaxError(f"pointer '{pointer}' must be empty or start with '/'")
    return [unescape_token(token) for token in pointer[1:].split("/")]


def format_pointer(tokens: Iterable[str | int]) -> str:
    """Build a pointer from reference tokens, escaping each one; integers become indices."""
    return "".join("/" + escape_token(str(token)) for token in tokens)


def array_index(array: list[Any], token: str, pointer: str, *, allow_end: bool = False) -> int:
    """Return the position in *array* named by *token*.

    With ``allow_end`` the position just past the last element is accepted, either as
    ``len(array)`` or as ``-``; this is what insertion needs.  Raises
    :class:`PointerResolveError` (reporting *pointer*) for malformed or out-of-range indices.
    """
    if token == END_OF_ARRAY:
        if allow_end:
            return len(array)
        raise PointerResolveError(pointer, "index '-' is past the end of the array")
    if not _ARRAY_INDEX.fullmatch(token):
        raise PointerResolveError(pointer, f"invalid array index '{token}'")
    index = int(token)
    limit = len(array) + 1 if allow_end else len(array)
    if index >= limit:
        raise PointerResolveError(pointer, f"index {index} out of range")
    return index


def step(value: Any, token: str, pointer: str) -> Any:
    """Return the child of *value* named by one reference token."""
    if isinstance(value, dict):
        if token not in value:
            raise PointerResolveError(pointer, f"no member '{token}'")
        return value[token]
    if isinstance(value, list):
        return value[array_index(value, token, pointer)]
    raise PointerResolveError(pointer, f"cannot descend into {json_type(value)}")


def walk(document: Any, tokens: Sequence[str], pointer: str) -> Any:
    """Follow already parsed *tokens* from *document*; errors report *pointer*."""
    value = document
    for token in tokens:
        value = step(value, token, pointer)
    return value


def resolve(document: Any, pointer: str) -> Any:
    """Return the value *pointer* references inside *document* (the object itself, not a copy).

    Raises :class:`PointerSyntaxError` for a malformed pointer and
    :class:`PointerResolveError` when the referenced value does not exist.
    """
    return walk(document, parse_pointer(pointer), pointer)


def get(document: Any, pointer: str, default: Any = None) -> Any:
    """Like :func:`resolve`, but return *default* when the value does not exist.

    A malformed pointer still raises :class:`PointerSyntaxError`.
    """
    tokens = parse_pointer(pointer)
    try:
        return walk(document, tokens, pointer)
    except PointerResolveError:
        return default
