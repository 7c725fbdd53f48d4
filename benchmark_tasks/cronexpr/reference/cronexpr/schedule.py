"""Parsing whole expressions into a :class:`Schedule` of allowed values."""

from __future__ import annotations

import re
from datetime import date, datetime

from .errors import CronSyntaxError
from .fields import (
    DAY_OF_MONTH,
    DAY_OF_WEEK,
    FIVE_FIELD_SPECS,
    SIX_FIELD_SPECS,
    FieldForm,
    canonical_form,
    parse_field,
)

MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}

_TOKEN = re.compile(r"\S+")


class Schedule:
    """The value sets of a parsed expression and the calendar rules that combine them."""

    __slots__ = ("seconds", "minutes", "hours", "days", "months", "weekdays", "has_seconds")

    def __init__(
        self,
        seconds: frozenset[int],
        minutes: frozenset[int],
        hours: frozenset[int],
        days: frozenset[int],
        months: frozenset[int],
        weekdays: frozenset[int],
        has_seconds: bool,
    ) -> None:
        self.seconds = tuple(sorted(seconds))
        self.minutes = tuple(sorted(minutes))
        self.hours = tuple(sorted(hours))
        self.days = tuple(sorted(days))
        self.months = tuple(sorted(months))
        self.weekdays = tuple(sorted(weekdays))
        self.has_seconds = has_seconds

    @property
    def days_restricted(self) -> bool:
        """True unless the day-of-month field allows every day 1-31."""
        return len(self.days) != DAY_OF_MONTH.size

    @property
    def weekdays_restricted(self) -> bool:
        """True unless the day-of-week field allows all seven weekdays."""
        return len(self.weekdays) != DAY_OF_WEEK.size

    def day_matches(self, year: int, month: int, day: int) -> bool:
        """Apply the day-of-month / day-of-week rule to one calendar day.

        When both day fields are restricted a day matches if *either* field matches;
        otherwise the restricted field alone decides (or every day matches).
        """
        in_days = day in self.days
        in_weekdays = (date(year, month, day).weekday() + 1) % 7 in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return in_days or in_weekdays
        return in_days and in_weekdays

    def matches(self, wall: datetime) -> bool:
        """True if the wall-clock time ``wall`` (microseconds ignored) is scheduled."""
        return (
            wall.second in self.seconds
            and wall.minute in self.minutes
            and wall.hour in self.hours
            and wall.month in self.months
            and self.day_matches(wall.year, wall.month, wall.day)
        )

    def forms(self) -> tuple[FieldForm, ...]:
        """Canonical forms of the six fields, seconds first."""
        sets = (self.seconds, self.minutes, self.hours, self.days, self.months, self.weekdays)
        return tuple(
            canonical_form(frozenset(values), spec)
            for values, spec in zip(sets, SIX_FIELD_SPECS, strict=True)
        )


def parse_expression(expression: str) -> Schedule:
    """Parse a 5-field, 6-field or macro expression.

    Raises:
        TypeError: ``expression`` is not a ``str``.
        CronSyntaxError: the expression is invalid.
    """
    if not isinstance(expression, str):
        raise TypeError(f"expression must be a str, got {type(expression).__name__}")
    tokens = [(match.start(), match.group()) for match in _TOKEN.finditer(expression)]
    if not tokens:
        raise CronSyntaxError("empty expression", expression=expression)
    first_position, first_text = tokens[0]
    if first_text.startswith("@"):
        macro = MACROS.get(first_text.lower())
        if macro is None or len(tokens) > 1:
            raise CronSyntaxError(
                f"unknown macro {expression.strip()!r}",
                expression=expression,
                position=first_position,
            )
        return parse_expression(macro)
    if len(tokens) not in (5, 6):
        raise CronSyntaxError(f"expected 5 or 6 fields, got {len(tokens)}", expression=expression)
    has_seconds = len(tokens) == 6
    specs = SIX_FIELD_SPECS if has_seconds else FIVE_FIELD_SPECS
    sets = [
        parse_field(text, spec, position, expression)
        for (position, text), spec in zip(tokens, specs, strict=True)
    ]
    if not has_seconds:
        sets.insert(0, frozenset({0}))
    return Schedule(*sets, has_seconds=has_seconds)
