"""Exceptions raised by csvq.

Every error carries the process exit code the command-line tool uses when
the error reaches it, so the CLI never has to map exception types itself.
"""


class CsvqError(Exception):
    """Base class of all csvq errors."""

    exit_code = 3


class UsageError(CsvqError):
    """The user's request is invalid: bad option, expression or column name."""

    exit_code = 2


class DataError(CsvqError):
    """The input cannot be read or does not have the expected shape."""

    exit_code = 3
