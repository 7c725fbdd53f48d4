"""Frequencies, bucket alignment and aggregations (R9-R12)."""

from datetime import datetime, timedelta, timezone

import pytest

from tsresample import Frame, UsageError, parse_frequency, resample


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


def day(hour, minute=0, second=0):
    return utc(2024, 1, 1, hour, minute, second)


# --- R9: frequencies --------------------------------------------------------------------

@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30s", timedelta(seconds=30)),
        ("1min", timedelta(minutes=1)),
        ("15min", timedelta(minutes=15)),
        ("90min", timedelta(minutes=90)),
        ("1h", timedelta(hours=1)),
        ("1d", timedelta(days=1)),
        ("7d", timedelta(days=7)),
    ],
)
def test_parse_frequency(text, expected):
    assert parse_frequency(text) == expected


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("text", ["0h", "1m", "h", "1 h", "1H", "-1h", "1.5h", "1hr", ""])
def test_invalid_frequency(text):
    with pytest.raises(UsageError):
        parse_frequency(text)


@pytest.mark.requirement("R9")
def test_resample_accepts_timedelta_and_rejects_non_positive():
    frame = Frame([day(0, 10), day(1, 10)], {"v": [1.0, 2.0]})
    assert resample(frame, timedelta(hours=1)) == resample(frame, "1h")
    for width in (timedelta(0), timedelta(hours=-1)):
        with pytest.raises(UsageError):
            resample(frame, width)
    with pytest.raises(UsageError):
        resample(frame, "5x")


# --- R10: bucket alignment --------------------------------------------------------------

@pytest.mark.requirement("R10")
def test_hourly_buckets_include_empty_ones():
    frame = Frame([day(0, 10), day(0, 50), day(3, 30)], {"v": [1.0, 3.0, 10.0]})
    result = resample(frame, "1h", "mean")
    assert result.timestamps == [day(0), day(1), day(2), day(3)]
    assert result.columns == {"v": [2.0, None, None, 10.0]}
    assert all(moment.tzinfo == timezone.utc for moment in result.timestamps)


@pytest.mark.requirement("R10")
def test_buckets_are_left_closed_and_labelled_with_start():
    frame = Frame([day(0, 59, 59), day(1, 0, 0), day(1, 59, 59)], {"v": [1.0, 2.0, 3.0]})
    result = resample(frame, "1h", "sum")
    assert result.timestamps == [day(0), day(1)]
    assert result.columns == {"v": [1.0, 5.0]}


@pytest.mark.requirement("R10")
def test_fifteen_minute_buckets():
    frame = Frame([day(8, 7), day(8, 14, 59), day(8, 15), day(8, 44)], {"v": [1.0, 2.0, 3.0, 4.0]})
    result = resample(frame, "15min", "count")
    assert result.timestamps == [day(8, 0), day(8, 15), day(8, 30)]
    assert result.columns == {"v": [2, 1, 1]}


@pytest.mark.requirement("R10")
def test_daily_buckets_align_to_utc_midnight():
    plus2 = timezone(timedelta(hours=2))
    frame = Frame(
        [datetime(2024, 1, 2, 1, 0, tzinfo=plus2), datetime(2024, 1, 2, 3, 0, tzinfo=plus2)],
        {"v": [1.0, 2.0]},
    )
    result = resample(frame, "1d", "last")
    assert result.timestamps == [utc(2024, 1, 1), utc(2024, 1, 2)]
    assert result.columns == {"v": [1.0, 2.0]}


@pytest.mark.requirement("R10")
def test_weekly_buckets_start_on_thursday_epoch_aligned():
    frame = Frame([utc(2024, 1, 1, 12), utc(2024, 1, 4, 0)], {"v": [1.0, 2.0]})
    result = resample(frame, "7d", "max")
    assert result.timestamps == [utc(2023, 12, 28), utc(2024, 1, 4)]
    assert result.columns == {"v": [1.0, 2.0]}


@pytest.mark.requirement("R10")
def test_ninety_minute_buckets_aligned_to_epoch():
    frame = Frame([day(1, 0), day(1, 30), day(2, 59)], {"v": [1.0, 2.0, 3.0]})
    result = resample(frame, "90min", "sum")
    assert result.timestamps == [day(0, 0), day(1, 30)]
    assert result.columns == {"v": [1.0, 5.0]}


@pytest.mark.requirement("R10")
def test_timestamps_before_epoch_floor_downwards():
    frame = Frame([utc(1969, 12, 31, 23, 59, 30), utc(1970, 1, 1, 0, 0, 30)], {"v": [1.0, 2.0]})
    result = resample(frame, "1min", "first")
    assert result.timestamps == [utc(1969, 12, 31, 23, 59), utc(1970, 1, 1, 0, 0)]
    assert result.columns == {"v": [1.0, 2.0]}


