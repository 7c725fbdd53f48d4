"""R15 IntervalDict assignment and lookup, R16 canonical items, merging and text."""

import pytest

from intervalkit import Interval, IntervalDict, IntervalSet


@pytest.fixture
def overwritten():
    d = IntervalDict()
    d[Interval.closed(0, 10)] = "a"
    d[Interval.closed(3, 4)] = "b"
    return d


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "point, expected",
    [(0, "a"), (2.999, "a"), (3, "b"), (3.5, "b"), (4, "b"), (4.5, "a"), (10, "a")],
)
def test_overwrite_splits_earlier_range(overwritten, point, expected):
    assert overwritten[point] == expected
    assert overwritten.get(point) == expected
    assert point in overwritten


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("point", [-1, 10.0001, 11, -0.5])
def test_unassigned_points(overwritten, point):
    with pytest.raises(KeyError):
        overwritten[point]
    assert overwritten.get(point) is None
    assert overwritten.get(point, "fallback") == "fallback"
    assert point not in overwritten


@pytest.mark.requirement("R15")
def test_overwrite_covering_range():
    d = IntervalDict()
    d[Interval.closed(2, 3)] = "old"
    d[Interval.closed(5, 6)] = "old2"
    d[Interval.open(1, 10)] = "new"
    assert d[2] == "new"
    assert d[5.5] == "new"
    assert d.get(1) is None
    d[Interval.closedopen(8, 12)] = "right"
    assert d[9] == "right"
    assert d[7.9] == "new"
    assert d[11.9] == "right"


@pytest.mark.requirement("R15")
def test_open_and_closed_ends_on_assignment():
    d = IntervalDict()
    d[Interval.closed(0, 5)] = 1
    d[Interval.open(0, 5)] = 2
    assert d[0] == 1
    assert d[5] == 1
    assert d[0.1] == 2
    assert d[4.9] == 2


@pytest.mark.requirement("R15")
def test_values_of_any_kind():
    d = IntervalDict()
    d[Interval.at_least(0)] = [1, 2]
    d[Interval.less_than(0)] = None
    assert d[100] == [1, 2]
    assert d[-1] is None
    assert -1 in d
    d[Interval.empty()] = "ignored"
    assert d[5] == [1, 2]


@pytest.mark.requirement("R15")
def test_delete_trims_and_splits(overwritten):
    del overwritten[Interval.closedopen(0, 2)]
    assert overwritten.get(1) is None
    assert overwritten[2] == "a"
    del overwritten[Interval.open(3, 4)]
    assert overwritten[3] == "b"
    assert overwritten[4] == "b"
    assert 3.5 not in overwritten
    del overwritten[Interval.closed(50, 60)]
    assert overwritten[10] == "a"


@pytest.mark.requirement("R15")
def test_contains_intervals_and_sets(overwritten):
    assert Interval.closed(1, 9) in overwritten
    assert Interval.closed(-1, 9) not in overwritten
    assert IntervalSet([Interval.closed(0, 1), Interval.closed(9, 10)]) in overwritten
    assert Interval.empty() in overwritten
    del overwritten[Interval.open(3, 4)]
    assert Interval.closed(1, 9) not in overwritten


@pytest.mark.requirement("R15")
def test_constructor_assigns_in_order():
    from_pairs = IntervalDict([(Interval.closed(0, 10), "a"), (Interval.closed(3, 4), "b")])
    assert from_pairs[3] == "b" and from_pairs[5] == "a"
    from_mapping = IntervalDict({Interval.closed(0, 1): "x", Interval.open(1, 2): "y"})
    assert from_mapping[1] == "x" and from_mapping[1.5] == "y"
    assert len(IntervalDict()) == 0


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("key", [5, (1, 2), "[1, 2]", None])
def test_assignment_and_deletion_need_interval_keys(key):
    d = IntervalDict()
    with pytest.raises(TypeError):
        d[key] = "x"
    with pytest.raises(TypeError):
        del d[key]


@pytest.mark.requirement("R15")
def test_lookup_needs_single_value(overwritten):
    with pytest.raises(TypeError):
        overwritten[Interval.closed(1, 2)]
    with pytest.raises(TypeError):
        overwritten.get(Interval.closed(1, 2))
    with pytest.raises(TypeError):
        overwritten[IntervalSet([Interval.closed(1, 2)])]


@pytest.mark.requirement("R15")
def test_dates_as_keys():
    from datetime import date

    prices = IntervalDict()
    prices[Interval.at_least(date(2024, 1, 1))] = 10
    prices[Interval.closedopen(date(2024, 6, 1), date(2024, 9, 1))] = 12
    assert prices[date(2024, 5, 31)] == 10
    assert prices[date(2024, 6, 1)] == 12
    assert prices[date(2030, 1, 1)] == 10
    assert prices.get(date(2023, 12, 31)) is None


