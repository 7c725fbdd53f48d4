"""npm-style version ranges.

A range is a union (``||``) of comparator sets; a comparator set is an intersection of
whitespace-separated items. Every item -- plain versions, X-ranges, tilde, caret and hyphen
ranges -- is translated ("desugared") into primitive comparators such as ``>=1.2.3`` and
``<2.0.0``. Containment then applies npm's pre-release rule per comparator set.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple, NoReturn

from .errors import InvalidRange
from .version import BUILD, NUMERIC_IDENTIFIER, PRERELEASE, Version, ensure_version

_WILDCARDS = frozenset({"x", "X", "*"})
_PART = rf"{NUMERIC_IDENTIFIER}|[xX*]"
_PARTIAL_RE = re.compile(
    rf"(?P<major>{_PART})(?:\.(?P<minor>{_PART})(?:\.(?P<patch>{_PART})"
    rf"(?:-(?P<prerelease>{PRERELEASE}))?(?:\+(?P<build>{BUILD}))?)?)?"
)
_ITEM_RE = re.compile(r"(?P<operator><=|>=|<|>|=|~|\^)?(?P<partial>.*)", re.DOTALL)
_STANDALONE_OPERATORS = frozenset({"<=", ">=", "<", ">", "=", "~", "^"})

_OPERATIONS: dict[str, Callable[[Version, Version], bool]] = {
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class Comparator:
    """A primitive comparator: an operator and a full version without build metadata."""

    operator: str
    version: Version

    def test(self, version: Version) -> bool:
        """Return True if ``version`` relates to this comparator's version as required."""
        return _OPERATIONS[self.operator](version, self.version)

    def __str__(self) -> str:
        prefix = "" if self.operator == "=" else self.operator
        return f"{prefix}{self.version}"


ComparatorSet = tuple[Comparator, ...]


class _Partial(NamedTuple):
    """A possibly incomplete version from a range; ``None`` marks a missing or wildcard part."""

    major: int | None
    minor: int | None
    patch: int | None
    prerelease: str

    @property
    def is_full(self) -> bool:
        """True if all three parts are numbers."""
        return self.patch is not None

    def floor(self) -> Version:
        """The lowest version the partial stands for (missing parts become 0)."""
        return Version(self.major, self.minor or 0, self.patch or 0, self.prerelease)

    def ceiling(self) -> Version:
        """The first version above every ``major[.minor]`` match, ignoring the patch."""
        if self.minor is None:
            return Version(self.major + 1, 0, 0)
        return Version(self.major, self.minor + 1, 0)


