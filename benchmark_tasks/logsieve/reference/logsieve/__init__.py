"""logsieve: parse, filter, aggregate and report on web server access logs.

Supports the Common Log Format and the Combined Log Format, plain or gzip-compressed.
"""

from .anomaly import detect_bursts
from .filters import filter_entries
from .models import Burst, LogEntry, LogParseError, MalformedLine, ParseResult
from .parser import parse_file, parse_line, parse_lines
from .report import (
    bursts_to_csv,
    counts_to_csv,
    entries_to_csv,
    summarize,
    to_json,
    write_csv,
    write_json,
)
from .stats import (
    histogram,
    percentile,
    status_class_counts,
    status_counts,
    top_n,
    total_bytes,
    unique_hosts,
    unique_visitors,
)

__all__ = [
    "Burst",
    "LogEntry",
    "LogParseError",
    "MalformedLine",
    "ParseResult",
    "bursts_to_csv",
    "counts_to_csv",
    "detect_bursts",
    "entries_to_csv",
    "filter_entries",
    "histogram",
    "parse_file",
    "parse_line",
    "parse_lines",
    "percentile",
    "status_class_counts",
    "status_counts",
    "summarize",
    "to_json",
    "top_n",
    "total_bytes",
    "unique_hosts",
    "unique_visitors",
    "write_csv",
    "write_json",
]

__version__ = "1.0.0"
