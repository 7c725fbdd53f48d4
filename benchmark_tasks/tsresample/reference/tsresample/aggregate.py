"""Aggregation functions shared by resampling and rolling windows.

Every aggregation receives the non-missing values of one group in time order and returns
a number, or None when the group has no values (``count`` returns 0 instead).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

from .errors import UsageError

Aggregation = Callable[[Sequence[float]], float | int | None]


def _mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean computed with an exact (fsum) sum."""
    return math.fsum(values) / len(values) if values else None


def _sum(values: Sequence[float]) -> float | None:
    """Exactly rounded sum; None for an empty group."""
    return math.fsum(values) if values else None


def _min(values: Sequence[float]) -> float | None:
    """Smallest value."""
    return min(values) if values else None


def _max(values: Sequence[float]) -> float | None:
    """Largest value."""
    return max(values) if values else None


def _count(values: Sequence[float]) -> int:
    """Number of non-missing values."""
    return len(values)


def _first(values: Sequence[float]) -> float | None:
    """Earliest value."""
    return values[0] if values else None


def _last(values: Sequence[float]) -> float | None:
    """Latest value."""
    return values[-1] if values else None


def _median(values: Sequence[float]) -> float | None:
    """Middle value, or the mean of the two middle values for an even count."""
    return statistics.median(values) if values else None


AGGREGATIONS: dict[str, Aggregation] = {
    "mean": _mean,
    "sum": _sum,
    "min": _min,
    "max": _max,
    "count": _count,
    "first": _first,
    "last": _last,
    "median": _median,
}


def get_aggregation(name: str) -> Aggregation:
    """Look up an aggregation by name, raising UsageError for unknown names."""
    try:
        return AGGREGATIONS[name]
    except KeyError:
        raise UsageError(f"unknown aggregation: {name!r}") from None
