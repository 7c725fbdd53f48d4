"""Immutable intervals and canonical interval sets.

:class:`Interval` is a single connected range of values; :class:`IntervalSet` is a finite
union of intervals kept in canonical form (sorted, pairwise disjoint and non-adjacent).  The
two classes live together because their operations return each other: the union of two
intervals is an interval set, and an interval set is made of intervals.

Endpoints are points on a continuous line for every value type, integers included: there is
no notion of a successor, so ``[1, 2]`` and ``[3, 4]`` are neither adjacent nor merged.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Iterable, Iterator
from typing import Any

from .bounds import (
    MINUS_INFINITY,
    PLUS_INFINITY,
    LowerBound,
    UpperBound,
    compare_values,
    encloses_points,
    leaves_no_gap,
)
from .errors import InvalidInterval
from .parsing import EMPTY_TEXT, Converter, format_endpoint, parse_interval_text

_BOUNDS = {"[]": (True, True), "[)": (True, False), "(]": (False, True), "()": (False, False)}
_BOUNDED_NAMES = {
    (True, True): "closed",
    (True, False): "closedopen",
    (False, True): "openclosed",
    (False, False): "open",
}


def _check_endpoint(value: Any) -> None:
    """Reject float endpoints that are NaN or infinite."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInterval(
            f"float endpoint {value!r} is not finite; use None for an unbounded end"
        )


