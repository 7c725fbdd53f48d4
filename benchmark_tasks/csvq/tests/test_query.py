"""Selection, sorting, distinct/limit, grouping and aggregates (R6, R12-R15)."""

import pytest

from csvq import DataError, Query, Table, UsageError, read_table, run_query

SALES = (
    "city,product,amount\n"
    "Oslo,tea,10\n"
    "Rome,coffee,5\n"
    "Oslo,coffee,2\n"
    "Paris,tea,\n"
    "Rome,tea,7.5\n"
)


def _error(result, code, fragment):
    assert result.code == code
    assert result.out == ""
    assert result.err.startswith("csvq: error: ")
    assert fragment in result.err


# --- R6: column selection -------------------------------------------------------

@pytest.mark.requirement("R6")
def test_select_spec_example(cli):
    result = cli("--select", "city, name", "-", stdin="name,age,city\nAnn,31,Oslo\n")
    assert (result.code, result.out, result.err) == (0, "city,name\nOslo,Ann\n", "")


@pytest.mark.requirement("R6")
def test_select_reorders_and_subsets(cli, people):
    result = cli("-s", "age,name", people)
    assert result.out == "age,name\n31,Ann\n5,Bob\n45,Cy\n,Dee\n9,Eve\n"


@pytest.mark.requirement("R6")
def test_unknown_column_in_select_even_without_rows(cli):
    _error(cli("-s", "name,zip", "-", stdin="name,age\n"), 2, "unknown column 'zip'")


@pytest.mark.requirement("R6")
def test_duplicate_select_column(cli, people):
    _error(cli("-s", "name,age,name", people), 2, "duplicate column 'name'")
    with pytest.raises(UsageError, match="duplicate column 'name'"):
        Query(select=["name", "name"])


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("value", ["name,,age", "name,", ""])
def test_empty_select_item_is_usage_error(cli, people, value):
    result = cli("--select", value, people)
    assert result.code == 2
    assert result.out == ""


@pytest.mark.requirement("R6")
def test_run_query_select_and_input_unchanged():
    table = read_table("a,b,c\n1,2,3\n")
    result = run_query(table, Query(select=["c", "a"]))
    assert result == Table(["c", "a"], [["3", "1"]])
    assert table == Table(["a", "b", "c"], [["1", "2", "3"]])
    with pytest.raises(UsageError, match="unknown column 'x'"):
        run_query(table, Query(select=["x"]))


# --- R12: sorting -----------------------------------------------------------------

@pytest.mark.requirement("R12")
def test_sort_numeric_aware_ascending(cli, people):
    result = cli("--sort", "age", "-s", "name", people)
    assert result.out == "name\nDee\nBob\nEve\nAnn\nCy\n"


@pytest.mark.requirement("R12")
def test_sort_descending_dash_value(cli, people):
    result = cli("--sort", "-age", "-s", "name", people)
    assert result.out == "name\nCy\nAnn\nEve\nBob\nDee\n"


@pytest.mark.requirement("R12")
def test_sort_multiple_keys(cli, people):
    result = cli("--sort", "city,-age", "-s", "city,name", people)
    assert result.out == "city,name\nOslo,Cy\nOslo,Ann\nParis,Dee\nRome,Eve\nRome,Bob\n"


@pytest.mark.requirement("R12")
def test_sort_mixed_values_and_plus_prefix():
    table = read_table("v\nb\n10\n\n9\nB\n1e0\n\"\"\n", header=True)
    result = run_query(table, Query(sort=["+v"]))
    assert [row[0] for row in result.rows] == ["", "1e0", "9", "10", "B", "b"]


@pytest.mark.requirement("R12")
def test_sort_is_stable_in_both_directions():
    table = read_table("k,id\n1,a\n2,b\n1.0,c\n2,d\n01,e\n")
    ascending = run_query(table, Query(sort=["k"]))
    descending = run_query(table, Query(sort=["-k"]))
    assert [row[1] for row in ascending.rows] == ["a", "c", "e", "b", "d"]
    assert [row[1] for row in descending.rows] == ["b", "d", "a", "c", "e"]


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("keys, fragment", [("-", "invalid sort key '-'"), ("name,+", "invalid sort key '+'"),
                                            ("zip", "unknown column 'zip'")])
