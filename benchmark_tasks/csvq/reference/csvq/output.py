"""Rendering a :class:`Table` as CSV, JSON or a text table."""

import json

from .errors import UsageError
from .reader import Table
from .values import is_number

FORMATS = ("csv", "json", "table")
_CSV_SPECIAL = (",", '"', "\r", "\n")


def _csv_field(value: str) -> str:
    if any(char in value for char in _CSV_SPECIAL):
        return '"' + value.replace('"', '""') + '"'
    return value


def _csv_line(values: list[str]) -> str:
    # A lone empty field is quoted so that the line does not read back as blank.
    if values == [""]:
        return '""\n'
    return ",".join(_csv_field(value) for value in values) + "\n"


def render_csv(table: Table, header: bool = True) -> str:
    """Comma-separated lines, each ending in ``\\n``, with minimal quoting."""
    lines = [table.columns] if header else []
    return "".join(_csv_line(values) for values in lines + table.rows)


def render_json(table: Table) -> str:
    """A JSON array of objects (column name to string value), indented by 2."""
    objects = [dict(zip(table.columns, row)) for row in table.rows]
    return json.dumps(objects, indent=2, ensure_ascii=False) + "\n"


def _is_numeric_column(values: list[str]) -> bool:
    filled = [value for value in values if value != ""]
    return bool(filled) and all(is_number(value) for value in filled)


def render_table(table: Table, header: bool = True) -> str:
    """A bordered text table followed by a ``(N rows)`` line."""
    widths = []
    right_aligned = []
    for index, name in enumerate(table.columns):
        values = [row[index] for row in table.rows]
        widths.append(max([len(value) for value in values] + [len(name)]))
        right_aligned.append(_is_numeric_column(values))

    def line(cells: list[str]) -> str:
        padded = (
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, right_aligned)
        )
        return "|" + "|".join(f" {cell} " for cell in padded) + "|"

    border = "+" + "+".join("-" * (width + 2) for width in widths) + "+"
    lines = [border]
    if header:
        lines += [line(table.columns), border]
    lines += [line(row) for row in table.rows]
    count = len(table.rows)
    lines += [border, f"({count} {'row' if count == 1 else 'rows'})"]
    return "\n".join(lines) + "\n"


def render(table: Table, fmt: str = "csv", *, header: bool = True) -> str:
    """Render ``table`` in format ``fmt`` (``csv``, ``json`` or ``table``).

    ``header=False`` omits the header line of CSV and the header block of a
    text table; JSON output is unaffected.
    """
    if fmt == "csv":
        return render_csv(table, header)
    if fmt == "json":
        return render_json(table)
    if fmt == "table":
        return render_table(table, header)
    raise UsageError(f"invalid format {fmt!r}")
