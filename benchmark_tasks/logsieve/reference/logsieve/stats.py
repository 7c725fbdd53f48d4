"""Aggregations over log entries: counts, top-N values, UTC histograms and percentiles."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

from .models import LogEntry

TOP_KEYS = ("host", "path", "method", "referer", "user_agent")
STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")

_BUCKETS = {
    "hour": (timedelta(hours=1), "%Y-%m-%dT%H:00:00Z"),
    "minute": (timedelta(minutes=1), "%Y-%m-%dT%H:%M:00Z"),
}


def format_utc(moment: datetime) -> str:
    """Format an aware datetime as UTC text, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_counts(entries: Iterable[LogEntry]) -> dict[int, int]:
    """Count entries per status code, keys in ascending order."""
    counts = Counter(entry.status for entry in entries)
    return {status: counts[status] for status in sorted(counts)}


def status_class_counts(entries: Iterable[LogEntry]) -> dict[str, int]:
    """Count entries per status class; all five classes are always present."""
    counts = dict.fromkeys(STATUS_CLASSES, 0)
    for entry in entries:
        counts[f"{entry.status // 100}xx"] += 1
    return counts


def total_bytes(entries: Iterable[LogEntry]) -> int:
    """Sum of response sizes, counting a missing size as 0."""
    return sum(entry.size or 0 for entry in entries)


def unique_hosts(entries: Iterable[LogEntry]) -> int:
    """Number of distinct remote hosts."""
    return len({entry.host for entry in entries})


def unique_visitors(entries: Iterable[LogEntry]) -> int:
    """Number of distinct ``(host, user_agent)`` pairs; ``None`` is an agent of its own."""
    return len({(entry.host, entry.user_agent) for entry in entries})


def ranked_counts(values: Iterable[str | None]) -> list[tuple[str, int]]:
    """Count non-``None`` values, ordered by count descending, then value ascending."""
    counts = Counter(value for value in values if value is not None)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def top_n(entries: Iterable[LogEntry], key: str, n: int = 10) -> list[tuple[str, int]]:
    """Return the *n* most frequent values of field *key* with their counts.

    Ties are broken by the value in ascending order so the result never depends on the
    order of the input. Raises ``ValueError`` for an unknown *key* or a negative *n*.
    """
    if key not in TOP_KEYS:
        raise ValueError(f"unknown key {key!r}; expected one of {', '.join(TOP_KEYS)}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return ranked_counts(getattr(entry, key) for entry in entries)[:n]


def _bucket_start(moment: datetime, unit: str) -> datetime:
    """Truncate *moment*, converted to UTC, to the start of its hour or minute."""
    utc = moment.astimezone(timezone.utc).replace(second=0, microsecond=0)
    return utc.replace(minute=0) if unit == "hour" else utc


def histogram(
    entries: Iterable[LogEntry], unit: str = "hour", *, fill: bool = False
) -> dict[str, int]:
    """Count entries per UTC hour or minute, keyed by the bucket start in chronological order.

    With *fill*, every bucket between the first and the last non-empty one is included.
    """
    if unit not in _BUCKETS:
        raise ValueError(f"unit must be 'hour' or 'minute', got {unit!r}")
    step, pattern = _BUCKETS[unit]
    counts = Counter(_bucket_start(entry.time, unit) for entry in entries)
    if not counts:
        return {}
    if fill:
        current, last = min(counts), max(counts)
        while current <= last:
            counts.setdefault(current, 0)
            current += step
    return {bucket.strftime(pattern): counts[bucket] for bucket in sorted(counts)}


def percentile(entries: Iterable[LogEntry], p: float) -> float | None:
    """Return the *p*-th percentile of response sizes by linear interpolation between ranks.

    Entries without a size are ignored; ``None`` is returned when no sizes remain.
    Raises ``ValueError`` when *p* is outside ``[0, 100]``.
    """
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be within [0, 100], got {p}")
    sizes = sorted(entry.size for entry in entries if entry.size is not None)
    if not sizes:
        return None
    rank = p / 100 * (len(sizes) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return float(sizes[low] + (sizes[high] - sizes[low]) * (rank - low))
