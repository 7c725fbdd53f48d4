"""Transaction model, loading CSV files and input errors (R5-R7)."""

import dataclasses
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from bankrec import InputError, Transaction, load_bank, load_ledger


# --- R5: Transaction -----------------------------------------------------------------------

@pytest.mark.requirement("R5")
def test_transaction_fields_and_defaults():
    t = Transaction(date(2024, 3, 1), Decimal("5.00"))
    assert (t.date, t.amount, t.description, t.reference, t.currency, t.line) == (
        date(2024, 3, 1), Decimal("5.00"), "", "", "USD", 0,
    )
    full = Transaction(date(2024, 3, 2), Decimal("-1.25"), "Shop", "R1", "EUR", 7)
    assert full == Transaction(
        date=date(2024, 3, 2), amount=Decimal("-1.25"), description="Shop",
        reference="R1", currency="EUR", line=7,
    )


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("amount", [1.5, 2, "3.00", None])
def test_transaction_amount_must_be_decimal(amount):
    with pytest.raises(TypeError):
        Transaction(date(2024, 3, 1), amount)


@pytest.mark.requirement("R5")
def test_transaction_date_must_be_a_date():
    with pytest.raises(TypeError):
        Transaction("2024-03-01", Decimal("1.00"))


@pytest.mark.requirement("R5")
def test_transaction_is_frozen():
    t = Transaction(date(2024, 3, 1), Decimal("5.00"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.amount = Decimal("6.00")


@pytest.mark.requirement("R5")
def test_transaction_normalized_description():
    t = Transaction(date(2024, 3, 1), Decimal("5.00"), "  ACME  Corp #12345")
    assert t.normalized_description == "acme corp"
    assert t.description == "  ACME  Corp #12345"


# --- R6: loading ---------------------------------------------------------------------------

BANK = (
    "date,description,amount,reference\n"
    "2024-03-01,ACME Corp #12345,\"-1,200.00\",INV-1\n"
    "2024-03-02, Coffee  Shop ,(4.50),\n"
)


@pytest.mark.requirement("R6")
def test_load_bank_basic(write):
    path = write(BANK, "bank.csv")
    assert load_bank(path) == [
        Transaction(date(2024, 3, 1), Decimal("-1200.00"), "ACME Corp #12345", "INV-1", "USD", 2),
        Transaction(date(2024, 3, 2), Decimal("-4.50"), "Coffee  Shop", "", "USD", 3),
    ]


@pytest.mark.requirement("R6")
def test_load_ledger_uses_payee_column_and_pathlike(write):
    path = write("Payee , AMOUNT,Date,Memo\nAcme,-1200,2024-03-01,ignored\n", "ledger.csv")
    assert load_ledger(Path(path)) == [
        Transaction(date(2024, 3, 1), Decimal("-1200.00"), "Acme", "", "USD", 2),
    ]


@pytest.mark.requirement("R6")
def test_blank_lines_skipped_but_counted_and_bom_ignored(write):
    text = "\ufeff date ,description,amount\n\n , , \n2024-03-05,Fee,-2\n\n2024-03-06,Fee,-3\n"
    result = load_bank(write(text, "bank.csv"))
    assert [(t.line, t.amount) for t in result] == [(4, Decimal("-2.00")), (6, Decimal("-3.00"))]


@pytest.mark.requirement("R6")
def test_currency_column_and_default_currency(write):
    text = "date,payee,amount,currency\n2024-03-01,A,1,eur\n2024-03-02,B,2,\n"
    result = load_ledger(write(text, "ledger.csv"), default_currency="gbp")
    assert [t.currency for t in result] == ["EUR", "GBP"]


@pytest.mark.requirement("R6")
def test_date_format_option(write):
    text = "date,description,amount\n5/3/2024,A,1\n31/12/2024,B,2\n"
    result = load_bank(write(text, "bank.csv"), date_format="dmy")
    assert [t.date for t in result] == [date(2024, 3, 5), date(2024, 12, 31)]


@pytest.mark.requirement("R6")
def test_header_only_gives_empty_list(write):
    assert load_ledger(write("date,payee,amount\n", "ledger.csv")) == []


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("kwargs", [{"date_format": "xyz"}, {"default_currency": "EURO"}])
def test_invalid_loader_options(write, kwargs):
    path = write("date,description,amount\n", "bank.csv")
    with pytest.raises(ValueError):
        load_bank(path, **kwargs)


# --- R7: input errors ----------------------------------------------------------------------

@pytest.mark.requirement("R7")
def test_input_error_attributes_and_str():
    exc = InputError("bank.csv", 4, "invalid amount: 'x'")
    assert (exc.path, exc.line, exc.reason) == ("bank.csv", 4, "invalid amount: 'x'")
    assert str(exc) == "bank.csv:4: invalid amount: 'x'"
    assert str(InputError("bank.csv", None, "empty file")) == "bank.csv: empty file"


@pytest.mark.requirement("R7")
def test_missing_file(tmp_path):
    path = str(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="cannot read") as info:
        load_bank(path)
    assert info.value.path == path
    assert info.value.line is None


@pytest.mark.requirement("R7")
def test_invalid_utf8(tmp_path):
    path = tmp_path / "bank.csv"
    path.write_bytes(b"date,description,amount\n2024-03-01,Caf\xe9,1\n")
    with pytest.raises(InputError, match="cannot read"):
        load_bank(path)


@pytest.mark.requirement("R7")
def test_empty_file(write):
    with pytest.raises(InputError, match="empty file") as info:
        load_ledger(write("\n \n", "ledger.csv"))
    assert info.value.line is None


@pytest.mark.requirement("R7")
def test_missing_column(write):
    path = write("\ndate,description,amount\n", "ledger.csv")
    with pytest.raises(InputError) as info:
        load_ledger(path)
    assert "missing column" in info.value.reason
    assert "payee" in info.value.reason
    assert info.value.line == 2


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("2024-03-01,A", "fields"),
        ("2024-03-01,A,1,extra", "fields"),
        ("2024-13-01,A,1", "invalid date"),
        ("2024-03-01,A,12.345", "invalid amount"),
        ("2024-03-01,A,", "invalid amount"),
        ("bad-date,A,bad-amount", "invalid date"),
    ],
)
def test_invalid_record(write, row, fragment):
    path = write("date,description,amount\n2024-03-01,ok,1\n\n" + row + "\n", "bank.csv")
    with pytest.raises(InputError) as info:
        load_bank(path)
    assert fragment in info.value.reason
    assert info.value.line == 4
    assert str(info.value).startswith(f"{path}:4: ")


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("code", ["EURO", "E1R", "$"])
def test_invalid_currency_cell(write, code):
    path = write(f"date,payee,amount,currency\n2024-03-01,A,1,{code}\n", "ledger.csv")
    with pytest.raises(InputError, match="invalid currency") as info:
        load_ledger(path)
    assert info.value.line == 2
