"""jsonkit: JSON document processing with the standard library only.

* JSON Pointer (RFC 6901): :func:`parse_pointer`, :func:`format_pointer`,
  :func:`escape_token`, :func:`unescape_token`, :func:`resolve`, :func:`get`
* JSON Patch (RFC 6902): :func:`apply_patch`
* structural diff producing a JSON Patch: :func:`diff`
* JSON Merge Patch (RFC 7396): :func:`merge_patch`
* pointer/leaf flattening: :func:`flatten`, :func:`unflatten`
* canonical serialization: :func:`canonical_dumps`
* JSON value equality: :func:`json_equal`
"""

from .canonical import canonical_dumps
from .diff import diff
from .errors import (
    CanonicalError,
    InvalidPatchError,
    JsonKitError,
    PatchConflictError,
    PatchError,
    PatchTestError,
    PointerError,
    PointerResolveError,
    PointerSyntaxError,
    UnflattenError,
)
from .flatten import flatten, unflatten
from .merge import merge_patch
from .patch import apply_patch
from .pointer import escape_token, format_pointer, get, parse_pointer, resolve, unescape_token
from .values import json_equal

__version__ = "1.0.0"

__all__ = [
    "CanonicalError",
    "InvalidPatchError",
    "JsonKitError",
    "PatchConflictError",
    "PatchError",
    "PatchTestError",
    "PointerError",
    "PointerResolveError",
    "PointerSyntaxError",
    "UnflattenError",
    "apply_patch",
    "canonical_dumps",
    "diff",
    "escape_token",
    "flatten",
    "format_pointer",
    "get",
    "json_equal",
    "merge_patch",
    "parse_pointer",
    "resolve",
    "unescape_token",
    "unflatten",
    "__version__",
]
