"""R1-R5: expression structure, values, ranges, lists, steps, names and macros."""

from datetime import datetime

import pytest

from cronexpr import CronExpr

ALL_MINUTES = frozenset(range(60))
ALL_HOURS = frozenset(range(24))
ALL_DAYS = frozenset(range(1, 32))
ALL_MONTHS = frozenset(range(1, 13))
ALL_WEEKDAYS = frozenset(range(7))


# --- R1: structure and the seconds field -------------------------------------------------


@pytest.mark.requirement("R1")
def test_five_fields_layout():
    expr = CronExpr("5 4 * * *")
    assert expr.has_seconds is False
    assert expr.seconds == frozenset({0})
    assert expr.minutes == frozenset({5})
    assert expr.hours == frozenset({4})
    assert expr.days == ALL_DAYS
    assert expr.months == ALL_MONTHS
    assert expr.weekdays == ALL_WEEKDAYS


@pytest.mark.requirement("R1")
def test_six_fields_first_is_seconds():
    expr = CronExpr("30 5 4 * * *")
    assert expr.has_seconds is True
    assert expr.seconds == frozenset({30})
    assert expr.minutes == frozenset({5})
    assert expr.hours == frozenset({4})
    assert expr.days == ALL_DAYS


@pytest.mark.requirement("R1")
def test_six_fields_all_positions():
    expr = CronExpr("1 2 3 4 5 6")
    assert (expr.seconds, expr.minutes, expr.hours) == ({1}, {2}, {3})
    assert (expr.days, expr.months, expr.weekdays) == ({4}, {5}, {6})


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("text", ["  0\t12  *  *  * ", "0 12 * * *\n", "\t0 12 * * *"])
def test_whitespace_between_and_around_fields(text):
    expr = CronExpr(text)
    assert expr.minutes == frozenset({0})
    assert expr.hours == frozenset({12})
    assert expr.has_seconds is False


@pytest.mark.requirement("R1")
def test_expression_attribute_keeps_text():
    text = "  */5 * * * * "
    assert CronExpr(text).expression == text


@pytest.mark.requirement("R1")
def test_seconds_star_in_six_fields():
    assert CronExpr("* * * * * *").seconds == frozenset(range(60))


# --- R2: values, ranges, lists -------------------------------------------------------------


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "minute_field, expected",
    [
        ("1,2,3", {1, 2, 3}),
        ("50,10-12,11", {10, 11, 12, 50}),
        ("00", {0}),
        ("07", {7}),
        ("59", {59}),
        ("0-59", set(range(60))),
        ("5,5,5", {5}),
        ("40-45,0", {0, 40, 41, 42, 43, 44, 45}),
    ],
)
def test_minute_values_ranges_lists(minute_field, expected):
    assert CronExpr(f"{minute_field} * * * *").minutes == frozenset(expected)


@pytest.mark.requirement("R2")
def test_hour_range():
    assert CronExpr("0 9-17 * * *").hours == frozenset(range(9, 18))


@pytest.mark.requirement("R2")
def test_day_of_month_bounds():
    assert CronExpr("0 0 1-31 * *").days == ALL_DAYS
    assert CronExpr("0 0 1,31 * *").days == frozenset({1, 31})


@pytest.mark.requirement("R2")
def test_month_numbers():
    assert CronExpr("0 0 1 1,6,12 *").months == frozenset({1, 6, 12})


@pytest.mark.requirement("R2")
def test_single_value_range():
    assert CronExpr("0 5-5 * * *").hours == frozenset({5})


# --- R3: steps ---------------------------------------------------------------------------


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "expression, attribute, expected",
    [
        ("*/15 * * * *", "minutes", {0, 15, 30, 45}),
        ("0 */5 * * *", "hours", {0, 5, 10, 15, 20}),
        ("0 0 */10 * *", "days", {1, 11, 21, 31}),
        ("0 0 1 */4 *", "months", {1, 5, 9}),
        ("0 0 * * */2", "weekdays", {0, 2, 4, 6}),
        ("10-30/5 * * * *", "minutes", {10, 15, 20, 25, 30}),
        ("10-31/10 * * * *", "minutes", {10, 20, 30}),
        ("5/20 * * * *", "minutes", {5, 25, 45}),
        ("0 20/2 * * *", "hours", {20, 22}),
        ("*/90 * * * *", "minutes", {0}),
        ("*/1 * * * *", "minutes", set(range(60))),
        ("0-10/5,30 * * * *", "minutes", {0, 5, 10, 30}),
        ("*/20 * * * * *", "seconds", {0, 20, 40}),
    ],
)
def test_steps(expression, attribute, expected):
    assert getattr(CronExpr(expression), attribute) == frozenset(expected)


@pytest.mark.requirement("R3")
def test_step_on_day_of_month_range():
    assert CronExpr("0 0 1-10/3 * *").days == frozenset({1, 4, 7, 10})


# --- R4: names and Sunday ------------------------------------------------------------------


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "month_field, expected",
    [
        ("JAN", {1}),
        ("dec", {12}),
        ("jan-mar", {1, 2, 3}),
        ("Jun,AUG", {6, 8}),
        ("JAN/3", {1, 4, 7, 10}),
        ("oct-DEC", {10, 11, 12}),
        ("FEB-4", {2, 3, 4}),
    ],
)
def test_month_names(month_field, expected):
    assert CronExpr(f"0 0 1 {month_field} *").months == frozenset(expected)


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "weekday_field, expected",
    [
        ("MON-FRI", {1, 2, 3, 4, 5}),
        ("mOn", {1}),
        ("sun", {0}),
        ("SAT", {6}),
        ("MON-5", {1, 2, 3, 4, 5}),
        ("tue,thu", {2, 4}),
        ("SAT-7", {0, 6}),
        ("7", {0}),
        ("0", {0}),
        ("5-7", {0, 5, 6}),
        ("1-7", {0, 1, 2, 3, 4, 5, 6}),
        ("0,7", {0}),
    ],
)
def test_weekday_names_and_sunday(weekday_field, expected):
    assert CronExpr(f"0 0 * * {weekday_field}").weekdays == frozenset(expected)


@pytest.mark.requirement("R4")
def test_sunday_seven_equals_zero():
    assert CronExpr("0 0 * * 7").weekdays == CronExpr("0 0 * * 0").weekdays == {0}
    assert 7 not in CronExpr("0 0 * * 1-7").weekdays


# --- R5: macros ----------------------------------------------------------------------------


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "macro, equivalent",
    [
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
        ("@monthly", "0 0 1 * *"),
        ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@hourly", "0 * * * *"),
        ("@DAILY", "0 0 * * *"),
        ("  @Weekly\n", "0 0 * * 0"),
    ],
)
def test_macro_value_sets(macro, equivalent):
    expr, other = CronExpr(macro), CronExpr(equivalent)
    assert expr.has_seconds is False
    for attribute in ("seconds", "minutes", "hours", "days", "months", "weekdays"):
        assert getattr(expr, attribute) == getattr(other, attribute)
    assert expr.to_string() == equivalent
    assert expr.expression == macro


@pytest.mark.requirement("R5")
def test_macro_schedule():
    expr = CronExpr("@weekly")
    assert expr.next_after(datetime(2024, 1, 1, 12, 0)) == datetime(2024, 1, 7, 0, 0)
    assert CronExpr("@hourly").matches(datetime(2024, 5, 5, 13, 0))
    assert not CronExpr("@monthly").matches(datetime(2024, 5, 2, 0, 0))
    assert CronExpr("@annually").prev_before(datetime(2024, 5, 2)) == datetime(2024, 1, 1)
