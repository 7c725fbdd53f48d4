"""Rendering a reconciliation as JSON or as a plain-text summary."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from .model import Reconciliation, Transaction
from .parsing import format_amount


def to_json(result: Reconciliation) -> str:
    """Render ``result`` as an indented JSON document followed by a newline."""
    return json.dumps(_document(result), indent=2, ensure_ascii=False) + "\n"


def to_text(result: Reconciliation) -> str:
    """Render ``result`` as the fixed-format plain-text summary."""
    counts = result.rule_counts()
    lines = [
        f"Bank reconciliation: currency {result.currency or '-'}, window {result.window}",
        _side_line("Bank", result.bank_count, len(result.matches),
                   len(result.unmatched_bank), result.bank_total),
        _side_line("Ledger", result.ledger_count, result.matched_ledger_count,
                   len(result.unmatched_ledger), result.ledger_total),
        "Matches: " + ", ".join(f"{count} {rule}" for rule, count in counts.items()),
        "Unmatched bank:",
        *_item_lines(result.unmatched_bank),
        "Unmatched ledger:",
        *_item_lines(result.unmatched_ledger),
        "Duplicates:",
        *_duplicate_lines(result),
        _balance_line(result),
        "Status: " + ("RECONCILED" if result.is_reconciled else "NOT RECONCILED"),
    ]
    return "\n".join(lines) + "\n"


def _document(result: Reconciliation) -> dict[str, Any]:
    """The JSON report as plain Python data, keys in their documented order."""
    balance = None
    if result.opening_balance is not None and result.closing_balance is not None:
        balance = {
            "opening": format_amount(result.opening_balance),
            "closing": format_amount(result.closing_balance),
            "expected_closing": format_amount(result.expected_closing),
            "difference": format_amount(result.balance_difference),
        }
    return {
        "currency": result.currency,
        "window": result.window,
        "reconciled": result.is_reconciled,
        "bank": {
            "count": result.bank_count,
            "matched": len(result.matches),
            "unmatched": len(result.unmatched_bank),
            "total": format_amount(result.bank_total),
        },
        "ledger": {
            "count": result.ledger_count,
            "matched": result.matched_ledger_count,
            "unmatched": len(result.unmatched_ledger),
            "total": format_amount(result.ledger_total),
        },
        "balance": balance,
        "matches": [
            {
                "rule": match.rule,
                "bank_line": match.bank.line,
                "ledger_lines": [transaction.line for transaction in match.ledger],
                "amount": format_amount(match.amount),
            }
            for match in result.matches
        ],
        "unmatched_bank": [_item(transaction) for transaction in result.unmatched_bank],
        "unmatched_ledger": [_item(transaction) for transaction in result.unmatched_ledger],
        "duplicates": {
            "bank": [[t.line for t in group] for group in result.duplicates_bank],
            "ledger": [[t.line for t in group] for group in result.duplicates_ledger],
        },
    }


def _item(transaction: Transaction) -> dict[str, Any]:
    """JSON object describing one unmatched transaction."""
    return {
        "line": transaction.line,
        "date": transaction.date.isoformat(),
        "amount": format_amount(transaction.amount),
        "description": transaction.description,
        "normalized": transaction.normalized_description,
        "reference": transaction.reference,
    }


def _side_line(label: str, count: int, matched: int, unmatched: int, total: Decimal) -> str:
    """Summary line for one side of the reconciliation."""
    return (f"{label}: {count} transactions, {matched} matched, {unmatched} unmatched, "
            f"total {format_amount(total)}")


def _item_lines(transactions: list[Transaction]) -> list[str]:
    """Indented lines listing unmatched transactions, or ``none``."""
    if not transactions:
        return ["  none"]
    lines = []
    for transaction in transactions:
        line = f"  line {transaction.line}: {transaction.date.isoformat()} "
        line += format_amount(transaction.amount)
        if transaction.normalized_description:
            line += " " + transaction.normalized_description
        lines.append(line)
    return lines


def _duplicate_lines(result: Reconciliation) -> list[str]:
    """Indented lines listing the duplicate groups of both sides, or ``none``."""
    lines = []
    for label, groups in (("bank", result.duplicates_bank), ("ledger", result.duplicates_ledger)):
        for group in groups:
            lines.append(f"  {label}: lines " + ", ".join(str(t.line) for t in group))
    return lines or ["  none"]


def _balance_line(result: Reconciliation) -> str:
    """The balance check line, or ``Balance: not checked`` without balances."""
    if result.opening_balance is None or result.closing_balance is None:
        return "Balance: not checked"
    return (f"Balance: opening {format_amount(result.opening_balance)}, "
            f"closing {format_amount(result.closing_balance)}, "
            f"expected {format_amount(result.expected_closing)}, "
            f"difference {format_amount(result.balance_difference)}")
