"""Command-line interface: ``python -m bankrec BANK.csv LEDGER.csv [options]``."""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal

from .errors import BankrecError
from .loader import load_bank, load_ledger
from .matching import reconcile
from .parsing import DATE_FORMATS, normalize_currency, parse_amount
from .report import to_json, to_text

EXIT_RECONCILED = 0
EXIT_UNRECONCILED = 1
EXIT_USAGE = 2
EXIT_INPUT = 3


class _UsageError(Exception):
    """An invalid command line."""


class _Parser(argparse.ArgumentParser):
    """Argument parser that raises instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser of the command-line tool."""
    parser = _Parser(prog="bankrec", description="Reconcile a bank statement with a ledger.")
    parser.add_argument("bank", metavar="BANK.csv", help="bank statement CSV file")
    parser.add_argument("ledger", metavar="LEDGER.csv", help="ledger CSV file")
    parser.add_argument("--window", type=int, default=3, metavar="N",
                        help="maximum date distance in days for passes 2 and 3 (default: 3)")
    parser.add_argument("--format", choices=("json", "text"), default="text",
                        help="report format (default: text)")
    parser.add_argument("--date-format", choices=DATE_FORMATS, default="iso",
                        help="date format of both files (default: iso)")
    parser.add_argument("--currency", default="USD", metavar="CODE",
                        help="currency of rows without one (default: USD)")
    parser.add_argument("--opening", metavar="AMOUNT", help="opening balance of the statement")
    parser.add_argument("--closing", metavar="AMOUNT", help="closing balance of the statement")
    return parser


def _balances(args: argparse.Namespace) -> tuple[Decimal | None, Decimal | None]:
    """Parse --opening/--closing; both or neither must be given."""
    if (args.opening is None) != (args.closing is None):
        raise _UsageError("--opening and --closing must be given together")
    if args.opening is None:
        return None, None
    try:
        return parse_amount(args.opening), parse_amount(args.closing)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse and validate the command line; raises _UsageError."""
    args = build_parser().parse_args(argv)
    if args.window < 0:
        raise _UsageError(f"--window must not be negative, got {args.window}")
    try:
        args.currency = normalize_currency(args.currency)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    args.opening, args.closing = _balances(args)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the tool with ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    try:
        args = _parse(argv)
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return EXIT_RECONCILED if not exc.code else EXIT_USAGE

    options = {"date_format": args.date_format, "default_currency": args.currency}
    try:
        bank = load_bank(args.bank, **options)
        ledger = load_ledger(args.ledger, **options)
        result = reconcile(bank, ledger, window=args.window,
                           opening_balance=args.opening, closing_balance=args.closing)
    except BankrecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT

    render = to_json if args.format == "json" else to_text
    sys.stdout.write(render(result))
    return EXIT_RECONCILED if result.is_reconciled else EXIT_UNRECONCILED
