"""R11 canonical form, R12 set algebra, R13 complement, containment and span."""

import pytest

from intervalkit import Interval, IntervalSet


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "pieces, expected",
    [
        (["[5, 6]", "[1, 3)", "[2, 4]"], ["[1, 4]", "[5, 6]"]),
        (["[1, 2)", "(2, 3]"], ["[1, 2)", "(2, 3]"]),
        (["[1, 2)", "[2, 3]"], ["[1, 3]"]),
        (["[1, 2]", "[3, 4]"], ["[1, 2]", "[3, 4]"]),
        (["∅", "[1, 2]", "∅"], ["[1, 2]"]),
        (["∅"], []),
        ([], []),
        (["[0, 10]", "[2, 3]", "(4, 5)"], ["[0, 10]"]),
        (["(-inf, 0)", "(0, +inf)"], ["(-inf, 0)", "(0, +inf)"]),
        (["(-inf, 0)", "[0, 0]", "(0, +inf)"], ["(-inf, +inf)"]),
        (["[8, 9]", "(5, 6)", "[1, 1]", "(3, 4]"], ["[1, 1]", "(3, 4]", "(5, 6)", "[8, 9]"]),
    ],
)
def test_canonical_pieces(iv, pieces, expected):
    result = IntervalSet([iv(text) for text in pieces])
    expected_pieces = [iv(text) for text in expected]
    assert result.intervals == tuple(expected_pieces)
    assert list(result) == expected_pieces
    assert len(result) == len(expected_pieces)
    assert bool(result) is bool(expected_pieces)
    assert result.is_empty is (not expected_pieces)


@pytest.mark.requirement("R11")
def test_accepts_any_iterable():
    generated = IntervalSet(Interval.closed(i, i + 2) for i in range(0, 10, 2))
    assert len(generated) == 1
    assert len(IntervalSet()) == 0
    assert len(IntervalSet((Interval.open(0, 1), Interval.open(1, 2)))) == 2


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("item", [(1, 2), "[1, 2]", 3, None, [Interval.closed(1, 2)]])
def test_rejects_non_intervals(item):
    with pytest.raises(TypeError):
        IntervalSet([Interval.closed(5, 6), item])


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "pieces, expected",
    [
        (["[5, 6]", "[1, 3)", "[2, 4]"], "{[1, 4], [5, 6]}"),
        (["[1, 2)", "(2, 3]"], "{[1, 2), (2, 3]}"),
        (["∅"], "{}"),
        ([], "{}"),
        (["(-inf, 0]", "(1, +inf)"], "{(-inf, 0], (1, +inf)}"),
        (["[1.5, 2.5]"], "{[1.5, 2.5]}"),
    ],
)
def test_str(iset, pieces, expected):
    assert str(iset(*pieces)) == expected


@pytest.mark.requirement("R11")
def test_repr(iset):
    assert repr(iset("[5, 6]", "[1, 4]")) == "IntervalSet([Interval.closed(1, 4), Interval.closed(5, 6)])"
    assert repr(IntervalSet()) == "IntervalSet([])"
    assert repr(iset("[0, +inf)")) == "IntervalSet([Interval.at_least(0)])"


@pytest.mark.requirement("R11")
def test_equality_and_hash(iset):
    a = iset("[1, 2)", "[2, 3]", "[5, 6]")
    b = iset("[5, 6]", "[1, 3]")
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, IntervalSet()}) == 2
    assert a != iset("[1, 3]")
    assert (iset("[1, 3]") == Interval.closed(1, 3)) is False
    assert (IntervalSet() == Interval.empty()) is False
    assert (IntervalSet() == []) is False


@pytest.mark.requirement("R11")
def test_immutable(iset):
    pieces = iset("[1, 2]")
    with pytest.raises(AttributeError):
        pieces.intervals = ()
    with pytest.raises(AttributeError):
        pieces.extra = 1
    assert pieces == iset("[1, 2]")


S = ["[1, 3]", "[5, 8]"]


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "operator_name, other, expected",
    [
        ("or", ["[3, 5)"], ["[1, 8]"]),
        ("or", ["(3, 5)"], ["[1, 8]"]),
        ("or", ["(4, 4.5)"], ["[1, 3]", "(4, 4.5)", "[5, 8]"]),
        ("or", [], ["[1, 3]", "[5, 8]"]),
        ("and", ["[2, 6]"], ["[2, 3]", "[5, 6]"]),
        ("and", ["(0, 1]", "[8, 9]"], ["[1, 1]", "[8, 8]"]),
        ("and", ["(3, 5)"], []),
        ("and", ["(-inf, +inf)"], ["[1, 3]", "[5, 8]"]),
        ("sub", ["(2, 6)"], ["[1, 2]", "[6, 8]"]),
        ("sub", ["[1, 3]", "[5, 8]"], []),
        ("sub", ["(1, 3)"], ["[1, 1]", "[3, 3]", "[5, 8]"]),
        ("sub", [], ["[1, 3]", "[5, 8]"]),
        ("xor", ["[2, 6]"], ["[1, 2)", "(3, 5)", "(6, 8]"]),
        ("xor", ["[1, 3]", "[5, 8]"], []),
        ("xor", ["(3, 5)"], ["[1, 8]"]),
    ],
)
def test_set_operators(iset, operator_name, other, expected):
    left, right = iset(*S), iset(*other)
    method = {
        "or": "union",
        "and": "intersection",
        "sub": "difference",
        "xor": "symmetric_difference",
    }[operator_name]
    by_operator = {
        "or": lambda: left | right,
        "and": lambda: left & right,
        "sub": lambda: left - right,
        "xor": lambda: left ^ right,
    }[operator_name]()
    assert isinstance(by_operator, IntervalSet)
    assert by_operator == iset(*expected)
    assert getattr(left, method)(right) == iset(*expected)
    assert left == iset(*S)


