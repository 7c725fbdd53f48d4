"""R15-R16: canonical form, repr, equality and English descriptions."""

from zoneinfo import ZoneInfo

import pytest

from cronexpr import CronExpr


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "expression, canonical",
    [
        ("0-59/15 9 * jan-mar mon", "*/15 9 * 1-3 1"),
        ("*/1 * * * *", "* * * * *"),
        ("5 4 * * 7", "5 4 * * 0"),
        ("0 0 * * MON-FRI", "0 0 * * 1-5"),
        ("0 0 * * 1-7", "0 0 * * *"),
        ("0 0 * * 5-7", "0 0 * * 0,5,6"),
        ("3,1,2,10,20 * * * *", "1-3,10,20 * * * *"),
        ("5,6 * * * *", "5,6 * * * *"),
        ("*/30 * * * *", "0,30 * * * *"),
        ("0-20/2 * * * *", "0-20/2 * * * *"),
        ("10-30/5 * * * *", "10-30/5 * * * *"),
        ("0 0 */2 * *", "0 0 */2 * *"),
        ("0 30 9 * * *", "0 30 9 * * *"),
        ("00 09 * * *", "0 9 * * *"),
        ("0,15,30,45 * * * *", "*/15 * * * *"),
        ("0-50/10 * * * *", "*/10 * * * *"),
        ("0 0-22/2 * * *", "0 */2 * * *"),
        ("0 0 1 1-12 *", "0 0 1 * *"),
        ("0 0 * * 1-5/2", "0 0 * * 1-5/2"),
        ("1,3,5,7,9 * * * *", "1-9/2 * * * *"),
        ("0 0 1,15 * *", "0 0 1,15 * *"),
        ("  1  2  3  4  5 ", "1 2 3 4 5"),
        ("*/15 * * * * *", "*/15 * * * * *"),
        ("0 0 * DEC,JAN,FEB *", "0 0 * 1,2,12 *"),
    ],
)
def test_canonical_form(expression, canonical):
    expr = CronExpr(expression)
    assert expr.to_string() == canonical
    assert str(expr) == canonical


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("macro, canonical", [("@daily", "0 0 * * *"), ("@weekly", "0 0 * * 0")])
def test_canonical_form_of_macros(macro, canonical):
    assert CronExpr(macro).to_string() == canonical


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "expression",
    ["*/7 1-5,9 2-30/4 FEB-JUN sat,sun", "0 0 * * 1,3,5", "1,2,4 */6 31 * *", "5 * * * * 0,6"],
)
def test_canonical_form_round_trips(expression):
    expr = CronExpr(expression)
    again = CronExpr(expr.to_string())
    assert again.to_string() == expr.to_string()
    assert (again.minutes, again.hours, again.days) == (expr.minutes, expr.hours, expr.days)
    assert (again.months, again.weekdays, again.seconds) == (
        expr.months,
        expr.weekdays,
        expr.seconds,
    )


@pytest.mark.requirement("R15")
def test_repr():
    assert repr(CronExpr("0 9 * * MON-FRI")) == "CronExpr('0 9 * * 1-5')"
    berlin = ZoneInfo("Europe/Berlin")
    assert repr(CronExpr("@hourly", tz=berlin)) == f"CronExpr('0 * * * *', tz={berlin!r})"


@pytest.mark.requirement("R15")
def test_equality_and_hash():
    assert CronExpr("*/15 * * * *") == CronExpr("0,15,30,45 * * * *")
    assert hash(CronExpr("*/15 * * * *")) == hash(CronExpr("0,15,30,45 * * * *"))
    assert CronExpr("@daily") == CronExpr("0 0 * * *")
    assert CronExpr("0 * * * *") != CronExpr("0 0 * * * *")
    assert CronExpr("0 * * * *") != CronExpr("1 * * * *")
    assert CronExpr("0 * * * *") != CronExpr("0 * * * *", tz=ZoneInfo("UTC"))
    assert CronExpr("0 * * * *") != "0 * * * *"
    assert len({CronExpr("0 0 * * 7"), CronExpr("0 0 * * SUN"), CronExpr("0 0 * * 0")}) == 1


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "expression, description",
    [
        ("* * * * *", "At every minute"),
        ("*/15 * * * *", "At every 15th minute"),
        ("0 * * * *", "At minute 0"),
        ("5,35 * * * *", "At minute 5 and 35"),
        ("0 0,12 * * *", "At minute 0 past hour 0 and 12"),
        ("0 */2 * * *", "At minute 0 past every 2nd hour"),
        ("*/5 9-17 * * *", "At every 5th minute past hour 9 through 17"),
        ("10-30/5 * * * *", "At every 5th minute from 10 through 30"),
        ("30 9 * * 1-5", "At 09:30 on Monday through Friday"),
        ("0 0 1 * *", "At 00:00 on day-of-month 1"),
        ("@yearly", "At 00:00 on day-of-month 1 in January"),
        ("0 12 13 * 5", "At 12:00 on day-of-month 13 or on Friday"),
        ("0 0 * */3 *", "At 00:00 in every 3rd month"),
        ("0 0 * JAN-MAR,DEC *", "At 00:00 in January through March and December"),
        ("0 0 * * 5-7", "At 00:00 on Sunday, Friday and Saturday"),
        ("30 15 10 * * *", "At 10:15:30"),
        ("* * * * * *", "At every second"),
        ("0 * 9 * * *", "At second 0 past every minute past hour 9"),
    ],
)
def test_documented_examples(expression, description):
    assert CronExpr(expression).describe() == description


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "expression, description",
    [
        ("5 7 * * *", "At 07:05"),
        ("0 0 * * *", "At 00:00"),
        ("5 0 7 * * *", "At 07:00:05"),
        ("*/21 * * * *", "At every 21st minute"),
        ("*/22 * * * *", "At every 22nd minute"),
        ("*/23 * * * *", "At every 23rd minute"),
        ("*/11 * * * *", "At every 11th minute"),
        ("*/12 * * * *", "At every 12th minute"),
        ("*/13 * * * *", "At every 13th minute"),
        ("0 9 * * 0,6", "At 09:00 on Sunday and Saturday"),
        ("0 9 1,15,28 * *", "At 09:00 on day-of-month 1, 15 and 28"),
        ("0 9 1-7 * 1", "At 09:00 on day-of-month 1 through 7 or on Monday"),
        ("0 22 * * 1-5/2", "At 22:00 on every 2nd day-of-week from Monday through Friday"),
        ("0 0 */2 * *", "At 00:00 on every 2nd day-of-month"),
        ("0 0 6 * * 2-4", "At 06:00:00 on Tuesday through Thursday"),
        ("15 30 * * * *", "At second 15 past minute 30"),
        ("* 0 * * * *", "At every second past minute 0"),
        ("0 0,30 8-10 * * *", "At second 0 past minute 0 and 30 past hour 8 through 10"),
        (
            "0 0 1 3-11/2 *",
            "At 00:00 on day-of-month 1 in every 2nd month from March through November",
        ),
        ("0 0 29 2 *", "At 00:00 on day-of-month 29 in February"),
        ("1,2 3 * 6 *", "At minute 1 and 2 past hour 3 in June"),
        ("*/1 * * * 7", "At every minute on Sunday"),
        ("@weekly", "At 00:00 on Sunday"),
        ("@hourly", "At minute 0"),
    ],
)
def test_more_descriptions(expression, description):
    assert CronExpr(expression).describe() == description