@pytest.mark.requirement("R16")
def test_items_are_sorted_and_split(overwritten):
    assert overwritten.items() == [
        (Interval.closedopen(0, 3), "a"),
        (Interval.closed(3, 4), "b"),
        (Interval.openclosed(4, 10), "a"),
    ]
    assert overwritten.keys() == [
        Interval.closedopen(0, 3),
        Interval.closed(3, 4),
        Interval.openclosed(4, 10),
    ]
    assert overwritten.values() == ["a", "b", "a"]
    assert list(overwritten) == overwritten.keys()
    assert len(overwritten) == 3


@pytest.mark.requirement("R16")
def test_items_sorted_regardless_of_assignment_order():
    d = IntervalDict()
    d[Interval.closed(20, 30)] = 3
    d[Interval.closed(0, 1)] = 1
    d[Interval.open(5, 6)] = 2
    assert d.keys() == [Interval.closed(0, 1), Interval.open(5, 6), Interval.closed(20, 30)]
    assert d.values() == [1, 2, 3]


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "assignments, expected",
    [
        ([("[1, 3)", 1), ("[3, 5]", 1)], [("[1, 5]", 1)]),
        ([("[3, 5]", 1), ("[1, 3)", 1)], [("[1, 5]", 1)]),
        ([("[1, 3]", 1), ("(3, 5]", 1)], [("[1, 5]", 1)]),
        ([("[1, 3]", 1), ("[2, 5]", 1)], [("[1, 5]", 1)]),
        ([("[1, 2]", 1), ("[3, 4]", 1)], [("[1, 2]", 1), ("[3, 4]", 1)]),
        ([("[1, 2)", 1), ("(2, 3]", 1)], [("[1, 2)", 1), ("(2, 3]", 1)]),
        ([("[1, 3)", 1), ("[3, 5]", 2)], [("[1, 3)", 1), ("[3, 5]", 2)]),
        ([("[0, 10]", "a"), ("[3, 4]", "b"), ("[3, 4]", "a")], [("[0, 10]", "a")]),
        ([("[0, 1)", "x"), ("[2, 3)", "x"), ("[1, 2)", "x")], [("[0, 3)", "x")]),
        ([("[0, 1)", "x"), ("[2, 3)", "x"), ("[1, 2)", "y")], [("[0, 1)", "x"), ("[1, 2)", "y"), ("[2, 3)", "x")]),
        ([("(-inf, 0)", [1]), ("[0, +inf)", [1])], [("(-inf, +inf)", [1])]),
    ],
)
def test_merge_of_adjacent_equal_values(iv, assignments, expected):
    d = IntervalDict()
    for text, value in assignments:
        d[iv(text)] = value
    assert d.items() == [(iv(text), value) for text, value in expected]


@pytest.mark.requirement("R16")
def test_merge_after_deletion_and_domain():
    d = IntervalDict()
    d[Interval.at_least(0)] = "std"
    d[Interval.closedopen(10, 20)] = "disc"
    assert len(d) == 3
    d[Interval.closedopen(10, 20)] = "std"
    assert d.items() == [(Interval.at_least(0), "std")]
    del d[Interval.open(1, 2)]
    assert d.domain() == IntervalSet([Interval.closed(0, 1), Interval.at_least(2)])
    assert IntervalDict().domain() == IntervalSet()


@pytest.mark.requirement("R16")
def test_copy_is_independent(overwritten):
    duplicate = overwritten.copy()
    assert duplicate == overwritten
    duplicate[Interval.closed(0, 10)] = "z"
    assert overwritten[0] == "a"
    assert duplicate.items() == [(Interval.closed(0, 10), "z")]
    assert duplicate != overwritten


@pytest.mark.requirement("R16")
def test_equality():
    a = IntervalDict([(Interval.closedopen(1, 3), 1), (Interval.closed(3, 5), 1)])
    b = IntervalDict([(Interval.closed(1, 5), 1)])
    assert a == b
    assert a != IntervalDict([(Interval.closed(1, 5), 2)])
    assert (a == {Interval.closed(1, 5): 1}) is False
    assert (a == a.items()) is False


@pytest.mark.requirement("R16")
def test_str():
    d = IntervalDict()
    assert str(d) == "{}"
    d[Interval.at_least(0)] = "std"
    d[Interval.closedopen(10, 20)] = "disc"
    assert str(d) == "{[0, 10): 'std', [10, 20): 'disc', [20, +inf): 'std'}"
    numbers = IntervalDict([(Interval.open(1.5, 2), 7), (Interval.less_than(0), None)])
    assert str(numbers) == "{(-inf, 0): None, (1.5, 2): 7}"


@pytest.mark.requirement("R16")
def test_repr():
    assert repr(IntervalDict([(Interval.closed(1, 2), "x")])) == (
        "IntervalDict([(Interval.closed(1, 2), 'x')])"
    )
    assert repr(IntervalDict()) == "IntervalDict([])"
    two = IntervalDict([(Interval.at_least(5), 2), (Interval.open(0, 1), 1)])
    assert repr(two) == "IntervalDict([(Interval.open(0, 1), 1), (Interval.at_least(5), 2)])"
