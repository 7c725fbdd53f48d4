"""R6-R7: syntax errors with field and position, expression-level errors, argument checks."""

import pytest

from cronexpr import CronError, CronExpr, CronSearchError, CronSyntaxError, is_valid


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "expression, field, position",
    [
        ("60 * * * *", "minute", 0),
        ("0 24 * * *", "hour", 2),
        ("0 0 32 * *", "day-of-month", 4),
        ("0 0 0 * *", "day-of-month", 4),
        ("0 0 * 13 *", "month", 6),
        ("0 0 * 0 *", "month", 6),
        ("0 0 * * 8", "day-of-week", 8),
        ("1,2,99 * * * *", "minute", 4),
        ("0 9-17,20-18 * * *", "hour", 7),
        ("  0 0 * * FOO", "day-of-week", 10),
        ("0 0 1,,2 * *", "day-of-month", 6),
        ("60 0 0 * * *", "second", 0),
        ("0 60 0 * * *", "minute", 2),
        ("0 0 24 * * *", "hour", 4),
        ("0 0 * * * 8", "day-of-week", 10),
    ],
)
def test_field_and_position(expression, field, position):
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr(expression)
    error = excinfo.value
    assert error.field == field
    assert error.position == position
    assert error.expression == expression


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "expression, field, position",
    [
        ("0 17-9 * * *", "hour", 2),
        ("0 0 * * SAT-SUN", "day-of-week", 8),
        ("5x * * * *", "minute", 0),
        ("0 0 ? * *", "day-of-month", 4),
        ("0 0 L * *", "day-of-month", 4),
        ("0 0 15W * *", "day-of-month", 4),
        ("0 0 * * 5#2", "day-of-week", 8),
        ("-5 * * * *", "minute", 0),
        ("*-5 * * * *", "minute", 0),
        ("1- * * * *", "minute", 0),
        ("0 0 * * JAN", "day-of-week", 8),
        ("MON * * * *", "minute", 0),
        ("0 0 * * MONDAY", "day-of-week", 8),
        ("0 0 * * Tues", "day-of-week", 8),
        ("*/0 * * * *", "minute", 0),
        ("*/ * * * *", "minute", 0),
        ("*/x * * * *", "minute", 0),
        ("0 0 * * */MON", "day-of-week", 8),
        ("1/2/3 * * * *", "minute", 0),
        ("1, * * * *", "minute", 2),
        ("0 ,1 * * *", "hour", 2),
        ("\uff11 * * * *", "minute", 0),
        ("0 0 1 1-3,14 *", "month", 10),
    ],
)
def test_invalid_elements(expression, field, position):
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr(expression)
    assert (excinfo.value.field, excinfo.value.position) == (field, position)


@pytest.mark.requirement("R6")
def test_first_invalid_field_reported():
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr("0 99 99 99 99")
    assert excinfo.value.field == "hour"
    assert excinfo.value.position == 2


@pytest.mark.requirement("R6")
def test_message_format():
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr("0 24 * * *")
    message = str(excinfo.value)
    assert message.startswith("hour field: ")
    assert message.endswith(" (position 2)")


@pytest.mark.requirement("R6")
def test_syntax_error_hierarchy():
    with pytest.raises(CronError):
        CronExpr("61 * * * *")
    with pytest.raises(ValueError):
        CronExpr("61 * * * *")
    assert issubclass(CronSyntaxError, CronError)
    assert not issubclass(CronSyntaxError, CronSearchError)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("expression", ["", "   ", "\t\n"])
def test_empty_expression(expression):
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr(expression)
    assert excinfo.value.field is None
    assert excinfo.value.position is None


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "expression",
    ["* * * *", "*", "0 0 * * * * 2024", "1 2 3 4 5 6 7 8"],
)
def test_wrong_field_count(expression):
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr(expression)
    assert excinfo.value.field is None
    assert excinfo.value.position is None
    assert "5 or 6 fields" in str(excinfo.value)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "expression, position",
    [("@reboot", 0), ("  @reboot", 2), ("@every", 0), ("@daily 5", 0), ("@ daily", 0)],
)
def test_unknown_macro(expression, position):
    with pytest.raises(CronSyntaxError) as excinfo:
        CronExpr(expression)
    assert excinfo.value.field is None
    assert excinfo.value.position == position
    assert str(excinfo.value).endswith(f" (position {position})")


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("expression", [None, 5, b"* * * * *", ["*"] * 5])
def test_non_string_expression(expression):
    with pytest.raises(TypeError):
        CronExpr(expression)


@pytest.mark.requirement("R7")
def test_bad_tz_type():
    with pytest.raises(TypeError):
        CronExpr("* * * * *", tz="UTC")


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("years", [0, -1, 2.5, True])
def test_bad_search_years(years):
    with pytest.raises(ValueError) as excinfo:
        CronExpr("* * * * *", search_years=years)
    assert not isinstance(excinfo.value, CronError)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "expression, expected",
    [
        ("* * * * *", True),
        ("0 0 * * * *", True),
        ("@daily", True),
        ("0 0 30 2 *", True),
        ("", False),
        ("60 * * * *", False),
        ("* * * *", False),
        ("@reboot", False),
        (None, False),
        (42, False),
    ],
)
def test_is_valid(expression, expected):
    assert is_valid(expression) is expected
