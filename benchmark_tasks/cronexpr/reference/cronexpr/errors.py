"""Exception hierarchy of cronexpr."""

from __future__ import annotations


class CronError(ValueError):
    """Base class of every error defined by cronexpr."""


class CronSyntaxError(CronError):
    """A cron expression is not valid.

    Attributes:
        expression: the expression exactly as it was given.
        field: name of the offending field (``"minute"``, ``"day-of-week"``, ...) or
            ``None`` when the error concerns the expression as a whole.
        position: 0-based index into ``expression`` where the offending part starts, or
            ``None`` when no single position is to blame.
        detail: the bare description of the problem.
    """

    def __init__(
        self,
        detail: str,
        *,
        expression: str,
        field: str | None = None,
        position: int | None = None,
    ) -> None:
        self.detail = detail
        self.expression = expression
        self.field = field
        self.position = position
        message = detail if field is None else f"{field} field: {detail}"
        if position is not None:
            message = f"{message} (position {position})"
        super().__init__(message)


class CronSearchError(CronError):
    """No time matching an expression exists within the search limit."""
