"""Exception hierarchy of intervalkit.

Every error the library raises on purpose derives from :class:`IntervalError`, which is itself
a :class:`ValueError`, so callers can catch all of them at once.
"""


class IntervalError(ValueError):
    """Base class of every error defined by intervalkit."""


class InvalidInterval(IntervalError):
    """An interval cannot be built from the given endpoints or bound specification.

    Raised when the lower endpoint is greater than the upper endpoint, when a float endpoint
    is NaN or infinite, or when the bound specification is not one of ``"[]"``, ``"[)"``,
    ``"(]"`` and ``"()"``.
    """


class IncomparableError(IntervalError, TypeError):
    """Two endpoint values (or a value and an endpoint) cannot be ordered with ``<``.

    It is also a :class:`TypeError`, because the root cause is a type mismatch such as
    comparing an ``int`` with a ``str`` or a ``date`` with a ``datetime``.
    """


class IntervalParseError(IntervalError):
    """The text given to :meth:`intervalkit.Interval.parse` is not a valid interval."""
