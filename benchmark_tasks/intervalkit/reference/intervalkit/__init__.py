"""intervalkit: intervals, interval sets and interval-keyed mappings over ordered values.

Public API::

    Interval        an immutable interval with open, closed or unbounded ends
    IntervalSet     an immutable union of intervals in canonical form
    IntervalDict    a mutable mapping from ranges to values
    IntervalError   base class of every library error (a ValueError)
    InvalidInterval, IncomparableError, IntervalParseError
"""

from .errors import IncomparableError, IntervalError, IntervalParseError, InvalidInterval
from .intervaldict import IntervalDict
from .intervals import Interval, IntervalSet

__all__ = [
    "IncomparableError",
    "Interval",
    "IntervalDict",
    "IntervalError",
    "IntervalParseError",
    "IntervalSet",
    "InvalidInterval",
]

__version__ = "1.0.0"