@pytest.mark.requirement("R12")
def test_interval_operands_on_either_side(iv, iset):
    s = iset(*S)
    assert s | iv("[3, 5)") == iset("[1, 8]")
    assert s & iv("[2, 6]") == iset("[2, 3]", "[5, 6]")
    assert s - iv("(2, 6)") == iset("[1, 2]", "[6, 8]")
    assert s ^ iv("[2, 6]") == iset("[1, 2)", "(3, 5)", "(6, 8]")
    assert iv("[0, 1]") | s == iset("[0, 3]", "[5, 8]")
    assert iv("[0, 10]") - s == iset("[0, 1)", "(3, 5)", "(8, 10]")
    assert iv("[2, 6]") & s == iset("[2, 3]", "[5, 6]")
    assert iv("[2, 6]") ^ s == iset("[1, 2)", "(3, 5)", "(6, 8]")
    assert s.union(iv("[8, 9]")) == iset("[1, 3]", "[5, 9]")


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("other", [5, "[1, 2]", None, [Interval.closed(1, 2)]])
def test_set_operators_reject_other_types(iset, other):
    s = iset(*S)
    for operation in (
        lambda: s | other,
        lambda: s & other,
        lambda: s - other,
        lambda: s ^ other,
        lambda: s.union(other),
        lambda: s.difference(other),
    ):
        with pytest.raises(TypeError):
            operation()


@pytest.mark.requirement("R12")
def test_algebra_with_dates():
    from datetime import date

    week = Interval.closedopen(date(2024, 1, 1), date(2024, 1, 8))
    holiday = Interval.closed(date(2024, 1, 3), date(2024, 1, 4))
    workdays = IntervalSet([week]) - holiday
    assert workdays == IntervalSet(
        [
            Interval.closedopen(date(2024, 1, 1), date(2024, 1, 3)),
            Interval.openclosed(date(2024, 1, 4), date(2024, 1, 8)) & week,
        ]
    )
    assert len(workdays) == 2


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "pieces, expected",
    [
        (["[1, 2]", "(5, 6)"], ["(-inf, 1)", "(2, 5]", "[6, +inf)"]),
        ([], ["(-inf, +inf)"]),
        (["(-inf, +inf)"], []),
        (["(-inf, 0]", "[10, +inf)"], ["(0, 10)"]),
        (["[0, 0]"], ["(-inf, 0)", "(0, +inf)"]),
        (["(-inf, 3)"], ["[3, +inf)"]),
    ],
)
def test_complement(iset, pieces, expected):
    s = iset(*pieces)
    assert ~s == iset(*expected)
    assert s.complement() == iset(*expected)
    assert ~~s == s


@pytest.mark.requirement("R13")
def test_complement_within_universe(iv, iset):
    assert iset("[1, 2]").complement(iv("[0, 10]")) == iset("[0, 1)", "(2, 10]")
    assert iset("[1, 2]", "[4, 5]").complement(iset("[0, 3]", "[5, 6]")) == iset(
        "[0, 1)", "(2, 3]", "(5, 6]"
    )
    assert IntervalSet().complement(iv("[0, 1)")) == iset("[0, 1)")
    assert iset("(-inf, +inf)").complement(iv("[0, 1]")) == IntervalSet()


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "item, inside",
    [
        (2, True),
        (3, True),
        (4, False),
        (5, True),
        (0.5, False),
        (8.0, True),
        ("[1, 3]", True),
        ("[1, 6]", False),
        ("(5, 8)", True),
        ("[3, 5]", False),
        ("∅", True),
    ],
)
def test_contains(iv, iset, item, inside):
    s = iset(*S)
    value = iv(item) if isinstance(item, str) else item
    assert s.contains(value) is inside
    assert (value in s) is inside


@pytest.mark.requirement("R13")
def test_contains_sets_and_empty_set(iset):
    s = iset(*S)
    assert s.contains(iset("[1, 2]", "[6, 7]"))
    assert not s.contains(iset("[1, 2]", "[4, 7]"))
    assert IntervalSet() in s
    assert 1 not in IntervalSet()
    assert Interval.closed(1, 2) not in IntervalSet()


@pytest.mark.requirement("R13")
def test_overlaps(iv, iset):
    s = iset(*S)
    assert s.overlaps(iv("[3, 4]"))
    assert not s.overlaps(iv("(3, 5)"))
    assert s.overlaps(iset("[0, 0.5]", "[7, 7]"))
    assert not s.overlaps(IntervalSet())


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "pieces, expected",
    [
        (["[1, 3]", "(5, 8)"], "[1, 8)"),
        (["(0, 1)"], "(0, 1)"),
        (["(-inf, 0]", "[3, 4)"], "(-inf, 4)"),
        ([], "∅"),
    ],
)
def test_span(iv, iset, pieces, expected):
    span = iset(*pieces).span()
    assert isinstance(span, Interval)
    assert span == iv(expected)
