"""R7 equality/hash/order/immutability, R8 containment, R9 overlap and adjacency."""

import pytest

from intervalkit import Interval, IntervalSet


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "a, b, equal",
    [
        ("[1, 2]", "[1, 2]", True),
        ("[1, 2]", "[1.0, 2.0]", True),
        ("[1, 2]", "[1, 2)", False),
        ("[1, 2]", "(1, 2]", False),
        ("(1, 1)", "∅", True),
        ("[1, 1)", "(5, 5]", True),
        ("(-inf, 3]", "(-inf, 3]", True),
        ("(-inf, 3]", "[0, 3]", False),
        ("[0, +inf)", "[0, 5)", False),
        ("[1, 1]", "∅", False),
    ],
)
def test_equality(iv, a, b, equal):
    assert (iv(a) == iv(b)) is equal
    assert (iv(a) != iv(b)) is not equal


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("other", ["[1, 2]", (1, 2), None, 1])
def test_not_equal_to_other_types(other):
    interval = Interval.closed(1, 2)
    assert (interval == other) is False
    assert interval != other
    assert (interval == IntervalSet([interval])) is False


@pytest.mark.requirement("R7")
def test_hashing():
    assert len({Interval.open(3, 3), Interval.empty(), Interval.closedopen(0, 0)}) == 1
    assert hash(Interval.closed(1, 2)) == hash(Interval.closed(1.0, 2.0))
    table = {Interval.closedopen(0, 10): "x"}
    assert table[Interval(0, 10, "[)")] == "x"
    assert len({Interval.closed(1, 2), Interval.closedopen(1, 2), Interval.closed(1, 2)}) == 2


@pytest.mark.requirement("R7")
def test_ordering(iv):
    items = ["[3, 4]", "(1, 5)", "[1, 2]", "∅", "(-inf, 0]", "[1, 2)", "[1, +inf)", "(-inf, -1)"]
    expected = ["∅", "(-inf, -1)", "(-inf, 0]", "[1, 2)", "[1, 2]", "[1, +inf)", "(1, 5)", "[3, 4]"]
    assert sorted(iv(text) for text in items) == [iv(text) for text in expected]


@pytest.mark.requirement("R7")
def test_comparison_operators(iv):
    assert iv("[1, 2]") < iv("(1, 2]")
    assert iv("[1, 2)") < iv("[1, 2]")
    assert iv("∅") < iv("(-inf, +inf)")
    assert iv("[1, 2]") <= iv("[1, 2]")
    assert iv("[5, 6]") > iv("[1, 9]")
    assert iv("[1, +inf)") >= iv("[1, 10]")
    assert not iv("∅") < iv("∅")
    with pytest.raises(TypeError):
        Interval.closed(1, 2) < 3


@pytest.mark.requirement("R7")
def test_bool():
    assert bool(Interval.empty()) is False
    assert bool(Interval.open(1, 1)) is False
    assert bool(Interval.point(0)) is True
    assert bool(Interval.all()) is True


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("attribute", ["lower", "upper", "lower_closed", "is_empty", "foo"])
def test_immutable(attribute):
    interval = Interval.closed(1, 2)
    with pytest.raises(AttributeError):
        setattr(interval, attribute, 3)
    assert interval == Interval.closed(1, 2)


@pytest.mark.requirement("R7")
def test_cannot_delete_attributes():
    interval = Interval.closed(1, 2)
    with pytest.raises(AttributeError):
        del interval.upper
    assert interval.upper == 2


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "interval, value, inside",
    [
        ("[1, 3)", 1, True),
        ("[1, 3)", 3, False),
        ("[1, 3)", 2.999, True),
        ("(1, 3]", 1, False),
        ("(1, 3]", 3, True),
        ("[1, 3]", 2.5, True),
        ("[1, 3]", 0, False),
        ("[1, 3]", 4, False),
        ("(-inf, 0]", -10**9, True),
        ("(-inf, 0]", 0, True),
        ("(-inf, 0)", 0, False),
        ("[5, +inf)", 10**12, True),
        ("(-inf, +inf)", -7.5, True),
        ("[2, 2]", 2, True),
        ("[2, 2]", 2.0, True),
        ("∅", 0, False),
    ],
)
def test_contains_value(iv, interval, value, inside):
    assert iv(interval).contains(value) is inside
    assert (value in iv(interval)) is inside


