"""parse_line: CLF and Combined fields, timestamps, request lines and malformed lines."""

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest

from logsieve import LogEntry, LogParseError, parse_line

APACHE_CLF = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326'
APACHE_COMBINED = (
    APACHE_CLF + ' "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"'
)


# --- R1: Common Log Format fields -------------------------------------------------------

@pytest.mark.requirement("R1")
def test_clf_example_fields():
    entry = parse_line(APACHE_CLF)
    assert isinstance(entry, LogEntry)
    assert entry.host == "127.0.0.1"
    assert entry.ident is None
    assert entry.user == "frank"
    assert entry.status == 200
    assert entry.size == 2326
    assert entry.referer is None
    assert entry.user_agent is None


@pytest.mark.requirement("R1")
def test_ident_and_user_kept_when_not_dash(make_line):
    entry = parse_line(make_line(ident="ident42", user="-"))
    assert entry.ident == "ident42"
    assert entry.user is None


@pytest.mark.requirement("R1")
def test_host_dash_is_kept_as_written(make_line):
    assert parse_line(make_line(host="-")).host == "-"


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("size_text, expected", [("-", None), ("0", 0), ("123456789", 123456789)])
def test_size_values(make_line, size_text, expected):
    assert parse_line(make_line(size=size_text)).size == expected


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("status", ["100", "304", "599"])
def test_status_range_boundaries_accepted(make_line, status):
    entry = parse_line(make_line(status=status))
    assert entry.status == int(status)
    assert isinstance(entry.status, int)


@pytest.mark.requirement("R1")
def test_surrounding_whitespace_and_line_terminator_ignored():
    entry = parse_line("  " + APACHE_CLF + " \r\n")
    assert entry.host == "127.0.0.1"
    assert entry.size == 2326


@pytest.mark.requirement("R1")
def test_entry_is_frozen_dataclass():
    entry = parse_line(APACHE_CLF)
    assert dataclasses.is_dataclass(entry)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.status = 500


# --- R2: Timestamps ----------------------------------------------------------------------

@pytest.mark.requirement("R2")
def test_timestamp_is_aware_with_written_offset():
    entry = parse_line(APACHE_CLF)
    assert entry.time.utcoffset() == timedelta(hours=-7)
    assert entry.time == datetime(2000, 10, 10, 13, 55, 36, tzinfo=timezone(timedelta(hours=-7)))
    assert (entry.time.year, entry.time.month, entry.time.day) == (2000, 10, 10)
    assert (entry.time.hour, entry.time.minute, entry.time.second) == (13, 55, 36)


@pytest.mark.requirement("R2")
def test_timestamp_instant_in_utc():
    entry = parse_line(APACHE_CLF)
    assert entry.time.astimezone(timezone.utc) == datetime(2000, 10, 10, 20, 55, 36,
                                                           tzinfo=timezone.utc)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("offset, delta", [
    ("+0530", timedelta(hours=5, minutes=30)),
    ("-0945", timedelta(hours=-9, minutes=-45)),
    ("+0000", timedelta(0)),
])
def test_timestamp_offsets(make_line, offset, delta):
    entry = parse_line(make_line(time=f"01/Jan/2024:00:00:00 {offset}"))
    assert entry.time.utcoffset() == delta


@pytest.mark.requirement("R2")
def test_leap_day_is_valid(make_line):
    entry = parse_line(make_line(time="29/Feb/2024:23:59:59 +0000"))
    assert (entry.time.month, entry.time.day, entry.time.second) == (2, 29, 59)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("stamp", [
    "10/oct/2000:13:55:36 -0700",
    "10/OCT/2000:13:55:36 -0700",
    "10/Okt/2000:13:55:36 -0700",
    "31/Feb/2024:00:00:00 +0000",
    "10/Oct/2000:24:00:00 +0000",
    "10/Oct/2000:13:55:60 +0000",
    "10/Oct/2000:13:55:36",
    "10/Oct/2000:13:55:36 +0060",
    "1/Oct/2000:13:55:36 +0000",
    "2000-10-10T13:55:36+00:00",
])
def test_invalid_timestamps(make_line, stamp):
    with pytest.raises(LogParseError) as info:
        parse_line(make_line(time=stamp))
    assert info.value.reason == "invalid timestamp"


# --- R3: Request line --------------------------------------------------------------------

@pytest.mark.requirement("R3")
def test_request_three_parts():
    entry = parse_line(APACHE_CLF)
    assert entry.request == "GET /apache_pb.gif HTTP/1.0"
    assert (entry.method, entry.path, entry.protocol) == ("GET", "/apache_pb.gif", "HTTP/1.0")


