"""csvq: select, filter, sort and aggregate CSV data.

The command-line tool lives in :mod:`csvq.cli`; the functions exported here
are the small library it is built on.
"""

from .errors import CsvqError, DataError, UsageError
from .output import render
from .query import Query, run_query
from .reader import Table, read_table
from .values import compare_values
from .where import Condition, parse_where

__all__ = [
    "Condition",
    "CsvqError",
    "DataError",
    "Query",
    "Table",
    "UsageError",
    "compare_values",
    "parse_where",
    "read_table",
    "render",
    "run_query",
]