@pytest.mark.requirement("R8")
def test_contains_other_types_of_values():
    from datetime import date

    january = Interval.closedopen(date(2024, 1, 1), date(2024, 2, 1))
    assert date(2024, 1, 31) in january
    assert date(2024, 2, 1) not in january
    assert "kiwi" in Interval.closed("apple", "pear")
    assert "zebra" not in Interval.closed("apple", "pear")


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "outer, inner, inside",
    [
        ("[1, 3]", "(1, 3)", True),
        ("(1, 3)", "[1, 3]", False),
        ("[1, 3)", "[1, 3)", True),
        ("[1, 3)", "[1, 3]", False),
        ("(1, 3]", "[1, 3]", False),
        ("[0, +inf)", "[0, 5]", True),
        ("[0, +inf)", "[-1, 5]", False),
        ("[0, 5]", "[0, +inf)", False),
        ("(-inf, +inf)", "(-inf, 3)", True),
        ("[1, 3]", "∅", True),
        ("∅", "∅", True),
        ("∅", "[1, 1]", False),
        ("[1, 3]", "[2, 4]", False),
    ],
)
def test_contains_interval(iv, outer, inner, inside):
    assert iv(outer).contains(iv(inner)) is inside
    assert (iv(inner) in iv(outer)) is inside


@pytest.mark.requirement("R8")
def test_contains_interval_set(iset):
    outer = Interval.closed(0, 10)
    assert outer.contains(iset("[1, 2]", "(5, 6)"))
    assert iset("[1, 2]", "(5, 6)") in outer
    assert not outer.contains(iset("[1, 2]", "(9, 11)"))
    assert outer.contains(IntervalSet())
    assert Interval.empty().contains(IntervalSet())


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "a, b, overlap",
    [
        ("[1, 2]", "[2, 3]", True),
        ("[1, 2)", "[2, 3]", False),
        ("[0, 1]", "(1, 2]", False),
        ("[0, 5]", "(1, 2)", True),
        ("(1, 2)", "(1, 2)", True),
        ("[1, 2]", "[3, 4]", False),
        ("(-inf, 0)", "(-1, +inf)", True),
        ("∅", "[1, 2]", False),
        ("∅", "∅", False),
        ("(-inf, +inf)", "[4, 4]", True),
    ],
)
def test_overlaps(iv, a, b, overlap):
    assert iv(a).overlaps(iv(b)) is overlap
    assert iv(b).overlaps(iv(a)) is overlap


@pytest.mark.requirement("R9")
def test_overlaps_interval_set(iset):
    assert Interval.closed(3, 5).overlaps(iset("[0, 1]", "[5, 6]"))
    assert not Interval.open(1, 5).overlaps(iset("[0, 1]", "[5, 6]"))
    assert not Interval.all().overlaps(IntervalSet())


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "a, b, adjacent",
    [
        ("[1, 2)", "[2, 3]", True),
        ("[1, 2]", "(2, 3]", True),
        ("(2, 3]", "[1, 2]", True),
        ("[2, 3]", "[1, 2)", True),
        ("(-inf, 0)", "[0, +inf)", True),
        ("[1, 1]", "(1, 5)", True),
        ("[1, 2)", "(2, 3]", False),
        ("[1, 2]", "[2, 3]", False),
        ("[1, 2]", "[3, 4]", False),
        ("[3, 4]", "[1, 2]", False),
        ("[1, 5]", "[2, 3]", False),
        ("[1, 2]", "[1, 2]", False),
        ("∅", "[1, 2]", False),
        ("[1, 2]", "∅", False),
    ],
)
def test_is_adjacent(iv, a, b, adjacent):
    assert iv(a).is_adjacent(iv(b)) is adjacent


@pytest.mark.requirement("R9")
def test_adjacency_with_dates_and_type_errors():
    from datetime import date

    first = Interval.closedopen(date(2024, 1, 1), date(2024, 2, 1))
    second = Interval.closedopen(date(2024, 2, 1), date(2024, 3, 1))
    assert first.is_adjacent(second)
    assert not Interval.closed(date(2024, 1, 1), date(2024, 1, 31)).is_adjacent(second)
    with pytest.raises(TypeError):
        first.is_adjacent(5)
