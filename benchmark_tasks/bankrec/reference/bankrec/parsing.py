"""Parsing and formatting of the scalar values found in statement and ledger files."""

from __future__ import annotations

import datetime
import re
from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")

_NUMBER = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]{1,2})?"
_SIGNED_AMOUNT = re.compile(rf"(?P<sign>[+-]?)(?P<number>{_NUMBER})")
_BRACKETED_AMOUNT = re.compile(rf"\((?P<number>{_NUMBER})\)")

_DATE_FORMATS: dict[str, tuple[re.Pattern[str], tuple[str, str, str]]] = {
    "iso": (re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})"), ("year", "month", "day")),
    "dmy": (re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})"), ("day", "month", "year")),
    "mdy": (re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})"), ("month", "day", "year")),
}
DATE_FORMATS = tuple(_DATE_FORMATS)

_REFERENCE_TOKEN = re.compile(r"#?[0-9]{4,}|(?:ref|inv|txn)[:#]?[0-9]+")
_CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def parse_amount(text: str) -> Decimal:
    """Parse a monetary amount such as ``"-1,234.5"`` or ``"(12.00)"``.

    The result is a :class:`~decimal.Decimal` with exactly two decimal places; parentheses
    denote a negative amount and a zero amount is never negative. Raises :class:`ValueError`
    for anything that is not a well-formed amount.
    """
    stripped = text.strip()
    match = _BRACKETED_AMOUNT.fullmatch(stripped)
    if match is not None:
        negative = True
    else:
        match = _SIGNED_AMOUNT.fullmatch(stripped)
        if match is None:
            raise ValueError(f"invalid amount: {stripped!r}")
        negative = match["sign"] == "-"
    value = Decimal(match["number"].replace(",", "")).quantize(CENT)
    if negative and value:
        value = -value
    return value


def format_amount(value: Decimal | int) -> str:
    """Format an amount with exactly two decimals, rounding half to even.

    No thousands separators are used, negative amounts get a leading ``-`` and a value that
    rounds to zero is written ``0.00``. Floats are refused with :class:`TypeError`.
    """
    if isinstance(value, float) or not isinstance(value, (Decimal, int)):
        raise TypeError(f"amount must be a Decimal or int, not {type(value).__name__}")
    rounded = Decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)
    if not rounded:
        rounded = abs(rounded)
    return f"{rounded:f}"


def parse_date(text: str, date_format: str = "iso") -> datetime.date:
    """Parse a date written in one of :data:`DATE_FORMATS`.

    ``"iso"`` is ``YYYY-MM-DD``; ``"dmy"`` is ``D/M/YYYY`` and ``"mdy"`` is ``M/D/YYYY``
    (day and month with one or two digits). Raises :class:`ValueError` for an unknown format
    name, a malformed text or a date that does not exist.
    """
    try:
        pattern, order = _DATE_FORMATS[date_format]
    except KeyError:
        raise ValueError(f"unknown date format: {date_format!r}") from None
    stripped = text.strip()
    match = pattern.fullmatch(stripped)
    if match is None:
        raise ValueError(f"invalid date: {stripped!r}")
    parts = dict(zip(order, (int(group) for group in match.groups())))
    try:
        return datetime.date(**parts)
    except ValueError:
        raise ValueError(f"invalid date: {stripped!r}") from None


def normalize_description(text: str) -> str:
    """Normalise a payee description for comparison.

    The text is case-folded and split on whitespace; tokens that look like reference numbers
    (``#?`` followed by four or more digits, or ``ref``/``inv``/``txn`` with an optional
    ``:`` or ``#`` followed by digits) are dropped and the remaining tokens are joined with
    single spaces.
    """
    tokens = text.casefold().split()
    return " ".join(token for token in tokens if not _REFERENCE_TOKEN.fullmatch(token))


def normalize_currency(text: str) -> str:
    """Return the upper-cased three-letter currency code in ``text`` or raise ValueError."""
    code = text.strip().upper()
    if not _CURRENCY_CODE.fullmatch(code):
        raise ValueError(f"invalid currency: {text.strip()!r}")
    return code
