"""Matching passes, result, balances, currencies and duplicates (R8-R14)."""

from datetime import date
from decimal import Decimal

import pytest

from bankrec import (
    BankrecError,
    CurrencyError,
    Match,
    Reconciliation,
    Transaction,
    find_duplicates,
    load_bank,
    load_ledger,
    reconcile,
)


def tx(day, amount, desc="", ref="", cur="USD", line=0):
    """A transaction on day ``day`` of March 2024."""
    return Transaction(date(2024, 3, day), Decimal(amount), desc, ref, cur, line)


# --- R8: pass 1 ----------------------------------------------------------------------------

@pytest.mark.requirement("R8")
def test_exact_match_with_case_insensitive_reference():
    bank = [tx(5, "10.00", "Shop", "INV-1")]
    ledger = [tx(5, "10.00", "Other", " inv-1 ")]
    result = reconcile(bank, ledger)
    assert result.matches == [Match("exact", bank[0], (ledger[0],))]


@pytest.mark.requirement("R8")
def test_exact_pass_runs_before_window_pass():
    b0, b1 = tx(5, "10", "A"), tx(5, "10", "A", "R1")
    l0, l1 = tx(5, "10", "A", "R1"), tx(6, "10", "A")
    result = reconcile([b0, b1], [l0, l1])
    assert result.matches == [Match("window", b0, (l1,)), Match("exact", b1, (l0,))]


@pytest.mark.requirement("R8")
def test_exact_takes_first_candidate_in_ledger_order():
    bank = [tx(5, "10", "A", "R1")]
    ledger = [tx(4, "10", "A", "R1"), tx(5, "10", "B", "r1"), tx(5, "10", "A", "R1")]
    result = reconcile(bank, ledger)
    assert result.matches == [Match("exact", bank[0], (ledger[1],))]


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    ("bank_ref", "ledger_ref", "ledger_day"),
    [("", "", 5), ("R1", "R2", 5), ("R1", "R1", 6), ("R1", "", 5)],
)
def test_not_exact_falls_back_to_window(bank_ref, ledger_ref, ledger_day):
    bank = [tx(5, "10", "A", bank_ref)]
    ledger = [tx(ledger_day, "10", "A", ledger_ref)]
    [match] = reconcile(bank, ledger).matches
    assert match.rule == "window"


# --- R9: pass 2 ----------------------------------------------------------------------------

@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    ("window", "days", "matched"),
    [(0, 0, True), (0, 1, False), (1, 1, True), (1, 2, False), (3, 3, True), (3, 4, False),
     (3, -3, True), (3, -4, False)],
)
def test_window_boundary(window, days, matched):
    bank = [tx(10, "-25.00", "Rent")]
    ledger = [tx(10 + days, "-25.00", "Rent")]
    result = reconcile(bank, ledger, window=window)
    assert (len(result.matches) == 1) is matched
    assert result.unmatched_bank == ([] if matched else bank)


@pytest.mark.requirement("R9")
def test_closest_pair_wins_across_bank_order():
    b0, b1 = tx(5, "10", "A"), tx(2, "10", "A")
    l0, l1 = tx(2, "10", "A"), tx(8, "10", "A")
    result = reconcile([b0, b1], [l0, l1], window=3)
    assert result.matches == [Match("window", b0, (l1,)), Match("window", b1, (l0,))]
    assert result.unmatched_bank == [] and result.unmatched_ledger == []


@pytest.mark.requirement("R9")
def test_agreeing_description_breaks_distance_tie():
    bank = [tx(5, "10", "ACME #1234")]
    ledger = [tx(4, "10", "Other"), tx(6, "10", "acme 9999")]
    result = reconcile(bank, ledger)
    assert result.matches[0].ledger == (ledger[1],)
    assert result.unmatched_ledger == [ledger[0]]


@pytest.mark.requirement("R9")
def test_closer_date_beats_agreeing_description():
    bank = [tx(5, "10", "ACME")]
    ledger = [tx(7, "10", "acme"), tx(6, "10", "Other")]
    assert reconcile(bank, ledger).matches[0].ledger == (ledger[1],)


