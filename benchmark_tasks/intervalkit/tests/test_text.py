"""R5 text form and repr, R6 parsing."""

from datetime import date, datetime

import pytest

from intervalkit import Interval, IntervalParseError, InvalidInterval


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda: Interval.closedopen(1, 5), "[1, 5)"),
        (lambda: Interval.closed(1, 5), "[1, 5]"),
        (lambda: Interval.openclosed(-2, 0), "(-2, 0]"),
        (lambda: Interval.open(0.5, 2), "(0.5, 2)"),
        (lambda: Interval.at_most(-3), "(-inf, -3]"),
        (lambda: Interval.less_than(-3), "(-inf, -3)"),
        (lambda: Interval.greater_than(7), "(7, +inf)"),
        (lambda: Interval.at_least(7), "[7, +inf)"),
        (lambda: Interval.all(), "(-inf, +inf)"),
        (lambda: Interval.point(4), "[4, 4]"),
        (lambda: Interval.closed(date(2024, 1, 1), date(2024, 2, 1)), "[2024-01-01, 2024-02-01]"),
        (lambda: Interval.closedopen("a", "m"), "[a, m)"),
        (lambda: Interval(None, 5, "[]"), "(-inf, 5]"),
    ],
)
def test_str(build, expected):
    assert str(build()) == expected


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "build",
    [
        lambda: Interval.empty(),
        lambda: Interval.open(2, 2),
        lambda: Interval.closedopen(2, 2),
    ],
)
def test_str_of_empty_interval(build):
    assert str(build()) == "\u2205"


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda: Interval.closedopen(1, 5), "Interval.closedopen(1, 5)"),
        (lambda: Interval.closed(1, 5), "Interval.closed(1, 5)"),
        (lambda: Interval.openclosed(1, 5), "Interval.openclosed(1, 5)"),
        (lambda: Interval.open(1, 5.5), "Interval.open(1, 5.5)"),
        (lambda: Interval.at_least("b"), "Interval.at_least('b')"),
        (lambda: Interval.greater_than(0), "Interval.greater_than(0)"),
        (lambda: Interval.at_most(0), "Interval.at_most(0)"),
        (lambda: Interval.less_than(0), "Interval.less_than(0)"),
        (lambda: Interval.all(), "Interval.all()"),
        (lambda: Interval.empty(), "Interval.empty()"),
        (lambda: Interval.point(2.5), "Interval.closed(2.5, 2.5)"),
        (lambda: Interval(None, 3, "[]"), "Interval.at_most(3)"),
    ],
)
def test_repr(build, expected):
    assert repr(build()) == expected


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "text, expected",
    [
        ("[1, 5)", (1, 5, True, False)),
        ("(1, 5]", (1, 5, False, True)),
        ("[-3, -1]", (-3, -1, True, True)),
        ("(-inf, 2.5]", (None, 2.5, False, True)),
        ("[0, +inf)", (0, None, True, False)),
        ("[0, inf)", (0, None, True, False)),
        ("(-inf, +inf)", (None, None, False, False)),
        ("  [1,5]  ", (1, 5, True, True)),
        ("( 1 ,2.5 ]", (1, 2.5, False, True)),
        ("[.5, 1e3]", (0.5, 1000.0, True, True)),
        ("[+2, 3.]", (2, 3.0, True, True)),
    ],
)
def test_parse(text, expected):
    interval = Interval.parse(text)
    actual = (interval.lower, interval.upper, interval.lower_closed, interval.upper_closed)
    assert actual == expected


@pytest.mark.requirement("R6")
def test_parse_number_types():
    interval = Interval.parse(" ( 1 ,2.5 ] ")
    assert type(interval.lower) is int
    assert type(interval.upper) is float
    assert type(Interval.parse("[1.0, 2]").lower) is float


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("text", ["\u2205", "  \u2205 ", "[3, 3)", "(3, 3)"])
def test_parse_empty(text):
    assert Interval.parse(text).is_empty


@pytest.mark.requirement("R6")
def test_parse_with_convert():
    dates = Interval.parse("[2024-01-01, 2024-03-01)", convert=date.fromisoformat)
    assert dates == Interval.closedopen(date(2024, 1, 1), date(2024, 3, 1))
    stamps = Interval.parse(
        "[2024-01-01 08:00:00, 2024-01-01 09:00:00)", convert=datetime.fromisoformat
    )
    assert stamps.upper == datetime(2024, 1, 1, 9)
    words = Interval.parse("(apple, pear]", convert=str)
    assert (words.lower, words.upper) == ("apple", "pear")
    assert Interval.parse("(-inf, 2024-01-01]", date.fromisoformat).upper == date(2024, 1, 1)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "1, 2",
        "[1, 2",
        "1, 2]",
        "[1 2]",
        "[1, 2, 3]",
        "[, 2]",
        "[1, ]",
        "{1, 2}",
        "[1, 2]x",
        "[a, b]",
        "[nan, 1]",
        "[1_000, 2000]",
        "[-inf, 3]",
        "[0, +inf]",
        "(+inf, 3)",
        "(inf, 3)",
        "(0, -inf)",
        "[0x10, 20]",
    ],
)
def test_parse_syntax_errors(text):
    with pytest.raises(IntervalParseError) as excinfo:
        Interval.parse(text)
    assert text in str(excinfo.value)


@pytest.mark.requirement("R6")
def test_parse_convert_errors_become_parse_errors():
    with pytest.raises(IntervalParseError):
        Interval.parse("[2024-13-01, 2025-01-01]", convert=date.fromisoformat)
    with pytest.raises(IntervalParseError):
        Interval.parse("[1, x]", convert=int)


@pytest.mark.requirement("R6")
def test_parse_bad_order_is_invalid_interval():
    with pytest.raises(InvalidInterval):
        Interval.parse("[5, 1]")
    with pytest.raises(InvalidInterval):
        Interval.parse("(2.5, -1)")


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("value", [None, 15, b"[1, 2]", ["[1, 2]"]])
def test_parse_non_string(value):
    with pytest.raises(TypeError):
        Interval.parse(value)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "text",
    ["[1, 5)", "(-inf, 2.5]", "[-3, +inf)", "\u2205", "(0.25, 0.75)", "(-inf, +inf)", "[7, 7]", "(1e-07, 1)"],
)
def test_canonical_text_round_trip(text):
    assert str(Interval.parse(text)) == text


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "build",
    [
        lambda: Interval.closed(-10, 10),
        lambda: Interval.open(0.1, 0.30000000000000004),
        lambda: Interval.at_least(1e20),
        lambda: Interval.less_than(-2.5),
        lambda: Interval.all(),
        lambda: Interval.empty(),
        lambda: Interval.point(0),
    ],
)
def test_interval_round_trip(build):
    interval = build()
    assert Interval.parse(str(interval)) == interval
