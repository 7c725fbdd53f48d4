"""The public :class:`CronExpr` class."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, tzinfo

from .describe import describe_forms
from .errors import CronError, CronSearchError
from .schedule import Schedule, parse_expression
from .search import next_wall, previous_wall
from .zones import next_in_zone, previous_in_zone, to_local

DEFAULT_SEARCH_YEARS = 10


def _is_aware(moment: datetime) -> bool:
    return moment.tzinfo is not None and moment.utcoffset() is not None


class CronExpr:
    """A parsed cron expression that can be matched, searched, normalised and described.

    ``CronExpr(expression, *, tz=None, search_years=10)``: ``tz`` is the zone in which the
    expression is evaluated (``None``: the zone of each given datetime, or plain wall-clock
    time for naive datetimes); ``search_years`` bounds how far searches may go.
    """

    __slots__ = ("_expression", "_schedule", "_tz", "_search_years")

    def __init__(
        self,
        expression: str,
        *,
        tz: tzinfo | None = None,
        search_years: int = DEFAULT_SEARCH_YEARS,
    ) -> None:
        if tz is not None and not isinstance(tz, tzinfo):
            raise TypeError(f"tz must be a tzinfo or None, got {type(tz).__name__}")
        if isinstance(search_years, bool) or not isinstance(search_years, int):
            raise ValueError(f"search_years must be an int >= 1, got {search_years!r}")
        if search_years < 1:
            raise ValueError(f"search_years must be an int >= 1, got {search_years!r}")
        self._schedule: Schedule = parse_expression(expression)
        self._expression = expression
        self._tz = tz
        self._search_years = search_years

    # -- attributes -------------------------------------------------------------------------

    @property
    def expression(self) -> str:
        """The expression exactly as given to the constructor."""
        return self._expression

    @property
    def tz(self) -> tzinfo | None:
        """The evaluation time zone, or ``None``."""
        return self._tz

    @property
    def search_years(self) -> int:
        """How many years a search may cover before giving up."""
        return self._search_years

    @property
    def has_seconds(self) -> bool:
        """True for a 6-field expression (with a seconds field)."""
        return self._schedule.has_seconds

    @property
    def seconds(self) -> frozenset[int]:
        """Allowed seconds (``{0}`` for 5-field expressions)."""
        return frozenset(self._schedule.seconds)

    @property
    def minutes(self) -> frozenset[int]:
        """Allowed minutes, 0-59."""
        return frozenset(self._schedule.minutes)

    @property
    def hours(self) -> frozenset[int]:
        """Allowed hours, 0-23."""
        return frozenset(self._schedule.hours)

    @property
    def days(self) -> frozenset[int]:
        """Allowed days of the month, 1-31."""
        return frozenset(self._schedule.days)

    @property
    def months(self) -> frozenset[int]:
        """Allowed months, 1-12."""
        return frozenset(self._schedule.months)

    @property
    def weekdays(self) -> frozenset[int]:
        """Allowed days of the week, 0 (Sunday) to 6 (Saturday)."""
        return frozenset(self._schedule.weekdays)

    # -- evaluation -------------------------------------------------------------------------

    def _zone_for(self, moment: object) -> tzinfo | None:
        """The zone to evaluate ``moment`` in, or ``None`` for naive wall-clock evaluation."""
        if not isinstance(moment, datetime):
            raise TypeError(f"expected a datetime, got {type(moment).__name__}")
        if self._tz is not None:
            return self._tz
        return moment.tzinfo if _is_aware(moment) else None

    @staticmethod
    def _instant(moment: datetime, zone: tzinfo) -> datetime:
        """An aware datetime for ``moment``; a naive one is read as wall time in ``zone``."""
        return moment if _is_aware(moment) else moment.replace(tzinfo=zone)

    def matches(self, dt: datetime) -> bool:
        """True if ``dt`` (microseconds ignored) is a scheduled time."""
        zone = self._zone_for(dt)
        wall = dt if zone is None else to_local(self._instant(dt, zone), zone)
        return self._schedule.matches(wall)

    def next_after(self, dt: datetime) -> datetime:
        """The earliest scheduled time strictly after ``dt``.

        Raises:
            CronSearchError: nothing is scheduled within ``search_years`` years.
        """
        return self._search(dt, "after", next_wall, next_in_zone)

    def prev_before(self, dt: datetime) -> datetime:
        """The latest scheduled time strictly before ``dt``.

        Raises:
            CronSearchError: nothing is scheduled within ``search_years`` years.
        """
        return self._search(dt, "before", previous_wall, previous_in_zone)

    def _search(
        self,
        dt: datetime,
        direction: str,
        wall_search: Callable[[Schedule, datetime, int], datetime | None],
        zone_search: Callable[[Schedule, datetime, tzinfo, int], datetime | None],
    ) -> datetime:
        """Run a naive or zoned search from ``dt``; turn failures into CronSearchError."""
        zone = self._zone_for(dt)
        try:
            if zone is None:
                found = wall_search(self._schedule, dt, self._search_years)
            else:
                found = zone_search(
                    self._schedule, self._instant(dt, zone), zone, self._search_years
                )
        except OverflowError:
            found = None
        if found is None:
            raise CronSearchError(
                f"no time matching {self.to_string()!r} within {self._search_years} years "
                f"{direction} {dt.isoformat()}"
            )
        return found

    def iter_after(self, dt: datetime) -> Iterator[datetime]:
        """Iterate over the scheduled times after ``dt``, in increasing order, without end."""
        self._zone_for(dt)
        return self._walk(dt, self.next_after)

    def iter_before(self, dt: datetime) -> Iterator[datetime]:
        """Iterate over the scheduled times before ``dt``, in decreasing order, without end."""
        self._zone_for(dt)
        return self._walk(dt, self.prev_before)

    @staticmethod
    def _walk(start: datetime, step: Callable[[datetime], datetime]) -> Iterator[datetime]:
        current = start
        while True:
            current = step(current)
            yield current

    # -- output -----------------------------------------------------------------------------

    def to_string(self) -> str:
        """The canonical form: one canonical text per field, separated by single spaces."""
        forms = self._schedule.forms()
        if not self._schedule.has_seconds:
            forms = forms[1:]
        return " ".join(str(form) for form in forms)

    def describe(self) -> str:
        """An English description such as ``At 09:30 on Monday through Friday``."""
        return describe_forms(self._schedule.forms(), self._schedule.has_seconds)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        if self._tz is None:
            return f"CronExpr({self.to_string()!r})"
        return f"CronExpr({self.to_string()!r}, tz={self._tz!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CronExpr):
            return NotImplemented
        return (self.to_string(), self._tz) == (other.to_string(), other._tz)

    def __hash__(self) -> int:
        return hash((self.to_string(), self._tz))


def is_valid(expression: object) -> bool:
    """True if ``expression`` is a ``str`` that :class:`CronExpr` accepts; never raises."""
    if not isinstance(expression, str):
        return False
    try:
        parse_expression(expression)
    except CronError:
        return False
    return True