@pytest.mark.requirement("R9")
def test_bank_order_then_ledger_order_break_remaining_ties():
    bank = [tx(5, "10", "A"), tx(5, "10", "A")]
    ledger = [tx(6, "10", "A")]
    result = reconcile(bank, ledger)
    assert result.matches[0].bank is bank[0]
    assert result.unmatched_bank == [bank[1]]
    ledger = [tx(6, "10", "A", line=1), tx(4, "10", "A", line=2)]
    result = reconcile(bank[:1], ledger)
    assert result.matches[0].ledger == (ledger[0],)


@pytest.mark.requirement("R9")
def test_amounts_compare_by_value():
    result = reconcile([tx(5, "10")], [tx(5, "10.00")])
    assert len(result.matches) == 1
    result = reconcile([tx(5, "10.00")], [tx(5, "10.01")])
    assert result.matches == []


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("window", [-1, 1.5, "3", None])
def test_invalid_window(window):
    with pytest.raises(ValueError):
        reconcile([], [], window=window)


# --- R10: pass 3 ---------------------------------------------------------------------------

@pytest.mark.requirement("R10")
def test_split_into_two():
    bank = [tx(7, "-300.00", "Transfer")]
    ledger = [tx(6, "-100.00", "Rent 1"), tx(8, "-200.00", "Rent 2")]
    result = reconcile(bank, ledger)
    assert result.matches == [Match("split", bank[0], (ledger[0], ledger[1]))]
    assert result.matches[0].amount == Decimal("-300.00")


@pytest.mark.requirement("R10")
def test_split_into_three():
    bank = [tx(5, "60")]
    ledger = [tx(5, "10"), tx(4, "20"), tx(6, "30")]
    result = reconcile(bank, ledger)
    assert result.matches == [Match("split", bank[0], tuple(ledger))]


@pytest.mark.requirement("R10")
def test_pairs_are_tried_before_triples():
    bank = [tx(5, "60")]
    ledger = [tx(5, "10"), tx(5, "20"), tx(5, "30"), tx(5, "50")]
    result = reconcile(bank, ledger)
    assert result.matches[0].ledger == (ledger[0], ledger[3])
    assert result.unmatched_ledger == [ledger[1], ledger[2]]


@pytest.mark.requirement("R10")
def test_first_combination_in_combinations_order():
    bank = [tx(5, "50")]
    ledger = [tx(5, "20"), tx(5, "10"), tx(5, "30"), tx(5, "40")]
    result = reconcile(bank, ledger)
    assert result.matches[0].ledger == (ledger[0], ledger[2])


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(("window", "matched"), [(3, False), (4, True)])
def test_split_members_must_be_within_window(window, matched):
    bank = [tx(5, "30")]
    ledger = [tx(1, "10"), tx(5, "20")]
    result = reconcile(bank, ledger, window=window)
    assert (result.unmatched_bank == []) is matched


@pytest.mark.requirement("R10")
def test_four_way_split_is_not_matched():
    bank = [tx(5, "100")]
    ledger = [tx(5, "25"), tx(5, "25"), tx(5, "25"), tx(5, "25")]
    result = reconcile(bank, ledger)
    assert result.matches == []
    assert len(result.unmatched_ledger) == 4


@pytest.mark.requirement("R10")
def test_split_uses_only_ledger_left_by_earlier_passes():
    bank = [tx(5, "100"), tx(5, "30")]
    ledger = [tx(5, "30"), tx(5, "70")]
    result = reconcile(bank, ledger)
    assert result.matches == [Match("window", bank[1], (ledger[0],))]
    assert result.unmatched_bank == [bank[0]]
    assert result.unmatched_ledger == [ledger[1]]


