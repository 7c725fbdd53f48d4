"""R8-R9: matching datetimes and the day-of-month / day-of-week rule."""

from datetime import date, datetime

import pytest

from cronexpr import CronExpr

# 2024-01-15 is a Monday, 2024-01-13 a Saturday; 2024-09-06 and 2024-09-13 are Fridays;
# 2024-08-13 is a Tuesday.


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "moment, expected",
    [
        (datetime(2024, 1, 15, 9, 30), True),
        (datetime(2024, 1, 16, 9, 30), True),
        (datetime(2024, 1, 13, 9, 30), False),
        (datetime(2024, 1, 14, 9, 30), False),
        (datetime(2024, 1, 15, 9, 31), False),
        (datetime(2024, 1, 15, 10, 30), False),
        (datetime(2024, 1, 15, 9, 30, 1), False),
        (datetime(2024, 1, 15, 9, 30, 0, 999999), True),
    ],
)
def test_weekday_schedule(moment, expected):
    assert CronExpr("30 9 * * 1-5").matches(moment) is expected


@pytest.mark.requirement("R8")
def test_five_field_needs_second_zero():
    expr = CronExpr("* * * * *")
    assert expr.matches(datetime(2024, 1, 1, 10, 0, 0))
    assert not expr.matches(datetime(2024, 1, 1, 10, 0, 30))


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "moment, expected",
    [
        (datetime(2024, 6, 1, 12, 0, 15), True),
        (datetime(2024, 6, 1, 12, 0, 45), True),
        (datetime(2024, 6, 1, 12, 0, 20), False),
        (datetime(2024, 6, 1, 12, 1, 15), False),
    ],
)
def test_six_field_seconds(moment, expected):
    assert CronExpr("15,45 0 12 * * *").matches(moment) is expected


@pytest.mark.requirement("R8")
def test_month_field_applies():
    expr = CronExpr("0 0 1 JAN,JUL *")
    assert expr.matches(datetime(2024, 7, 1))
    assert not expr.matches(datetime(2024, 8, 1))


@pytest.mark.requirement("R8")
@pytest.mark.parametrize("value", [date(2024, 1, 15), "2024-01-15 09:30", None, 1705311000])
def test_non_datetime_rejected(value):
    expr = CronExpr("30 9 * * *")
    with pytest.raises(TypeError):
        expr.matches(value)
    with pytest.raises(TypeError):
        expr.next_after(value)
    with pytest.raises(TypeError):
        expr.prev_before(value)
    with pytest.raises(TypeError):
        expr.iter_after(value)
    with pytest.raises(TypeError):
        expr.iter_before(value)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "expression, moment, expected",
    [
        ("0 0 13 * 5", datetime(2024, 9, 6), True),
        ("0 0 13 * 5", datetime(2024, 8, 13), True),
        ("0 0 13 * 5", datetime(2024, 9, 13), True),
        ("0 0 13 * 5", datetime(2024, 8, 14), False),
        ("0 0 13 * *", datetime(2024, 9, 6), False),
        ("0 0 13 * *", datetime(2024, 8, 13), True),
        ("0 0 * * 5", datetime(2024, 8, 13), False),
        ("0 0 * * 5", datetime(2024, 9, 6), True),
        ("0 0 13 * 0-6", datetime(2024, 9, 6), False),
        ("0 0 13 * 1-7", datetime(2024, 9, 6), False),
        ("0 0 13 * SUN-SAT", datetime(2024, 8, 13), True),
        ("0 0 1-31 * 5", datetime(2024, 8, 13), False),
        ("0 0 1-31 * 5", datetime(2024, 9, 6), True),
        ("0 0 */2 * 1", datetime(2024, 1, 8), True),
        ("0 0 */2 * 1", datetime(2024, 1, 3), True),
        ("0 0 */2 * 1", datetime(2024, 1, 10), False),
        ("0 0 13 2 5", datetime(2024, 2, 13), True),
        ("0 0 13 2 5", datetime(2024, 2, 2), True),
        ("0 0 13 2 5", datetime(2024, 9, 13), False),
        ("0 0 13 2 5", datetime(2024, 3, 1), False),
    ],
)
def test_day_rule(expression, moment, expected):
    assert CronExpr(expression).matches(moment) is expected


@pytest.mark.requirement("R9")
def test_or_rule_in_search():
    expr = CronExpr("0 0 13 * 5")
    assert expr.next_after(datetime(2024, 9, 1)) == datetime(2024, 9, 6)
    assert expr.next_after(datetime(2024, 8, 10)) == datetime(2024, 8, 13)
    assert expr.prev_before(datetime(2024, 8, 15)) == datetime(2024, 8, 13)


@pytest.mark.requirement("R9")
def test_or_rule_with_six_fields():
    expr = CronExpr("0 0 0 1 * MON")
    assert expr.matches(datetime(2024, 5, 1))  # Wednesday, the 1st
    assert expr.matches(datetime(2024, 5, 6))  # Monday
    assert not expr.matches(datetime(2024, 5, 7))