def test_sort_errors(cli, people, keys, fragment):
    _error(cli("--sort", keys, people), 2, fragment)


# --- R13: distinct and limit ------------------------------------------------------

@pytest.mark.requirement("R13")
def test_distinct_on_selected_columns(cli, people):
    result = cli("--distinct", "-s", "city", people)
    assert result.out == "city\nOslo\nRome\nParis\n"


@pytest.mark.requirement("R13")
def test_distinct_compares_strings_exactly():
    table = read_table("v\n1\n1.0\n1\n")
    assert run_query(table, Query(distinct=True)).rows == [["1"], ["1.0"]]


@pytest.mark.requirement("R13")
def test_limit_after_sort_and_distinct(cli, people):
    result = cli("--sort", "city", "-s", "city", "--distinct", "--limit", "2", people)
    assert result.out == "city\nOslo\nParis\n"


@pytest.mark.requirement("R13")
@pytest.mark.parametrize("limit, count", [("0", 0), ("3", 3), ("100", 5)])
def test_limit_values(cli, people, limit, count):
    result = cli("-n", limit, people)
    assert result.code == 0
    assert len(result.out.splitlines()) == count + 1


@pytest.mark.requirement("R13")
@pytest.mark.parametrize("limit", ["-1", "abc", "2.5", "", "+3"])
def test_invalid_limit(cli, people, limit):
    _error(cli("--limit", limit, people), 2, "invalid limit")


@pytest.mark.requirement("R13")
def test_negative_limit_in_library():
    with pytest.raises(UsageError):
        Query(limit=-1)
    table = read_table("a\n1\n2\n")
    assert run_query(table, Query(limit=1)).rows == [["1"]]


# --- R14: grouping, aggregates, pipeline -----------------------------------------

@pytest.mark.requirement("R14")
def test_group_spec_example(cli):
    text = "city,amount\nOslo,10\nRome,5\nOslo,2\n"
    result = cli("--group-by", "city", "--agg", "count,sum:amount", "-", stdin=text)
    assert (result.code, result.out) == (0, "city,count,sum(amount)\nOslo,2,12\nRome,1,5\n")


@pytest.mark.requirement("R14")
def test_group_by_defaults_to_count(cli, write):
    result = cli("-g", "product", write(SALES))
    assert result.out == "product,count\ntea,3\ncoffee,2\n"


@pytest.mark.requirement("R14")
def test_group_by_several_columns_and_count_column(cli, write):
    result = cli("-g", "city,product", "-a", "count:amount", write(SALES))
    assert result.out == (
        "city,product,count(amount)\n"
        "Oslo,tea,1\nRome,coffee,1\nOslo,coffee,1\nParis,tea,0\nRome,tea,1\n"
    )


@pytest.mark.requirement("R14")
def test_agg_without_group_by_single_row(cli, write):
    result = cli("-a", "count,min:amount,max:amount", write(SALES))
    assert result.out == "count,min(amount),max(amount)\n5,2,10\n"


@pytest.mark.requirement("R14")
def test_agg_without_group_by_and_no_rows(cli, write):
    result = cli("-w", "city = Berlin", "-a", "count,sum:amount,avg:amount", write(SALES))
    assert (result.code, result.out) == (0, "count,sum(amount),avg(amount)\n0,0,\n")


@pytest.mark.requirement("R14")
def test_pipeline_where_group_sort_select_limit(cli, write):
    result = cli("-w", "amount != ''", "-g", "city", "-a", "sum:amount,count", "--sort", "-count,city",
                 "-s", "city,sum(amount)", "-n", "2", write(SALES))
    assert result.out == "city,sum(amount)\nOslo,12\nRome,12.5\n"