@pytest.mark.requirement("R10")
def test_split_handles_bank_in_order():
    bank = [tx(5, "30", "first"), tx(5, "30", "second")]
    ledger = [tx(5, "10"), tx(5, "20")]
    result = reconcile(bank, ledger)
    assert [m.bank for m in result.matches] == [bank[0]]
    assert result.unmatched_bank == [bank[1]]


# --- R11: result ---------------------------------------------------------------------------

@pytest.mark.requirement("R11")
def test_result_lists_and_order():
    b0, b1, b2 = tx(1, "5", "x"), tx(10, "7", "y"), tx(12, "9", "z", "R")
    l0, l1, l2 = tx(12, "9", "z", "R"), tx(11, "7", "y"), tx(20, "1", "w")
    result = reconcile((b0, b1, b2), (l0, l1, l2), window=2)
    assert isinstance(result, Reconciliation)
    assert [m.bank for m in result.matches] == [b1, b2]
    assert [m.rule for m in result.matches] == ["window", "exact"]
    assert result.unmatched_bank == [b0]
    assert result.unmatched_ledger == [l2]
    assert result.window == 2
    assert result.is_reconciled is False


@pytest.mark.requirement("R11")
def test_totals():
    result = reconcile([tx(1, "1.10"), tx(2, "-3.25")], [tx(1, "1000.00")])
    assert result.bank_total == Decimal("-2.15")
    assert result.ledger_total == Decimal("1000.00")
    empty = reconcile([tx(1, "5")], [])
    assert empty.ledger_total == 0


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    ("bank", "ledger", "reconciled"),
    [
        ([("5", 1)], [("5", 1)], True),
        ([("5", 1), ("6", 1)], [("5", 1)], False),
        ([("5", 1)], [("5", 1), ("6", 1)], False),
        ([("30", 5)], [("10", 5), ("20", 6)], True),
    ],
)
def test_is_reconciled(bank, ledger, reconciled):
    result = reconcile([tx(d, a) for a, d in bank], [tx(d, a) for a, d in ledger])
    assert result.is_reconciled is reconciled


@pytest.mark.requirement("R11")
def test_empty_inputs():
    result = reconcile([], [])
    assert result.is_reconciled is True
    assert result.currency is None
    assert result.matches == [] and result.unmatched_bank == [] and result.unmatched_ledger == []
    assert result.bank_total == 0 and result.ledger_total == 0


@pytest.mark.requirement("R11")
def test_inputs_are_not_modified():
    bank = [tx(5, "10"), tx(6, "1")]
    ledger = [tx(5, "10")]
    reconcile(bank, ledger)
    assert bank == [tx(5, "10"), tx(6, "1")]
    assert ledger == [tx(5, "10")]


# --- R12: balances -------------------------------------------------------------------------

@pytest.mark.requirement("R12")
def test_balance_difference_makes_result_unreconciled():
    bank = [tx(1, "-200.00"), tx(2, "50.00")]
    result = reconcile(bank, list(bank), opening_balance=Decimal("1000.00"),
                       closing_balance=Decimal("845.00"))
    assert result.unmatched_bank == [] and result.unmatched_ledger == []
    assert result.expected_closing == Decimal("850.00")
    assert result.balance_difference == Decimal("-5.00")
    assert result.is_reconciled is False


@pytest.mark.requirement("R12")
def test_balanced_statement():
    bank = [tx(1, "-200.00"), tx(2, "50.00")]
    result = reconcile(bank, list(bank), opening_balance=Decimal("1000"),
                       closing_balance=Decimal("850.00"))
    assert result.balance_difference == 0
    assert result.is_reconciled is True
    assert result.opening_balance == Decimal("1000")
    assert result.closing_balance == Decimal("850.00")


@pytest.mark.requirement("R12")
def test_no_balances():
    result = reconcile([tx(1, "5")], [tx(1, "5")])
    assert result.expected_closing is None
    assert result.balance_difference is None
    assert result.opening_balance is None and result.closing_balance is None


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("kwargs", [{"opening_balance": Decimal("1")},
                                    {"closing_balance": Decimal("1")}])
def test_balances_must_be_given_together(kwargs):
    with pytest.raises(ValueError):
        reconcile([], [], **kwargs)


