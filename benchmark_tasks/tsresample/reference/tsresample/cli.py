"""Command-line interface: ``python -m tsresample FILE [options]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import DataError, UsageError
from .fill import FILL_METHODS, fill_gaps
from .frame import Frame
from .outliers import RULES, flag_outliers
from .reader import DUPLICATE_POLICIES, read_csv
from .resample import resample
from .rolling import rolling
from .writer import to_csv, to_json


def _name_list(text: str) -> list[str]:
    """Split a comma-separated option value into stripped, non-empty names."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"empty name in {text!r}")
    return names


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser for the command-line tool."""
    parser = argparse.ArgumentParser(
        prog="tsresample",
        description="Resample, gap-fill, smooth and flag outliers in time-series CSV data.",
    )
    parser.add_argument("file", metavar="FILE", help="input CSV file")
    parser.add_argument("--time-column", metavar="NAME", help="timestamp column (default: first)")
    parser.add_argument("--columns", type=_name_list, metavar="A,B", help="value columns")
    parser.add_argument("--naive-offset", default="Z", metavar="OFFSET",
                        help="offset assumed for timestamps without one (default: Z)")
    parser.add_argument("--duplicates", choices=DUPLICATE_POLICIES, default="error")
    parser.add_argument("--strict", action="store_true", help="fail on the first bad row")
    parser.add_argument("--every", metavar="FREQ", help="resample to buckets of this width")
    parser.add_argument("--agg", type=_name_list, default=["mean"], metavar="AGG[,AGG...]")
    parser.add_argument("--fill", choices=FILL_METHODS, default="none")
    parser.add_argument("--limit", type=int, metavar="N", help="maximum gap length to fill")
    parser.add_argument("--rolling", metavar="WINDOW", help="trailing rolling window width")
    parser.add_argument("--rolling-agg", default="mean", metavar="AGG")
    parser.add_argument("--min-periods", type=int, default=1, metavar="N")
    parser.add_argument("--outliers", choices=sorted(RULES), help="add outlier flag columns")
    parser.add_argument("--threshold", type=float, metavar="X")
    parser.add_argument("--format", choices=("csv", "json"), default="csv")
    parser.add_argument("--decimals", type=int, default=6, metavar="N")
    parser.add_argument("--output", metavar="PATH", help="write to PATH instead of stdout")
    return parser


def _transform(frame: Frame, args: argparse.Namespace) -> Frame:
    """Apply resampling, gap filling, rolling and outlier flagging in that order."""
    if args.every is not None:
        agg = args.agg[0] if len(args.agg) == 1 else args.agg
        frame = resample(frame, args.every, agg)
    frame = fill_gaps(frame, args.fill, limit=args.limit)
    if args.rolling is not None:
        frame = rolling(frame, args.rolling, args.rolling_agg, min_periods=args.min_periods)
    if args.outliers is not None:
        frame = flag_outliers(frame, args.outliers, threshold=args.threshold)
    return frame


def _run(args: argparse.Namespace) -> int:
    """Execute the pipeline for parsed arguments; library errors propagate."""
    result = read_csv(
        args.file,
        time_column=args.time_column,
        columns=args.columns,
        duplicates=args.duplicates,
        on_bad="error" if args.strict else "skip",
        naive_offset=args.naive_offset,
    )
    frame = _transform(result.frame, args)
    render = to_json if args.format == "json" else to_csv
    text = render(frame, args.decimals)
    for bad in result.bad_rows:
        print(f"warning: line {bad.line}: {bad.reason}", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise DataError(f"cannot write {args.output!r}: {exc}") from exc
    return 1 if result.bad_rows else 0


def main(argv: list[str] | None = None) -> int:
    """Run the command-line tool and return its exit status (0, 1, 2 or 3)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return _run(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
