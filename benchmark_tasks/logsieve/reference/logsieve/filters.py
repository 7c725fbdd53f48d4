"""Selecting log entries by time window, status class, request method and path prefix."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from .models import LogEntry

Predicate = Callable[[LogEntry], bool]

_CLASS_DIGITS = "12345"


def normalize_status_class(value: int | str) -> int:
    """Return the leading status digit (1-5) named by *value*.

    Accepts an ``int`` 1-5, a digit string ``"1"``..``"5"`` or ``"1xx"``..``"5xx"`` (the ``x``
    in any case). Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool):
        raise ValueError(f"invalid status class: {value!r}")
    if isinstance(value, int):
        if 1 <= value <= 5:
            return value
    elif isinstance(value, str):
        text = value.lower()
        if len(text) in (1, 3) and text[0] in _CLASS_DIGITS and text[1:] in ("", "xx"):
            return int(text[0])
    raise ValueError(f"invalid status class: {value!r}")


def _require_aware(name: str, value: datetime | None) -> None:
    """Reject naive datetimes, which cannot be compared with log timestamps."""
    if value is not None and value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (naive datetime given)")


def _build_predicates(
    start: datetime | None,
    end: datetime | None,
    status_class: int | str | None,
    methods: Iterable[str] | str | None,
    path_prefix: str | None,
) -> list[Predicate]:
    """Validate the filter criteria and turn each given one into a predicate."""
    _require_aware("start", start)
    _require_aware("end", end)
    predicates: list[Predicate] = []
    if start is not None:
        predicates.append(lambda entry: entry.time >= start)
    if end is not None:
        predicates.append(lambda entry: entry.time < end)
    if status_class is not None:
        digit = normalize_status_class(status_class)
        predicates.append(lambda entry: entry.status // 100 == digit)
    if methods is not None:
        wanted = {methods.upper()} if isinstance(methods, str) else {m.upper() for m in methods}
        predicates.append(lambda entry: entry.method is not None and entry.method.upper() in wanted)
    if path_prefix is not None:
        predicates.append(lambda entry: entry.path is not None and entry.path.startswith(path_prefix))
    return predicates


def filter_entries(
    entries: Iterable[LogEntry],
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    status_class: int | str | None = None,
    methods: Iterable[str] | str | None = None,
    path_prefix: str | None = None,
) -> list[LogEntry]:
    """Return the entries matching every given criterion, in input order.

    *start* is inclusive and *end* exclusive; both must be timezone-aware. Criteria left at
    ``None`` do not restrict the result.
    """
    predicates = _build_predicates(start, end, status_class, methods, path_prefix)
    return [entry for entry in entries if all(check(entry) for check in predicates)]
