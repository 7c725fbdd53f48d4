"""Where-expressions and the value order (R7-R11)."""

import pytest

from csvq import UsageError, compare_values, parse_where

ROW = {"name": "Ann", "age": "31", "city": "Oslo", "note": "", "first name": "Mary Ann"}


def _names(cli_result):
    """Names (first column) of the data lines of a CSV result."""
    return [line.split(",")[0] for line in cli_result.out.splitlines()[1:]]


# --- R7: syntax -----------------------------------------------------------------

@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "expression, expected",
    [
        ("age>=30", True),
        ("name = 'Ann'", True),
        ("\"first name\" = 'Mary Ann'", True),
        ("note = ''", True),
        ("note = \"\"", True),
        ("city='(Oslo)'", False),
        ("  age   =   31  ", True),
        ("NOT (age=1 OR city=Rome) And name~A", True),
        ("name = 'a or b'", False),
        ("name = 'and'", False),
    ],
)
def test_valid_expressions(expression, expected):
    assert parse_where(expression).matches(ROW) is expected


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "expression",
    [
        "",
        "   ",
        "age >=",
        "= 3",
        "(age=1",
        "age=1)",
        "age == 1",
        "age=1 city=Oslo",
        "age = and",
        "name = 'Ann",
        "age ! 1",
        "age 31",
        "age=1 and",
        "()",
    ],
)
def test_invalid_expressions_raise_usage_error(expression):
    with pytest.raises(UsageError, match="invalid where expression"):
        parse_where(expression)


@pytest.mark.requirement("R7")
def test_columns_property():
    condition = parse_where("a = 1 or (b ~ x and not 'c d' != '') or a > 2")
    assert condition.columns == frozenset({"a", "b", "c d"})


@pytest.mark.requirement("R7")
def test_quoted_value_keeps_operator_characters():
    assert parse_where("note = 'a>=b (c)'").matches({"note": "a>=b (c)"})


@pytest.mark.requirement("R7")
def test_cli_invalid_where_exit_2(cli, people):
    result = cli("--where", "age >", people)
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("csvq: error: ")
    assert "invalid where expression" in result.err


# --- R8: comparison operators -------------------------------------------------

@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "expression, value, expected",
    [
        ("v > 9", "10", True),
        ("v < 9", "10", False),
        ("v = 100", "1e2", True),
        ("v = 7", "007", True),
        ("v != 7", "7.0", False),
        ("v <= 5", "5", True),
        ("v <= 5", "5.5", False),
        ("v >= 5", "5", True),
        ("v >= 5", "4.99", False),
        ("v < 5", "5", False),
        ("v > 5", "5", False),
        ("v = ann", "Ann", False),
        ("v != ann", "Ann", True),
        ("v = Ann", "Ann", True),
        ("v = ''", "", True),
        ("v = ''", "0", False),
        ("v < 0", "", True),
        ("v > 1000", "abc", True),
        ("v < B", "a", False),
        ("v > -1.5", "-1", True),
    ],
)
def test_comparison_semantics(expression, value, expected):
    assert parse_where(expression).matches({"v": value}) is expected


@pytest.mark.requirement("R8")
def test_cli_numeric_where(cli, people):
    result = cli("--where", "age>=9", people)
    assert result.code == 0
    assert _names(result) == ["Ann", "Cy", "Eve"]


@pytest.mark.requirement("R8")
def test_cli_where_empty_cells(cli, people):
    assert _names(cli("-w", "age = ''", people)) == ["Dee"]
    assert _names(cli("-w", "age < 6", people)) == ["Bob", "Dee"]


# --- R9: pattern matching -----------------------------------------------------

@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "expression, value, expected",
    [
        ("v ~ sl", "Oslo", True),
        ("v ~ SL", "Oslo", False),
        ("v ~ '^O.*o$'", "Oslo", True),
        ("v ~ '^s'", "Oslo", False),
        ("v !~ R", "Rome", False),
        ("v !~ R", "Oslo", True),
        ("v ~ '[0-9]{3}'", "ab1234", True),
        ("v ~ ''", "", True),
    ],
)
def test_regex_search(expression, value, expected):
    assert parse_where(expression).matches({"v": value}) is expected


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("expression", ["v ~ '('", "v !~ '[a-'", "v ~ '*x'"])
def test_invalid_regex(expression):
    with pytest.raises(UsageError, match="invalid regular expression"):
        parse_where(expression)


@pytest.mark.requirement("R9")
def test_cli_invalid_regex_without_rows(cli):
    result = cli("-w", "name ~ '('", "-", stdin="name\n")
    assert result.code == 2
    assert "invalid regular expression" in result.err


@pytest.mark.requirement("R9")
def test_cli_regex_filter(cli, people):
    assert _names(cli("-w", "city ~ '^R' or name !~ '[ae]'", people)) == ["Ann", "Bob", "Cy", "Eve"]


# --- R10: boolean operators ---------------------------------------------------

@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "expression, row, expected",
    [
        ("a=1 or b=1 and c=1", {"a": "1", "b": "0", "c": "0"}, True),
        ("(a=1 or b=1) and c=1", {"a": "1", "b": "0", "c": "0"}, False),
        ("not a=1 and b=1", {"a": "0", "b": "0"}, False),
        ("not (a=1 and b=1)", {"a": "0", "b": "0"}, True),
        ("not not a=1", {"a": "1"}, True),
        ("a=1 and b=1 and c=1", {"a": "1", "b": "1", "c": "0"}, False),
        ("a=1 or b=1 or c=1", {"a": "0", "b": "0", "c": "1"}, True),
        ("a=1 AND b=1 Or c=1", {"a": "0", "b": "1", "c": "1"}, True),
        ("nOt a=1", {"a": "2"}, True),
        ("((a=1))", {"a": "1"}, True),
    ],
)
def test_precedence(expression, row, expected):
    assert parse_where(expression).matches(row) is expected


@pytest.mark.requirement("R10")
def test_cli_boolean_combination(cli, people):
    result = cli("-w", "city = Oslo and age > 40 or name = Bob", people)
    assert _names(result) == ["Bob", "Cy"]


@pytest.mark.requirement("R10")
def test_cli_not_with_parentheses(cli, people):
    result = cli("-w", "not (city = Oslo or city = Rome)", people)
    assert _names(result) == ["Dee"]


# --- R11: value order ---------------------------------------------------------

@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("10", "9", 1),
        ("", "-5", -1),
        ("100", "abc", -1),
        ("B", "a", -1),
        ("2.50", "2.5", 0),
        ("", "", 0),
        ("1.", ".5", 1),
        ("-2e3", "-1999", -1),
        ("+7", "7", 0),
        ("1,5", "2", 1),
        (" 3", "4", 1),
        ("0x1F", "99", 1),
        ("inf", "1", 1),
        ("1_000", "5", 1),
        ("abc", "abd", -1),
        ("zeta", "", 1),
    ],
)
def test_compare_values(a, b, expected):
    assert compare_values(a, b) == expected


@pytest.mark.requirement("R11")
def test_compare_values_antisymmetric():
    values = ["", "-1", "0", "2", "10", "1e1", "A", "a", "b"]
    for a in values:
        for b in values:
            assert compare_values(a, b) == -compare_values(b, a)


@pytest.mark.requirement("R11")
def test_compare_values_numeric_text_is_not_number():
    # "nan" is text, so it sorts after every number and equal to itself only
    assert compare_values("nan", "nan") == 0
    assert compare_values("nan", "1e300") == 1
