"""English descriptions of schedules, built from the canonical forms of their fields."""

from __future__ import annotations

from .fields import (
    DAY_OF_MONTH,
    DAY_OF_WEEK,
    HOUR,
    MINUTE,
    MONTH,
    SECOND,
    FieldForm,
    FieldSpec,
)

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def ordinal(number: int) -> str:
    """English ordinal of a positive integer: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    if number % 100 in (11, 12, 13):
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def join_words(words: list[str]) -> str:
    """Join as ``a``, ``a and b`` or ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _value_name(spec: FieldSpec, value: int) -> str:
    if spec is MONTH:
        return MONTH_NAMES[value - 1]
    if spec is DAY_OF_WEEK:
        return WEEKDAY_NAMES[value]
    return str(value)


def describe_field(form: FieldForm, spec: FieldSpec) -> str:
    """Phrase for one field, e.g. ``every 15th minute`` or ``Monday through Friday``."""
    if form.kind == "all":
        return f"every {spec.name}"
    if form.kind == "every":
        return f"every {ordinal(form.step)} {spec.name}"
    if form.kind == "stepped":
        return (
            f"every {ordinal(form.step)} {spec.name} from {_value_name(spec, form.start)}"
            f" through {_value_name(spec, form.end)}"
        )
    words = [
        _value_name(spec, first)
        if first == last
        else f"{_value_name(spec, first)} through {_value_name(spec, last)}"
        for first, last in form.items
    ]
    text = join_words(words)
    return text if spec.names else f"{spec.name} {text}"


def describe_forms(forms: tuple[FieldForm, ...], has_seconds: bool) -> str:
    """Describe a schedule given the canonical forms of its six fields (seconds first)."""
    second, minute, hour, day, month, weekday = forms
    clock_fields = (hour, minute, second) if has_seconds else (hour, minute)
    if all(form.single is not None for form in clock_fields):
        text = "At " + ":".join(f"{form.single:02d}" for form in clock_fields)
    else:
        parts = [(minute, MINUTE), (hour, HOUR)]
        if has_seconds:
            parts.insert(0, (second, SECOND))
        while len(parts) > 1 and parts[-1][0].kind == "all":
            parts.pop()
        text = "At " + " past ".join(describe_field(form, spec) for form, spec in parts)
    day_phrases = [
        describe_field(form, spec)
        for form, spec in ((day, DAY_OF_MONTH), (weekday, DAY_OF_WEEK))
        if form.kind != "all"
    ]
    if day_phrases:
        text += " on " + " or on ".join(day_phrases)
    if month.kind != "all":
        text += " in " + describe_field(month, MONTH)
    return text
