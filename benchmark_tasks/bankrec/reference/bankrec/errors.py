"""Exception hierarchy of bankrec."""

from __future__ import annotations


class BankrecError(Exception):
    """Base class of every error raised deliberately by bankrec."""


class InputError(BankrecError):
    """An input file cannot be read or contains an invalid record.

    ``path`` is the file name as given by the caller, ``line`` the 1-based line number of the
    offending record (``None`` when the problem concerns the whole file) and ``reason`` a
    short description of the problem.
    """

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        location = path if line is None else f"{path}:{line}"
        super().__init__(f"{location}: {reason}")


class CurrencyError(BankrecError):
    """The transactions to reconcile are not all in the same currency."""