@pytest.mark.requirement("R10")
def test_empty_frame_gives_empty_frame():
    result = resample(Frame([], {"a": [], "b": []}), "1h", ["min", "max"])
    assert result.timestamps == []
    assert result.columns == {"a_min": [], "a_max": [], "b_min": [], "b_max": []}


# --- R11: aggregations ------------------------------------------------------------------

@pytest.fixture
def bucket():
    return Frame([day(0, 0), day(0, 10), day(0, 20), day(0, 30)], {"v": [3.0, None, 1.0, 2.0]})


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    ("agg", "expected"),
    [
        ("mean", 2.0),
        ("sum", 6.0),
        ("min", 1.0),
        ("max", 3.0),
        ("count", 3),
        ("first", 3.0),
        ("last", 2.0),
        ("median", 2.0),
    ],
)
def test_each_aggregation(bucket, agg, expected):
    result = resample(bucket, "1h", agg)
    assert result.timestamps == [day(0)]
    assert result.columns == {"v": [expected]}


@pytest.mark.requirement("R11")
def test_count_is_int_and_median_of_even_count():
    frame = Frame([day(0, 1), day(0, 2), day(0, 3), day(0, 4)], {"v": [10.0, 1.0, 3.0, 2.0]})
    assert resample(frame, "1h", "median").columns == {"v": [2.5]}
    count = resample(frame, "1h", "count").columns["v"][0]
    assert count == 4 and type(count) is int


@pytest.mark.requirement("R11")
def test_first_and_last_skip_missing_values():
    frame = Frame([day(0, 1), day(0, 2), day(0, 3), day(0, 4)], {"v": [None, 5.0, 6.0, None]})
    assert resample(frame, "1h", "first").columns == {"v": [5.0]}
    assert resample(frame, "1h", "last").columns == {"v": [6.0]}


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    ("agg", "expected"),
    [("mean", None), ("sum", None), ("min", None), ("max", None), ("count", 0),
     ("first", None), ("last", None), ("median", None)],
)
def test_all_missing_bucket(agg, expected):
    frame = Frame([day(0, 5), day(1, 5), day(2, 5)], {"v": [1.0, None, 2.0]})
    result = resample(frame, "1h", agg)
    assert result.timestamps == [day(0), day(1), day(2)]
    value = result.columns["v"][1]
    if expected is None:
        assert value is None
    else:
        assert value == expected and type(value) is int


@pytest.mark.requirement("R11")
def test_mean_and_sum_use_exact_summation():
    frame = Frame([day(0, 1), day(0, 2), day(0, 3)], {"v": [0.1, 0.2, 0.3]})
    assert resample(frame, "1h", "sum").columns == {"v": [0.6]}
    assert resample(frame, "1h", "mean").columns == {"v": [0.6 / 3]}


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("agg", ["avg", "Mean", "p50", ""])
def test_unknown_aggregation(agg):
    frame = Frame([day(0)], {"v": [1.0]})
    with pytest.raises(UsageError):
        resample(frame, "1h", agg)


# --- R12: output columns ----------------------------------------------------------------

@pytest.mark.requirement("R12")
def test_list_of_aggregations_names_columns_column_major():
    frame = Frame([day(0, 0), day(0, 30)], {"a": [1.0, 3.0], "b": [None, 5.0]})
    result = resample(frame, "1h", ["max", "count"])
    assert list(result.columns) == ["a_max", "a_count", "b_max", "b_count"]
    assert result.columns == {"a_max": [3.0], "a_count": [2], "b_max": [5.0], "b_count": [1]}


@pytest.mark.requirement("R12")
def test_single_string_keeps_names_single_element_list_suffixes():
    frame = Frame([day(0, 0), day(0, 30)], {"b": [1.0, 3.0], "a": [2.0, 2.0]})
    assert list(resample(frame, "1h", "mean").columns) == ["b", "a"]
    assert list(resample(frame, "1h").columns) == ["b", "a"]
    assert resample(frame, "1h", ["mean"]).columns == {"b_mean": [2.0], "a_mean": [2.0]}
    assert list(resample(frame, "1h", ("sum",)).columns) == ["b_sum", "a_sum"]


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("agg", [[], ["mean", "mean"], ["mean", "bogus"]])
def test_invalid_aggregation_lists(agg):
    frame = Frame([day(0)], {"v": [1.0]})
    with pytest.raises(UsageError):
        resample(frame, "1h", agg)


@pytest.mark.requirement("R12")
def test_resample_does_not_modify_input():
    values = [1.0, None, 3.0]
    frame = Frame([day(0), day(1), day(5)], {"v": values})
    resample(frame, "2h", ["sum", "count"])
    assert frame.columns == {"v": [1.0, None, 3.0]}
    assert frame.timestamps == [day(0), day(1), day(5)]
