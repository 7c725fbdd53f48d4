"""Detection of hosts whose request rate exceeds a threshold inside a sliding window."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

from .models import Burst, LogEntry


def _validate(threshold: int, window: float) -> None:
    """Reject thresholds below 1 and non-positive windows."""
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ValueError(f"threshold must be an int >= 1, got {threshold!r}")
    if isinstance(window, bool) or not isinstance(window, (int, float)) or not window > 0:
        raise ValueError(f"window must be a number > 0, got {window!r}")


def _busiest_window(times: list[datetime], span: timedelta) -> tuple[int, int, int]:
    """Return ``(count, first, last)`` indexes of the busiest window in sorted *times*.

    Each window starts at a request time ``t`` and covers ``[t, t + span)``; the earliest
    start wins among windows with the same count.
    """
    best = (0, 0, 0)
    last = 0
    for first, opened in enumerate(times):
        last = max(last, first)
        while last + 1 < len(times) and times[last + 1] - opened < span:
            last += 1
        count = last - first + 1
        if count > best[0]:
            best = (count, first, last)
    return best


def detect_bursts(entries: Iterable[LogEntry], *, threshold: int, window: float) -> list[Burst]:
    """Report every host that made more than *threshold* requests within *window* seconds.

    One :class:`Burst` per host describes its busiest window, with UTC start and end times.
    The result is ordered by count descending, then host ascending.
    """
    _validate(threshold, window)
    span = timedelta(seconds=window)
    times_by_host: dict[str, list[datetime]] = defaultdict(list)
    for entry in entries:
        times_by_host[entry.host].append(entry.time.astimezone(timezone.utc))

    bursts = []
    for host, times in times_by_host.items():
        times.sort()
        count, first, last = _busiest_window(times, span)
        if count > threshold:
            bursts.append(Burst(host=host, count=count, start=times[first], end=times[last]))
    bursts.sort(key=lambda burst: (-burst.count, burst.host))
    return bursts
