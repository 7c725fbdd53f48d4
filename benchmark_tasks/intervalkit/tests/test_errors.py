"""R4 incomparable values and R17 exception hierarchy."""

from datetime import date, datetime

import pytest

from intervalkit import (
    IncomparableError,
    Interval,
    IntervalError,
    IntervalParseError,
    IntervalSet,
    InvalidInterval,
)


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "lower, upper",
    [
        (1, "a"),
        ("a", 3),
        (date(2024, 1, 1), datetime(2024, 1, 1)),
        (1, date(2024, 1, 1)),
        ((1, 2), 3),
    ],
)
def test_incomparable_endpoints_at_construction(lower, upper):
    with pytest.raises(IncomparableError):
        Interval(lower, upper)


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "operation",
    [
        lambda: Interval.closed(1, 2) & Interval.closed("a", "b"),
        lambda: Interval.closed(1, 2) | Interval.closed("a", "b"),
        lambda: Interval.closed(1, 2) - Interval.closed("a", "b"),
        lambda: Interval.closed(1, 2).overlaps(Interval.closed("a", "b")),
        lambda: Interval.closed(1, 2).contains("x"),
        lambda: "x" in Interval.closed(1, 2),
        lambda: Interval.at_least(date(2024, 1, 1)).contains(datetime(2024, 5, 1)),
        lambda: IntervalSet([Interval.closed(1, 2), Interval.closed("a", "b")]),
        lambda: IntervalSet([Interval.closed(1, 2)]) | Interval.closed("a", "b"),
        lambda: "x" in IntervalSet([Interval.closed(1, 2)]),
    ],
)
def test_incomparable_values_in_operations(operation):
    with pytest.raises(IncomparableError):
        operation()


@pytest.mark.requirement("R4")
def test_incomparable_error_is_a_type_error():
    with pytest.raises(TypeError):
        Interval.closed(1, "a")
    with pytest.raises(IntervalError):
        Interval.closed(1, 2) & Interval.closed("a", "b")


@pytest.mark.requirement("R4")
def test_no_comparison_needed_means_no_error():
    assert "x" in Interval.all()
    assert "x" not in Interval.empty()
    assert Interval.all() & Interval.closed("a", "b") == Interval.closed("a", "b")
    assert "x" not in IntervalSet()


@pytest.mark.requirement("R4")
def test_equality_never_raises():
    assert (Interval.closed(1, 2) == Interval.closed("a", "b")) is False
    assert Interval.closed(1, 2) != Interval.closed("a", "b")


@pytest.mark.requirement("R17")
def test_base_class_is_value_error():
    assert issubclass(IntervalError, ValueError)
    assert issubclass(IntervalError, Exception)


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("cls", [InvalidInterval, IncomparableError, IntervalParseError])
def test_subclasses_of_interval_error(cls):
    assert issubclass(cls, IntervalError)
    assert issubclass(cls, ValueError)


@pytest.mark.requirement("R17")
def test_subclasses_are_distinct():
    classes = [InvalidInterval, IncomparableError, IntervalParseError]
    for a in classes:
        for b in classes:
            if a is not b:
                assert not issubclass(a, b)


@pytest.mark.requirement("R17")
def test_only_incomparable_error_is_type_error():
    assert issubclass(IncomparableError, TypeError)
    assert not issubclass(InvalidInterval, TypeError)
    assert not issubclass(IntervalParseError, TypeError)
    assert not issubclass(IntervalError, TypeError)


@pytest.mark.requirement("R17")
def test_errors_are_kept_apart():
    with pytest.raises(InvalidInterval) as excinfo:
        Interval.parse("[5, 1]")
    assert not isinstance(excinfo.value, IntervalParseError)
    with pytest.raises(IncomparableError) as excinfo:
        Interval.closed(1, "a")
    assert not isinstance(excinfo.value, InvalidInterval)


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    "operation",
    [
        lambda: Interval.closed(2, 1),
        lambda: Interval.parse("[1, 2"),
        lambda: Interval.closed(1, "a"),
        lambda: Interval(1, 2, "[["),
    ],
)
def test_every_error_is_caught_as_value_error(operation):
    with pytest.raises(ValueError):
        operation()
