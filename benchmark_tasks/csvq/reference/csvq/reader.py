"""Parsing CSV text into a :class:`Table`."""

import csv
import io
from dataclasses import dataclass, field

from .errors import DataError, UsageError

_FORBIDDEN_DELIMITERS = ('"', "\r", "\n")


@dataclass
class Table:
    """A rectangular table of string cells with named columns."""

    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)


def check_delimiter(delimiter: str) -> None:
    """Raise :class:`UsageError` unless ``delimiter`` can separate CSV fields."""
    if len(delimiter) != 1 or delimiter in _FORBIDDEN_DELIMITERS:
        raise UsageError(f"invalid delimiter {delimiter!r}")


def check_unique(names: list[str], context: str = "") -> None:
    """Raise :class:`UsageError` if a column name occurs twice in ``names``."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise UsageError(f"duplicate column {name!r}{context}")
        seen.add(name)


def _records(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """Split ``text`` into non-blank records paired with their ending line number."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records = []
    try:
        for record in reader:
            if record:
                records.append((reader.line_num, record))
    except csv.Error as exc:
        raise DataError(f"line {reader.line_num}: {exc}") from exc
    return records


def read_table(text: str, *, delimiter: str = ",", header: bool = True) -> Table:
    """Parse CSV ``text`` into a :class:`Table`.

    With ``header`` the first record names the columns; otherwise the
    columns are called ``c1``, ``c2`` and so on.  Completely empty lines
    are skipped and a leading byte order mark is ignored.
    """
    check_delimiter(delimiter)
    records = _records(text.removeprefix("\ufeff"), delimiter)
    if not records:
        raise DataError("empty input")
    if header:
        _, columns = records.pop(0)
        if len(set(columns)) != len(columns):
            duplicate = next(name for name in columns if columns.count(name) > 1)
            raise DataError(f"duplicate column {duplicate!r} in header")
    else:
        columns = [f"c{number}" for number in range(1, len(records[0][1]) + 1)]
    width = len(columns)
    for line, record in records:
        if len(record) != width:
            raise DataError(f"line {line}: expected {width} fields, got {len(record)}")
    return Table(columns, [record for _, record in records])
