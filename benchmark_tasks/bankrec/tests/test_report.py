"""JSON report and text summary (R16, R17)."""

import json
from datetime import date
from decimal import Decimal

import pytest

from bankrec import Transaction, reconcile, to_json, to_text


def tx(day, amount, desc="", ref="", line=0, cur="USD"):
    """A transaction on day ``day`` of March 2024."""
    return Transaction(date(2024, 3, day), Decimal(amount), desc, ref, cur, line)


def overview():
    """The example of the overview: one exact, two window, one split match."""
    bank = [
        tx(1, "-1200.00", "ACME Corp #12345", "INV-1", 2),
        tx(2, "-4.50", "Coffee Shop", "", 3),
        tx(5, "2500.00", "Salary REF:9981", "", 4),
        tx(7, "-300.00", "Transfer", "", 5),
        tx(9, "-2.00", "Bank fee", "", 6),
    ]
    ledger = [
        tx(1, "-1200.00", "Acme Corp", "inv-1", 2),
        tx(3, "-4.50", "coffee shop", "", 3),
        tx(4, "2500.00", "Salary", "", 4),
        tx(6, "-100.00", "Rent part 1", "", 5),
        tx(8, "-200.00", "Rent part 2", "", 6),
        tx(20, "-5.00", "Other", "", 7),
    ]
    return bank, ledger


OVERVIEW_DOCUMENT = {
    "currency": "USD",
    "window": 3,
    "reconciled": False,
    "bank": {"count": 5, "matched": 4, "unmatched": 1, "total": "993.50"},
    "ledger": {"count": 6, "matched": 5, "unmatched": 1, "total": "990.50"},
    "balance": None,
    "matches": [
        {"rule": "exact", "bank_line": 2, "ledger_lines": [2], "amount": "-1200.00"},
        {"rule": "window", "bank_line": 3, "ledger_lines": [3], "amount": "-4.50"},
        {"rule": "window", "bank_line": 4, "ledger_lines": [4], "amount": "2500.00"},
        {"rule": "split", "bank_line": 5, "ledger_lines": [5, 6], "amount": "-300.00"},
    ],
    "unmatched_bank": [
        {"line": 6, "date": "2024-03-09", "amount": "-2.00", "description": "Bank fee",
         "normalized": "bank fee", "reference": ""},
    ],
    "unmatched_ledger": [
        {"line": 7, "date": "2024-03-20", "amount": "-5.00", "description": "Other",
         "normalized": "other", "reference": ""},
    ],
    "duplicates": {"bank": [], "ledger": []},
}

OVERVIEW_TEXT = (
    "Bank reconciliation: currency USD, window 3\n"
    "Bank: 5 transactions, 4 matched, 1 unmatched, total 993.50\n"
    "Ledger: 6 transactions, 5 matched, 1 unmatched, total 990.50\n"
    "Matches: 1 exact, 2 window, 1 split\n"
    "Unmatched bank:\n"
    "  line 6: 2024-03-09 -2.00 bank fee\n"
    "Unmatched ledger:\n"
    "  line 7: 2024-03-20 -5.00 other\n"
    "Duplicates:\n"
    "  none\n"
    "Balance: not checked\n"
    "Status: NOT RECONCILED\n"
)


# --- R16: JSON -----------------------------------------------------------------------------

@pytest.mark.requirement("R16")
def test_json_document_content():
    assert json.loads(to_json(reconcile(*overview()))) == OVERVIEW_DOCUMENT


@pytest.mark.requirement("R16")
def test_json_exact_text_and_key_order():
    text = to_json(reconcile(*overview()))
    assert text == json.dumps(OVERVIEW_DOCUMENT, indent=2) + "\n"


@pytest.mark.requirement("R16")
def test_json_balance_and_duplicates():
    bank = [tx(1, "-10", "Fee", line=2), tx(1, "-10", "fee #12345", line=3), tx(2, "5", line=4)]
    ledger = [tx(1, "-10", "Fee", line=5), tx(1, "-10", "Fee", line=6), tx(2, "5", line=9)]
    result = reconcile(bank, ledger, opening_balance=Decimal("100"),
                       closing_balance=Decimal("85.5"))
    document = json.loads(to_json(result))
    assert document["balance"] == {"opening": "100.00", "closing": "85.50",
                                   "expected_closing": "85.00", "difference": "0.50"}
    assert document["duplicates"] == {"bank": [[2, 3]], "ledger": [[5, 6]]}
    assert document["reconciled"] is False
    assert list(document["balance"]) == ["opening", "closing", "expected_closing", "difference"]


