"""Reading, validating, sorting and de-duplicating CSV input (R5-R8)."""

from datetime import datetime, timezone

import pytest

from tsresample import BadRow, DataError, ReadResult, UsageError, parse_csv, read_csv


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


# --- R5: reading CSV input --------------------------------------------------------------

@pytest.mark.requirement("R5")
def test_default_time_column_and_value_columns():
    result = parse_csv("timestamp,temp,hum\n2024-01-01T00:00Z,1.5,40\n2024-01-01T01:00Z,2,41\n")
    assert isinstance(result, ReadResult)
    assert result.bad_rows == []
    assert result.frame.timestamps == [utc(2024, 1, 1, 0), utc(2024, 1, 1, 1)]
    assert result.frame.columns == {"temp": [1.5, 2.0], "hum": [40.0, 41.0]}
    assert list(result.frame.columns) == ["temp", "hum"]


@pytest.mark.requirement("R5")
def test_named_time_column_and_selected_columns_in_given_order():
    result = parse_csv(
        "v,time,w,note\n1,2024-01-01,3,hello\n", time_column="time", columns=["w", "v"]
    )
    assert result.frame.timestamps == [utc(2024, 1, 1)]
    assert list(result.frame.columns) == ["w", "v"]
    assert result.frame.columns == {"w": [3.0], "v": [1.0]}


@pytest.mark.requirement("R5")
def test_header_names_stripped_crlf_and_quoted_fields():
    text = ' when , a \r\n2024-01-01T00:00Z,"7"\r\n\r\n2024-01-01T00:01Z,8\r\n'
    result = parse_csv(text)
    assert result.frame.columns == {"a": [7.0, 8.0]}
    assert result.frame.timestamps == [utc(2024, 1, 1, 0, 0), utc(2024, 1, 1, 0, 1)]


@pytest.mark.requirement("R5")
def test_header_only_gives_empty_frame():
    result = parse_csv("timestamp,a,b\n")
    assert len(result.frame) == 0
    assert result.frame.columns == {"a": [], "b": []}
    assert result.bad_rows == []


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("text", ["", "\n\n", "\r\n"])
def test_empty_input_is_data_error(text):
    with pytest.raises(DataError, match="empty input"):
        parse_csv(text)


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "text", ["timestamp,a,a\n2024-01-01,1,2\n", "timestamp,a, a\n", "timestamp\n2024-01-01\n"]
)
def test_bad_header_is_data_error(text):
    with pytest.raises(DataError):
        parse_csv(text)


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "kwargs",
    [
        {"time_column": "when"},
        {"columns": ["nope"]},
        {"columns": ["a", "timestamp"]},
        {"columns": ["a", "a"]},
        {"columns": []},
        {"duplicates": "keep"},
        {"on_bad": "ignore"},
    ],
)
def test_invalid_options_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        parse_csv("timestamp,a,b\n2024-01-01,1,2\n", **kwargs)


@pytest.mark.requirement("R5")
def test_read_csv_from_file_with_bom(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes("\ufefftimestamp,v\n2024-01-01T00:00:00Z,1\n".encode("utf-8"))
    result = read_csv(path, columns=["v"])
    assert result.frame.columns == {"v": [1.0]}
    assert read_csv(str(path)).frame == result.frame


@pytest.mark.requirement("R5")
def test_read_csv_missing_or_undecodable_file(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        read_csv(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"timestamp,v\n2024-01-01,\xff\xfe\n")
    with pytest.raises(DataError, match="cannot read"):
        read_csv(bad)


# --- R6: value cells --------------------------------------------------------------------

@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("1", 1.0),
        ("-2.5", -2.5),
        ("+3", 3.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("1e3", 1000.0),
        ("2.5E-1", 0.25),
        (" 4 ", 4.0),
        ("", None),
        ("   ", None),
    ],
)
def test_valid_value_cells(cell, expected):
    result = parse_csv(f"timestamp,v\n2024-01-01,{cell}\n")
    assert result.bad_rows == []
    assert result.frame.columns["v"] == [expected]


@pytest.mark.requirement("R6")
def test_values_are_floats():
    value = parse_csv("timestamp,v\n2024-01-01,3\n").frame.columns["v"][0]
    assert type(value) is float


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("cell", ["abc", '"1,5"', "nan", "inf", "0x10", "1_000", "--1", "1e999"])
def test_invalid_value_cells_make_bad_rows(cell):
    result = parse_csv(f"timestamp,v\n2024-01-01,{cell}\n2024-01-02,1\n")
    assert result.bad_rows == [BadRow(2, "value")]
    assert result.frame.timestamps == [utc(2024, 1, 2)]


@pytest.mark.requirement("R6")
def test_unselected_columns_are_not_validated():
    result = parse_csv("timestamp,v,note\n2024-01-01,1,oops\n", columns=["v"])
    assert result.bad_rows == []
    assert result.frame.columns == {"v": [1.0]}


# --- R7: bad rows and line numbers ------------------------------------------------------

@pytest.mark.requirement("R7")
def test_bad_rows_with_reasons_and_line_numbers():
    text = "timestamp,v\n2024-01-01,1\n\nbad,2\n2024-01-02,x\n2024-01-03\n"
    result = parse_csv(text)
    assert result.bad_rows == [
        BadRow(4, "timestamp"),
        BadRow(5, "value"),
        BadRow(6, "field_count"),
    ]
    assert result.frame.timestamps == [utc(2024, 1, 1)]
    assert result.frame.columns == {"v": [1.0]}


@pytest.mark.requirement("R7")
def test_check_order_field_count_before_timestamp_before_value():
    text = "timestamp,a,b\nbad,x,1,9\nbad,x,1\n2024-01-01,x,oops\n"
    assert parse_csv(text).bad_rows == [
        BadRow(2, "field_count"),
        BadRow(3, "timestamp"),
        BadRow(4, "value"),
    ]


@pytest.mark.requirement("R7")
def test_line_numbers_count_leading_blank_lines_and_follow_file_order():
    text = "\ntimestamp,v\n2024-01-05,1\n2024-01-01,oops\n2024-01-03,2\nnope,3\n"
    result = parse_csv(text)
    assert result.bad_rows == [BadRow(4, "value"), BadRow(6, "timestamp")]
    assert result.bad_rows[0].line == 4 and result.bad_rows[0].reason == "value"


@pytest.mark.requirement("R7")
def test_on_bad_error_raises_for_first_bad_row():
    text = "timestamp,v\n2024-01-01,1\n\nbad,2\n2024-01-02,x\n"
    with pytest.raises(DataError, match="line 4: timestamp"):
        parse_csv(text, on_bad="error")


@pytest.mark.requirement("R7")
def test_on_bad_error_without_bad_rows_succeeds():
    result = parse_csv("timestamp,v\n2024-01-01,1\n", on_bad="error")
    assert result.bad_rows == []
    assert len(result.frame) == 1


# --- R8: sorting and duplicate timestamps -----------------------------------------------

@pytest.mark.requirement("R8")
def test_unsorted_input_is_sorted_by_instant():
    text = "timestamp,v\n2024-01-03,3\n2024-01-01T02:00+03:00,1\n2024-01-02,2\n"
    frame = parse_csv(text).frame
    assert frame.timestamps == [utc(2023, 12, 31, 23), utc(2024, 1, 2), utc(2024, 1, 3)]
    assert frame.columns == {"v": [1.0, 2.0, 3.0]}


@pytest.mark.requirement("R8")
def test_duplicates_error_reports_line_of_second_occurrence():
    text = "timestamp,v\n2024-01-01T09:00Z,1\n2024-01-02,2\n2024-01-01T10:00+01:00,3\n"
    with pytest.raises(DataError) as info:
        parse_csv(text)
    assert "duplicate timestamp" in str(info.value)
    assert "line 4" in str(info.value)


@pytest.mark.requirement("R8")
def test_duplicates_error_reports_earliest_instant_group():
    text = "timestamp,v\n2024-01-05,1\n2024-01-05,2\n2024-01-01,3\n2024-01-01,4\n"
    with pytest.raises(DataError, match="line 5"):
        parse_csv(text, duplicates="error")


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(("policy", "expected"), [("first", [10.0, 2.0]), ("last", [30.0, 2.0])])
def test_duplicates_first_and_last_follow_file_order(policy, expected):
    text = (
        "timestamp,v\n"
        "2024-01-01T00:00Z,10\n"
        "2024-01-02T00:00Z,2\n"
        "2024-01-01T01:00+01:00,20\n"
        "2023-12-31T23:00-01:00,30\n"
    )
    frame = parse_csv(text, duplicates=policy).frame
    assert frame.timestamps == [utc(2024, 1, 1), utc(2024, 1, 2)]
    assert frame.columns == {"v": expected}


@pytest.mark.requirement("R8")
def test_bad_rows_do_not_count_as_duplicates():
    text = "timestamp,v\n2024-01-01,1\n2024-01-01,x\n2024-01-01,1,2\n"
    result = parse_csv(text)
    assert result.frame.columns == {"v": [1.0]}
    assert [bad.line for bad in result.bad_rows] == [3, 4]
