"""Command-line interface: ``python -m logsieve COMMAND [options] FILE...``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from .anomaly import detect_bursts
from .filters import filter_entries, normalize_status_class
from .models import LogEntry, LogParseError
from .parser import parse_file
from .report import bursts_to_csv, counts_to_csv, entries_to_csv, summarize, to_json
from .stats import TOP_KEYS, histogram, top_n

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2


class InputError(Exception):
    """A file that cannot be read or written or, in strict mode, has a malformed line."""


def _aware_datetime(text: str) -> datetime:
    """argparse type for ``--since``/``--until``: ISO 8601 with a UTC offset."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid ISO 8601 datetime: {text!r}") from None
    if value.utcoffset() is None:
        raise argparse.ArgumentTypeError(f"datetime needs a timezone offset: {text!r}")
    return value


def _status_class(text: str) -> int:
    """argparse type for ``--status``."""
    try:
        return normalize_status_class(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _non_negative_int(text: str) -> int:
    """argparse type for ``--top`` and ``-n``."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
    return value


def _positive_int(text: str) -> int:
    """argparse type for ``--threshold``."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text}")
    return value


def _positive_float(text: str) -> float:
    """argparse type for ``--window``; rejects zero, negatives and NaN."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0: {text}")
    return value


def _common_options() -> argparse.ArgumentParser:
    """Options shared by every command: filters, strict mode and output file."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--since", type=_aware_datetime, help="keep entries at or after this time")
    common.add_argument("--until", type=_aware_datetime, help="keep entries before this time")
    common.add_argument("--status", type=_status_class, help="status class, e.g. 4xx")
    common.add_argument("--method", action="append", help="request method (repeatable)")
    common.add_argument("--path-prefix", help="keep paths starting with this prefix")
    common.add_argument("--strict", action="store_true", help="abort on the first malformed line")
    common.add_argument("-o", "--output", help="write to this file instead of standard output")
    return common


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser with one sub-command per report."""
    parser = argparse.ArgumentParser(prog="logsieve", description="Analyse web access logs.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = [_common_options()]

    summary = commands.add_parser("summary", parents=common, help="JSON summary report")
    summary.add_argument("--top", type=_non_negative_int, default=10, help="length of top lists")

    top = commands.add_parser("top", parents=common, help="most frequent values as CSV")
    top.add_argument("field", choices=TOP_KEYS, metavar="FIELD", help=", ".join(TOP_KEYS))
    top.add_argument("-n", type=_non_negative_int, default=10, help="number of rows")

    export = commands.add_parser("export", parents=common, help="entries as CSV")

    hist = commands.add_parser("histogram", parents=common, help="requests per UTC hour/minute")
    hist.add_argument("--unit", choices=("hour", "minute"), default="hour")
    hist.add_argument("--fill", action="store_true", help="include empty buckets")

    bursts = commands.add_parser("bursts", parents=common, help="hosts over a rate threshold")
    bursts.add_argument(
        "--threshold", type=_positive_int, required=True, help="maximum requests allowed"
    )
    bursts.add_argument(
        "--window", type=_positive_float, required=True, help="window length in seconds"
    )

    for command in (summary, top, export, hist, bursts):
        command.add_argument("files", nargs="+", metavar="FILE", help="log files (plain or gzip)")
    return parser


def _load(files: Sequence[str], strict: bool) -> list[LogEntry]:
    """Parse every file in order, warning about malformed lines unless *strict*."""
    entries: list[LogEntry] = []
    for name in files:
        try:
            result = parse_file(name, strict=strict)
        except LogParseError as exc:
            raise InputError(f"{name}:{exc.lineno}: {exc.reason}") from None
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
        for error in result.errors:
            print(f"warning: {name}:{error.lineno}: {error.reason}", file=sys.stderr)
        entries.extend(result.entries)
    return entries


RENDERERS: dict[str, Callable[[argparse.Namespace, list[LogEntry]], str]] = {
    "summary": lambda args, entries: to_json(summarize(entries, top=args.top)),
    "top": lambda args, entries: counts_to_csv(
        top_n(entries, args.field, args.n), header=(args.field, "count")
    ),
    "export": lambda args, entries: entries_to_csv(entries),
    "histogram": lambda args, entries: counts_to_csv(
        histogram(entries, args.unit, fill=args.fill).items(), header=("bucket", "count")
    ),
    "bursts": lambda args, entries: bursts_to_csv(
        detect_bursts(entries, threshold=args.threshold, window=args.window)
    ),
}


def _run(args: argparse.Namespace) -> None:
    """Load, filter, render and emit the output of one command."""
    entries = filter_entries(
        _load(args.files, args.strict),
        start=args.since,
        end=args.until,
        status_class=args.status,
        methods=args.method,
        path_prefix=args.path_prefix,
    )
    text = RENDERERS[args.command](args, entries)
    if not args.output:
        sys.stdout.write(text)
        return
    try:
        Path(args.output).write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status (0 ok, 1 input error, 2 usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        _run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK
