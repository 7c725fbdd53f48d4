"""Reading input: CSV parsing, stdin, delimiters, headers, malformed input (R1-R5)."""

import pytest

from csvq import CsvqError, DataError, Table, UsageError, read_table


def _assert_error(result, code, fragment):
    assert result.code == code
    assert result.out == ""
    assert result.err.startswith("csvq: error: ")
    assert result.err.endswith("\n") and result.err.count("\n") == 1
    assert fragment in result.err


# --- R1: reading CSV input -------------------------------------------------

@pytest.mark.requirement("R1")
def test_read_table_spec_example():
    text = 'name,note\n"Smith, J","say ""hi"""\n\n"a\nb", x \n'
    table = read_table(text)
    assert table == Table(["name", "note"], [["Smith, J", 'say "hi"'], ["a\nb", " x "]])


@pytest.mark.requirement("R1")
def test_read_table_columns_and_rows_fields():
    table = read_table("a,b\n1,2\n3,4\n")
    assert table.columns == ["a", "b"]
    assert table.rows == [["1", "2"], ["3", "4"]]


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "text",
    [
        "a,b\r\n1,2\r\n",
        "a,b\n1,2",
        "\ufeffa,b\n1,2\n",
        "\n\na,b\n\n1,2\n\n",
    ],
    ids=["crlf", "no-final-newline", "bom", "blank-lines"],
)
def test_read_table_line_endings_bom_blank_lines(text):
    assert read_table(text) == Table(["a", "b"], [["1", "2"]])


@pytest.mark.requirement("R1")
def test_read_table_keeps_values_verbatim():
    table = read_table("a,b\n 007 ,\n")
    assert table.rows == [[" 007 ", ""]]


@pytest.mark.requirement("R1")
def test_header_only_has_no_rows():
    assert read_table("a,b\n") == Table(["a", "b"], [])


@pytest.mark.requirement("R1")
def test_cli_reads_utf8_file_with_bom(cli, tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffname,city\nJosé,Zürich\n".encode("utf-8"))
    result = cli(str(path))
    assert result.code == 0
    assert result.out == "name,city\nJosé,Zürich\n"
    assert result.err == ""


# --- R2: stdin and unreadable files ----------------------------------------

@pytest.mark.requirement("R2")
def test_stdin_dash(cli):
    result = cli("-", stdin="a,b\n1,2\n")
    assert (result.code, result.out, result.err) == (0, "a,b\n1,2\n", "")


@pytest.mark.requirement("R2")
def test_stdin_dash_with_options(cli):
    result = cli("--select", "b", "-", stdin="a,b\n1,2\n3,4\n")
    assert result.code == 0
    assert result.out == "b\n2\n4\n"


@pytest.mark.requirement("R2")
def test_missing_file(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("missing.csv")
    _assert_error(result, 3, "cannot read 'missing.csv'")


@pytest.mark.requirement("R2")
def test_directory_is_not_readable(cli, tmp_path):
    result = cli(str(tmp_path))
    _assert_error(result, 3, "cannot read")


@pytest.mark.requirement("R2")
def test_invalid_utf8(cli, tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"name\nJos\xe9\n")
    result = cli(str(path))
    _assert_error(result, 3, "cannot read")


# --- R3: input delimiter ----------------------------------------------------

@pytest.mark.requirement("R3")
def test_semicolon_delimiter_spec_example(cli):
    result = cli("-d", ";", "-", stdin="a;b\n1;2\n")
    assert (result.code, result.out) == (0, "a,b\n1,2\n")


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("spelling", ["\\t", "tab", "\t"])
def test_tab_delimiter_spellings(cli, write, spelling):
    path = write("a\tb\nx,y\tz\n")
    result = cli("--delimiter", spelling, path)
    assert result.code == 0
    assert result.out == 'a,b\n"x,y",z\n'


@pytest.mark.requirement("R3")
def test_delimiter_with_quoted_field(cli):
    result = cli("--delimiter=|", "-", stdin='a|b\n"1|2"|3\n')
    assert result.out == "a,b\n1|2,3\n"


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("value", ["", ";;", '"', "\\n"])
def test_invalid_delimiter_is_usage_error(cli, people, value):
    result = cli("-d", value, people)
    _assert_error(result, 2, "invalid delimiter")


@pytest.mark.requirement("R3")
def test_read_table_delimiter_argument():
    assert read_table("a\tb\n1\t2\n", delimiter="\t") == Table(["a", "b"], [["1", "2"]])
    with pytest.raises(UsageError):
        read_table("a,b\n", delimiter="ab")


# --- R4: header handling ----------------------------------------------------

@pytest.mark.requirement("R4")
def test_no_header_spec_example(cli):
    result = cli("--no-header", "--select", "c2", "-", stdin="x,y\n1,2\n")
    assert (result.code, result.out) == (0, "c2\ny\n2\n")


@pytest.mark.requirement("R4")
def test_read_table_without_header():
    table = read_table("x,y,z\n1,2,3\n", header=False)
    assert table == Table(["c1", "c2", "c3"], [["x", "y", "z"], ["1", "2", "3"]])


@pytest.mark.requirement("R4")
def test_omit_header_csv(cli):
    result = cli("--omit-header", "-", stdin="a,b\n1,2\n")
    assert (result.code, result.out) == (0, "1,2\n")


@pytest.mark.requirement("R4")
def test_omit_header_table(cli):
    result = cli("--omit-header", "-f", "table", "-", stdin="name,n\nAnn,7\n")
    assert result.out == "+------+---+\n| Ann  | 7 |\n+------+---+\n(1 row)\n"


@pytest.mark.requirement("R4")
def test_omit_header_does_not_change_json(cli):
    result = cli("--omit-header", "-f", "json", "-", stdin="a\n1\n")
    assert result.out == '[\n  {\n    "a": "1"\n  }\n]\n'


@pytest.mark.requirement("R4")
def test_no_header_columns_usable_in_where_and_sort(cli):
    result = cli("--no-header", "-w", "c1 != b", "--sort", "-c2", "-", stdin="a,1\nb,2\nc,3\n")
    assert result.out == "c1,c2\nc,3\na,1\n"


# --- R5: malformed input ----------------------------------------------------

@pytest.mark.requirement("R5")
@pytest.mark.parametrize("text", ["", "\n\n", "\r\n"], ids=["empty", "newlines", "crlf"])
def test_empty_input_is_data_error(text):
    with pytest.raises(DataError, match="empty input"):
        read_table(text)


@pytest.mark.requirement("R5")
def test_empty_input_cli_also_without_header(cli):
    _assert_error(cli("--no-header", "-", stdin=""), 3, "empty input")


@pytest.mark.requirement("R5")
def test_ragged_row_spec_example(cli, write):
    result = cli(write("a,b,c\n1,2,3\n4,5\n"))
    _assert_error(result, 3, "line 3: expected 3 fields, got 2")


@pytest.mark.requirement("R5")
def test_ragged_row_line_counts_blank_and_multiline(cli):
    text = 'a,b\n\n"x\ny",1\n1,2,3\n'
    _assert_error(cli("-", stdin=text), 3, "line 5: expected 2 fields, got 3")


@pytest.mark.requirement("R5")
def test_ragged_row_without_header_uses_first_record():
    with pytest.raises(DataError, match="line 2: expected 1 fields, got 2"):
        read_table("a\nb,c\n", header=False)


@pytest.mark.requirement("R5")
def test_duplicate_header(cli):
    result = cli("-", stdin="a,b,a\n1,2,3\n")
    _assert_error(result, 3, "duplicate column 'a'")
    with pytest.raises(DataError, match="duplicate column 'a'"):
        read_table("a,b,a\n")


@pytest.mark.requirement("R5")
def test_data_error_is_csvq_error():
    assert issubclass(DataError, CsvqError) and issubclass(UsageError, CsvqError)