@pytest.mark.requirement("R14")
def test_group_order_is_first_appearance_library():
    table = read_table("k,v\nb,1\na,2\nb,3\n1,4\n1.0,5\n")
    result = run_query(table, Query(group_by=["k"], aggregates=["sum:v"]))
    assert result == Table(["k", "sum(v)"], [["b", "4"], ["a", "2"], ["1", "4"], ["1.0", "5"]])


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("spec", ["median:amount", "sum", "sum:", "COUNT", "avg"])
def test_invalid_aggregate(cli, write, spec):
    _error(cli("-a", spec, write(SALES)), 2, f"invalid aggregate '{spec}'")


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "args, text, fragment",
    [
        (("-a", "count,count"), SALES, "duplicate column 'count'"),
        (("-g", "count"), "count,x\n1,2\n", "duplicate column 'count'"),
        (("-g", "town"), SALES, "unknown column 'town'"),
        (("-a", "sum:price"), SALES, "unknown column 'price'"),
        (("-g", "city", "-s", "product"), SALES, "unknown column 'product'"),
        (("-g", "city", "--sort", "amount"), SALES, "unknown column 'amount'"),
    ],
)
def test_grouping_column_errors(cli, write, args, text, fragment):
    _error(cli(*args, write(text)), 2, fragment)


# --- R15: aggregate values --------------------------------------------------------

@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "values, expected_sum, expected_avg",
    [
        (["+5", "-3"], "2", "1"),
        (["1", "2"], "3", "1.5"),
        (["2", "4"], "6", "3"),
        (["0.1", "0.2"], "0.3", "0.15"),
        (["10", "0", "0"], "10", "3.333333"),
        (["1.5", "0.5"], "2", "1"),
        (["1e3", "1"], "1001", "500.5"),
        (["99999999999999999999", "1"], "100000000000000000000", "50000000000000000000"),
        (["-0.0000001"], "0", "0"),
        (["2", "-2"], "0", "0"),
        (["0.0000004", "0.0000004"], "0.000001", "0"),
    ],
)
def test_sum_and_avg_formatting(values, expected_sum, expected_avg):
    table = Table(["v"], [[value] for value in values])
    result = run_query(table, Query(aggregates=["sum:v", "avg:v"]))
    assert result.rows == [[expected_sum, expected_avg]]


@pytest.mark.requirement("R15")
def test_empty_cells_are_ignored():
    table = Table(["g", "v"], [["a", ""], ["a", "4"], ["b", ""]])
    result = run_query(table, Query(group_by=["g"], aggregates=["count", "sum:v", "avg:v", "min:v", "max:v"]))
    assert result.rows == [["a", "2", "4", "4", "4", "4"], ["b", "1", "0", "", "", ""]]


@pytest.mark.requirement("R15")
def test_min_max_keep_original_text_and_use_value_order():
    table = Table(["v"], [["10"], ["9.0"], ["abc"], [""], ["09"], ["Zed"], ["1e1"]])
    result = run_query(table, Query(aggregates=["min:v", "max:v"]))
    assert result.rows == [["9.0", "abc"]]


@pytest.mark.requirement("R15")
def test_min_max_of_numbers_only(cli, write):
    result = cli("-g", "city", "-a", "min:amount,max:amount", write(SALES))
    assert result.out == "city,min(amount),max(amount)\nOslo,2,10\nRome,5,7.5\nParis,,\n"


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("spec", ["sum:product", "avg:product"])
def test_non_numeric_sum_avg_is_data_error(cli, write, spec):
    _error(cli("-a", spec, write(SALES)), 3, "non-numeric value 'tea' in column 'product'")


@pytest.mark.requirement("R15")
def test_non_numeric_in_library_and_text_ok_for_min_count():
    table = Table(["v"], [["1"], ["n/a"]])
    with pytest.raises(DataError, match="non-numeric value 'n/a' in column 'v'"):
        run_query(table, Query(aggregates=["avg:v"]))
    assert run_query(table, Query(aggregates=["count:v", "min:v", "max:v"])).rows == [["2", "1", "n/a"]]