@functools.total_ordering
class Interval:
    """A connected range of mutually comparable values with open, closed or unbounded ends.

    ``Interval(lower, upper, bounds="[]")``: ``bounds`` is ``"[]"``, ``"[)"``, ``"(]"`` or
    ``"()"``; an endpoint of ``None`` is unbounded (and therefore open).  Intervals that
    contain no value collapse to the single canonical empty interval.
    """

    __slots__ = ("_lo", "_hi")

    _lo: LowerBound | None
    _hi: UpperBound | None

    def __init__(self, lower: Any, upper: Any, bounds: str = "[]") -> None:
        try:
            lower_closed, upper_closed = _BOUNDS[bounds]
        except (KeyError, TypeError):
            raise InvalidInterval(
                f"invalid bounds {bounds!r}: expected '[]', '[)', '(]' or '()'"
            ) from None
        _check_endpoint(lower)
        _check_endpoint(upper)
        if lower is not None and upper is not None and compare_values(lower, upper) > 0:
            raise InvalidInterval(
                f"lower endpoint {lower!r} is greater than upper endpoint {upper!r}"
            )
        self._assign(
            LowerBound(lower, lower_closed and lower is not None),
            UpperBound(upper, upper_closed and upper is not None),
        )

    def _assign(self, lo: LowerBound | None, hi: UpperBound | None) -> None:
        """Store the bounds, collapsing a range without values to the empty interval."""
        if lo is None or hi is None or not encloses_points(lo, hi):
            lo = hi = None
        object.__setattr__(self, "_lo", lo)
        object.__setattr__(self, "_hi", hi)

    @classmethod
    def _from_bounds(cls, lo: LowerBound | None, hi: UpperBound | None) -> Interval:
        """Build an interval from already validated bounds (``None`` means empty)."""
        interval = object.__new__(cls)
        interval._assign(lo, hi)
        return interval

    # -- named constructors -------------------------------------------------------------

    @classmethod
    def closed(cls, lower: Any, upper: Any) -> Interval:
        """``[lower, upper]``."""
        return cls(lower, upper, "[]")

    @classmethod
    def open(cls, lower: Any, upper: Any) -> Interval:
        """``(lower, upper)``."""
        return cls(lower, upper, "()")

    @classmethod
    def closedopen(cls, lower: Any, upper: Any) -> Interval:
        """``[lower, upper)``."""
        return cls(lower, upper, "[)")

    @classmethod
    def openclosed(cls, lower: Any, upper: Any) -> Interval:
        """``(lower, upper]``."""
        return cls(lower, upper, "(]")

    @classmethod
    def point(cls, value: Any) -> Interval:
        """``[value, value]``, the interval holding exactly one value."""
        return cls(value, value, "[]")

    @classmethod
    def at_least(cls, lower: Any) -> Interval:
        """``[lower, +inf)``."""
        return cls(lower, None, "[)")

    @classmethod
    def greater_than(cls, lower: Any) -> Interval:
        """``(lower, +inf)``."""
        return cls(lower, None, "()")

    @classmethod
    def at_most(cls, upper: Any) -> Interval:
        """``(-inf, upper]``."""
        return cls(None, upper, "(]")

    @classmethod
    def less_than(cls, upper: Any) -> Interval:
        """``(-inf, upper)``."""
        return cls(None, upper, "()")

    @classmethod
    def all(cls) -> Interval:
        """``(-inf, +inf)``, the interval holding every value."""
        return cls._from_bounds(MINUS_INFINITY, PLUS_INFINITY)

    @classmethod
    def empty(cls) -> Interval:
        """The empty interval ``∅``."""
        return cls._from_bounds(None, None)

    @classmethod
    def parse(cls, text: str, convert: Converter | None = None) -> Interval:
        """Parse the textual form produced by ``str()``, e.g. ``"[1, 5)"`` or ``"∅"``.

        Endpoints are converted with ``convert`` (a callable taking the endpoint text), or
        to ``int``/``float`` when ``convert`` is ``None``.
        """
        parts = parse_interval_text(text, convert)
        if parts is None:
            return cls.empty()
        return cls(*parts)

    # -- attributes -----------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Interval is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Interval is immutable; cannot delete {name!r}")

    @property
    def lower(self) -> Any:
        """The lower endpoint, or ``None`` if unbounded or empty."""
        return None if self._lo is None else self._lo.value

    @property
    def upper(self) -> Any:
        """The upper endpoint, or ``None`` if unbounded or empty."""
        return None if self._hi is None else self._hi.value

    @property
    def lower_closed(self) -> bool:
        """True if the lower endpoint belongs to the interval."""
        return self._lo is not None and self._lo.closed

    @property
    def upper_closed(self) -> bool:
        """True if the upper endpoint belongs to the interval."""
        return self._hi is not None and self._hi.closed

    @property
    def is_empty(self) -> bool:
        """True for the empty interval."""
        return self._lo is None

    @property
    def length(self) -> Any:
        """``upper - lower``; ``0`` when empty and ``math.inf`` when unbounded."""
        if self._lo is None or self._hi is None:
            return 0
        if self._lo.unbounded or self._hi.unbounded:
            return math.inf
        return self._hi.value - self._lo.value

    def __bool__(self) -> bool:
        return not self.is_empty

    # -- predicates -----------------------------------------------------------------------

    def contains(self, item: Any) -> bool:
        """True if ``item`` (a value, an Interval or an IntervalSet) lies within this interval."""
        if isinstance(item, IntervalSet):
            return all(self.contains(piece) for piece in item)
        if isinstance(item, Interval):
            if item.is_empty:
                return True
            if self.is_empty:
                return False
            return not item._lo < self._lo and not self._hi < item._hi
        if self.is_empty:
            return False
        return self._lo.admits(item) and self._hi.admits(item)

    __contains__ = contains

    def overlaps(self, other: Interval | IntervalSet) -> bool:
        """True if this interval and ``other`` have at least one value in common."""
        return not self.intersection(other).is_empty

    def is_adjacent(self, other: Interval) -> bool:
        """True if both are non-empty, disjoint, and their union is a single interval."""
        _require_interval(other)
        if self.is_empty or other.is_empty or self.overlaps(other):
            return False
        first, second = (self, other) if self._lo < other._lo else (other, self)
        return leaves_no_gap(first._hi, second._lo)

    # -- operations -----------------------------------------------------------------------

    def intersection(self, other: Interval | IntervalSet) -> Interval | IntervalSet:
        """The common part: an Interval for an Interval, an IntervalSet for an IntervalSet."""
        if isinstance(other, IntervalSet):
            return other.intersection(self)
        _require_interval(other)
        if self.is_empty or other.is_empty:
            return Interval.empty()
        return Interval._from_bounds(max(self._lo, other._lo), min(self._hi, other._hi))

    def union(self, other: Interval | IntervalSet) -> IntervalSet:
        """All values in this interval or in ``other``."""
        return IntervalSet([self]).union(other)

    def difference(self, other: Interval | IntervalSet) -> IntervalSet:
        """The values of this interval that are not in ``other``."""
        return IntervalSet([self]).difference(other)

    def symmetric_difference(self, other: Interval | IntervalSet) -> IntervalSet:
        """The values that are in exactly one of this interval and ``other``."""
        return IntervalSet([self]).symmetric_difference(other)

    def complement(self, universe: Interval | IntervalSet | None = None) -> IntervalSet:
        """The values of ``universe`` (default: every value) that are not in this interval."""
        return IntervalSet([self]).complement(universe)

    def __and__(self, other: Any) -> Interval | IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.intersection(other)

    def __or__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.union(other)

    def __sub__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.difference(other)

    def __xor__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.symmetric_difference(other)

    def __invert__(self) -> IntervalSet:
        return self.complement()

    # -- comparison and text --------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Interval):
            return NotImplemented
        return (self._lo, self._hi) == (other._lo, other._hi)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Interval):
            return NotImplemented
        if other.is_empty:
            return False
        if self.is_empty:
            return True
        if self._lo != other._lo:
            return self._lo < other._lo
        return self._hi < other._hi

    def __hash__(self) -> int:
        return hash((self._lo, self._hi))

    def __str__(self) -> str:
        if self._lo is None or self._hi is None:
            return EMPTY_TEXT
        return "{}{}, {}{}".format(
            "[" if self._lo.closed else "(",
            format_endpoint(self._lo.value, lower=True),
            format_endpoint(self._hi.value, lower=False),
            "]" if self._hi.closed else ")",
        )

    def __repr__(self) -> str:
        if self._lo is None or self._hi is None:
            return "Interval.empty()"
        lo, hi = self._lo, self._hi
        if lo.unbounded and hi.unbounded:
            return "Interval.all()"
        if lo.unbounded:
            return f"Interval.{'at_most' if hi.closed else 'less_than'}({hi.value!r})"
        if hi.unbounded:
            return f"Interval.{'at_least' if lo.closed else 'greater_than'}({lo.value!r})"
        name = _BOUNDED_NAMES[(lo.closed, hi.closed)]
        return f"Interval.{name}({lo.value!r}, {hi.value!r})"


