"""Resampling a frame into fixed-width, epoch-aligned buckets."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from .aggregate import get_aggregation
from .errors import UsageError
from .frame import Frame, Value
from .timeutil import EPOCH, to_width


def bucket_index(moment: datetime, width: timedelta) -> int:
    """Index of the bucket ``[EPOCH + k*width, EPOCH + (k+1)*width)`` containing ``moment``."""
    return (moment - EPOCH) // width


def _output_name(column: str, agg: str, suffixed: bool) -> str:
    """Name of the output column for ``column`` aggregated with ``agg``."""
    return f"{column}_{agg}" if suffixed else column


def resample(frame: Frame, every: str | timedelta, agg: str | Sequence[str] = "mean") -> Frame:
    """Aggregate ``frame`` into buckets of width ``every``.

    Buckets are aligned to the Unix epoch in UTC, closed on the left and labelled with
    their start. Every bucket from the one holding the first timestamp to the one holding
    the last is present in the result, empty ones included. A single aggregation name
    keeps the column names; a sequence of names produces ``<column>_<agg>`` columns.
    """
    width = to_width(every)
    names = [agg] if isinstance(agg, str) else list(agg)
    if not names:
        raise UsageError("at least one aggregation is required")
    functions = [(name, get_aggregation(name)) for name in names]
    suffixed = not isinstance(agg, str)

    output_names = [
        _output_name(column, name, suffixed) for column in frame.columns for name, _ in functions
    ]
    if len(set(output_names)) != len(output_names):
        raise UsageError("aggregations produce duplicate output column names")

    if not frame.timestamps:
        return Frame([], {name: [] for name in output_names})

    first = bucket_index(frame.timestamps[0], width)
    last = bucket_index(frame.timestamps[-1], width)
    groups: list[list[int]] = [[] for _ in range(last - first + 1)]
    for row, moment in enumerate(frame.timestamps):
        groups[bucket_index(moment, width) - first].append(row)

    labels = [EPOCH + (first + offset) * width for offset in range(len(groups))]
    columns: dict[str, list[Value]] = {}
    for column, values in frame.columns.items():
        for name, function in functions:
            columns[_output_name(column, name, suffixed)] = [
                function([values[row] for row in rows if values[row] is not None])
                for rows in groups
            ]
    return Frame(labels, columns)
