"""The task record and the validation rules for its fields."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from .errors import ValidationError

STATUSES = ("open", "done")
#: Priorities ordered from the most to the least urgent.
PRIORITIES = ("high", "normal", "low")
PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TAG_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")


def parse_date(text: str) -> date:
    """Parse a strict ``YYYY-MM-DD`` calendar date.

    ``date.fromisoformat`` alone is too lenient (it accepts ``20260301``), so the
    shape is checked with a regular expression first.
    """
    if not isinstance(text, str) or not _DATE_RE.fullmatch(text):
        raise ValidationError(f"invalid date: {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationError(f"invalid date: {text!r}") from None


def normalize_title(title: Any) -> str:
    """Return the title without surrounding whitespace; reject empty titles."""
    if not isinstance(title, str) or not title.strip():
        raise ValidationError("title must not be empty")
    return title.strip()


def check_priority(priority: Any) -> str:
    """Return ``priority`` unchanged if it is one of :data:`PRIORITIES`."""
    if priority not in PRIORITIES:
        raise ValidationError(f"invalid priority: {priority!r}")
    return priority


def check_status(status: Any) -> str:
    """Return ``status`` unchanged if it is one of :data:`STATUSES`."""
    if status not in STATUSES:
        raise ValidationError(f"invalid status: {status!r}")
    return status


def normalize_tags(tags: Iterable[Any]) -> tuple[str, ...]:
    """Lower-case, validate, de-duplicate and sort a collection of tags."""
    result: set[str] = set()
    for tag in tags:
        norm = tag.lower() if isinstance(tag, str) else tag
        if not isinstance(norm, str) or not _TAG_RE.fullmatch(norm):
            raise ValidationError(f"invalid tag: {tag!r}")
        result.add(norm)
    return tuple(sorted(result))


def _check_id(value: Any) -> int:
    """Return ``value`` if it is a positive integer (booleans excluded)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"invalid id: {value!r}")
    return value


@dataclass(frozen=True)
class Task:
    """One to-do item. Instances are immutable; the store replaces them on change."""

    id: int
    title: str
    status: str = "open"
    priority: str = "normal"
    due: date | None = None
    tags: tuple[str, ...] = ()

    def is_overdue(self, today: date) -> bool:
        """True if the task is open and its due date lies strictly before ``today``."""
        return self.status == "open" and self.due is not None and self.due < today

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object form used by the storage file and the JSON export."""
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "priority": self.priority,
            "due": self.due.isoformat() if self.due else None,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """Build a task from its JSON object form, validating every field."""
        if not isinstance(data, Mapping):
            raise ValidationError("task must be a JSON object")
        due = data.get("due")
        tags = data.get("tags")
        if not isinstance(tags, list):
            raise ValidationError(f"invalid tags: {tags!r}")
        return cls(
            id=_check_id(data.get("id")),
            title=normalize_title(data.get("title")),
            status=check_status(data.get("status")),
            priority=check_priority(data.get("priority")),
            due=None if due is None else parse_date(due),
            tags=normalize_tags(tags),
        )
