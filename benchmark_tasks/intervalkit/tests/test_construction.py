"""R1 construction and attributes, R2 named constructors, R3 empty and invalid intervals."""

import math
from datetime import date

import pytest

from intervalkit import Interval, IntervalError, InvalidInterval


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "lower, upper, bounds, expected",
    [
        (1, 5, "[]", (1, 5, True, True)),
        (1, 5, "[)", (1, 5, True, False)),
        (1, 5, "(]", (1, 5, False, True)),
        (1, 5, "()", (1, 5, False, False)),
        (2.5, None, "[]", (2.5, None, True, False)),
        (2.5, None, "[)", (2.5, None, True, False)),
        (None, 5, "[]", (None, 5, False, True)),
        (None, None, "[]", (None, None, False, False)),
        (-3, -3, "[]", (-3, -3, True, True)),
    ],
)
def test_constructor_attributes(lower, upper, bounds, expected):
    interval = Interval(lower, upper, bounds)
    actual = (interval.lower, interval.upper, interval.lower_closed, interval.upper_closed)
    assert actual == expected
    assert interval.is_empty is False


@pytest.mark.requirement("R1")
def test_default_bounds_are_closed():
    interval = Interval(1, 5)
    assert interval.lower_closed is True
    assert interval.upper_closed is True
    assert Interval(1, 5) == Interval(1, 5, "[]")


@pytest.mark.requirement("R1")
def test_endpoints_are_the_given_objects():
    start, end = date(2024, 1, 1), date(2024, 2, 1)
    interval = Interval(start, end, "[)")
    assert interval.lower is start
    assert interval.upper is end


@pytest.mark.requirement("R1")
def test_mixed_comparable_types_and_strings():
    mixed = Interval(1, 2.5)
    assert type(mixed.lower) is int and type(mixed.upper) is float
    letters = Interval("a", "m", "[)")
    assert (letters.lower, letters.upper) == ("a", "m")
    assert not letters.is_empty


@pytest.mark.requirement("R1")
def test_unbounded_end_is_always_open():
    assert Interval(None, 5, "[]") == Interval(None, 5, "(]")
    assert Interval(None, 5, "[]") == Interval.at_most(5)
    assert Interval(3, None, "[]") == Interval(3, None, "[)")


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "factory, args, expected",
    [
        ("closed", (1, 4), (1, 4, True, True)),
        ("open", (1, 4), (1, 4, False, False)),
        ("closedopen", (1, 4), (1, 4, True, False)),
        ("openclosed", (1, 4), (1, 4, False, True)),
        ("point", (7,), (7, 7, True, True)),
        ("at_least", (2,), (2, None, True, False)),
        ("greater_than", (2,), (2, None, False, False)),
        ("at_most", (2,), (None, 2, False, True)),
        ("less_than", (2,), (None, 2, False, False)),
        ("all", (), (None, None, False, False)),
    ],
)
def test_named_constructors(factory, args, expected):
    interval = getattr(Interval, factory)(*args)
    actual = (interval.lower, interval.upper, interval.lower_closed, interval.upper_closed)
    assert actual == expected
    assert not interval.is_empty


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "factory, bounds",
    [("closed", "[]"), ("open", "()"), ("closedopen", "[)"), ("openclosed", "(]")],
)
def test_named_constructors_equal_general_constructor(factory, bounds):
    assert getattr(Interval, factory)(0.5, 9) == Interval(0.5, 9, bounds)


@pytest.mark.requirement("R2")
def test_named_constructors_accept_none_as_unbounded():
    assert Interval.closed(None, 5) == Interval.at_most(5)
    assert Interval.closedopen(1, None) == Interval.at_least(1)
    assert Interval.open(None, None) == Interval.all()
    assert Interval.all() == Interval(None, None)


@pytest.mark.requirement("R2")
def test_empty_constructor():
    empty = Interval.empty()
    assert empty.is_empty is True
    assert isinstance(empty, Interval)


@pytest.mark.requirement("R2", "R3")
@pytest.mark.parametrize(
    "factory, args",
    [("closed", (3, 1)), ("open", (3, 1)), ("closedopen", (3, 1)), ("openclosed", (3, 1))],
)
def test_named_constructors_validate(factory, args):
    with pytest.raises(InvalidInterval):
        getattr(Interval, factory)(*args)


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "build",
    [
        lambda: Interval.empty(),
        lambda: Interval.open(3, 3),
        lambda: Interval.closedopen(3, 3),
        lambda: Interval.openclosed(3, 3),
        lambda: Interval(2.5, 2.5, "()"),
    ],
)
def test_empty_intervals(build):
    interval = build()
    assert interval.is_empty is True
    assert interval.lower is None and interval.upper is None
    assert interval.lower_closed is False and interval.upper_closed is False
    assert interval == Interval.empty()


@pytest.mark.requirement("R3")
def test_point_and_open_unit_interval_are_not_empty():
    assert Interval.closed(3, 3).is_empty is False
    assert Interval.point(3) == Interval.closed(3, 3)
    assert Interval.open(1, 2).is_empty is False


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "lower, upper, bounds",
    [(5, 1, "[]"), (5, 1, "()"), (2.5, 1, "[]"), ("m", "a", "[)"), (date(2024, 2, 1), date(2024, 1, 1), "[]")],
)
def test_lower_greater_than_upper(lower, upper, bounds):
    with pytest.raises(InvalidInterval) as excinfo:
        Interval(lower, upper, bounds)
    message = str(excinfo.value)
    assert repr(lower) in message
    assert repr(upper) in message


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "build",
    [
        lambda: Interval.closed(float("nan"), 1),
        lambda: Interval.closed(0, float("nan")),
        lambda: Interval.at_least(float("inf")),
        lambda: Interval.closed(float("-inf"), 0),
        lambda: Interval.at_most(math.inf),
    ],
)
def test_non_finite_float_endpoints(build):
    with pytest.raises(InvalidInterval):
        build()


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("bounds", ["[[", "][", "", "[ ]", "[", "[]]", None, "<>"])
def test_invalid_bounds(bounds):
    with pytest.raises(InvalidInterval) as excinfo:
        Interval(1, 2, bounds)
    assert repr(bounds) in str(excinfo.value)
    assert isinstance(excinfo.value, IntervalError)