def _require_interval(value: Any) -> None:
    """Raise TypeError unless ``value`` is an Interval."""
    if not isinstance(value, Interval):
        raise TypeError(f"expected an Interval, got {type(value).__name__}")


def _as_set(value: Any) -> IntervalSet:
    """Accept an Interval or an IntervalSet as an IntervalSet; raise TypeError otherwise."""
    if isinstance(value, IntervalSet):
        return value
    if isinstance(value, Interval):
        return IntervalSet([value])
    raise TypeError(f"expected an Interval or IntervalSet, got {type(value).__name__}")


def _canonical(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Sort non-empty intervals and merge those that overlap or are adjacent."""
    merged: list[Interval] = []
    for piece in sorted(interval for interval in intervals if not interval.is_empty):
        if merged and leaves_no_gap(merged[-1]._hi, piece._lo):
            last = merged.pop()
            merged.append(Interval._from_bounds(last._lo, max(last._hi, piece._hi)))
        else:
            merged.append(piece)
    return tuple(merged)


class IntervalSet:
    """An immutable union of intervals in canonical form.

    The pieces are non-empty, sorted in ascending order, pairwise disjoint and never
    adjacent, so two sets holding the same values are equal and print identically.
    """

    __slots__ = ("_pieces",)

    _pieces: tuple[Interval, ...]

    def __init__(self, intervals: Iterable[Interval] = ()) -> None:
        items = list(intervals)
        for item in items:
            if not isinstance(item, Interval):
                raise TypeError(
                    f"IntervalSet items must be Interval objects, got {type(item).__name__}"
                )
        object.__setattr__(self, "_pieces", _canonical(items))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"IntervalSet is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"IntervalSet is immutable; cannot delete {name!r}")

    # -- inspection -----------------------------------------------------------------------

    @property
    def intervals(self) -> tuple[Interval, ...]:
        """The canonical pieces in ascending order."""
        return self._pieces

    @property
    def is_empty(self) -> bool:
        """True if the set holds no value."""
        return not self._pieces

    @property
    def total_length(self) -> Any:
        """Sum of the pieces' lengths; ``0`` when empty, ``math.inf`` when unbounded."""
        if not self._pieces:
            return 0
        lengths = [piece.length for piece in self._pieces]
        if any(length is math.inf for length in lengths):
            return math.inf
        return functools.reduce(operator.add, lengths)

    def span(self) -> Interval:
        """The smallest interval that contains every piece (empty for the empty set)."""
        if not self._pieces:
            return Interval.empty()
        return Interval._from_bounds(self._pieces[0]._lo, self._pieces[-1]._hi)

    def __iter__(self) -> Iterator[Interval]:
        return iter(self._pieces)

    def __len__(self) -> int:
        return len(self._pieces)

    def __bool__(self) -> bool:
        return bool(self._pieces)

    # -- predicates -----------------------------------------------------------------------

    def contains(self, item: Any) -> bool:
        """True if ``item`` (a value, an Interval or an IntervalSet) lies within this set."""
        if isinstance(item, IntervalSet):
            return all(self.contains(piece) for piece in item)
        if isinstance(item, Interval) and item.is_empty:
            return True
        return any(piece.contains(item) for piece in self._pieces)

    __contains__ = contains

    def overlaps(self, other: Interval | IntervalSet) -> bool:
        """True if this set and ``other`` have at least one value in common."""
        return not self.intersection(other).is_empty

    # -- set algebra ----------------------------------------------------------------------

    def union(self, other: Interval | IntervalSet) -> IntervalSet:
        """Values in this set or in ``other``."""
        return IntervalSet(self._pieces + _as_set(other)._pieces)

    def intersection(self, other: Interval | IntervalSet) -> IntervalSet:
        """Values in both this set and ``other`` (a linear sweep over both piece lists)."""
        mine, theirs = self._pieces, _as_set(other)._pieces
        common: list[Interval] = []
        i = j = 0
        while i < len(mine) and j < len(theirs):
            common.append(mine[i].intersection(theirs[j]))
            if mine[i]._hi < theirs[j]._hi:
                i += 1
            else:
                j += 1
        return IntervalSet(common)

    def difference(self, other: Interval | IntervalSet) -> IntervalSet:
        """Values in this set but not in ``other``."""
        return self.intersection(_as_set(other)._gaps())

    def symmetric_difference(self, other: Interval | IntervalSet) -> IntervalSet:
        """Values in exactly one of this set and ``other``."""
        other_set = _as_set(other)
        return self.difference(other_set).union(other_set.difference(self))

    def complement(self, universe: Interval | IntervalSet | None = None) -> IntervalSet:
        """Values of ``universe`` (default: every value) that are not in this set."""
        gaps = self._gaps()
        if universe is None:
            return gaps
        return _as_set(universe).intersection(gaps)

    def _gaps(self) -> IntervalSet:
        """The complement of this set with respect to every value."""
        gaps: list[Interval] = []
        start = MINUS_INFINITY
        for piece in self._pieces:
            if not piece._lo.unbounded:
                gaps.append(Interval._from_bounds(start, piece._lo.flipped()))
            if piece._hi.unbounded:
                return IntervalSet(gaps)
            start = piece._hi.flipped()
        gaps.append(Interval._from_bounds(start, PLUS_INFINITY))
        return IntervalSet(gaps)

    def __or__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.union(other)

    def __and__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.intersection(other)

    def __sub__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.difference(other)

    def __xor__(self, other: Any) -> IntervalSet:
        if not isinstance(other, (Interval, IntervalSet)):
            return NotImplemented
        return self.symmetric_difference(other)

    def __invert__(self) -> IntervalSet:
        return self.complement()

    # -- comparison and text --------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntervalSet):
            return NotImplemented
        return self._pieces == other._pieces

    def __hash__(self) -> int:
        return hash(self._pieces)

    def __str__(self) -> str:
        return "{" + ", ".join(str(piece) for piece in self._pieces) + "}"

    def __repr__(self) -> str:
        return "IntervalSet([" + ", ".join(repr(piece) for piece in self._pieces) + "])"
