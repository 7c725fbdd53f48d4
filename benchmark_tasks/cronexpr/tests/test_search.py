"""R10, R11, R14: next/previous matching time, iteration and the search limit."""

from datetime import datetime
from itertools import islice

import pytest

from cronexpr import CronError, CronExpr, CronSearchError


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "expression, start, expected",
    [
        ("*/15 * * * *", datetime(2024, 1, 1, 10, 7), datetime(2024, 1, 1, 10, 15)),
        ("*/15 * * * *", datetime(2024, 1, 1, 10, 15), datetime(2024, 1, 1, 10, 30)),
        ("*/15 * * * *", datetime(2024, 1, 1, 23, 50), datetime(2024, 1, 2, 0, 0)),
        ("*/15 * * * *", datetime(2024, 12, 31, 23, 59), datetime(2025, 1, 1, 0, 0)),
        ("* * * * *", datetime(2024, 1, 1, 10, 0, 0, 1), datetime(2024, 1, 1, 10, 1)),
        ("* * * * *", datetime(2024, 1, 1, 10, 0, 59, 999999), datetime(2024, 1, 1, 10, 1)),
        ("0 0 31 * *", datetime(2024, 1, 31, 12, 0), datetime(2024, 3, 31, 0, 0)),
        ("0 12 29 2 *", datetime(2023, 1, 1), datetime(2024, 2, 29, 12, 0)),
        ("30 9 * * 1-5", datetime(2024, 1, 12, 9, 30), datetime(2024, 1, 15, 9, 30)),
        ("0 0 1 */3 *", datetime(2024, 2, 15), datetime(2024, 4, 1)),
        ("*/20 * * * * *", datetime(2024, 1, 1, 10, 0, 5), datetime(2024, 1, 1, 10, 0, 20)),
        ("59 59 23 31 12 *", datetime(2024, 6, 1), datetime(2024, 12, 31, 23, 59, 59)),
        ("0 9 * * *", datetime(2024, 2, 28, 9, 0), datetime(2024, 2, 29, 9, 0)),
        ("0 9 * * *", datetime(2023, 2, 28, 9, 0), datetime(2023, 3, 1, 9, 0)),
    ],
)
def test_next_after(expression, start, expected):
    result = CronExpr(expression).next_after(start)
    assert result == expected
    assert result.tzinfo is None
    assert result.microsecond == 0


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "expression, start, expected",
    [
        ("* * * * *", datetime(2024, 1, 1, 10, 0, 0, 1), datetime(2024, 1, 1, 10, 0)),
        ("* * * * *", datetime(2024, 1, 1, 10, 0), datetime(2024, 1, 1, 9, 59)),
        ("0 0 1 1 *", datetime(2024, 1, 1, 0, 0), datetime(2023, 1, 1, 0, 0)),
        ("*/20 * * * * *", datetime(2024, 1, 1, 10, 0, 0), datetime(2024, 1, 1, 9, 59, 40)),
        ("0 0 31 * *", datetime(2024, 3, 1), datetime(2024, 1, 31)),
        ("30 9 * * 1-5", datetime(2024, 1, 15, 9, 0), datetime(2024, 1, 12, 9, 30)),
        ("0 12 29 2 *", datetime(2024, 2, 29, 12, 0), datetime(2020, 2, 29, 12, 0)),
        ("15 10 * * *", datetime(2024, 3, 1, 10, 15, 30), datetime(2024, 3, 1, 10, 15)),
        ("0 0 1 1 *", datetime(2025, 1, 1, 0, 0, 1), datetime(2025, 1, 1, 0, 0)),
    ],
)
def test_prev_before(expression, start, expected):
    result = CronExpr(expression).prev_before(start)
    assert result == expected
    assert result.microsecond == 0


@pytest.mark.requirement("R10")
def test_next_is_strictly_after_a_match():
    expr = CronExpr("0 * * * *")
    start = datetime(2024, 5, 5, 8, 0)
    assert expr.matches(start)
    assert expr.next_after(start) == datetime(2024, 5, 5, 9, 0)
    assert expr.prev_before(start) == datetime(2024, 5, 5, 7, 0)