class _RangeParser:
    """Translate one range string into comparator sets, reporting errors with the full text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def fail(self, reason: str) -> NoReturn:
        """Raise :class:`InvalidRange` naming the whole range and the reason."""
        raise InvalidRange(f"invalid range {self.text!r}: {reason}")

    def parse(self) -> tuple[ComparatorSet, ...]:
        """Parse the whole range; a blank range is a single set matching everything."""
        if not self.text.strip():
            return ((),)
        return tuple(self._parse_set(part) for part in self.text.split("||"))

    def _parse_set(self, text: str) -> ComparatorSet:
        words = text.split()
        if not words:
            self.fail("empty comparator set")
        if "-" in words:
            return self._parse_hyphen(words)
        comparators: list[Comparator] = []
        for item in self._join_operators(words):
            comparators.extend(self._parse_item(item))
        return tuple(comparators)

    def _join_operators(self, words: list[str]) -> list[str]:
        """Attach operators written apart from their version (``>= 1.2.3``) to it."""
        items: list[str] = []
        pending = ""
        for word in words:
            if pending and word in _STANDALONE_OPERATORS:
                self.fail(f"operator {pending!r} is not followed by a version")
            if word in _STANDALONE_OPERATORS:
                pending = word
                continue
            items.append(pending + word)
            pending = ""
        if pending:
            self.fail(f"operator {pending!r} is not followed by a version")
        return items

    def _parse_item(self, item: str) -> list[Comparator]:
        match = _ITEM_RE.fullmatch(item)
        op = match["operator"] or ""
        partial = self._parse_partial(match["partial"])
        if partial.major is None:
            if op:
                self.fail(f"{op!r} cannot be applied to a wildcard")
            return []
        if op == "~":
            return [Comparator(">=", partial.floor()), Comparator("<", partial.ceiling())]
        if op == "^":
            return [Comparator(">=", partial.floor()), Comparator("<", _caret_ceiling(partial))]
        return _primitive(op or "=", partial)

    def _parse_hyphen(self, words: list[str]) -> ComparatorSet:
        if len(words) != 3 or words[1] != "-":
            self.fail("a hyphen range must be 'A - B' and form a whole comparator set")
        low, high = self._parse_partial(words[0]), self._parse_partial(words[2])
        if low.major is None or high.major is None:
            self.fail("hyphen range bounds need a numeric major version")
        if high.is_full:
            upper = Comparator("<=", high.floor())
        else:
            upper = Comparator("<", high.ceiling())
        return (Comparator(">=", low.floor()), upper)

    def _parse_partial(self, text: str) -> _Partial:
        match = _PARTIAL_RE.fullmatch(text)
        if match is None:
            self.fail(f"invalid version {text!r}")
        parts = [
            None if group is None or group in _WILDCARDS else int(group)
            for group in (match["major"], match["minor"], match["patch"])
        ]
        numbers_after_wildcard = [
            part for index, part in enumerate(parts) if part is not None and None in parts[:index]
        ]
        if numbers_after_wildcard:
            self.fail(f"a number may not follow a wildcard in {text!r}")
        has_suffix = match["prerelease"] is not None or match["build"] is not None
        if has_suffix and None in parts:
            self.fail(f"only a full version may carry a pre-release or build: {text!r}")
        major, minor, patch = parts
        return _Partial(major, minor, patch, match["prerelease"] or "")


def _primitive(op: str, partial: _Partial) -> list[Comparator]:
    """Translate ``op partial`` (op one of =, <, <=, >, >=) into comparators."""
    if partial.is_full:
        return [Comparator(op, partial.floor())]
    low, high = partial.floor(), partial.ceiling()
    translations = {
        "=": [Comparator(">=", low), Comparator("<", high)],
        ">=": [Comparator(">=", low)],
        ">": [Comparator(">=", high)],
        "<": [Comparator("<", low)],
        "<=": [Comparator("<", high)],
    }
    return translations[op]


def _caret_ceiling(partial: _Partial) -> Version:
    """Upper bound of ``^partial``: bump the left-most non-zero part that was given."""
    if partial.major > 0 or partial.minor is None:
        return Version(partial.major + 1, 0, 0)
    if partial.minor > 0 or partial.patch is None:
        return Version(0, partial.minor + 1, 0)
    return Version(0, 0, partial.patch + 1)


def _set_contains(comparators: ComparatorSet, version: Version) -> bool:
    """Apply one comparator set, including npm's rule for pre-release versions.

    A pre-release version only matches if some comparator of the same set opts in to
    pre-releases of exactly that ``major.minor.patch``.
    """
    if not all(comparator.test(version) for comparator in comparators):
        return False
    if not version.is_prerelease:
        return True
    core = (version.major, version.minor, version.patch)
    return any(
        comparator.version.is_prerelease
        and (comparator.version.major, comparator.version.minor, comparator.version.patch) == core
        for comparator in comparators
    )


class Range:
    """A parsed npm-style version range such as ``^1.2.3 || >=2.5.0 <3``."""

    __slots__ = ("_sets",)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"range must be a str, got {type(text).__name__}")
        self._sets = _RangeParser(text).parse()

    def contains(self, version: Version | str) -> bool:
        """Return True if ``version`` satisfies at least one comparator set."""
        candidate = ensure_version(version)
        return any(_set_contains(comparators, candidate) for comparators in self._sets)

    def __contains__(self, version: Version | str) -> bool:
        return self.contains(version)

    def __str__(self) -> str:
        return " || ".join(
            " ".join(str(comparator) for comparator in comparators) or "*"
            for comparators in self._sets
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Range):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def ensure_range(value: Range | str) -> Range:
    """Return ``value`` as a :class:`Range`, parsing strings."""
    if isinstance(value, Range):
        return value
    return Range(value)


def satisfies(version: Version | str, range_spec: Range | str) -> bool:
    """Return True if ``version`` lies within ``range_spec``."""
    return ensure_range(range_spec).contains(version)
