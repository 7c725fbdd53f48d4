"""Semantic Versioning 2.0.0 versions: parsing, precedence, bumping and coercion.

The grammar and the precedence rules follow https://semver.org/spec/v2.0.0.html exactly.
All regular expressions use explicit ``[0-9]`` classes rather than ``\\d`` so that only ASCII
digits are accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import total_ordering
from typing import Union

from .errors import InvalidVersion

NUMERIC_IDENTIFIER = r"0|[1-9][0-9]*"
PRERELEASE_IDENTIFIER = r"0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*"
BUILD_IDENTIFIER = r"[0-9A-Za-z-]+"
PRERELEASE = rf"(?:{PRERELEASE_IDENTIFIER})(?:\.(?:{PRERELEASE_IDENTIFIER}))*"
BUILD = rf"{BUILD_IDENTIFIER}(?:\.{BUILD_IDENTIFIER})*"

_VERSION_RE = re.compile(
    rf"(?P<major>{NUMERIC_IDENTIFIER})\.(?P<minor>{NUMERIC_IDENTIFIER})\.(?P<patch>{NUMERIC_IDENTIFIER})"
    rf"(?:-(?P<prerelease>{PRERELEASE}))?"
    rf"(?:\+(?P<build>{BUILD}))?"
)
_PRERELEASE_IDENTIFIER_RE = re.compile(PRERELEASE_IDENTIFIER)
_BUILD_IDENTIFIER_RE = re.compile(BUILD_IDENTIFIER)
_COERCE_RE = re.compile(r"([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?")

BUMP_PARTS = ("major", "minor", "patch", "prerelease")

Identifier = Union[str, int]


def _check_number(value: object, name: str) -> int:
    """Return ``value`` if it is a non-negative ``int`` (``bool`` excluded)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidVersion(f"{name} must be an int, got {value!r}")
    if value < 0:
        raise InvalidVersion(f"{name} must be >= 0, got {value}")
    return value


def _split_identifiers(value: object, what: str) -> list[object]:
    """Turn a dot-separated string or an iterable into a list of raw identifiers."""
    if isinstance(value, str):
        return value.split(".") if value else []
    if isinstance(value, Iterable):
        return list(value)
    raise InvalidVersion(f"{what} must be a string or an iterable, got {value!r}")


def _normalize_prerelease(value: object) -> tuple[Identifier, ...]:
    """Validate pre-release identifiers, storing digit-only identifiers as ``int``."""
    identifiers: list[Identifier] = []
    for item in _split_identifiers(value, "prerelease"):
        if isinstance(item, int) and not isinstance(item, bool):
            identifiers.append(_check_number(item, "numeric prerelease identifier"))
        elif isinstance(item, str) and _PRERELEASE_IDENTIFIER_RE.fullmatch(item):
            identifiers.append(int(item) if item.isdigit() else item)
        else:
            raise InvalidVersion(f"invalid prerelease identifier: {item!r}")
    return tuple(identifiers)


def _normalize_build(value: object) -> tuple[str, ...]:
    """Validate build identifiers; they always stay strings."""
    identifiers = _split_identifiers(value, "build")
    for item in identifiers:
        if not (isinstance(item, str) and _BUILD_IDENTIFIER_RE.fullmatch(item)):
            raise InvalidVersion(f"invalid build identifier: {item!r}")
    return tuple(identifiers)


def _is_alphanumeric_identifier(identifier: str) -> bool:
    """True for a pre-release identifier that is not made only of digits."""
    return bool(_PRERELEASE_IDENTIFIER_RE.fullmatch(identifier)) and not identifier.isdigit()


