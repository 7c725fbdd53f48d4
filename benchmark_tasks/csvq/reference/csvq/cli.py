"""Command-line interface: ``python -m csvq [options] FILE``."""

import re
import sys
from dataclasses import dataclass, field

from .errors import CsvqError, DataError, UsageError
from .output import FORMATS, render
from .query import Query, run_query
from .reader import check_delimiter, read_table

USAGE = """\
usage: csvq [options] FILE

Query a CSV file (FILE, or - for standard input).

options:
  -d, --delimiter CHAR   input field delimiter (one character, \\t or tab)
  --no-header            the input has no header row; columns are c1, c2, ...
  --omit-header          do not print the header (csv and table output)
  -s, --select COLUMNS   comma-separated columns to output, in order
  -w, --where EXPR       keep only rows matching EXPR
  -g, --group-by COLUMNS group rows by these columns
  -a, --agg SPECS        aggregates: count, count:COL, sum:COL, avg:COL,
                         min:COL, max:COL
  --sort KEYS            comma-separated columns, -COL for descending
  --distinct             drop duplicate output rows
  -n, --limit N          output at most N rows
  -f, --format FORMAT    csv (default), json or table
  --fail-empty           exit with status 1 when no rows are output
  -h, --help             show this help and exit

exit status: 0 ok, 1 no rows (with --fail-empty), 2 usage error, 3 data error
"""

_VALUE_OPTIONS = {
    "-d": "delimiter", "--delimiter": "delimiter",
    "-s": "select", "--select": "select",
    "-w": "where", "--where": "where",
    "-g": "group_by", "--group-by": "group_by",
    "-a": "agg", "--agg": "agg",
    "--sort": "sort",
    "-n": "limit", "--limit": "limit",
    "-f": "format", "--format": "format",
}
_FLAG_OPTIONS = {
    "--no-header": "no_header",
    "--omit-header": "omit_header",
    "--distinct": "distinct",
    "--fail-empty": "fail_empty",
    "-h": "help", "--help": "help",
}
_TAB_SPELLINGS = ("\\t", "tab")


@dataclass
class Arguments:
    """The raw result of command-line parsing."""

    file: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)


def parse_arguments(argv: list[str]) -> Arguments:
    """Parse ``argv``; an option's value is always the next argument.

    Stops early when ``-h``/``--help`` is seen so that help wins over
    anything that follows it.
    """
    arguments = Arguments()
    operands: list[str] = []
    position = 0
    options_done = False
    while position < len(argv):
        arg = argv[position]
        position += 1
        if options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
            continue
        if arg == "--":
            options_done = True
            continue
        name, equals, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _FLAG_OPTIONS:
            if equals:
                raise UsageError(f"option {name!r} does not take a value")
            arguments.flags.add(_FLAG_OPTIONS[name])
            if name in ("-h", "--help"):
                return arguments
        elif name in _VALUE_OPTIONS:
            if equals:
                value = inline
            elif position < len(argv):
                value = argv[position]
                position += 1
            else:
                raise UsageError(f"option {name!r} requires a value")
            arguments.values[_VALUE_OPTIONS[name]] = value
        else:
            raise UsageError(f"unknown option {arg!r}")
    if len(operands) != 1:
        raise UsageError(f"expected exactly one FILE argument, got {len(operands)}")
    arguments.file = operands[0]
    return arguments


def _split_list(text: str, option: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if "" in items:
        raise UsageError(f"empty item in {option} {text!r}")
    return items


def _delimiter(arguments: Arguments) -> str:
    delimiter = arguments.values.get("delimiter", ",")
    if delimiter in _TAB_SPELLINGS:
        delimiter = "\t"
    check_delimiter(delimiter)
    return delimiter


def _limit(arguments: Arguments) -> int | None:
    text = arguments.values.get("limit")
    if text is None:
        return None
    if not re.fullmatch(r"[0-9]+", text):
        raise UsageError(f"invalid limit {text!r}")
    return int(text)


def _format(arguments: Arguments) -> str:
    fmt = arguments.values.get("format", "csv")
    if fmt not in FORMATS:
        raise UsageError(f"invalid format {fmt!r}")
    return fmt


def build_query(arguments: Arguments) -> Query:
    """Turn parsed arguments into a validated :class:`Query`."""
    values = arguments.values

    def listed(key: str, option: str) -> list[str]:
        return _split_list(values[key], option) if key in values else []

    return Query(
        select=listed("select", "--select") if "select" in values else None,
        where=values.get("where"),
        group_by=listed("group_by", "--group-by"),
        aggregates=listed("agg", "--agg"),
        sort=listed("sort", "--sort"),
        distinct="distinct" in arguments.flags,
        limit=_limit(arguments),
    )


def read_input(path: str) -> str:
    """Return the text of ``path``, or of standard input for ``-``."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return handle.read()
    except OSError as exc:
        raise DataError(f"cannot read {path!r}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"cannot read {path!r}: not valid UTF-8") from exc


def main(argv: list[str] | None = None) -> int:
    """Run csvq with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    try:
        arguments = parse_arguments(sys.argv[1:] if argv is None else list(argv))
        if "help" in arguments.flags:
            sys.stdout.write(USAGE)
            return 0
        delimiter = _delimiter(arguments)
        fmt = _format(arguments)
        query = build_query(arguments)
        table = read_table(
            read_input(arguments.file),
            delimiter=delimiter,
            header="no_header" not in arguments.flags,
        )
        result = run_query(table, query)
    except CsvqError as exc:
        sys.stderr.write(f"csvq: error: {exc}\n")
        return exc.exit_code
    sys.stdout.write(render(result, fmt, header="omit_header" not in arguments.flags))
    if "fail_empty" in arguments.flags and not result.rows:
        return 1
    return 0
