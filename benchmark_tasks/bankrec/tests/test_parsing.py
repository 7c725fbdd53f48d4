"""Amounts, dates, descriptions and amount formatting (R1-R4, R15)."""

from datetime import date
from decimal import Decimal

import pytest

from bankrec import format_amount, normalize_description, parse_amount, parse_date


# --- R1: plain amounts ---------------------------------------------------------------------

@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12", "12.00"),
        ("-3.5", "-3.50"),
        ("+0.07", "0.07"),
        (" 007.10 ", "7.10"),
        ("1234567.89", "1234567.89"),
    ],
)
def test_plain_amounts(text, expected):
    value = parse_amount(text)
    assert isinstance(value, Decimal)
    assert value == Decimal(expected)
    assert str(value) == expected


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("text", ["-0", "-0.00", "+0.0"])
def test_zero_is_never_negative(text):
    assert str(parse_amount(text)) == "0.00"


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "text", ["", "abc", "1.234", ".5", "5.", "1e3", "--1", "+-1", "1 000", "NaN", "12-"]
)
def test_invalid_plain_amounts(text):
    with pytest.raises(ValueError, match="invalid amount"):
        parse_amount(text)


# --- R2: thousands separators and parentheses ----------------------------------------------

@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234.56", "1234.56"),
        ("-12,345,678", "-12345678.00"),
        ("+999,999.9", "999999.90"),
        ("(4.50)", "-4.50"),
        ("(1,000)", "-1000.00"),
        (" (7) ", "-7.00"),
    ],
)
def test_grouped_and_bracketed_amounts(text, expected):
    value = parse_amount(text)
    assert value == Decimal(expected)
    assert str(value) == expected


@pytest.mark.requirement("R2")
def test_bracketed_zero_is_not_negative():
    assert str(parse_amount("(0.00)")) == "0.00"


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "text",
    ["1,23", "1234,567", ",123", "1,,234", "1,234,", "12,3456.00",
     "(-5)", "-(5)", "(+5)", "( 5 )", "(5", "5)"],
)
def test_invalid_grouping_and_parentheses(text):
    with pytest.raises(ValueError, match="invalid amount"):
        parse_amount(text)


# --- R3: dates -----------------------------------------------------------------------------

@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        ("2024-03-05", "iso", date(2024, 3, 5)),
        (" 2024-02-29 ", "iso", date(2024, 2, 29)),
        ("5/3/2024", "dmy", date(2024, 3, 5)),
        ("05/03/2024", "dmy", date(2024, 3, 5)),
        ("3/5/2024", "mdy", date(2024, 3, 5)),
        ("12/31/2023", "mdy", date(2023, 12, 31)),
    ],
)
def test_valid_dates(text, fmt, expected):
    assert parse_date(text, fmt) == expected


@pytest.mark.requirement("R3")
def test_iso_is_the_default_format():
    assert parse_date("2024-01-02") == date(2024, 1, 2)


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("2024-3-5", "iso"),
        ("2024/03/05", "iso"),
        ("05-03-2024", "iso"),
        ("2023-02-29", "iso"),
        ("31/4/2024", "dmy"),
        ("2024-03-05", "dmy"),
        ("13/1/2024", "mdy"),
        ("", "iso"),
    ],
)
def test_invalid_dates(text, fmt):
    with pytest.raises(ValueError, match="invalid date"):
        parse_date(text, fmt)


@pytest.mark.requirement("R3")
def test_unknown_date_format():
    with pytest.raises(ValueError, match="unknown date format"):
        parse_date("2024-03-05", "ymd")


# --- R4: description normalisation ---------------------------------------------------------

@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  ACME   Corp  #12345 ", "acme corp"),
        ("Payment REF:998 to Bob", "payment to bob"),
        ("INV#7 Office", "office"),
        ("txn42 Coffee", "coffee"),
        ("Straße\tCafé\n", "strasse café"),
        ("Invoice 123", "invoice 123"),
        ("Shop 12345x", "shop 12345x"),
        ("ref-12 Shop", "ref-12 shop"),
        ("1234", ""),
        ("", ""),
    ],
)
def test_normalize_description(text, expected):
    assert normalize_description(text) == expected


# --- R15: formatting amounts ---------------------------------------------------------------

@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("1234.5"), "1234.50"),
        (Decimal("-7"), "-7.00"),
        (5, "5.00"),
        (Decimal("2.675"), "2.68"),
        (Decimal("2.665"), "2.66"),
        (Decimal("1E+3"), "1000.00"),
        (Decimal("1234567.891"), "1234567.89"),
    ],
)
def test_format_amount(value, expected):
    assert format_amount(value) == expected


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("value", [Decimal("-0.004"), Decimal("-0.00"), Decimal("0")])
def test_format_amount_zero_has_no_sign(value):
    assert format_amount(value) == "0.00"


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("value", [1.5, "1.50"])
def test_format_amount_refuses_other_types(value):
    with pytest.raises(TypeError):
        format_amount(value)