@pytest.mark.requirement("R3")
def test_request_two_parts_has_no_protocol(make_line):
    entry = parse_line(make_line(request="GET /index.html"))
    assert (entry.method, entry.path, entry.protocol) == ("GET", "/index.html", None)


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("request_text", ["-", "", "GARBAGE", "GET /a b HTTP/1.1"])
def test_unsplittable_requests_are_still_valid(make_line, request_text):
    entry = parse_line(make_line(request=request_text))
    assert entry.request == request_text
    assert (entry.method, entry.path, entry.protocol) == (None, None, None)
    assert entry.status == 200


@pytest.mark.requirement("R3")
def test_request_split_on_whitespace_runs(make_line):
    entry = parse_line(make_line(request="GET  /x\tHTTP/1.0"))
    assert (entry.method, entry.path, entry.protocol) == ("GET", "/x", "HTTP/1.0")
    assert entry.request == "GET  /x\tHTTP/1.0"


@pytest.mark.requirement("R3")
def test_request_escapes_are_resolved(make_line):
    entry = parse_line(make_line(request=r'GET /a\"b\\c HTTP/1.1'))
    assert entry.request == 'GET /a"b\\c HTTP/1.1'
    assert entry.path == '/a"b\\c'


@pytest.mark.requirement("R3")
def test_method_case_is_preserved(make_line):
    assert parse_line(make_line(request="get /x HTTP/1.1")).method == "get"


# --- R4: Combined Log Format -------------------------------------------------------------

@pytest.mark.requirement("R4")
def test_combined_example():
    entry = parse_line(APACHE_COMBINED)
    assert entry.referer == "http://www.example.com/start.html"
    assert entry.user_agent == "Mozilla/4.08 [en] (Win98; I ;Nav)"
    assert entry.size == 2326
    assert entry.path == "/apache_pb.gif"


@pytest.mark.requirement("R4")
def test_combined_dashes_become_none(make_line):
    entry = parse_line(make_line(referer="-", agent="-"))
    assert entry.referer is None
    assert entry.user_agent is None


@pytest.mark.requirement("R4")
def test_combined_empty_strings_are_kept(make_line):
    entry = parse_line(make_line(referer="", agent=""))
    assert entry.referer == ""
    assert entry.user_agent == ""


@pytest.mark.requirement("R4")
def test_combined_escaped_quotes(make_line):
    entry = parse_line(make_line(referer=r"http://x/?q=\"a\"", agent=r'Bot \"v2\" \\ok'))
    assert entry.referer == 'http://x/?q="a"'
    assert entry.user_agent == 'Bot "v2" \\ok'


# --- R5: Malformed lines and LogParseError -----------------------------------------------

@pytest.mark.requirement("R5")
@pytest.mark.parametrize("line, reason", [
    ("", "empty line"),
    ("   \t ", "empty line"),
    ("just some text", "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200', "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1"  200 5', "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 5 extra',
     "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "ref"',
     "unrecognized format"),
    ('1.2.3.4 - - 10/Oct/2000:13:55:36 +0000 "GET / HTTP/1.1" 200 5', "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1 200 5', "unrecognized format"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" abc 5', "invalid status"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 600 5', "invalid status"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 099 5', "invalid status"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 2000 5', "invalid status"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 12a', "invalid size"),
    ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 -5', "invalid size"),
])
def test_malformed_reasons(line, reason):
    with pytest.raises(LogParseError) as info:
        parse_line(line)
    assert info.value.reason == reason
    assert str(info.value) == reason
    assert info.value.lineno is None


@pytest.mark.requirement("R5")
def test_checks_happen_in_table_order():
    line = '1.2.3.4 - - [99/Xyz/2000:13:55:36 +0000] "GET / HTTP/1.1" abc xyz'
    with pytest.raises(LogParseError) as info:
        parse_line(line)
    assert info.value.reason == "invalid timestamp"
    line = '1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" abc xyz'
    with pytest.raises(LogParseError) as info:
        parse_line(line)
    assert info.value.reason == "invalid status"


@pytest.mark.requirement("R5")
def test_error_carries_line_number_and_stripped_line():
    line = '  1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 700 5\n'
    with pytest.raises(LogParseError) as info:
        parse_line(line, lineno=7)
    assert info.value.lineno == 7
    assert info.value.line == line.strip()
    assert str(info.value) == "line 7: invalid status"


@pytest.mark.requirement("R5")
def test_log_parse_error_is_value_error_and_constructible():
    err = LogParseError("invalid size", line="x", lineno=3)
    assert isinstance(err, ValueError)
    assert str(err) == "line 3: invalid size"
    assert (err.reason, err.line, err.lineno) == ("invalid size", "x", 3)
    assert str(LogParseError("empty line")) == "empty line"
