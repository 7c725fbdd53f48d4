"""Exception hierarchy shared by every jsonkit module.

Every error raised on purpose by jsonkit derives from :class:`JsonKitError`, so callers
can catch the whole family with one ``except`` clause and still tell problems apart by
subclass.
"""

from __future__ import annotations

from typing import Any


class JsonKitError(Exception):
    """Base class of every error raised deliberately by jsonkit."""


class PointerError(JsonKitError):
    """Base class of JSON Pointer (RFC 6901) problems."""


class PointerSyntaxError(PointerError, ValueError):
    """A string is not a syntactically valid JSON Pointer."""


class PointerResolveError(PointerError, LookupError):
    """A well-formed pointer does not reference a value inside a document.

    ``pointer`` is the pointer that failed and ``reason`` says why, for example
    ``"no member 'name'"`` or ``"index 3 out of range"``.
    """

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(f"cannot resolve '{pointer}': {reason}")
        self.pointer = pointer
        self.reason = reason


class PatchError(JsonKitError):
    """Base class of JSON Patch (RFC 6902) failures.

    ``index`` is the zero-based position of the failing operation in the patch (``None``
    when the patch as a whole is malformed) and ``operation`` is that operation exactly as
    it appeared in the patch.  The message starts with ``"operation <index>: "`` whenever
    the index is known.
    """

    def __init__(self, reason: str, *, index: int | None = None, operation: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.index = index
        self.operation = operation

    def __str__(self) -> str:
        if self.index is None:
            return self.reason
        return f"operation {self.index}: {self.reason}"


class InvalidPatchError(PatchError):
    """The patch document or one of its operations is malformed."""


class PatchConflictError(PatchError):
    """A well-formed operation cannot be applied to the document it is applied to."""


class PatchTestError(PatchError):
    """A ``test`` operation found a missing or different value."""


class UnflattenError(JsonKitError, ValueError):
    """A pointer-to-value mapping cannot be turned back into one document."""


class CanonicalError(JsonKitError, ValueError):
    """A value cannot be written as canonical JSON."""
