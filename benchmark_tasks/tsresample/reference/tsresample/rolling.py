"""Trailing time-based rolling windows."""

from __future__ import annotations

from datetime import timedelta

from .aggregate import get_aggregation
from .errors import UsageError
from .frame import Frame, Value
from .timeutil import to_width


def _window_starts(frame: Frame, width: timedelta) -> list[int]:
    """For each row, the index of the first row inside its window ``(t - width, t]``."""
    starts: list[int] = []
    start = 0
    for moment in frame.timestamps:
        while frame.timestamps[start] <= moment - width:
            start += 1
        starts.append(start)
    return starts


def rolling(
    frame: Frame, window: str | timedelta, agg: str = "mean", *, min_periods: int = 1
) -> Frame:
    """Aggregate, for every row, the values in the trailing window ending at that row.

    The window of a row at time ``t`` holds the rows with timestamps in ``(t - window, t]``.
    The result is missing when fewer than ``min_periods`` non-missing values fall inside.
    """
    width = to_width(window)
    function = get_aggregation(agg)
    if min_periods < 1:
        raise UsageError(f"min_periods must be at least 1, got {min_periods}")
    starts = _window_starts(frame, width)
    columns: dict[str, list[Value]] = {}
    for name, values in frame.columns.items():
        result: list[Value] = []
        for end, start in enumerate(starts):
            present = [value for value in values[start : end + 1] if value is not None]
            result.append(function(present) if len(present) >= min_periods else None)
        columns[name] = result
    return Frame(list(frame.timestamps), columns)
