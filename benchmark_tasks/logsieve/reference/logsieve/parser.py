"""Parsing of Common and Combined Log Format lines, line streams and (gzip) files."""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import TextIO

from .models import LogEntry, LogParseError, MalformedLine, ParseResult

EMPTY_LINE = "empty line"
UNRECOGNIZED_FORMAT = "unrecognized format"
INVALID_TIMESTAMP = "invalid timestamp"
INVALID_STATUS = "invalid status"
INVALID_SIZE = "invalid size"

_GZIP_MAGIC = b"\x1f\x8b"


def _quoted(name: str) -> str:
    """Regex for a double-quoted field, captured as *name*; a backslash escapes the next char."""
    return rf'"(?P<{name}>(?:[^"\\]|\\.)*)"'


_LINE_RE = re.compile(
    r"(?P<host>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>[^\]]*)\] "
    rf"{_quoted('request')} (?P<status>\S+) (?P<size>\S+)"
    rf"(?: {_quoted('referer')} {_quoted('agent')})?",
    re.DOTALL,
)

_TIME_RE = re.compile(
    r"(?P<day>[0-9]{2})/(?P<month>[A-Z][a-z]{2})/(?P<year>[0-9]{4})"
    r":(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r" (?P<sign>[+-])(?P<off_h>[0-9]{2})(?P<off_m>[0-9]{2})"
)

_MONTHS = {
    name: number
    for number, name in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
        start=1,
    )
}

_STATUS_RE = re.compile(r"[0-9]{3}")
_SIZE_RE = re.compile(r"[0-9]+")
_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(value: str) -> str:
    """Resolve backslash escapes inside a quoted field."""
    return _ESCAPE_RE.sub(r"\1", value)


def _dash_to_none(value: str) -> str | None:
    """Map the log placeholder ``-`` to ``None``."""
    return None if value == "-" else value


def parse_timestamp(text: str) -> datetime:
    """Parse ``DD/Mon/YYYY:HH:MM:SS +HHMM`` into an aware datetime.

    Raises ``ValueError`` when the text does not follow the format exactly or names an
    impossible date, time or offset.
    """
    match = _TIME_RE.fullmatch(text)
    if match is None or match["month"] not in _MONTHS:
        raise ValueError(f"bad timestamp: {text!r}")
    off_hours, off_minutes = int(match["off_h"]), int(match["off_m"])
    if off_hours > 23 or off_minutes > 59:
        raise ValueError(f"bad UTC offset: {text!r}")
    offset = timedelta(hours=off_hours, minutes=off_minutes)
    if match["sign"] == "-":
        offset = -offset
    return datetime(
        int(match["year"]),
        _MONTHS[match["month"]],
        int(match["day"]),
        int(match["hour"]),
        int(match["minute"]),
        int(match["second"]),
        tzinfo=timezone(offset),
    )


def _split_request(request: str) -> tuple[str | None, str | None, str | None]:
    """Split a request line into method, path and protocol (see requirement R3)."""
    parts = request.split()
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], parts[1], None
    return None, None, None


def parse_line(line: str, lineno: int | None = None) -> LogEntry:
    """Parse one CLF or Combined line into a :class:`LogEntry`.

    Raises :class:`LogParseError` with a reason string when the line is malformed; *lineno*
    is only used to annotate that error.
    """
    text = line.strip()

    def fail(reason: str) -> LogParseError:
        return LogParseError(reason, line=text, lineno=lineno)

    if not text:
        raise fail(EMPTY_LINE)
    match = _LINE_RE.fullmatch(text)
    if match is None:
        raise fail(UNRECOGNIZED_FORMAT)
    try:
        time = parse_timestamp(match["time"])
    except ValueError:
        raise fail(INVALID_TIMESTAMP) from None
    status_text = match["status"]
    if not _STATUS_RE.fullmatch(status_text) or not 100 <= int(status_text) <= 599:
        raise fail(INVALID_STATUS)
    size_text = match["size"]
    if size_text != "-" and not _SIZE_RE.fullmatch(size_text):
        raise fail(INVALID_SIZE)

    request = _unescape(match["request"])
    method, path, protocol = _split_request(request)
    referer = match["referer"]
    agent = match["agent"]
    return LogEntry(
        host=match["host"],
        ident=_dash_to_none(match["ident"]),
        user=_dash_to_none(match["user"]),
        time=time,
        request=request,
        method=method,
        path=path,
        protocol=protocol,
        status=int(status_text),
        size=None if size_text == "-" else int(size_text),
        referer=None if referer is None else _dash_to_none(_unescape(referer)),
        user_agent=None if agent is None else _dash_to_none(_unescape(agent)),
    )


def parse_lines(lines: Iterable[str], *, strict: bool = False) -> ParseResult:
    """Parse an iterable of lines, numbering them from 1.

    Blank lines are skipped. Malformed lines are collected in ``errors`` unless *strict* is
    true, in which case the first one raises :class:`LogParseError`.
    """
    result = ParseResult()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            result.entries.append(parse_line(line, lineno))
        except LogParseError as exc:
            if strict:
                raise
            result.errors.append(MalformedLine(lineno, exc.line, exc.reason))
    return result


@contextmanager
def open_log(path: str | os.PathLike) -> Iterator[TextIO]:
    """Open a log file for reading text, decompressing it when it starts with the gzip magic."""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == _GZIP_MAGIC
        raw.seek(0)
        binary = gzip.GzipFile(fileobj=raw) if compressed else raw
        with io.TextIOWrapper(binary, encoding="utf-8", errors="replace") as text:
            yield text


def parse_file(path: str | os.PathLike, *, strict: bool = False) -> ParseResult:
    """Parse a plain or gzip-compressed log file (see :func:`parse_lines`)."""
    with open_log(path) as handle:
        return parse_lines(handle, strict=strict)