@pytest.mark.requirement("R16")
def test_json_empty_result():
    document = json.loads(to_json(reconcile([], [], window=0)))
    assert document == {
        "currency": None,
        "window": 0,
        "reconciled": True,
        "bank": {"count": 0, "matched": 0, "unmatched": 0, "total": "0.00"},
        "ledger": {"count": 0, "matched": 0, "unmatched": 0, "total": "0.00"},
        "balance": None,
        "matches": [],
        "unmatched_bank": [],
        "unmatched_ledger": [],
        "duplicates": {"bank": [], "ledger": []},
    }


@pytest.mark.requirement("R16")
def test_json_keeps_non_ascii_text():
    result = reconcile([tx(1, "3.5", "Café Straße", "R-1", line=2, cur="EUR")], [])
    text = to_json(result)
    assert "Café Straße" in text
    assert json.loads(text)["unmatched_bank"] == [
        {"line": 2, "date": "2024-03-01", "amount": "3.50", "description": "Café Straße",
         "normalized": "café strasse", "reference": "R-1"},
    ]


# --- R17: text -----------------------------------------------------------------------------

@pytest.mark.requirement("R17")
def test_text_overview_example():
    assert to_text(reconcile(*overview())) == OVERVIEW_TEXT


@pytest.mark.requirement("R17")
def test_text_with_balance_duplicates_and_empty_description():
    bank = [tx(1, "-10", "Fee", line=2), tx(1, "-10", "FEE", line=3), tx(4, "7", "#12345", line=4)]
    ledger = [tx(1, "-10", "Fee", line=5), tx(1, "-10", "Fee", line=6),
              tx(1, "-0.5", "x", line=8), tx(1, "-0.5", "X", line=9)]
    result = reconcile(bank, ledger, window=1, opening_balance=Decimal("1"),
                       closing_balance=Decimal("-12"))
    assert to_text(result) == (
        "Bank reconciliation: currency USD, window 1\n"
        "Bank: 3 transactions, 2 matched, 1 unmatched, total -13.00\n"
        "Ledger: 4 transactions, 2 matched, 2 unmatched, total -21.00\n"
        "Matches: 0 exact, 2 window, 0 split\n"
        "Unmatched bank:\n"
        "  line 4: 2024-03-04 7.00\n"
        "Unmatched ledger:\n"
        "  line 8: 2024-03-01 -0.50 x\n"
        "  line 9: 2024-03-01 -0.50 x\n"
        "Duplicates:\n"
        "  bank: lines 2, 3\n"
        "  ledger: lines 5, 6\n"
        "  ledger: lines 8, 9\n"
        "Balance: opening 1.00, closing -12.00, expected -12.00, difference 0.00\n"
        "Status: NOT RECONCILED\n"
    )


@pytest.mark.requirement("R17")
def test_text_reconciled():
    bank = [tx(5, "-300", "Transfer", line=2)]
    ledger = [tx(5, "-100", "a", line=2), tx(6, "-200", "b", line=3)]
    result = reconcile(bank, ledger, opening_balance=Decimal("500"),
                       closing_balance=Decimal("200"))
    assert to_text(result) == (
        "Bank reconciliation: currency USD, window 3\n"
        "Bank: 1 transactions, 1 matched, 0 unmatched, total -300.00\n"
        "Ledger: 2 transactions, 2 matched, 0 unmatched, total -300.00\n"
        "Matches: 0 exact, 0 window, 1 split\n"
        "Unmatched bank:\n"
        "  none\n"
        "Unmatched ledger:\n"
        "  none\n"
        "Duplicates:\n"
        "  none\n"
        "Balance: opening 500.00, closing 200.00, expected 200.00, difference 0.00\n"
        "Status: RECONCILED\n"
    )


@pytest.mark.requirement("R17")
def test_text_empty_result():
    text = to_text(reconcile([], [], window=5))
    lines = text.splitlines()
    assert lines[0] == "Bank reconciliation: currency -, window 5"
    assert lines[1] == "Bank: 0 transactions, 0 matched, 0 unmatched, total 0.00"
    assert lines[-2:] == ["Balance: not checked", "Status: RECONCILED"]
    assert text.endswith("Status: RECONCILED\n")