@pytest.mark.requirement("R11")
def test_iter_after_weekdays():
    expr = CronExpr("0 9 * * 1-5")
    result = list(islice(expr.iter_after(datetime(2024, 1, 5, 12, 0)), 3))
    assert result == [
        datetime(2024, 1, 8, 9, 0),
        datetime(2024, 1, 9, 9, 0),
        datetime(2024, 1, 10, 9, 0),
    ]


@pytest.mark.requirement("R11")
def test_iter_after_many_steps_are_consistent():
    expr = CronExpr("*/7 */5 * * *")
    start = datetime(2024, 1, 1, 0, 3)
    items = list(islice(expr.iter_after(start), 200))
    assert items[0] == expr.next_after(start)
    for earlier, later in zip(items, items[1:], strict=False):
        assert later == expr.next_after(earlier)
        assert earlier < later
    assert all(expr.matches(item) for item in items)


@pytest.mark.requirement("R11")
def test_iter_before():
    expr = CronExpr("0 0 1 * *")
    result = list(islice(expr.iter_before(datetime(2024, 3, 15)), 4))
    assert result == [
        datetime(2024, 3, 1),
        datetime(2024, 2, 1),
        datetime(2024, 1, 1),
        datetime(2023, 12, 1),
    ]


@pytest.mark.requirement("R11")
def test_iter_after_is_an_iterator():
    iterator = CronExpr("0 0 * * *").iter_after(datetime(2024, 1, 1))
    assert iter(iterator) is iterator
    assert next(iterator) == datetime(2024, 1, 2)
    assert next(iterator) == datetime(2024, 1, 3)


@pytest.mark.requirement("R11")
def test_iteration_ends_with_search_error():
    iterator = CronExpr("0 0 1 1 *").iter_after(datetime(9997, 6, 1))
    assert next(iterator) == datetime(9998, 1, 1)
    assert next(iterator) == datetime(9999, 1, 1)
    with pytest.raises(CronSearchError):
        next(iterator)


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("expression", ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 0 31 2 *"])
def test_impossible_expressions_raise(expression):
    expr = CronExpr(expression)
    with pytest.raises(CronSearchError):
        expr.next_after(datetime(2024, 1, 1))
    with pytest.raises(CronSearchError):
        expr.prev_before(datetime(2024, 1, 1))


@pytest.mark.requirement("R14")
def test_search_years_bound_forward():
    start = datetime(2024, 3, 1)
    assert CronExpr("0 0 29 2 *").next_after(start) == datetime(2028, 2, 29)
    assert CronExpr("0 0 29 2 *", search_years=4).next_after(start) == datetime(2028, 2, 29)
    with pytest.raises(CronSearchError):
        CronExpr("0 0 29 2 *", search_years=3).next_after(start)


@pytest.mark.requirement("R14")
def test_search_years_bound_backward():
    start = datetime(2024, 2, 28)
    assert CronExpr("0 0 29 2 *", search_years=4).prev_before(start) == datetime(2020, 2, 29)
    with pytest.raises(CronSearchError):
        CronExpr("0 0 29 2 *", search_years=3).prev_before(start)


@pytest.mark.requirement("R14")
def test_default_limit_covers_century_gap():
    expr = CronExpr("0 0 29 2 *")
    assert expr.search_years == 10
    assert expr.next_after(datetime(2097, 3, 1)) == datetime(2104, 2, 29)


@pytest.mark.requirement("R14")
def test_datetime_range_end():
    with pytest.raises(CronSearchError):
        CronExpr("* * * * *").next_after(datetime(9999, 12, 31, 23, 59))
    with pytest.raises(CronSearchError):
        CronExpr("* * * * * *").next_after(datetime(9999, 12, 31, 23, 59, 59))
    with pytest.raises(CronSearchError):
        CronExpr("* * * * *").prev_before(datetime(1, 1, 1, 0, 0))


@pytest.mark.requirement("R14")
def test_search_error_hierarchy():
    assert issubclass(CronSearchError, CronError)
    assert issubclass(CronSearchError, ValueError)
    with pytest.raises(ValueError):
        CronExpr("0 0 30 2 *").next_after(datetime(2024, 1, 1))