@pytest.mark.requirement("R12")
def test_balances_must_be_decimal():
    with pytest.raises(TypeError):
        reconcile([], [], opening_balance=Decimal("1"), closing_balance=1.0)


# --- R13: currencies -----------------------------------------------------------------------

@pytest.mark.requirement("R13")
def test_mixed_bank_and_ledger_currencies():
    with pytest.raises(CurrencyError) as info:
        reconcile([tx(1, "5", cur="USD")], [tx(1, "5", cur="EUR")])
    assert str(info.value) == "mixed currencies: EUR, USD"
    assert isinstance(info.value, BankrecError)


@pytest.mark.requirement("R13")
def test_mixed_currencies_within_one_side():
    bank = [tx(1, "5", cur="GBP"), tx(2, "5", cur="CHF"), tx(3, "5", cur="EUR"),
            tx(4, "5", cur="CHF")]
    with pytest.raises(CurrencyError, match="^mixed currencies: CHF, EUR, GBP$"):
        reconcile(bank, [])


@pytest.mark.requirement("R13")
def test_single_currency_is_reported():
    result = reconcile([tx(1, "5", cur="EUR")], [tx(1, "5", cur="EUR"), tx(9, "1", cur="EUR")])
    assert result.currency == "EUR"
    assert reconcile([], [tx(1, "5", cur="JPY")]).currency == "JPY"


# --- R14: duplicates -----------------------------------------------------------------------

@pytest.mark.requirement("R14")
def test_find_duplicates_uses_normalized_description():
    a, b, c = tx(1, "5", "ACME #1234", line=2), tx(1, "5", "Other", line=3), \
        tx(1, "5", "acme  #9999", line=4)
    assert find_duplicates([a, b, c]) == [[a, c]]


@pytest.mark.requirement("R14")
def test_find_duplicates_requires_same_date_and_amount():
    items = [tx(1, "5", "A"), tx(2, "5", "A"), tx(1, "6", "A")]
    assert find_duplicates(items) == []
    assert find_duplicates([]) == []


@pytest.mark.requirement("R14")
def test_find_duplicates_ignores_reference_currency_and_scale():
    a = tx(1, "5", "A", ref="R1", cur="USD")
    b = tx(1, "5.00", "A", ref="R2", cur="EUR")
    assert find_duplicates([a, b]) == [[a, b]]


@pytest.mark.requirement("R14")
def test_find_duplicates_group_order():
    x1, y1, y2, x2, x3 = (tx(1, "1", "x"), tx(2, "2", "y"), tx(2, "2", "y"),
                          tx(1, "1", "x"), tx(1, "1", "x"))
    assert find_duplicates([y1, x1, y2, x2, x3]) == [[y1, y2], [x1, x2, x3]]


@pytest.mark.requirement("R14")
def test_reconcile_reports_duplicates_and_still_matches_them():
    bank = [tx(1, "5", "Fee", line=2), tx(1, "5", "fee", line=3)]
    ledger = [tx(1, "5", "Fee", line=7), tx(2, "5", "Fee", line=8)]
    result = reconcile(bank, ledger)
    assert result.duplicates_bank == [bank]
    assert result.duplicates_ledger == []
    assert result.is_reconciled is True
    assert len(result.matches) == 2


@pytest.mark.requirement("R13")
def test_currencies_from_loaded_files_are_checked(write):
    bank = load_bank(write("date,description,amount,currency\n2024-03-01,A,1,eur\n"
                           "2024-03-02,B,2,\n", "bank.csv"), default_currency="EUR")
    ledger = load_ledger(write("date,payee,amount,currency\n2024-03-01,A,1,EUR\n", "ledger.csv"))
    assert reconcile(bank, ledger).currency == "EUR"
    with pytest.raises(CurrencyError, match="mixed currencies: EUR, USD"):
        reconcile(load_bank(write("date,description,amount\n2024-03-01,A,1\n", "usd.csv")), ledger)
