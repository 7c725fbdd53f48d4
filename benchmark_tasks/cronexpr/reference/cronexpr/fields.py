"""Cron fields: parsing field text into value sets and the canonical form of a value set."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CronSyntaxError

_ELEMENT = re.compile(
    r"(?:(?P<star>\*)|(?P<start>[0-9A-Za-z]+)(?:-(?P<end>[0-9A-Za-z]+))?)(?:/(?P<step>[0-9]+))?",
    re.ASCII,
)


@dataclass(frozen=True)
class FieldSpec:
    """Static description of one cron field.

    ``low``-``high`` is the range ``*`` stands for; ``max_value`` is the highest number that may
    be written (only day-of-week accepts a value above ``high``: 7, another name for Sunday).
    ``names`` are the three-letter aliases of ``low``, ``low + 1``, ... (months: JAN is 1;
    weekdays: SUN is 0).
    """

    name: str
    low: int
    high: int
    max_value: int
    names: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Number of distinct values of the field."""
        return self.high - self.low + 1

    def fold(self, value: int) -> int:
        """Map a written value onto ``low``-``high`` (day-of-week 7 becomes 0)."""
        return self.low + (value - self.low) % self.size


SECOND = FieldSpec("second", 0, 59, 59)
MINUTE = FieldSpec("minute", 0, 59, 59)
HOUR = FieldSpec("hour", 0, 23, 23)
DAY_OF_MONTH = FieldSpec("day-of-month", 1, 31, 31)
MONTH = FieldSpec(
    "month",
    1,
    12,
    12,
    ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"),
)
DAY_OF_WEEK = FieldSpec("day-of-week", 0, 6, 7, ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))

FIVE_FIELD_SPECS = (MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK)
SIX_FIELD_SPECS = (SECOND, *FIVE_FIELD_SPECS)


class _ElementParser:
    """Parses the comma-separated elements of one field, reporting errors by position."""

    def __init__(self, spec: FieldSpec, expression: str) -> None:
        self.spec = spec
        self.expression = expression

    def fail(self, detail: str, position: int) -> CronSyntaxError:
        """Build the error for a problem found at ``position`` of the expression."""
        return CronSyntaxError(
            detail, expression=self.expression, field=self.spec.name, position=position
        )

    def value(self, token: str, position: int) -> int:
        """Convert a number or a name to the integer it stands for."""
        spec = self.spec
        if token.isdigit():
            number = int(token)
            if not spec.low <= number <= spec.max_value:
                raise self.fail(
                    f"value {number} out of range {spec.low}-{spec.max_value}", position
                )
            return number
        upper = token.upper()
        if upper in spec.names:
            return spec.low + spec.names.index(upper)
        raise self.fail(f"invalid value {token!r}", position)

    def element(self, text: str, position: int) -> range:
        """Return the values of one list element such as ``*/15``, ``MON-FRI`` or ``7``."""
        if not text:
            raise self.fail("empty list element", position)
        match = _ELEMENT.fullmatch(text)
        if match is None:
            raise self.fail(f"invalid element {text!r}", position)
        step = 1
        if match["step"] is not None:
            step = int(match["step"])
            if step < 1:
                raise self.fail("step must be at least 1", position)
        if match["star"]:
            return range(self.spec.low, self.spec.high + 1, step)
        start = self.value(match["start"], position)
        if match["end"] is not None:
            end = self.value(match["end"], position)
        elif match["step"] is not None:
            end = self.spec.high
        else:
            end = start
        if start > end:
            raise self.fail(f"range start {start} is greater than its end {end}", position)
        return range(start, end + 1, step)


def parse_field(text: str, spec: FieldSpec, offset: int, expression: str) -> frozenset[int]:
    """Parse the text of one field, which starts at index ``offset`` of ``expression``.

    Returns the set of values the field allows, folded onto ``spec.low``-``spec.high``.
    """
    parser = _ElementParser(spec, expression)
    values: set[int] = set()
    position = offset
    for element in text.split(","):
        values.update(spec.fold(value) for value in parser.element(element, position))
        position += len(element) + 1
    return frozenset(values)


@dataclass(frozen=True)
class FieldForm:
    """Canonical shape of a field's value set.

    ``kind`` is one of:

    * ``"all"`` -- every value (written ``*``);
    * ``"every"`` -- ``low``, ``low + step``, ... up to the end of the field (``*/step``);
    * ``"stepped"`` -- ``start``, ``start + step``, ... ``end`` (``start-end/step``);
    * ``"list"`` -- ``items``, each a ``(first, last)`` pair: a single value when equal,
      otherwise a run of at least three consecutive values.
    """

    kind: str
    start: int = 0
    end: int = 0
    step: int = 1
    items: tuple[tuple[int, int], ...] = ()

    @property
    def single(self) -> int | None:
        """The value if the form is exactly one value, else ``None``."""
        if self.kind == "list" and len(self.items) == 1 and self.items[0][0] == self.items[0][1]:
            return self.items[0][0]
        return None

    def __str__(self) -> str:
        if self.kind == "all":
            return "*"
        if self.kind == "every":
            return f"*/{self.step}"
        if self.kind == "stepped":
            return f"{self.start}-{self.end}/{self.step}"
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in self.items)


def canonical_form(values: frozenset[int], spec: FieldSpec) -> FieldForm:
    """Compute the canonical form of a non-empty value set of the field ``spec``."""
    ordered = sorted(values)
    if len(ordered) == spec.size:
        return FieldForm("all")
    if len(ordered) >= 3:
        step = ordered[1] - ordered[0]
        if step >= 2 and all(b - a == step for a, b in zip(ordered, ordered[1:], strict=False)):
            if ordered[0] == spec.low and ordered[-1] + step > spec.high:
                return FieldForm("every", spec.low, ordered[-1], step)
            return FieldForm("stepped", ordered[0], ordered[-1], step)
    return FieldForm("list", items=tuple(_runs(ordered)))


def _runs(ordered: list[int]) -> list[tuple[int, int]]:
    """Split sorted values into list items: runs of 3+ consecutive values, else singles."""
    items: list[tuple[int, int]] = []
    run_start = 0
    for index in range(1, len(ordered) + 1):
        if index < len(ordered) and ordered[index] == ordered[index - 1] + 1:
            continue
        run = ordered[run_start:index]
        if len(run) >= 3:
            items.append((run[0], run[-1]))
        else:
            items.extend((value, value) for value in run)
        run_start = index
    return items
