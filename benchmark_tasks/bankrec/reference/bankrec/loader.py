"""Reading bank statement and ledger CSV files into transactions."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator

from .errors import InputError
from .model import Transaction
from .parsing import DATE_FORMATS, normalize_currency, parse_amount, parse_date

Record = tuple[int, list[str]]


def load_bank(
    path: str | os.PathLike[str], *, date_format: str = "iso", default_currency: str = "USD"
) -> list[Transaction]:
    """Read a bank statement CSV with the columns date, description and amount."""
    return _load(path, "description", date_format, default_currency)


def load_ledger(
    path: str | os.PathLike[str], *, date_format: str = "iso", default_currency: str = "USD"
) -> list[Transaction]:
    """Read a ledger CSV with the columns date, payee and amount."""
    return _load(path, "payee", date_format, default_currency)


def _load(
    path: str | os.PathLike[str], text_column: str, date_format: str, default_currency: str
) -> list[Transaction]:
    """Read ``path`` whose description column is called ``text_column``."""
    if date_format not in DATE_FORMATS:
        raise ValueError(f"unknown date format: {date_format!r}")
    default = normalize_currency(default_currency)
    name = os.fspath(path)
    records = _read_records(path, name)
    try:
        header_line, header = next(records)
    except StopIteration:
        raise InputError(name, None, "empty file") from None
    names = [cell.casefold() for cell in header]
    for required in ("date", text_column, "amount"):
        if required not in names:
            raise InputError(name, header_line, f"missing column {required!r}")
    index = {column: names.index(column) for column in reversed(names)}

    transactions = []
    for line, record in records:
        if len(record) != len(header):
            reason = f"expected {len(header)} fields, got {len(record)}"
            raise InputError(name, line, reason)
        try:
            transactions.append(_transaction(record, index, text_column, date_format, default, line))
        except ValueError as exc:
            raise InputError(name, line, str(exc)) from None
    return transactions


def _read_records(path: str | os.PathLike[str], name: str) -> Iterator[Record]:
    """Read all non-blank CSV records of ``path`` with their line numbers, cells stripped."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            rows = [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError:
        raise InputError(name, None, "cannot read file: not valid UTF-8") from None
    except (OSError, csv.Error) as exc:
        detail = getattr(exc, "strerror", None) or str(exc)
        raise InputError(name, None, f"cannot read file: {detail}") from None
    for line, row in rows:
        cells = [cell.strip() for cell in row]
        if any(cells):
            yield line, cells


def _transaction(
    record: list[str],
    index: dict[str, int],
    text_column: str,
    date_format: str,
    default_currency: str,
    line: int,
) -> Transaction:
    """Build a transaction from one record; invalid cells raise ValueError."""

    def cell(column: str) -> str:
        return record[index[column]] if column in index else ""

    date = parse_date(cell("date"), date_format)
    amount = parse_amount(cell("amount"))
    currency_text = cell("currency")
    currency = normalize_currency(currency_text) if currency_text else default_currency
    return Transaction(
        date=date,
        amount=amount,
        description=cell(text_column),
        reference=cell("reference"),
        currency=currency,
        line=line,
    )
