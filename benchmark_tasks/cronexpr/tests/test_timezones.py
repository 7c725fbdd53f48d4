"""R12-R13: evaluation zones, DST gaps and overlaps (Europe/Berlin, 2024).

Berlin switches to summer time on 2024-03-31 (02:00 CET -> 03:00 CEST) and back on
2024-10-27 (03:00 CEST -> 02:00 CET).
"""

from datetime import datetime, timedelta, timezone
from itertools import islice
from zoneinfo import ZoneInfo

import pytest

from cronexpr import CronExpr, CronSearchError

BERLIN = ZoneInfo("Europe/Berlin")
UTC = timezone.utc
CET = timedelta(hours=1)
CEST = timedelta(hours=2)


def wall(moment):
    """(naive wall time, UTC offset, fold) of an aware result."""
    return moment.replace(tzinfo=None, fold=0), moment.utcoffset(), moment.fold


def utc(*args):
    return datetime(*args, tzinfo=UTC)


# --- R12 -----------------------------------------------------------------------------------


@pytest.mark.requirement("R12")
def test_aware_input_converted_to_tz():
    expr = CronExpr("0 9 * * *", tz=BERLIN)
    result = expr.next_after(utc(2024, 1, 15, 7, 59))
    assert result.tzinfo is BERLIN
    assert wall(result) == (datetime(2024, 1, 15, 9, 0), CET, 0)
    assert result.astimezone(UTC) == utc(2024, 1, 15, 8, 0)
    again = expr.next_after(utc(2024, 1, 15, 8, 0))
    assert wall(again) == (datetime(2024, 1, 16, 9, 0), CET, 0)


@pytest.mark.requirement("R12")
def test_naive_input_read_as_wall_time_in_tz():
    expr = CronExpr("0 9 * * *", tz=BERLIN)
    result = expr.next_after(datetime(2024, 7, 1, 8, 0))
    assert result.tzinfo is BERLIN
    assert wall(result) == (datetime(2024, 7, 1, 9, 0), CEST, 0)
    previous = expr.prev_before(datetime(2024, 7, 1, 8, 0))
    assert wall(previous) == (datetime(2024, 6, 30, 9, 0), CEST, 0)


@pytest.mark.requirement("R12")
def test_zone_taken_from_datetime_when_tz_is_none():
    offset = timezone(timedelta(hours=5, minutes=30))
    expr = CronExpr("0 12 * * *")
    result = expr.next_after(datetime(2024, 1, 15, 10, 0, tzinfo=offset))
    assert result.tzinfo is offset
    assert wall(result) == (datetime(2024, 1, 15, 12, 0), timedelta(hours=5, minutes=30), 0)
    berlin_result = expr.next_after(datetime(2024, 7, 1, 13, 0, tzinfo=BERLIN))
    assert berlin_result.tzinfo is BERLIN
    assert wall(berlin_result) == (datetime(2024, 7, 2, 12, 0), CEST, 0)


@pytest.mark.requirement("R12")
def test_matches_uses_evaluation_zone():
    moment = utc(2024, 1, 15, 8, 0)
    assert CronExpr("0 9 * * *", tz=BERLIN).matches(moment)
    assert not CronExpr("0 9 * * *").matches(moment)
    assert CronExpr("0 8 * * *").matches(moment)
    assert CronExpr("0 10 * * *", tz=BERLIN).matches(datetime(2024, 7, 1, 8, 0, tzinfo=UTC))


@pytest.mark.requirement("R12")
def test_day_boundary_depends_on_zone():
    # 23:30 UTC on a Sunday is already Monday in Berlin.
    moment = utc(2024, 1, 14, 23, 30)
    assert CronExpr("30 0 * * MON", tz=BERLIN).matches(moment)
    assert not CronExpr("30 0 * * MON", tz=UTC).matches(moment)
    assert CronExpr("30 23 * * SUN", tz=UTC).matches(moment)


@pytest.mark.requirement("R12")
def test_utc_zone_results():
    expr = CronExpr("*/30 * * * *", tz=UTC)
    result = expr.next_after(datetime(2024, 3, 31, 3, 10, tzinfo=BERLIN))
    assert result.tzinfo is UTC
    assert result == utc(2024, 3, 31, 1, 30)
    assert expr.prev_before(utc(2024, 3, 31, 1, 30)) == utc(2024, 3, 31, 1, 0)


@pytest.mark.requirement("R12")
def test_search_limit_in_zone():
    expr = CronExpr("0 0 30 2 *", tz=BERLIN)
    with pytest.raises(CronSearchError):
        expr.next_after(utc(2024, 1, 1))


# --- R13: gaps ------------------------------------------------------------------------------


@pytest.mark.requirement("R13")
def test_gap_time_is_skipped():
    expr = CronExpr("30 2 * * *", tz=BERLIN)
    items = list(islice(expr.iter_after(datetime(2024, 3, 30, 12, 0)), 2))
    assert [wall(item) for item in items] == [
        (datetime(2024, 4, 1, 2, 30), CEST, 0),
        (datetime(2024, 4, 2, 2, 30), CEST, 0),
    ]


@pytest.mark.requirement("R13")
def test_gap_with_frequent_schedule():
    expr = CronExpr("*/30 * * * *", tz=BERLIN)
    items = list(islice(expr.iter_after(datetime(2024, 3, 31, 1, 0)), 3))
    assert [wall(item) for item in items] == [
        (datetime(2024, 3, 31, 1, 30), CET, 0),
        (datetime(2024, 3, 31, 3, 0), CEST, 0),
        (datetime(2024, 3, 31, 3, 30), CEST, 0),
    ]
    assert items[1].astimezone(UTC) == utc(2024, 3, 31, 1, 0)


