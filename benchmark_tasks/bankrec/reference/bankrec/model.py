"""Data model: transactions, matches and the reconciliation result."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from .parsing import normalize_description

RULES = ("exact", "window", "split")


@dataclass(frozen=True)
class Transaction:
    """One line of a bank statement or of a ledger.

    ``line`` is the line number of the record in its source file (0 for transactions that
    were not read from a file). ``amount`` must be a :class:`~decimal.Decimal`.
    """

    date: datetime.date
    amount: Decimal
    description: str = ""
    reference: str = ""
    currency: str = "USD"
    line: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise TypeError(f"amount must be a decimal.Decimal, not {type(self.amount).__name__}")
        if not isinstance(self.date, datetime.date):
            raise TypeError(f"date must be a datetime.date, not {type(self.date).__name__}")

    @property
    def normalized_description(self) -> str:
        """The description after :func:`~bankrec.normalize_description`."""
        return normalize_description(self.description)


@dataclass(frozen=True)
class Match:
    """One bank transaction paired with the ledger transaction(s) it accounts for."""

    rule: str
    bank: Transaction
    ledger: tuple[Transaction, ...]

    @property
    def amount(self) -> Decimal:
        """The matched amount (the bank transaction's amount)."""
        return self.bank.amount


@dataclass
class Reconciliation:
    """The outcome of :func:`~bankrec.reconcile`."""

    currency: str | None
    window: int
    matches: list[Match] = field(default_factory=list)
    unmatched_bank: list[Transaction] = field(default_factory=list)
    unmatched_ledger: list[Transaction] = field(default_factory=list)
    duplicates_bank: list[list[Transaction]] = field(default_factory=list)
    duplicates_ledger: list[list[Transaction]] = field(default_factory=list)
    bank_total: Decimal = Decimal("0.00")
    ledger_total: Decimal = Decimal("0.00")
    opening_balance: Decimal | None = None
    closing_balance: Decimal | None = None

    @property
    def bank_count(self) -> int:
        """Number of bank transactions that were reconciled."""
        return len(self.matches) + len(self.unmatched_bank)

    @property
    def ledger_count(self) -> int:
        """Number of ledger transactions that were reconciled."""
        return self.matched_ledger_count + len(self.unmatched_ledger)

    @property
    def matched_ledger_count(self) -> int:
        """Number of ledger transactions that take part in a match."""
        return sum(len(match.ledger) for match in self.matches)

    @property
    def expected_closing(self) -> Decimal | None:
        """Opening balance plus the bank total, or ``None`` without balances."""
        if self.opening_balance is None:
            return None
        return self.opening_balance + self.bank_total

    @property
    def balance_difference(self) -> Decimal | None:
        """Stated closing balance minus the expected closing balance, or ``None``."""
        expected = self.expected_closing
        if expected is None or self.closing_balance is None:
            return None
        return self.closing_balance - expected

    @property
    def is_reconciled(self) -> bool:
        """True when nothing is unmatched and the balance check (if any) shows no difference."""
        if self.unmatched_bank or self.unmatched_ledger:
            return False
        difference = self.balance_difference
        return difference is None or difference == 0

    def rule_counts(self) -> dict[str, int]:
        """Number of matches per rule, in the order exact, window, split."""
        counts = dict.fromkeys(RULES, 0)
        for match in self.matches:
            counts[match.rule] += 1
        return counts
