"""Gap filling: forward fill and time-weighted linear interpolation."""

from __future__ import annotations

from datetime import datetime

from .errors import UsageError
from .frame import Frame, Value

FILL_METHODS = ("none", "ffill", "linear")


def _forward_fill(values: list[Value], limit: int | None) -> list[Value]:
    """Carry the last seen value forward over at most ``limit`` consecutive gaps."""
    result = list(values)
    previous: Value = None
    run = 0
    for index, value in enumerate(values):
        if value is not None:
            previous, run = value, 0
        elif previous is not None:
            run += 1
            if limit is None or run <= limit:
                result[index] = previous
    return result


def _interpolate(
    timestamps: list[datetime], values: list[Value], limit: int | None
) -> list[Value]:
    """Fill interior gaps linearly in time; gaps longer than ``limit`` stay missing."""
    result = list(values)
    known = [index for index, value in enumerate(values) if value is not None]
    for left, right in zip(known, known[1:]):
        gap = right - left - 1
        if gap == 0 or (limit is not None and gap > limit):
            continue
        start, span = timestamps[left], timestamps[right] - timestamps[left]
        low, high = values[left], values[right]
        for index in range(left + 1, right):
            fraction = (timestamps[index] - start) / span
            result[index] = low + (high - low) * fraction
    return result


def fill_gaps(frame: Frame, method: str = "none", *, limit: int | None = None) -> Frame:
    """Return a copy of ``frame`` with missing values filled by ``method``.

    ``none`` copies the frame, ``ffill`` repeats the previous value and ``linear``
    interpolates between the surrounding values. ``limit`` bounds how many consecutive
    missing values may be filled.
    """
    if method not in FILL_METHODS:
        raise UsageError(f"unknown fill method: {method!r}")
    if limit is not None and limit < 1:
        raise UsageError(f"limit must be at least 1, got {limit}")
    columns: dict[str, list[Value]] = {}
    for name, values in frame.columns.items():
        if method == "ffill":
            columns[name] = _forward_fill(values, limit)
        elif method == "linear":
            columns[name] = _interpolate(frame.timestamps, values, limit)
        else:
            columns[name] = list(values)
    return Frame(list(frame.timestamps), columns)