@total_ordering
class Version:
    """An immutable Semantic Versioning 2.0.0 version.

    Equality, ordering and hashing follow SemVer precedence, which ignores build metadata.
    """

    __slots__ = ("_major", "_minor", "_patch", "_prerelease", "_build", "_key")

    def __init__(
        self,
        major: int,
        minor: int,
        patch: int,
        prerelease: str | Iterable[Identifier] = (),
        build: str | Iterable[str] = (),
    ) -> None:
        values = {
            "_major": _check_number(major, "major"),
            "_minor": _check_number(minor, "minor"),
            "_patch": _check_number(patch, "patch"),
            "_prerelease": _normalize_prerelease(prerelease),
            "_build": _normalize_build(build),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_key", self._precedence_key())

    @classmethod
    def parse(cls, text: str) -> Version:
        """Parse ``text`` strictly according to the SemVer 2.0.0 grammar."""
        if not isinstance(text, str):
            raise TypeError(f"version must be a str, got {type(text).__name__}")
        match = _VERSION_RE.fullmatch(text)
        if match is None:
            raise InvalidVersion(f"invalid version: {text!r}")
        return cls(
            int(match["major"]),
            int(match["minor"]),
            int(match["patch"]),
            match["prerelease"] or (),
            match["build"] or (),
        )

    @property
    def major(self) -> int:
        """The major version number."""
        return self._major

    @property
    def minor(self) -> int:
        """The minor version number."""
        return self._minor

    @property
    def patch(self) -> int:
        """The patch version number."""
        return self._patch

    @property
    def prerelease(self) -> tuple[Identifier, ...]:
        """Pre-release identifiers; numeric ones are ``int``."""
        return self._prerelease

    @property
    def build(self) -> tuple[str, ...]:
        """Build metadata identifiers, always strings."""
        return self._build

    @property
    def is_prerelease(self) -> bool:
        """True if the version carries a pre-release tag."""
        return bool(self._prerelease)

    def _precedence_key(self) -> tuple:
        """A tuple whose natural ordering is SemVer precedence.

        A release sorts after all pre-releases of the same core (flag 1 vs 0); numeric
        identifiers sort before alphanumeric ones (flag 0 vs 1); Python's tuple comparison
        already ranks a longer identifier list above its prefix.
        """
        core = (self._major, self._minor, self._patch)
        if not self._prerelease:
            return (*core, 1, ())
        identifiers = tuple(
            (0, item, "") if isinstance(item, int) else (1, 0, item) for item in self._prerelease
        )
        return (*core, 0, identifiers)

    def bump(self, part: str, identifier: str | None = None) -> Version:
        """Return the next version for ``part`` (major, minor, patch or prerelease)."""
        if part not in BUMP_PARTS:
            raise ValueError(f"unknown part {part!r}; expected one of {', '.join(BUMP_PARTS)}")
        if part == "prerelease":
            return self._bump_prerelease(identifier)
        if identifier is not None:
            raise ValueError(f"an identifier is only allowed when bumping 'prerelease', not {part!r}")
        major, minor, patch = self._major, self._minor, self._patch
        if part == "major":
            if minor == 0 and patch == 0 and self.is_prerelease:
                return Version(major, 0, 0)
            return Version(major + 1, 0, 0)
        if part == "minor":
            if patch == 0 and self.is_prerelease:
                return Version(major, minor, 0)
            return Version(major, minor + 1, 0)
        if self.is_prerelease:
            return Version(major, minor, patch)
        return Version(major, minor, patch + 1)

    def _bump_prerelease(self, identifier: str | None) -> Version:
        """Implement ``bump("prerelease", identifier)``."""
        if identifier is not None and not (
            isinstance(identifier, str) and _is_alphanumeric_identifier(identifier)
        ):
            raise InvalidVersion(f"invalid prerelease identifier for bumping: {identifier!r}")
        fresh = (identifier, 0) if identifier is not None else (0,)
        if not self._prerelease:
            return Version(self._major, self._minor, self._patch + 1, fresh)
        if identifier is not None and str(self._prerelease[0]) != identifier:
            return Version(self._major, self._minor, self._patch, fresh)
        identifiers = list(self._prerelease)
        for index in reversed(range(len(identifiers))):
            if isinstance(identifiers[index], int):
                identifiers[index] += 1
                break
        else:
            identifiers.append(0)
        return Version(self._major, self._minor, self._patch, identifiers)

    def __str__(self) -> str:
        text = f"{self._major}.{self._minor}.{self._patch}"
        if self._prerelease:
            text += "-" + ".".join(str(item) for item in self._prerelease)
        if self._build:
            text += "+" + ".".join(self._build)
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key == other._key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Version is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Version is immutable; cannot delete {name!r}")


def ensure_version(value: Version | str) -> Version:
    """Return ``value`` as a :class:`Version`, parsing strings strictly."""
    if isinstance(value, Version):
        return value
    if isinstance(value, str):
        return Version.parse(value)
    raise TypeError(f"expected a Version or a str, got {type(value).__name__}")


def parse(text: str) -> Version:
    """Parse ``text`` strictly; the same as :meth:`Version.parse`."""
    return Version.parse(text)


def is_valid(text: object) -> bool:
    """Return True if ``text`` is a string holding a valid SemVer 2.0.0 version."""
    return isinstance(text, str) and _VERSION_RE.fullmatch(text) is not None


def compare(a: Version | str, b: Version | str) -> int:
    """Return -1, 0 or 1 as ``a`` has lower, equal or higher precedence than ``b``."""
    left, right = ensure_version(a), ensure_version(b)
    return (left > right) - (left < right)


def bump(version: Version | str, part: str, identifier: str | None = None) -> Version:
    """Return ``version`` bumped by ``part``; see :meth:`Version.bump`."""
    return ensure_version(version).bump(part, identifier)


def coerce(text: str) -> Version:
    """Extract the first ``X[.Y[.Z]]`` digit sequence from loose text as a version.

    Missing parts default to 0 and everything around the numbers is ignored, so
    ``coerce("v1.2")`` is ``1.2.0``.
    """
    if not isinstance(text, str):
        raise TypeError(f"coerce() expects a str, got {type(text).__name__}")
    match = _COERCE_RE.search(text)
    if match is None:
        raise InvalidVersion(f"cannot coerce {text!r} to a version: no digits found")
    major, minor, patch = (int(group) if group else 0 for group in match.groups())
    return Version(major, minor, patch)
