"""Searching in a time zone: wall-clock search plus DST gap and overlap handling.

The schedule of an expression in a zone is the set of *instants* whose local wall-clock time
matches. Wall times inside a DST gap never occur, so they are skipped; wall times inside a DST
overlap occur twice (first with ``fold=0``, then with ``fold=1``) and both occurrences match.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime, timedelta, tzinfo

from .schedule import Schedule
from .search import next_wall, previous_wall, search_backward, search_forward

_SECOND = timedelta(seconds=1)


class WallKind(enum.Enum):
    """How often a naive wall time occurs in a zone."""

    NORMAL = "normal"
    GAP = "gap"
    OVERLAP = "overlap"


def to_local(moment: datetime, zone: tzinfo) -> datetime:
    """The aware ``moment`` expressed in ``zone`` (going through UTC sets ``fold`` correctly)."""
    return moment.astimezone(UTC).astimezone(zone)


def classify(wall: datetime, zone: tzinfo) -> tuple[WallKind, timedelta]:
    """Classify a naive wall time; also return the size of the offset change around it."""
    early = wall.replace(tzinfo=zone, fold=0).utcoffset()
    late = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if early == late:
        return WallKind.NORMAL, timedelta(0)
    if early > late:
        return WallKind.OVERLAP, early - late
    return WallKind.GAP, late - early


def overlap_bounds(wall: datetime, zone: tzinfo, shift: timedelta) -> tuple[datetime, datetime]:
    """Return ``(first, end)``: the repeated wall times around ``wall`` are ``first <= w < end``.

    ``wall`` must lie in an overlap of length ``shift``; the end is found by bisection over
    whole seconds.
    """
    low = wall.replace(microsecond=0)
    high = low + shift
    while high - low > _SECOND:
        middle = low + timedelta(seconds=(high - low) // _SECOND // 2)
        if classify(middle, zone)[0] is WallKind.OVERLAP:
            low = middle
        else:
            high = middle
    return high - shift, high


def _attach(wall: datetime, zone: tzinfo, fold: int = 0) -> datetime:
    return wall.replace(tzinfo=zone, fold=fold)


def next_in_zone(schedule: Schedule, moment: datetime, zone: tzinfo, years: int) -> datetime | None:
    """Earliest scheduled instant strictly after the aware ``moment``, as a time in ``zone``."""
    local = to_local(moment, zone)
    wall = local.replace(tzinfo=None, fold=0)
    last_year = wall.year + years
    kind, shift = classify(wall, zone)
    if kind is WallKind.OVERLAP:
        first, end = overlap_bounds(wall, zone, shift)
        found = next_wall(schedule, wall, years)
        if found is not None and found < end:
            return _attach(found, zone, local.fold)
        if local.fold == 0:
            found = search_forward(schedule, first, last_year)
            if found is not None and found < end:
                return _attach(found, zone, 1)
        found = search_forward(schedule, end, last_year)
    else:
        found = next_wall(schedule, wall, years)
    while found is not None and classify(found, zone)[0] is WallKind.GAP:
        found = search_forward(schedule, found + _SECOND, last_year)
    return None if found is None else _attach(found, zone)


def previous_in_zone(
    schedule: Schedule, moment: datetime, zone: tzinfo, years: int
) -> datetime | None:
    """Latest scheduled instant strictly before the aware ``moment``, as a time in ``zone``."""
    local = to_local(moment, zone)
    wall = local.replace(tzinfo=None, fold=0)
    first_year = wall.year - years
    kind, shift = classify(wall, zone)
    if kind is WallKind.OVERLAP:
        first, end = overlap_bounds(wall, zone, shift)
        found = previous_wall(schedule, wall, years)
        if found is not None and found >= first:
            return _attach(found, zone, local.fold)
        if local.fold == 1:
            found = search_backward(schedule, end - _SECOND, first_year)
            if found is not None and found >= first:
                return _attach(found, zone, 0)
        found = search_backward(schedule, first - _SECOND, first_year)
    else:
        found = previous_wall(schedule, wall, years)
    while found is not None:
        kind, _ = classify(found, zone)
        if kind is WallKind.NORMAL:
            return _attach(found, zone)
        if kind is WallKind.OVERLAP:
            return _attach(found, zone, 1)
        found = search_backward(schedule, found - _SECOND, first_year)
    return None
