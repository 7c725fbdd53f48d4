"""Query description and execution: filter, group, sort, project, dedupe, limit."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import DataError, UsageError
from .reader import Table, check_unique
from .values import is_number, mean_values, order_key, sum_values
from .where import Condition, parse_where

AGGREGATE_FUNCTIONS = ("count", "sum", "avg", "min", "max")


@dataclass(frozen=True)
class Aggregate:
    """One aggregate column such as ``count`` or ``sum(amount)``."""

    function: str
    column: str | None = None

    @classmethod
    def parse(cls, spec: str) -> "Aggregate":
        """Parse ``count`` or ``FUNCTION:COLUMN``."""
        function, colon, column = spec.partition(":")
        if function not in AGGREGATE_FUNCTIONS or (colon and not column):
            raise UsageError(f"invalid aggregate {spec!r}")
        if not colon and function != "count":
            raise UsageError(f"invalid aggregate {spec!r}")
        return cls(function, column if colon else None)

    @property
    def name(self) -> str:
        """The name of the result column."""
        return self.function if self.column is None else f"{self.function}({self.column})"

    def compute(self, rows: list[list[str]], columns: list[str]) -> str:
        """Aggregate the cells of ``rows`` (laid out as ``columns``) into one value."""
        if self.column is None:
            return str(len(rows))
        index = columns.index(self.column)
        values = [row[index] for row in rows if row[index] != ""]
        if self.function == "count":
            return str(len(values))
        if self.function in ("min", "max"):
            pick = min if self.function == "min" else max
            return pick(values, key=order_key) if values else ""
        for value in values:
            if not is_number(value):
                raise DataError(f"non-numeric value {value!r} in column {self.column!r}")
        return sum_values(values) if self.function == "sum" else mean_values(values)


@dataclass(frozen=True)
class SortKey:
    """One ``--sort`` item: a column and a direction."""

    column: str
    descending: bool = False

    @classmethod
    def parse(cls, spec: str) -> "SortKey":
        """Parse ``name``, ``+name`` (ascending) or ``-name`` (descending)."""
        descending = spec.startswith("-")
        column = spec[1:] if spec[:1] in ("+", "-") else spec
        if not column:
            raise UsageError(f"invalid sort key {spec!r}")
        return cls(column, descending)


@dataclass
class Query:
    """Everything csvq does to a table, validated on construction.

    Raises :class:`UsageError` for a malformed where-expression, aggregate
    or sort key, a negative limit or a column selected twice.
    """

    select: list[str] | None = None
    where: str | None = None
    group_by: list[str] = field(default_factory=list)
    aggregates: list[str] = field(default_factory=list)
    sort: list[str] = field(default_factory=list)
    distinct: bool = False
    limit: int | None = None
    condition: Condition | None = field(init=False, repr=False)
    compiled_aggregates: list[Aggregate] = field(init=False, repr=False)
    sort_keys: list[SortKey] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.condition = None if self.where is None else parse_where(self.where)
        specs = self.aggregates or (["count"] if self.group_by else [])
        self.compiled_aggregates = [Aggregate.parse(spec) for spec in specs]
        self.sort_keys = [SortKey.parse(spec) for spec in self.sort]
        if self.select is not None:
            check_unique(self.select)
        if self.limit is not None and self.limit < 0:
            raise UsageError(f"invalid limit {self.limit}")

    @property
    def grouping(self) -> bool:
        """True when rows are grouped and aggregated."""
        return bool(self.compiled_aggregates)

    def check_columns(self, input_columns: list[str]) -> list[str]:
        """Check every column reference and return the columns after grouping."""
        if self.condition is not None:
            _require(input_columns, sorted(self.condition.columns))
        if not self.grouping:
            columns = list(input_columns)
        else:
            _require(input_columns, self.group_by)
            _require(input_columns, [a.column for a in self.compiled_aggregates if a.column])
            columns = list(self.group_by) + [a.name for a in self.compiled_aggregates]
            check_unique(columns, " in grouped result")
        _require(columns, [key.column for key in self.sort_keys])
        if self.select is not None:
            _require(columns, self.select)
        return columns


def _require(columns: list[str], names: Iterable[str]) -> None:
    for name in names:
        if name not in columns:
            raise UsageError(f"unknown column {name!r}")


def _group(query: Query, columns: list[str], rows: list[list[str]]) -> list[list[str]]:
    """Group rows by the group-by columns in first-seen order and aggregate."""
    key_indexes = [columns.index(name) for name in query.group_by]
    groups: dict[tuple[str, ...], list[list[str]]] = {}
    for row in rows:
        groups.setdefault(tuple(row[i] for i in key_indexes), []).append(row)
    if not query.group_by and not groups:
        groups[()] = []
    return [
        list(key) + [aggregate.compute(members, columns) for aggregate in query.compiled_aggregates]
        for key, members in groups.items()
    ]


def _sort(keys: list[SortKey], columns: list[str], rows: list[list[str]]) -> list[list[str]]:
    """Stable multi-key sort using the numeric-aware value order."""
    rows = list(rows)
    for key in reversed(keys):
        index = columns.index(key.column)
        rows.sort(key=lambda row: order_key(row[index]), reverse=key.descending)
    return rows


def _distinct(rows: list[list[str]]) -> list[list[str]]:
    """Drop rows equal to an earlier row, keeping the first occurrence."""
    seen: set[tuple[str, ...]] = set()
    unique = []
    for row in rows:
        if tuple(row) not in seen:
            seen.add(tuple(row))
            unique.append(row)
    return unique


def run_query(table: Table, query: Query) -> Table:
    """Apply ``query`` to ``table`` and return the resulting table.

    Steps run in this order: where, group/aggregate, sort, select,
    distinct, limit.  Unknown columns raise :class:`UsageError` before any
    row is processed; non-numeric input to ``sum``/``avg`` raises
    :class:`DataError`.
    """
    grouped_columns = query.check_columns(table.columns)
    columns, rows = list(table.columns), list(table.rows)
    if query.condition is not None:
        rows = [row for row in rows if query.condition.matches(dict(zip(columns, row)))]
    if query.grouping:
        rows = _group(query, columns, rows)
        columns = grouped_columns
    if query.sort_keys:
        rows = _sort(query.sort_keys, columns, rows)
    if query.select is not None:
        indexes = [columns.index(name) for name in query.select]
        rows = [[row[i] for i in indexes] for row in rows]
        columns = list(query.select)
    if query.distinct:
        rows = _distinct(rows)
    if query.limit is not None:
        rows = rows[:query.limit]
    return Table(columns, rows)
