"""parse_lines and parse_file: error collection, strict mode, plain and gzip files."""

import gzip

import pytest

from logsieve import LogParseError, MalformedLine, ParseResult, parse_file, parse_lines

GOOD = '1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a HTTP/1.1" 200 10'
GOOD2 = '5.6.7.8 - - [10/Oct/2000:13:56:00 +0000] "GET /b HTTP/1.1" 404 -'
BAD_STATUS = '1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a HTTP/1.1" 999 10'


# --- R6: Parsing many lines --------------------------------------------------------------

@pytest.mark.requirement("R6")
def test_collects_errors_with_line_numbers():
    result = parse_lines([GOOD, "not a log line", GOOD2, BAD_STATUS])
    assert isinstance(result, ParseResult)
    assert [e.path for e in result.entries] == ["/a", "/b"]
    assert result.errors == [
        MalformedLine(2, "not a log line", "unrecognized format"),
        MalformedLine(4, BAD_STATUS, "invalid status"),
    ]


@pytest.mark.requirement("R6")
def test_blank_lines_skipped_but_counted():
    result = parse_lines(["", GOOD + "\n", "   \n", "\n", "  broken  \n", GOOD2])
    assert len(result.entries) == 2
    assert result.errors == [MalformedLine(5, "broken", "unrecognized format")]


@pytest.mark.requirement("R6")
def test_strict_raises_on_first_malformed_line():
    with pytest.raises(LogParseError) as info:
        parse_lines([GOOD, "", BAD_STATUS, "junk"], strict=True)
    assert info.value.lineno == 3
    assert info.value.reason == "invalid status"
    assert str(info.value) == "line 3: invalid status"


@pytest.mark.requirement("R6")
def test_strict_with_valid_input_returns_result():
    result = parse_lines([GOOD, "", GOOD2], strict=True)
    assert len(result.entries) == 2
    assert result.errors == []


@pytest.mark.requirement("R6")
def test_accepts_generators_and_empty_input():
    result = parse_lines(line for line in [GOOD2, GOOD])
    assert [e.host for e in result.entries] == ["5.6.7.8", "1.2.3.4"]
    empty = parse_lines([])
    assert empty.entries == [] and empty.errors == []


# --- R7: Reading files -------------------------------------------------------------------

@pytest.mark.requirement("R7")
def test_plain_file(sample_log):
    result = parse_file(sample_log)
    assert len(result.entries) == 6
    assert result.errors == [MalformedLine(5, "this is not a log line", "unrecognized format")]
    assert result.entries[0].user == "alice"


@pytest.mark.requirement("R7")
def test_plain_file_accepts_str_path(sample_log):
    assert len(parse_file(str(sample_log)).entries) == 6


@pytest.mark.requirement("R7")
def test_gzip_file(tmp_path, sample_lines):
    path = tmp_path / "access.log.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(sample_lines + ["oops"]) + "\n")
    result = parse_file(path)
    assert [e.status for e in result.entries] == [200, 200, 201, 404, 500, 204]
    assert result.errors == [MalformedLine(7, "oops", "unrecognized format")]


@pytest.mark.requirement("R7")
def test_gzip_detected_by_content_not_name(tmp_path):
    path = tmp_path / "access.log"
    path.write_bytes(gzip.compress((GOOD + "\n" + GOOD2 + "\n").encode()))
    assert [e.path for e in parse_file(path).entries] == ["/a", "/b"]


@pytest.mark.requirement("R7")
def test_plain_file_with_gz_name_read_as_text(tmp_path):
    path = tmp_path / "rotated.gz"
    path.write_text(GOOD + "\n", encoding="utf-8")
    assert [e.path for e in parse_file(path).entries] == ["/a"]


@pytest.mark.requirement("R7")
def test_undecodable_bytes_are_replaced(tmp_path):
    line = b'1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a HTTP/1.1" 200 10 "-" "Bot\xff\xfe"\n'
    path = tmp_path / "binary.log"
    path.write_bytes(line)
    result = parse_file(path)
    assert result.errors == []
    assert result.entries[0].user_agent == "Bot\ufffd\ufffd"


@pytest.mark.requirement("R7")
def test_crlf_line_endings(tmp_path):
    path = tmp_path / "windows.log"
    path.write_bytes((GOOD + "\r\n" + GOOD2 + "\r\n").encode())
    result = parse_file(path)
    assert [e.size for e in result.entries] == [10, None]
    assert result.errors == []


@pytest.mark.requirement("R7")
def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        parse_file(tmp_path / "nope.log")


@pytest.mark.requirement("R7")
def test_strict_file_reports_line_number(sample_log):
    with pytest.raises(LogParseError) as info:
        parse_file(sample_log, strict=True)
    assert info.value.lineno == 5
    assert info.value.reason == "unrecognized format"
