"""Rendering frames as CSV and JSON text with exact number formatting."""

from __future__ import annotations

import csv
import io
import json

from .errors import UsageError
from .frame import Frame, Value
from .timeutil import format_timestamp


def _check_decimals(decimals: int) -> None:
    """Reject a negative number of decimal places."""
    if decimals < 0:
        raise UsageError(f"decimals must be non-negative, got {decimals}")


def format_number(value: Value, decimals: int = 6) -> str:
    """Format a value for output.

    None becomes the empty string and integers are written in plain decimal. Floats are
    rounded with ``f"{value:.{decimals}f}"``, trailing zeros and a trailing decimal point
    are removed, and ``-0`` becomes ``0``.
    """
    _check_decimals(decimals)
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def to_csv(frame: Frame, decimals: int = 6) -> str:
    """Render ``frame`` as CSV: a ``timestamp`` header column, ``\\n`` line endings."""
    _check_decimals(decimals)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["timestamp", *frame.columns])
    for row, moment in enumerate(frame.timestamps):
        cells = [format_number(values[row], decimals) for values in frame.columns.values()]
        writer.writerow([format_timestamp(moment), *cells])
    return buffer.getvalue()


def _json_number(text: str) -> float | int | None:
    """Turn formatted number text back into the JSON value that represents it."""
    if not text:
        return None
    return float(text) if "." in text else int(text)


def to_json(frame: Frame, decimals: int = 6) -> str:
    """Render ``frame`` as an indented JSON document with ``columns`` and ``rows``."""
    _check_decimals(decimals)
    rows = []
    for row, moment in enumerate(frame.timestamps):
        record: dict[str, object] = {"timestamp": format_timestamp(moment)}
        for name, values in frame.columns.items():
            record[name] = _json_number(format_number(values[row], decimals))
        rows.append(record)
    document = {"columns": list(frame.columns), "rows": rows}
    return json.dumps(document, indent=2) + "\n"
