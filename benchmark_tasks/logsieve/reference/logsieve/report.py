"""Report building and serialisation: the JSON summary and the CSV exports."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .models import Burst, LogEntry
from .stats import (
    format_utc,
    histogram,
    percentile,
    ranked_counts,
    status_class_counts,
    status_counts,
    top_n,
    total_bytes,
    unique_hosts,
    unique_visitors,
)

ENTRY_COLUMNS = (
    "time",
    "host",
    "method",
    "path",
    "protocol",
    "status",
    "size",
    "referer",
    "user_agent",
)
BURST_COLUMNS = ("host", "count", "start", "end")
SUMMARY_PERCENTILES = (50, 90, 99)


def _rounded_percentile(entries: Sequence[LogEntry], p: int) -> float | None:
    """Percentile of response sizes rounded to two decimals, or ``None`` without sizes."""
    value = percentile(entries, p)
    return None if value is None else round(value, 2)


def summarize(entries: Iterable[LogEntry], *, top: int = 10) -> dict[str, Any]:
    """Build the JSON-ready summary report of *entries* (keys in a fixed order)."""
    entries = list(entries)
    times = [entry.time for entry in entries]
    return {
        "total_requests": len(entries),
        "total_bytes": total_bytes(entries),
        "unique_hosts": unique_hosts(entries),
        "unique_visitors": unique_visitors(entries),
        "status_counts": {str(code): n for code, n in status_counts(entries).items()},
        "status_classes": status_class_counts(entries),
        "methods": dict(ranked_counts(entry.method for entry in entries)),
        "top_paths": [{"path": p, "count": n} for p, n in top_n(entries, "path", top)],
        "top_hosts": [{"host": h, "count": n} for h, n in top_n(entries, "host", top)],
        "size_percentiles": {
            f"p{p}": _rounded_percentile(entries, p) for p in SUMMARY_PERCENTILES
        },
        "first_request": format_utc(min(times)) if times else None,
        "last_request": format_utc(max(times)) if times else None,
        "requests_per_hour": histogram(entries, "hour"),
    }


def to_json(summary: dict[str, Any]) -> str:
    """Serialise a summary as indented JSON text ending with a newline."""
    return json.dumps(summary, indent=2, ensure_ascii=False) + "\n"


def write_json(summary: dict[str, Any], path: str | os.PathLike) -> None:
    """Write ``to_json(summary)`` to *path* in UTF-8."""
    Path(path).write_text(to_json(summary), encoding="utf-8", newline="")


def _csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Render a header and rows as CSV text with ``\\n`` line endings."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _entry_row(entry: LogEntry) -> list[Any]:
    """One CSV row for an entry; ``None`` fields become empty strings."""
    values = [
        entry.time.isoformat(),
        entry.host,
        entry.method,
        entry.path,
        entry.protocol,
        entry.status,
        entry.size,
        entry.referer,
        entry.user_agent,
    ]
    return ["" if value is None else value for value in values]


def entries_to_csv(entries: Iterable[LogEntry]) -> str:
    """Render entries as CSV, one row per entry in input order."""
    return _csv_text(ENTRY_COLUMNS, (_entry_row(entry) for entry in entries))


def write_csv(entries: Iterable[LogEntry], path: str | os.PathLike) -> None:
    """Write ``entries_to_csv(entries)`` to *path* in UTF-8."""
    Path(path).write_text(entries_to_csv(entries), encoding="utf-8", newline="")


def counts_to_csv(
    pairs: Iterable[tuple[object, int]], header: tuple[str, str] = ("value", "count")
) -> str:
    """Render ``(value, count)`` pairs as two-column CSV under *header*."""
    return _csv_text(header, pairs)


def bursts_to_csv(bursts: Iterable[Burst]) -> str:
    """Render bursts as CSV with UTC text start and end times."""
    rows = (
        (burst.host, burst.count, format_utc(burst.start), format_utc(burst.end))
        for burst in bursts
    )
    return _csv_text(BURST_COLUMNS, rows)
