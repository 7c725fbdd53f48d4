"""detect_bursts: hosts over a request-rate threshold within a sliding window."""

from datetime import datetime, timedelta, timezone

import pytest

from logsieve import Burst, detect_bursts, parse_line

UTC = timezone.utc


def _hits(make_line, host, stamps):
    return [parse_line(make_line(host=host, time=f"01/Jan/2024:{s}")) for s in stamps]


@pytest.mark.requirement("R14")
def test_host_over_threshold_is_reported(make_line):
    entries = _hits(make_line, "9.9.9.9", ["10:00:00 +0000", "10:00:05 +0000", "10:00:09 +0000",
                                          "10:00:30 +0000", "10:05:00 +0000"])
    entries += _hits(make_line, "1.1.1.1", ["10:00:00 +0000", "10:00:01 +0000"])
    assert detect_bursts(entries, threshold=3, window=60) == [
        Burst("9.9.9.9", 4, datetime(2024, 1, 1, 10, 0, 0, tzinfo=UTC),
              datetime(2024, 1, 1, 10, 0, 30, tzinfo=UTC))]


@pytest.mark.requirement("R14")
def test_count_equal_to_threshold_is_not_reported(make_line):
    entries = _hits(make_line, "9.9.9.9", ["10:00:00 +0000", "10:00:01 +0000", "10:00:02 +0000"])
    assert detect_bursts(entries, threshold=3, window=60) == []
    assert [b.count for b in detect_bursts(entries, threshold=2, window=60)] == [3]


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("window, expected", [(60, []), (60.5, [2]), (59.9, [])])
def test_window_is_half_open(make_line, window, expected):
    entries = _hits(make_line, "9.9.9.9", ["10:00:00 +0000", "10:01:00 +0000"])
    assert [b.count for b in detect_bursts(entries, threshold=1, window=window)] == expected


@pytest.mark.requirement("R14")
def test_earliest_busiest_window_and_utc_times(make_line):
    # unordered input with offsets; UTC instants 10:00:00, 10:00:10, 10:05:00, 10:05:10
    entries = _hits(make_line, "7.7.7.7", ["12:05:10 +0200", "10:00:00 +0000",
                                          "05:00:10 -0500", "10:05:00 +0000"])
    [burst] = detect_bursts(entries, threshold=1, window=30)
    assert burst.count == 2
    assert burst.start == datetime(2024, 1, 1, 10, 0, 0, tzinfo=UTC)
    assert burst.end == datetime(2024, 1, 1, 10, 0, 10, tzinfo=UTC)
    assert burst.start.utcoffset() == timedelta(0)
    assert burst.end.utcoffset() == timedelta(0)


@pytest.mark.requirement("R14")
def test_sorted_by_count_then_host(make_line):
    entries = (_hits(make_line, "b-host", ["10:00:00 +0000", "10:00:01 +0000"])
               + _hits(make_line, "c-host", ["10:00:00 +0000"] * 3)
               + _hits(make_line, "a-host", ["11:00:00 +0000", "11:00:02 +0000"]))
    assert [(b.host, b.count) for b in detect_bursts(entries, threshold=1, window=10)] == [
        ("c-host", 3), ("a-host", 2), ("b-host", 2)]


@pytest.mark.requirement("R14")
def test_no_entries_no_bursts():
    assert detect_bursts([], threshold=1, window=1) == []


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("threshold, window", [(0, 60), (-1, 60), (1.5, 60), (3, 0), (3, -5)])
def test_invalid_parameters_raise(threshold, window):
    with pytest.raises(ValueError):
        detect_bursts([], threshold=threshold, window=window)