@pytest.mark.requirement("R13")
def test_gap_backwards():
    expr = CronExpr("30 2 * * *", tz=BERLIN)
    result = expr.prev_before(datetime(2024, 4, 1, 0, 0))
    assert wall(result) == (datetime(2024, 3, 30, 2, 30), CET, 0)
    hourly = CronExpr("0 * * * *", tz=BERLIN)
    assert wall(hourly.prev_before(datetime(2024, 3, 31, 3, 30))) == (
        datetime(2024, 3, 31, 3, 0),
        CEST,
        0,
    )
    assert wall(hourly.prev_before(datetime(2024, 3, 31, 3, 0))) == (
        datetime(2024, 3, 31, 1, 0),
        CET,
        0,
    )


@pytest.mark.requirement("R13")
def test_matches_nonexistent_time():
    # 02:30 on 2024-03-31 does not exist; the instant of that datetime is 03:30 CEST.
    moment = datetime(2024, 3, 31, 2, 30, tzinfo=BERLIN)
    assert not CronExpr("30 2 * * *").matches(moment)
    assert CronExpr("30 3 * * *").matches(moment)
    assert CronExpr("30 3 * * *", tz=BERLIN).matches(utc(2024, 3, 31, 1, 30))


# --- R13: overlaps --------------------------------------------------------------------------


@pytest.mark.requirement("R13")
def test_overlap_matches_twice():
    expr = CronExpr("30 2 * * *", tz=BERLIN)
    items = list(islice(expr.iter_after(datetime(2024, 10, 27, 0, 0)), 3))
    assert [wall(item) for item in items] == [
        (datetime(2024, 10, 27, 2, 30), CEST, 0),
        (datetime(2024, 10, 27, 2, 30), CET, 1),
        (datetime(2024, 10, 28, 2, 30), CET, 0),
    ]
    assert [item.astimezone(UTC) for item in items[:2]] == [
        utc(2024, 10, 27, 0, 30),
        utc(2024, 10, 27, 1, 30),
    ]


@pytest.mark.requirement("R13")
def test_overlap_hourly():
    expr = CronExpr("0 * * * *", tz=BERLIN)
    items = list(islice(expr.iter_after(datetime(2024, 10, 27, 0, 30)), 4))
    assert [wall(item) for item in items] == [
        (datetime(2024, 10, 27, 1, 0), CEST, 0),
        (datetime(2024, 10, 27, 2, 0), CEST, 0),
        (datetime(2024, 10, 27, 2, 0), CET, 1),
        (datetime(2024, 10, 27, 3, 0), CET, 0),
    ]


@pytest.mark.requirement("R13")
def test_overlap_later_instant_with_earlier_wall_time():
    expr = CronExpr("45 2 * * *", tz=BERLIN)
    start = datetime(2024, 10, 27, 2, 50, tzinfo=BERLIN)  # fold 0: 00:50 UTC
    result = expr.next_after(start)
    assert wall(result) == (datetime(2024, 10, 27, 2, 45), CET, 1)
    assert result.astimezone(UTC) == utc(2024, 10, 27, 1, 45)


@pytest.mark.requirement("R13")
def test_overlap_start_in_second_pass():
    expr = CronExpr("*/20 * * * *", tz=BERLIN)
    start = datetime(2024, 10, 27, 2, 10, tzinfo=BERLIN, fold=1)  # 01:10 UTC
    items = list(islice(expr.iter_after(start), 3))
    assert [wall(item) for item in items] == [
        (datetime(2024, 10, 27, 2, 20), CET, 1),
        (datetime(2024, 10, 27, 2, 40), CET, 1),
        (datetime(2024, 10, 27, 3, 0), CET, 0),
    ]


@pytest.mark.requirement("R13")
def test_overlap_backwards():
    expr = CronExpr("30 2 * * *", tz=BERLIN)
    items = list(islice(expr.iter_before(datetime(2024, 10, 27, 3, 10)), 3))
    assert [wall(item) for item in items] == [
        (datetime(2024, 10, 27, 2, 30), CET, 1),
        (datetime(2024, 10, 27, 2, 30), CEST, 0),
        (datetime(2024, 10, 26, 2, 30), CEST, 0),
    ]


@pytest.mark.requirement("R13")
def test_overlap_backwards_hourly():
    expr = CronExpr("0 * * * *", tz=BERLIN)
    items = list(islice(expr.iter_before(utc(2024, 10, 27, 2, 30)), 4))
    assert [item.astimezone(UTC) for item in items] == [
        utc(2024, 10, 27, 2, 0),
        utc(2024, 10, 27, 1, 0),
        utc(2024, 10, 27, 0, 0),
        utc(2024, 10, 26, 23, 0),
    ]
    assert [item.fold for item in items] == [0, 1, 0, 0]


@pytest.mark.requirement("R13")
def test_overlap_matches_both_instants():
    expr = CronExpr("30 2 * * *", tz=BERLIN)
    assert expr.matches(utc(2024, 10, 27, 0, 30))
    assert expr.matches(utc(2024, 10, 27, 1, 30))
    assert not expr.matches(utc(2024, 10, 27, 2, 30))


@pytest.mark.requirement("R13")
def test_overlap_seconds_field():
    expr = CronExpr("*/20 * * * * *", tz=BERLIN)
    start = datetime(2024, 10, 27, 2, 59, 30, tzinfo=BERLIN)  # first pass
    items = list(islice(expr.iter_after(start), 3))
    assert [item.astimezone(UTC) for item in items] == [
        utc(2024, 10, 27, 0, 59, 40),
        utc(2024, 10, 27, 1, 0, 0),
        utc(2024, 10, 27, 1, 0, 20),
    ]
    assert [item.fold for item in items] == [0, 1, 1]
