"""Timestamps, UTC offsets and bucket widths.

Timestamps are parsed with a strict ISO 8601 subset and always converted to UTC; widths
("frequencies") are written as a positive integer followed by a unit.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from .errors import DataError, UsageError

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""Origin of bucket alignment: 1970-01-01T00:00:00Z."""

_TIMESTAMP_RE = re.compile(
    r"""
    (?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})
    (?:
        [T\ ]
        (?P<hour>[0-9]{2}):(?P<minute>[0-9]{2})
        (?::(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]{1,6}))?)?
        (?P<offset>Z|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2}))?
    )?
    """,
    re.VERBOSE,
)
_OFFSET_RE = re.compile(r"Z|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2})")
_FREQUENCY_RE = re.compile(r"(?P<count>[0-9]+)(?P<unit>s|min|h|d)")
_UNITS = {
    "s": timedelta(seconds=1),
    "min": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
}


def _fixed_offset(sign: str, hours: str, minutes: str) -> timezone | None:
    """Return the fixed-offset timezone for ``±HH:MM`` or None if out of range."""
    hour, minute = int(hours), int(minutes)
    if hour > 23 or minute > 59:
        return None
    delta = timedelta(hours=hour, minutes=minute)
    return timezone(-delta if sign == "-" else delta)


def parse_offset(text: str) -> timezone:
    """Parse ``Z`` or ``±HH:MM`` into a timezone, raising UsageError if invalid."""
    match = _OFFSET_RE.fullmatch(text)
    tz: timezone | None = None
    if match is not None:
        if match.group(0) == "Z":
            tz = timezone.utc
        else:
            tz = _fixed_offset(match["sign"], match["off_hour"], match["off_minute"])
    if tz is None:
        raise UsageError(f"invalid UTC offset: {text!r}")
    return tz


def convert_timestamp(text: str, naive_tz: timezone) -> datetime:
    """Parse ``text`` as an ISO 8601 timestamp and return it as an aware UTC datetime.

    Timestamps without an offset are interpreted in ``naive_tz``. Raises DataError for
    anything outside the accepted grammar or for impossible dates and times.
    """
    match = _TIMESTAMP_RE.fullmatch(text.strip())
    if match is None:
        raise DataError(f"invalid timestamp: {text!r}")
    tz: timezone | None = naive_tz
    if match["offset"] == "Z":
        tz = timezone.utc
    elif match["offset"]:
        tz = _fixed_offset(match["sign"], match["off_hour"], match["off_minute"])
        if tz is None:
            raise DataError(f"invalid timestamp: {text!r}")
    microsecond = int((match["fraction"] or "").ljust(6, "0"))
    try:
        local = datetime(
            int(match["year"]),
            int(match["month"]),
            int(match["day"]),
            int(match["hour"] or 0),
            int(match["minute"] or 0),
            int(match["second"] or 0),
            microsecond,
            tzinfo=tz,
        )
        return local.astimezone(timezone.utc)
    except (ValueError, OverflowError) as exc:
        raise DataError(f"invalid timestamp: {text!r}") from exc


def parse_timestamp(text: str, naive_offset: str = "Z") -> datetime:
    """Parse an ISO 8601 timestamp into an aware datetime in UTC.

    ``naive_offset`` (``Z`` or ``±HH:MM``) is the offset assumed for timestamps that carry
    none. Raises UsageError for an invalid ``naive_offset`` and DataError for invalid text.
    """
    return convert_timestamp(text, parse_offset(naive_offset))


def format_timestamp(moment: datetime) -> str:
    """Format an aware datetime as ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` in UTC."""
    if moment.utcoffset() is None:
        raise ValueError("cannot format a naive datetime")
    utc = moment.astimezone(timezone.utc)
    text = (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    )
    if utc.microsecond:
        text += f".{utc.microsecond:06d}"
    return text + "Z"


def parse_frequency(text: str) -> timedelta:
    """Parse a width such as ``15min``, ``1h`` or ``7d`` into a positive timedelta."""
    match = _FREQUENCY_RE.fullmatch(text)
    if match is None or int(match["count"]) == 0:
        raise UsageError(f"invalid frequency: {text!r}")
    try:
        return int(match["count"]) * _UNITS[match["unit"]]
    except OverflowError as exc:
        raise UsageError(f"invalid frequency: {text!r}") from exc


def to_width(value: str | timedelta) -> timedelta:
    """Accept a frequency string or a positive timedelta and return the timedelta."""
    if isinstance(value, timedelta):
        if value <= timedelta(0):
            raise UsageError(f"invalid frequency: {value!r}")
        return value
    return parse_frequency(value)
