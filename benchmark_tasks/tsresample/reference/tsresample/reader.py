"""Reading and validating time-series CSV input."""

from __future__ import annotations

import csv
import io
import math
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .errors import DataError, UsageError
from .frame import Frame, Value
from .timeutil import convert_timestamp, format_timestamp, parse_offset

DUPLICATE_POLICIES = ("error", "first", "last")
BAD_ROW_POLICIES = ("skip", "error")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class BadRow:
    """A data row that was rejected: its 1-based line number and a reason code."""

    line: int
    reason: str


@dataclass
class ReadResult:
    """The frame built from the valid rows plus the rejected rows in line order."""

    frame: Frame
    bad_rows: list[BadRow]


@dataclass
class _Row:
    """A valid data row before sorting and duplicate resolution."""

    moment: datetime
    line: int
    values: list[Value]


class _RowRejected(Exception):
    """Internal signal that a row is bad, carrying the reason code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _records(text: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line, fields)`` for each non-blank CSV record; line is where it starts."""
    reader = csv.reader(io.StringIO(text, newline=""))
    start = 1
    try:
        for fields in reader:
            if fields:
                yield start, fields
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"line {start}: malformed CSV: {exc}") from exc


def _select_columns(
    header: list[str], time_column: str | None, columns: Sequence[str] | None
) -> tuple[int, list[str]]:
    """Resolve the time column index and the value column names."""
    if time_column is None:
        time_column = header[0]
    elif time_column not in header:
        raise UsageError(f"unknown column: {time_column!r}")
    if columns is None:
        names = [name for name in header if name != time_column]
        if not names:
            raise DataError("no value columns")
    else:
        names = list(columns)
        if not names:
            raise UsageError("no value columns selected")
        for name in names:
            if name not in header:
                raise UsageError(f"unknown column: {name!r}")
            if name == time_column:
                raise UsageError(f"column {name!r} is the time column")
        if len(set(names)) != len(names):
            raise UsageError("a value column is selected twice")
    return header.index(time_column), names


def _parse_value(cell: str) -> Value:
    """Convert a stripped cell to a float, None when empty; reject anything else."""
    if not cell:
        return None
    if _NUMBER_RE.fullmatch(cell):
        number = float(cell)
        if math.isfinite(number):
            return number
    raise _RowRejected("value")


def _parse_row(
    fields: list[str], width: int, time_index: int, value_indices: list[int], naive_tz: timezone
) -> tuple[datetime, list[Value]]:
    """Validate one record, raising _RowRejected with the first failing check."""
    if len(fields) != width:
        raise _RowRejected("field_count")
    try:
        moment = convert_timestamp(fields[time_index], naive_tz)
    except DataError:
        raise _RowRejected("timestamp") from None
    return moment, [_parse_value(fields[index].strip()) for index in value_indices]


def _resolve_duplicates(rows: list[_Row], policy: str) -> list[_Row]:
    """Collapse rows with equal instants (rows are sorted stably by instant)."""
    result: list[_Row] = []
    for row in rows:
        if result and result[-1].moment == row.moment:
            if policy == "error":
                raise DataError(
                    f"duplicate timestamp {format_timestamp(row.moment)} at line {row.line}"
                )
            if policy == "last":
                result[-1] = row
            continue
        result.append(row)
    return result


def parse_csv(
    text: str,
    *,
    time_column: str | None = None,
    columns: Sequence[str] | None = None,
    duplicates: str = "error",
    on_bad: str = "skip",
    naive_offset: str = "Z",
) -> ReadResult:
    """Parse CSV text into a Frame sorted by time, reporting rejected rows.

    See the requirements for the exact rules on headers, cells, bad rows, sorting and the
    ``duplicates`` (error/first/last) and ``on_bad`` (skip/error) policies.
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise UsageError(f"unknown duplicates policy: {duplicates!r}")
    if on_bad not in BAD_ROW_POLICIES:
        raise UsageError(f"unknown bad-row policy: {on_bad!r}")
    naive_tz = parse_offset(naive_offset)

    records = _records(text)
    first = next(records, None)
    if first is None:
        raise DataError("empty input: no header row")
    header = [name.strip() for name in first[1]]
    for name in header:
        if header.count(name) > 1:
            raise DataError(f"duplicate column name in header: {name!r}")
    time_index, names = _select_columns(header, time_column, columns)
    value_indices = [header.index(name) for name in names]

    rows: list[_Row] = []
    bad_rows: list[BadRow] = []
    for line, fields in records:
        try:
            moment, values = _parse_row(fields, len(header), time_index, value_indices, naive_tz)
        except _RowRejected as rejected:
            if on_bad == "error":
                raise DataError(f"line {line}: {rejected.reason}") from None
            bad_rows.append(BadRow(line, rejected.reason))
            continue
        rows.append(_Row(moment, line, values))

    rows.sort(key=lambda row: row.moment)
    rows = _resolve_duplicates(rows, duplicates)
    frame = Frame(
        [row.moment for row in rows],
        {name: [row.values[position] for row in rows] for position, name in enumerate(names)},
    )
    return ReadResult(frame, bad_rows)


def read_csv(
    path: str | os.PathLike[str],
    *,
    time_column: str | None = None,
    columns: Sequence[str] | None = None,
    duplicates: str = "error",
    on_bad: str = "skip",
    naive_offset: str = "Z",
) -> ReadResult:
    """Read a UTF-8 CSV file (a leading BOM is ignored) and parse it like parse_csv."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {os.fspath(path)!r}: {exc}") from exc
    return parse_csv(
        text,
        time_column=time_column,
        columns=columns,
        duplicates=duplicates,
        on_bad=on_bad,
        naive_offset=naive_offset,
    )
