"""Aggregations: counts, top-N, UTC histograms and size percentiles."""

import pytest

from logsieve import (
    histogram,
    parse_line,
    parse_lines,
    percentile,
    status_class_counts,
    status_counts,
    top_n,
    total_bytes,
    unique_hosts,
    unique_visitors,
)


@pytest.fixture
def entries(sample_lines):
    return parse_lines(sample_lines).entries


def _with_sizes(make_line, sizes):
    return [parse_line(make_line(size=str(s) if s is not None else "-")) for s in sizes]


# --- R10: Counting aggregates ------------------------------------------------------------

@pytest.mark.requirement("R10")
def test_status_counts_sorted_ascending(entries):
    counts = status_counts(entries)
    assert counts == {200: 2, 201: 1, 204: 1, 404: 1, 500: 1}
    assert list(counts) == [200, 201, 204, 404, 500]


@pytest.mark.requirement("R10")
def test_status_class_counts_always_five_keys(entries):
    counts = status_class_counts(entries)
    assert list(counts.items()) == [("1xx", 0), ("2xx", 4), ("3xx", 0), ("4xx", 1), ("5xx", 1)]
    assert status_class_counts([]) == {"1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0}


@pytest.mark.requirement("R10")
def test_total_bytes_treats_missing_size_as_zero(entries):
    assert total_bytes(entries) == 1000 + 500 + 200 + 300 + 0
    assert total_bytes([]) == 0


@pytest.mark.requirement("R10")
def test_unique_hosts(entries):
    assert unique_hosts(entries) == 3
    assert unique_hosts([]) == 0


@pytest.mark.requirement("R10")
def test_unique_visitors_pairs_host_and_agent(make_line):
    lines = [
        make_line(host="1.1.1.1", agent="A"),
        make_line(host="1.1.1.1", agent="B"),
        make_line(host="1.1.1.1"),
        make_line(host="1.1.1.1", agent="A"),
        make_line(host="2.2.2.2", agent="A"),
        make_line(host="2.2.2.2", agent="-"),
        make_line(host="1.1.1.1", agent="-"),
    ]
    entries = parse_lines(lines).entries
    assert unique_visitors(entries) == 5
    assert unique_visitors(entries[:4]) == 3
    assert unique_visitors([]) == 0


@pytest.mark.requirement("R10")
def test_aggregates_accept_generators(entries):
    assert status_counts(e for e in entries)[200] == 2
    assert total_bytes(e for e in entries) == 2000


# --- R11: Top-N values -------------------------------------------------------------------

@pytest.mark.requirement("R11")
def test_top_paths(entries):
    assert top_n(entries, "path") == [
        ("/api/items", 3), ("/api/items/7", 1), ("/index.html", 1), ("/missing", 1)]


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("reverse", [False, True])
def test_ties_broken_by_value_regardless_of_order(make_line, reverse):
    hosts = ["b.example", "a.example", "c.example", "b.example", "a.example", "10.0.0.1"]
    if reverse:
        hosts.reverse()
    entries = [parse_line(make_line(host=h)) for h in hosts]
    assert top_n(entries, "host", 3) == [("a.example", 2), ("b.example", 2), ("10.0.0.1", 1)]


@pytest.mark.requirement("R11")
def test_none_values_not_counted(entries):
    assert top_n(entries, "referer") == [("http://example.com/", 1)]
    assert top_n(entries, "user_agent", 1) == [("Mozilla/5.0", 2)]


@pytest.mark.requirement("R11")
def test_method_key_and_limits(entries):
    assert top_n(entries, "method", 2) == [("GET", 4), ("DELETE", 1)]
    assert top_n(entries, "method", 0) == []
    assert top_n([], "path") == []


@pytest.mark.requirement("R11")
def test_default_n_is_ten(make_line):
    entries = [parse_line(make_line(request=f"GET /p{i:02d} HTTP/1.1")) for i in range(12)]
    result = top_n(entries, "path")
    assert len(result) == 10
    assert result[0] == ("/p00", 1) and result[-1] == ("/p09", 1)


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("key, n", [("status", 5), ("size", 5), ("Path", 5), ("path", -1)])
def test_invalid_key_or_n_raises(entries, key, n):
    with pytest.raises(ValueError):
        top_n(entries, key, n)


# --- R12: Time histograms ----------------------------------------------------------------

@pytest.mark.requirement("R12")
def test_hourly_histogram_in_utc(entries):
    assert histogram(entries) == {
        "2024-03-12T09:00:00Z": 3,
        "2024-03-12T10:00:00Z": 2,
        "2024-03-12T11:00:00Z": 1,
    }


@pytest.mark.requirement("R12")
def test_offset_conversion_crosses_day(make_line):
    entries = [
        parse_line(make_line(time="31/Dec/2023:23:30:00 -0200")),
        parse_line(make_line(time="01/Jan/2024:01:10:00 +0000")),
        parse_line(make_line(time="01/Jan/2024:06:59:59 +0530")),
    ]
    assert histogram(entries, "hour") == {"2024-01-01T01:00:00Z": 3}
    assert histogram(entries, "minute") == {
        "2024-01-01T01:10:00Z": 1,
        "2024-01-01T01:29:00Z": 1,
        "2024-01-01T01:30:00Z": 1,
    }


@pytest.mark.requirement("R12")
def test_keys_chronological_for_unordered_input(make_line):
    entries = [
        parse_line(make_line(time="02/Jan/2024:10:00:00 +0000")),
        parse_line(make_line(time="01/Jan/2024:23:00:00 +0000")),
        parse_line(make_line(time="02/Jan/2024:09:00:00 +0000")),
    ]
    assert list(histogram(entries)) == [
        "2024-01-01T23:00:00Z", "2024-01-02T09:00:00Z", "2024-01-02T10:00:00Z"]


@pytest.mark.requirement("R12")
def test_fill_includes_empty_buckets(make_line):
    entries = [
        parse_line(make_line(time="01/Jan/2024:10:58:30 +0000")),
        parse_line(make_line(time="01/Jan/2024:11:01:00 +0000")),
        parse_line(make_line(time="01/Jan/2024:11:01:59 +0000")),
    ]
    assert histogram(entries, "minute", fill=True) == {
        "2024-01-01T10:58:00Z": 1,
        "2024-01-01T10:59:00Z": 0,
        "2024-01-01T11:00:00Z": 0,
        "2024-01-01T11:01:00Z": 2,
    }
    assert histogram(entries, "minute") == {"2024-01-01T10:58:00Z": 1, "2024-01-01T11:01:00Z": 2}


@pytest.mark.requirement("R12")
def test_fill_hours_across_midnight(make_line):
    entries = [
        parse_line(make_line(time="31/Dec/2023:22:15:00 +0000")),
        parse_line(make_line(time="01/Jan/2024:01:45:00 +0000")),
    ]
    assert list(histogram(entries, fill=True).items()) == [
        ("2023-12-31T22:00:00Z", 1), ("2023-12-31T23:00:00Z", 0),
        ("2024-01-01T00:00:00Z", 0), ("2024-01-01T01:00:00Z", 1)]


@pytest.mark.requirement("R12")
def test_empty_input():
    assert histogram([]) == {}
    assert histogram([], "minute", fill=True) == {}


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("unit", ["day", "Hour", "second", ""])
def test_invalid_unit_raises(entries, unit):
    with pytest.raises(ValueError):
        histogram(entries, unit)


# --- R13: Size percentiles ---------------------------------------------------------------

@pytest.mark.requirement("R13")
@pytest.mark.parametrize("p, expected", [
    (50, 250.0), (0, 100.0), (100, 400.0), (90, 370.0), (25, 175.0), (99, 397.0)])
def test_linear_interpolation(make_line, p, expected):
    entries = _with_sizes(make_line, [300, 100, 400, 200])
    assert percentile(entries, p) == pytest.approx(expected)


@pytest.mark.requirement("R13")
def test_missing_sizes_ignored_and_float_returned(make_line):
    entries = _with_sizes(make_line, [None, 10, None, 20, 30])
    result = percentile(entries, 50)
    assert result == 20.0
    assert isinstance(result, float)


@pytest.mark.requirement("R13")
def test_single_size(make_line):
    assert percentile(_with_sizes(make_line, [42]), 90) == 42.0


@pytest.mark.requirement("R13")
def test_no_sizes_returns_none(make_line):
    assert percentile([], 50) is None
    assert percentile(_with_sizes(make_line, [None, None]), 50) is None


@pytest.mark.requirement("R13")
@pytest.mark.parametrize("p", [-1, 100.5, 1000])
def test_out_of_range_p_raises(make_line, p):
    with pytest.raises(ValueError):
        percentile(_with_sizes(make_line, [1, 2, 3]), p)
