"""Matching bank transactions against ledger transactions."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from decimal import Decimal

from .errors import CurrencyError
from .model import Match, Reconciliation, Transaction

SPLIT_SIZES = (2, 3)


def reconcile(
    bank: Sequence[Transaction],
    ledger: Sequence[Transaction],
    *,
    window: int = 3,
    opening_balance: Decimal | None = None,
    closing_balance: Decimal | None = None,
) -> Reconciliation:
    """Match ``bank`` against ``ledger`` in three passes and check the balances.

    Pass 1 pairs equal amounts on the same date with the same reference, pass 2 pairs equal
    amounts at most ``window`` days apart (closest first) and pass 3 matches one bank
    transaction with two or three ledger transactions whose amounts add up to it.
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ValueError(f"window must be a non-negative integer, got {window!r}")
    if (opening_balance is None) != (closing_balance is None):
        raise ValueError("opening and closing balances must be given together")
    for balance in (opening_balance, closing_balance):
        if balance is not None and not isinstance(balance, Decimal):
            raise TypeError(f"balances must be decimal.Decimal, not {type(balance).__name__}")
    bank = list(bank)
    ledger = list(ledger)
    currency = common_currency(bank + ledger)

    matcher = _Matcher(bank, ledger, window)
    matcher.exact_pass()
    matcher.window_pass()
    matcher.split_pass()

    return Reconciliation(
        currency=currency,
        window=window,
        matches=[matcher.matches[index] for index in sorted(matcher.matches)],
        unmatched_bank=[bank[i] for i in matcher.free_bank()],
        unmatched_ledger=[ledger[i] for i in matcher.free_ledger()],
        duplicates_bank=find_duplicates(bank),
        duplicates_ledger=find_duplicates(ledger),
        bank_total=_total(bank),
        ledger_total=_total(ledger),
        opening_balance=opening_balance,
        closing_balance=closing_balance,
    )


def common_currency(transactions: Sequence[Transaction]) -> str | None:
    """Return the one currency of ``transactions`` (``None`` if empty) or raise CurrencyError."""
    currencies = sorted({transaction.currency for transaction in transactions})
    if len(currencies) > 1:
        raise CurrencyError(f"mixed currencies: {', '.join(currencies)}")
    return currencies[0] if currencies else None


def find_duplicates(transactions: Sequence[Transaction]) -> list[list[Transaction]]:
    """Group transactions with equal date, amount and normalised description.

    Only groups with at least two members are returned, ordered by the position of their
    first member; members keep their input order.
    """
    groups: dict[tuple, list[Transaction]] = {}
    for transaction in transactions:
        key = (transaction.date, transaction.amount, transaction.normalized_description)
        groups.setdefault(key, []).append(transaction)
    return [group for group in groups.values() if len(group) > 1]


def _total(transactions: Sequence[Transaction]) -> Decimal:
    """Sum of the amounts of ``transactions``."""
    return sum((transaction.amount for transaction in transactions), Decimal("0.00"))


def _reference_key(reference: str) -> str:
    """The form in which references are compared: stripped and case-folded."""
    return reference.strip().casefold()


class _Matcher:
    """Book-keeping of which transactions have been matched by the passes so far."""

    def __init__(self, bank: list[Transaction], ledger: list[Transaction], window: int) -> None:
        self.bank = bank
        self.ledger = ledger
        self.window = window
        self.matches: dict[int, Match] = {}
        self.used_ledger: set[int] = set()

    def free_bank(self) -> list[int]:
        """Positions of the bank transactions not matched yet, in input order."""
        return [i for i in range(len(self.bank)) if i not in self.matches]

    def free_ledger(self) -> list[int]:
        """Positions of the ledger transactions not matched yet, in input order."""
        return [i for i in range(len(self.ledger)) if i not in self.used_ledger]

    def distance(self, bank_index: int, ledger_index: int) -> int:
        """Absolute number of days between a bank and a ledger transaction."""
        return abs((self.ledger[ledger_index].date - self.bank[bank_index].date).days)

    def within_window(self, bank_index: int, ledger_index: int) -> bool:
        """Whether the two transactions are at most ``window`` days apart."""
        return self.distance(bank_index, ledger_index) <= self.window

    def accept(self, rule: str, bank_index: int, ledger_indexes: Sequence[int]) -> None:
        """Record a match and mark its transactions as used."""
        ledger = tuple(self.ledger[i] for i in ledger_indexes)
        self.matches[bank_index] = Match(rule, self.bank[bank_index], ledger)
        self.used_ledger.update(ledger_indexes)

    def exact_pass(self) -> None:
        """Pass 1: same amount, same date and the same non-empty reference."""
        for bank_index in self.free_bank():
            transaction = self.bank[bank_index]
            reference = _reference_key(transaction.reference)
            if not reference:
                continue
            for ledger_index in self.free_ledger():
                candidate = self.ledger[ledger_index]
                if (
                    candidate.amount == transaction.amount
                    and candidate.date == transaction.date
                    and _reference_key(candidate.reference) == reference
                ):
                    self.accept("exact", bank_index, [ledger_index])
                    break

    def window_pass(self) -> None:
        """Pass 2: same amount within the window, closest pairs first."""
        candidates = []
        for bank_index in self.free_bank():
            transaction = self.bank[bank_index]
            for ledger_index in self.free_ledger():
                candidate = self.ledger[ledger_index]
                if candidate.amount != transaction.amount:
                    continue
                if not self.within_window(bank_index, ledger_index):
                    continue
                same_payee = candidate.normalized_description == transaction.normalized_description
                key = (self.distance(bank_index, ledger_index), not same_payee)
                candidates.append((key, bank_index, ledger_index))
        for _, bank_index, ledger_index in sorted(candidates):
            if bank_index not in self.matches and ledger_index not in self.used_ledger:
                self.accept("window", bank_index, [ledger_index])

    def split_pass(self) -> None:
        """Pass 3: one bank transaction equals the sum of two or three ledger transactions."""
        for bank_index in self.free_bank():
            pool = [i for i in self.free_ledger() if self.within_window(bank_index, i)]
            combination = self._find_combination(pool, self.bank[bank_index].amount)
            if combination is not None:
                self.accept("split", bank_index, combination)

    def _find_combination(self, pool: list[int], target: Decimal) -> tuple[int, ...] | None:
        """First combination of the pool (pairs before triples) whose amounts sum to target."""
        for size in SPLIT_SIZES:
            for combination in itertools.combinations(pool, size):
                total = sum((self.ledger[i].amount for i in combination), Decimal("0.00"))
                if total == target:
                    return combination
        return None
