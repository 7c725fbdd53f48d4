"""Interval endpoints and the ordering primitives all interval operations are built on.

An interval is described by a :class:`LowerBound` and an :class:`UpperBound`.  A bound whose
``value`` is ``None`` is unbounded: minus infinity for a lower bound, plus infinity for an upper
bound.  Unbounded bounds are always open.  Endpoint values are only ever compared with ``<``;
a comparison that raises :class:`TypeError` is reported as :class:`IncomparableError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import IncomparableError


def compare_values(a: Any, b: Any) -> int:
    """Return -1, 0 or 1 as ``a`` is smaller than, equivalent to or greater than ``b``.

    Raises :class:`IncomparableError` if the two values cannot be ordered.
    """
    try:
        if a < b:
            return -1
        if b < a:
            return 1
    except TypeError as exc:
        raise IncomparableError(
            f"cannot compare {a!r} ({type(a).__name__}) with {b!r} ({type(b).__name__})"
        ) from exc
    return 0


@dataclass(frozen=True, slots=True)
class LowerBound:
    """The left end of an interval; ``value is None`` means minus infinity."""

    value: Any
    closed: bool

    @property
    def unbounded(self) -> bool:
        """True if this bound is minus infinity."""
        return self.value is None

    def __lt__(self, other: LowerBound) -> bool:
        """Order lower bounds by position; at equal values a closed bound comes first."""
        if other.unbounded:
            return False
        if self.unbounded:
            return True
        order = compare_values(self.value, other.value)
        return order < 0 or (order == 0 and self.closed and not other.closed)

    def admits(self, value: Any) -> bool:
        """True if ``value`` is not excluded by this bound."""
        if self.unbounded:
            return True
        order = compare_values(self.value, value)
        return order < 0 or (order == 0 and self.closed)

    def flipped(self) -> UpperBound:
        """The upper bound of the gap that ends exactly where this bound begins."""
        return UpperBound(self.value, not self.closed)


@dataclass(frozen=True, slots=True)
class UpperBound:
    """The right end of an interval; ``value is None`` means plus infinity."""

    value: Any
    closed: bool

    @property
    def unbounded(self) -> bool:
        """True if this bound is plus infinity."""
        return self.value is None

    def __lt__(self, other: UpperBound) -> bool:
        """Order upper bounds by position; at equal values an open bound comes first."""
        if self.unbounded:
            return False
        if other.unbounded:
            return True
        order = compare_values(self.value, other.value)
        return order < 0 or (order == 0 and not self.closed and other.closed)

    def admits(self, value: Any) -> bool:
        """True if ``value`` is not excluded by this bound."""
        if self.unbounded:
            return True
        order = compare_values(value, self.value)
        return order < 0 or (order == 0 and self.closed)

    def flipped(self) -> LowerBound:
        """The lower bound of the gap that begins exactly where this bound ends."""
        return LowerBound(self.value, not self.closed)


MINUS_INFINITY = LowerBound(None, False)
PLUS_INFINITY = UpperBound(None, False)


def encloses_points(lower: LowerBound, upper: UpperBound) -> bool:
    """True if at least one value lies between ``lower`` and ``upper``."""
    if lower.unbounded or upper.unbounded:
        return True
    order = compare_values(lower.value, upper.value)
    return order < 0 or (order == 0 and lower.closed and upper.closed)


def leaves_no_gap(upper: UpperBound, lower: LowerBound) -> bool:
    """True if a range ending at ``upper`` and a later one starting at ``lower`` connect.

    The ranges connect when they overlap or when they touch at a single value that belongs
    to at least one of them; ``[1, 2)`` and ``[2, 3]`` connect, ``[1, 2)`` and ``(2, 3]``
    do not.
    """
    if upper.unbounded or lower.unbounded:
        return True
    order = compare_values(lower.value, upper.value)
    return order < 0 or (order == 0 and (lower.closed or upper.closed))
