"""A mutable mapping from ranges of values to arbitrary values.

``d[interval] = value`` assigns ``value`` to every point of ``interval``, overwriting whatever
was assigned there before; looking a point up returns the value of the range containing it.
The stored ranges are kept sorted and pairwise disjoint, and adjacent ranges holding equal
values are merged, so the mapping always has a single canonical form.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .intervals import Interval, IntervalSet

_MISSING = object()


def _require_interval_key(key: Any) -> Interval:
    """Return ``key`` if it is an Interval, else raise TypeError."""
    if not isinstance(key, Interval):
        raise TypeError(f"IntervalDict ranges must be Interval objects, got {type(key).__name__}")
    return key


def _require_point(key: Any) -> None:
    """Raise TypeError unless ``key`` is a single value."""
    if isinstance(key, (Interval, IntervalSet)):
        raise TypeError("look up a single value, not an Interval or IntervalSet")


def _merge_equal_neighbours(pieces: list[tuple[Interval, Any]]) -> list[tuple[Interval, Any]]:
    """Merge consecutive adjacent ranges whose values compare equal (``==``).

    ``pieces`` must be sorted and pairwise disjoint; the merged range keeps the value of its
    lowest part.
    """
    merged: list[tuple[Interval, Any]] = []
    for interval, value in pieces:
        if merged:
            previous, previous_value = merged[-1]
            if previous_value == value and previous.is_adjacent(interval):
                merged[-1] = ((previous | interval).span(), previous_value)
                continue
        merged.append((interval, value))
    return merged


class IntervalDict:
    """A mapping from disjoint ranges to values with overwrite-on-assignment semantics.

    Like ``dict`` it is mutable and therefore unhashable.

    ``IntervalDict(items)`` accepts a mapping or an iterable of ``(Interval, value)`` pairs,
    which are assigned in order exactly as with ``d[interval] = value``.
    """

    def __init__(
        self, items: Mapping[Interval, Any] | Iterable[tuple[Interval, Any]] = ()
    ) -> None:
        self._pieces: list[tuple[Interval, Any]] = []
        pairs = items.items() if isinstance(items, Mapping) else items
        for interval, value in pairs:
            self[interval] = value

    # -- assignment -----------------------------------------------------------------------

    def _cut(self, interval: Interval) -> list[tuple[Interval, Any]]:
        """The stored pieces with ``interval`` removed from their ranges."""
        return [
            (rest, value)
            for piece, value in self._pieces
            for rest in piece.difference(interval)
        ]

    def __setitem__(self, key: Interval, value: Any) -> None:
        interval = _require_interval_key(key)
        if interval.is_empty:
            return
        pieces = self._cut(interval)
        pieces.append((interval, value))
        pieces.sort(key=lambda pair: pair[0])
        self._pieces = _merge_equal_neighbours(pieces)

    def __delitem__(self, key: Interval) -> None:
        self._pieces = self._cut(_require_interval_key(key))

    # -- lookup ---------------------------------------------------------------------------

    def _find(self, point: Any) -> Any:
        """The value assigned to ``point``, or ``_MISSING``."""
        _require_point(point)
        for interval, value in self._pieces:
            if interval.contains(point):
                return value
        return _MISSING

    def __getitem__(self, point: Any) -> Any:
        value = self._find(point)
        if value is _MISSING:
            raise KeyError(point)
        return value

    def get(self, point: Any, default: Any = None) -> Any:
        """The value assigned to ``point``, or ``default`` if none is."""
        value = self._find(point)
        return default if value is _MISSING else value

    def __contains__(self, item: Any) -> bool:
        if isinstance(item, (Interval, IntervalSet)):
            return self.domain().contains(item)
        return self._find(item) is not _MISSING

    # -- views ----------------------------------------------------------------------------

    def items(self) -> list[tuple[Interval, Any]]:
        """The ``(range, value)`` pairs in ascending order of their ranges."""
        return list(self._pieces)

    def keys(self) -> list[Interval]:
        """The ranges in ascending order."""
        return [interval for interval, _ in self._pieces]

    def values(self) -> list[Any]:
        """The values in ascending order of their ranges (one per range)."""
        return [value for _, value in self._pieces]

    def domain(self) -> IntervalSet:
        """Every value that has an assigned value, as an IntervalSet."""
        return IntervalSet(self.keys())

    def copy(self) -> IntervalDict:
        """A shallow copy that can be modified independently."""
        duplicate = IntervalDict()
        duplicate._pieces = list(self._pieces)
        return duplicate

    def __iter__(self) -> Iterator[Interval]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._pieces)

    # -- comparison and text --------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntervalDict):
            return NotImplemented
        return self._pieces == other._pieces

    def __str__(self) -> str:
        body = ", ".join(f"{interval}: {value!r}" for interval, value in self._pieces)
        return "{" + body + "}"

    def __repr__(self) -> str:
        body = ", ".join(f"({interval!r}, {value!r})" for interval, value in self._pieces)
        return f"IntervalDict([{body}])"
