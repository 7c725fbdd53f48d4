"""R10 interval operations and R14 lengths."""

import math
from datetime import date, timedelta

import pytest

from intervalkit import Interval, IntervalSet


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("[1, 5]", "(3, 8)", "(3, 5]"),
        ("[1, 2)", "[2, 3]", "∅"),
        ("[1, 2]", "[2, 3]", "[2, 2]"),
        ("(-inf, +inf)", "[1, 2)", "[1, 2)"),
        ("(-inf, 4)", "(2, +inf)", "(2, 4)"),
        ("[1, 5]", "[1, 5)", "[1, 5)"),
        ("(1, 5]", "[1, 5)", "(1, 5)"),
        ("[0, 10]", "∅", "∅"),
        ("[0, 1]", "[5, 6]", "∅"),
    ],
)
def test_intersection_of_intervals(iv, a, b, expected):
    result = iv(a) & iv(b)
    assert isinstance(result, Interval)
    assert result == iv(expected)
    assert iv(b).intersection(iv(a)) == iv(expected)


@pytest.mark.requirement("R10")
def test_intersection_with_interval_set(iv, iset):
    result = iv("[2, 6]") & iset("[1, 3]", "[5, 8]")
    assert isinstance(result, IntervalSet)
    assert result == iset("[2, 3]", "[5, 6]")
    assert iv("[2, 6]").intersection(iset("[1, 3]")) == iset("[2, 3]")


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("[1, 3]", "[2, 5]", ["[1, 5]"]),
        ("[1, 2)", "[2, 3]", ["[1, 3]"]),
        ("[1, 2]", "(2, 3]", ["[1, 3]"]),
        ("[1, 2)", "(2, 3]", ["[1, 2)", "(2, 3]"]),
        ("[1, 2]", "[3, 4]", ["[1, 2]", "[3, 4]"]),
        ("[3, 4]", "[1, 2]", ["[1, 2]", "[3, 4]"]),
        ("[1, 2]", "∅", ["[1, 2]"]),
        ("∅", "∅", []),
        ("(-inf, 0)", "[0, +inf)", ["(-inf, +inf)"]),
    ],
)
def test_union_of_intervals(iv, a, b, expected):
    result = iv(a) | iv(b)
    assert isinstance(result, IntervalSet)
    assert list(result) == [iv(text) for text in expected]
    assert iv(a).union(iv(b)) == result


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("[0, 10]", "(3, 4)", ["[0, 3]", "[4, 10]"]),
        ("[0, 10]", "[3, 4]", ["[0, 3)", "(4, 10]"]),
        ("[0, 10]", "[0, 10]", []),
        ("[0, 10]", "[5, 20]", ["[0, 5)"]),
        ("[0, 10]", "(-inf, 5]", ["(5, 10]"]),
        ("(-inf, +inf)", "[0, 1]", ["(-inf, 0)", "(1, +inf)"]),
        ("[0, 10]", "[20, 30]", ["[0, 10]"]),
        ("[0, 10]", "∅", ["[0, 10]"]),
        ("∅", "[0, 10]", []),
        ("[1, 1]", "(1, 2)", ["[1, 1]"]),
    ],
)
def test_difference_of_intervals(iv, a, b, expected):
    result = iv(a) - iv(b)
    assert isinstance(result, IntervalSet)
    assert list(result) == [iv(text) for text in expected]
    assert iv(a).difference(iv(b)) == result


@pytest.mark.requirement("R10")
def test_symmetric_difference_of_intervals(iv):
    assert list(iv("[1, 3]") ^ iv("[2, 4]")) == [iv("[1, 2)"), iv("(3, 4]")]
    assert list(iv("[1, 3]").symmetric_difference(iv("[1, 3]"))) == []
    assert list(iv("[1, 2)") ^ iv("[2, 3)")) == [iv("[1, 3)")]


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "interval, universe, expected",
    [
        ("[0, 1)", None, ["(-inf, 0)", "[1, +inf)"]),
        ("(-inf, 5]", None, ["(5, +inf)"]),
        ("(-inf, +inf)", None, []),
        ("∅", None, ["(-inf, +inf)"]),
        ("[2, 3]", "[0, 10]", ["[0, 2)", "(3, 10]"]),
        ("[2, 30]", "[0, 10]", ["[0, 2)"]),
        ("[20, 30]", "[0, 10]", ["[0, 10]"]),
    ],
)
def test_complement(iv, interval, universe, expected):
    if universe is None:
        result = iv(interval).complement()
        assert ~iv(interval) == result
    else:
        result = iv(interval).complement(iv(universe))
    assert isinstance(result, IntervalSet)
    assert list(result) == [iv(text) for text in expected]


@pytest.mark.requirement("R10")
def test_complement_within_interval_set_universe(iv, iset):
    result = iv("[2, 6]").complement(iset("[0, 3]", "[5, 8]"))
    assert result == iset("[0, 2)", "(6, 8]")


@pytest.mark.requirement("R10")
@pytest.mark.parametrize("other", [5, "[1, 2]", (1, 2), None])
def test_operations_reject_other_types(other):
    interval = Interval.closed(0, 10)
    for operation in (
        lambda: interval & other,
        lambda: interval | other,
        lambda: interval - other,
        lambda: interval.union(other),
        lambda: interval.intersection(other),
        lambda: interval.difference(other),
    ):
        with pytest.raises(TypeError):
            operation()


@pytest.mark.requirement("R10")
def test_operands_are_not_modified(iv):
    a, b = iv("[0, 10]"), iv("(3, 4)")
    a - b
    a | b
    a & b
    assert a == iv("[0, 10]") and b == iv("(3, 4)")


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "interval, expected",
    [
        ("[1, 3]", 2),
        ("(1, 3)", 2),
        ("[1, 3)", 2),
        ("[5, 5]", 0),
        ("[0.5, 2]", 1.5),
        ("[-4, -1]", 3),
        ("∅", 0),
        ("(-inf, 0]", math.inf),
        ("[0, +inf)", math.inf),
        ("(-inf, +inf)", math.inf),
    ],
)
def test_interval_length(iv, interval, expected):
    assert iv(interval).length == expected


@pytest.mark.requirement("R14")
def test_interval_length_of_dates():
    assert Interval.closedopen(date(2024, 1, 1), date(2024, 3, 1)).length == timedelta(days=60)
    assert Interval.at_least(date(2024, 1, 1)).length == math.inf


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "pieces, expected",
    [
        (["[1, 3]", "[2, 5]", "(10, 10.5)"], 4.5),
        (["[0, 1]", "[2, 3]", "[4, 5]"], 3),
        (["[7, 7]"], 0),
        ([], 0),
        (["[0, 1]", "[5, +inf)"], math.inf),
        (["(-inf, +inf)"], math.inf),
    ],
)
def test_total_length(iset, pieces, expected):
    assert iset(*pieces).total_length == expected


@pytest.mark.requirement("R14")
def test_total_length_of_dates():
    pieces = IntervalSet(
        [
            Interval.closedopen(date(2024, 1, 1), date(2024, 1, 10)),
            Interval.closed(date(2024, 2, 1), date(2024, 2, 3)),
        ]
    )
    assert pieces.total_length == timedelta(days=11)
