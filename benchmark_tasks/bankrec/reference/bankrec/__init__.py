"""bankrec: reconcile a bank statement CSV against a ledger CSV.

Amounts are handled as :class:`decimal.Decimal` throughout; see :func:`reconcile` for the
matching passes and :mod:`bankrec.cli` for the command-line tool.
"""

from .errors import BankrecError, CurrencyError, InputError
from .loader import load_bank, load_ledger
from .matching import find_duplicates, reconcile
from .model import Match, Reconciliation, Transaction
from .parsing import format_amount, normalize_description, parse_amount, parse_date
from .report import to_json, to_text

__all__ = [
    "BankrecError",
    "CurrencyError",
    "InputError",
    "Match",
    "Reconciliation",
    "Transaction",
    "find_duplicates",
    "format_amount",
    "load_bank",
    "load_ledger",
    "normalize_description",
    "parse_amount",
    "parse_date",
    "reconcile",
    "to_json",
    "to_text",
]
