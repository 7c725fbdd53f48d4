"""Output formats: CSV, JSON and text table (R16-R18)."""

import json

import pytest

from csvq import Table, UsageError, render


# --- R16: CSV output --------------------------------------------------------------

@pytest.mark.requirement("R16")
def test_csv_spec_example():
    table = Table(["a", "b", "c"], [["Smith, J", 'say "hi"', ""]])
    assert render(table) == 'a,b,c\n"Smith, J","say ""hi""",\n'


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "value, written",
    [
        ("plain", "plain"),
        (" spaced ", " spaced "),
        ("two\nlines", '"two\nlines"'),
        ('"', '""""'),
        ("a;b", "a;b"),
        ("x,", '"x,"'),
    ],
)
def test_csv_quoting(value, written):
    assert render(Table(["v", "w"], [[value, "1"]]), "csv") == f"v,w\n{written},1\n"


@pytest.mark.requirement("R16")
def test_csv_single_empty_field_is_quoted():
    assert render(Table(["v"], [[""], ["x"]])) == 'v\n""\nx\n'


@pytest.mark.requirement("R16")
def test_csv_zero_rows_and_omitted_header():
    table = Table(["a", "b"], [])
    assert render(table, "csv") == "a,b\n"
    assert render(table, "csv", header=False) == ""


@pytest.mark.requirement("R16")
def test_csv_round_trip_through_cli(cli, write):
    path = write('id,text\n1,"multi\nline, ""quoted"""\n')
    result = cli(path)
    assert result.out == 'id,text\n1,"multi\nline, ""quoted"""\n'


@pytest.mark.requirement("R16")
def test_csv_output_always_comma_and_lf(cli):
    result = cli("-d", "tab", "-", stdin="a\tb\r\nx y\t2\r\n")
    assert result.out == "a,b\nx y,2\n"


# --- R17: JSON output --------------------------------------------------------------

@pytest.mark.requirement("R17")
def test_json_spec_example(cli):
    result = cli("-f", "json", "-", stdin="name,age\nAnn,31\n")
    assert result.code == 0
    assert result.out == '[\n  {\n    "name": "Ann",\n    "age": "31"\n  }\n]\n'


@pytest.mark.requirement("R17")
def test_json_zero_rows(cli):
    result = cli("--format", "json", "-w", "a = 9", "-", stdin="a\n1\n")
    assert (result.code, result.out) == (0, "[]\n")


@pytest.mark.requirement("R17")
def test_json_escaping_and_non_ascii():
    table = Table(["k", "v"], [['q"b\\', "Zürich\n"], ["", "2"]])
    expected = (
        "[\n"
        "  {\n"
        '    "k": "q\\"b\\\\",\n'
        '    "v": "Zürich\\n"\n'
        "  },\n"
        "  {\n"
        '    "k": "",\n'
        '    "v": "2"\n'
        "  }\n"
        "]\n"
    )
    assert render(table, "json") == expected


@pytest.mark.requirement("R17")
def test_json_values_are_strings_and_keys_ordered(cli, people):
    result = cli("-f", "json", "-g", "city", "-a", "sum:age,count", people)
    data = json.loads(result.out)
    assert data == [
        {"city": "Oslo", "sum(age)": "76", "count": "2"},
        {"city": "Rome", "sum(age)": "14", "count": "2"},
        {"city": "Paris", "sum(age)": "0", "count": "1"},
    ]
    assert [list(item) for item in data] == [["city", "sum(age)", "count"]] * 3


# --- R18: table output ---------------------------------------------------------------

@pytest.mark.requirement("R18")
def test_table_spec_example():
    table = Table(["name", "age", "city"], [["Ann", "31", "Oslo"], ["Bob", "5", ""]])
    assert render(table, "table") == (
        "+------+-----+------+\n"
        "| name | age | city |\n"
        "+------+-----+------+\n"
        "| Ann  |  31 | Oslo |\n"
        "| Bob  |   5 |      |\n"
        "+------+-----+------+\n"
        "(2 rows)\n"
    )


@pytest.mark.requirement("R18")
def test_table_single_row_and_wide_values(cli):
    result = cli("-f", "table", "-", stdin="n,label\n1234567,x\n")
    assert result.out == (
        "+---------+-------+\n"
        "|       n | label |\n"
        "+---------+-------+\n"
        "| 1234567 | x     |\n"
        "+---------+-------+\n"
        "(1 row)\n"
    )


@pytest.mark.requirement("R18")
def test_table_zero_rows_left_aligned(cli):
    result = cli("-f", "table", "--where", "id > 5", "-", stdin="id,name\n1,a\n")
    assert result.out == (
        "+----+------+\n"
        "| id | name |\n"
        "+----+------+\n"
        "+----+------+\n"
        "(0 rows)\n"
    )


@pytest.mark.requirement("R18")
def test_table_mixed_column_is_left_aligned_and_empty_column():
    table = Table(["v", "e", "x"], [["10", "", "-1.5"], ["n/a", "", "2"], ["", "", "1e3"]])
    assert render(table, "table") == (
        "+-----+---+------+\n"
        "| v   | e |    x |\n"
        "+-----+---+------+\n"
        "| 10  |   | -1.5 |\n"
        "| n/a |   |    2 |\n"
        "|     |   |  1e3 |\n"
        "+-----+---+------+\n"
        "(3 rows)\n"
    )


@pytest.mark.requirement("R18")
def test_table_width_uses_code_points():
    table = Table(["city"], [["Zürich"], ["Oslo"]])
    assert render(table, "table") == (
        "+--------+\n| city   |\n+--------+\n| Zürich |\n| Oslo   |\n+--------+\n(2 rows)\n"
    )


@pytest.mark.requirement("R18")
def test_table_after_grouping(cli, people):
    result = cli("-f", "table", "-g", "city", "--sort", "-count,city", people)
    assert result.out == (
        "+-------+-------+\n"
        "| city  | count |\n"
        "+-------+-------+\n"
        "| Oslo  |     2 |\n"
        "| Rome  |     2 |\n"
        "| Paris |     1 |\n"
        "+-------+-------+\n"
        "(3 rows)\n"
    )


@pytest.mark.requirement("R16", "R17", "R18")
@pytest.mark.parametrize("fmt", ["xml", "CSV", ""])
def test_invalid_format(cli, people, fmt):
    result = cli("--format", fmt, people)
    assert result.code == 2
    assert result.out == ""
    assert "invalid format" in result.err
    with pytest.raises(UsageError):
        render(Table(["a"], []), fmt)
