"""Searching naive wall-clock time for the next or previous scheduled second."""

from __future__ import annotations

import calendar
from bisect import bisect_left, bisect_right
from datetime import MAXYEAR, MINYEAR, datetime, timedelta

from .schedule import Schedule

_SECOND = timedelta(seconds=1)


def _first_at_least(values: tuple[int, ...], bound: int) -> int | None:
    """Smallest member of the sorted ``values`` that is ``>= bound``."""
    index = bisect_left(values, bound)
    return values[index] if index < len(values) else None


def _last_at_most(values: tuple[int, ...], bound: int) -> int | None:
    """Largest member of the sorted ``values`` that is ``<= bound``."""
    index = bisect_right(values, bound)
    return values[index - 1] if index else None


def _next_day(schedule: Schedule, year: int, month: int, day: int) -> int | None:
    """First scheduled day ``>= day`` of the month, or ``None``."""
    last = calendar.monthrange(year, month)[1]
    for candidate in range(day, last + 1):
        if schedule.day_matches(year, month, candidate):
            return candidate
    return None


def _previous_day(schedule: Schedule, year: int, month: int, day: int) -> int | None:
    """Last scheduled day ``<= day`` of the month, or ``None``."""
    last = calendar.monthrange(year, month)[1]
    for candidate in range(min(day, last), 0, -1):
        if schedule.day_matches(year, month, candidate):
            return candidate
    return None


def search_forward(schedule: Schedule, start: datetime, last_year: int) -> datetime | None:
    """Earliest scheduled whole-second wall time ``>= start`` (``start`` has no microseconds).

    Gives up (returns ``None``) once the search passes the end of ``last_year``.
    """
    year, month, day = start.year, start.month, start.day
    hour, minute, second = start.hour, start.minute, start.second
    last_year = min(last_year, MAXYEAR)
    while year <= last_year:
        found = _first_at_least(schedule.months, month)
        if found is None:
            year, month, day, hour, minute, second = year + 1, 1, 1, 0, 0, 0
            continue
        if found != month:
            month, day, hour, minute, second = found, 1, 0, 0, 0
        found = _next_day(schedule, year, month, day)
        if found is None:
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            day, hour, minute, second = 1, 0, 0, 0
            continue
        if found != day:
            day, hour, minute, second = found, 0, 0, 0
        found = _first_at_least(schedule.hours, hour)
        if found is None:
            day, hour, minute, second = day + 1, 0, 0, 0
            continue
        if found != hour:
            hour, minute, second = found, 0, 0
        found = _first_at_least(schedule.minutes, minute)
        if found is None:
            hour, minute, second = hour + 1, 0, 0
            continue
        if found != minute:
            minute, second = found, 0
        found = _first_at_least(schedule.seconds, second)
        if found is None:
            minute, second = minute + 1, 0
            continue
        return datetime(year, month, day, hour, minute, found)
    return None


def search_backward(schedule: Schedule, start: datetime, first_year: int) -> datetime | None:
    """Latest scheduled whole-second wall time ``<= start`` (``start`` has no microseconds).

    Gives up (returns ``None``) once the search passes the beginning of ``first_year``.
    """
    year, month, day = start.year, start.month, start.day
    hour, minute, second = start.hour, start.minute, start.second
    first_year = max(first_year, MINYEAR)
    while year >= first_year:
        found = _last_at_most(schedule.months, month)
        if found is None:
            year, month, day, hour, minute, second = year - 1, 12, 31, 23, 59, 59
            continue
        if found != month:
            month, day, hour, minute, second = found, 31, 23, 59, 59
        found = _previous_day(schedule, year, month, day)
        if found is None:
            year, month = (year - 1, 12) if month == 1 else (year, month - 1)
            day, hour, minute, second = 31, 23, 59, 59
            continue
        if found != day:
            day, hour, minute, second = found, 23, 59, 59
        found = _last_at_most(schedule.hours, hour)
        if found is None:
            day, hour, minute, second = day - 1, 23, 59, 59
            continue
        if found != hour:
            hour, minute, second = found, 59, 59
        found = _last_at_most(schedule.minutes, minute)
        if found is None:
            hour, minute, second = hour - 1, 59, 59
            continue
        if found != minute:
            minute, second = found, 59
        found = _last_at_most(schedule.seconds, second)
        if found is None:
            minute, second = minute - 1, 59
            continue
        return datetime(year, month, day, hour, minute, found)
    return None


def next_wall(schedule: Schedule, after: datetime, years: int) -> datetime | None:
    """Earliest scheduled wall time strictly after the naive ``after``.

    The search covers the years up to ``after.year + years``.
    """
    try:
        start = after.replace(microsecond=0) + _SECOND
    except OverflowError:
        return None
    return search_forward(schedule, start, after.year + years)


def previous_wall(schedule: Schedule, before: datetime, years: int) -> datetime | None:
    """Latest scheduled wall time strictly before the naive ``before``.

    The search covers the years down to ``before.year - years``.
    """
    start = before.replace(microsecond=0)
    if start == before:
        try:
            start -= _SECOND
        except OverflowError:
            return None
    return search_backward(schedule, start, before.year - years)
