"""Gap filling and rolling windows (R13-R15)."""

from datetime import datetime, timedelta, timezone

import pytest

from tsresample import Frame, UsageError, fill_gaps, rolling


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


def hourly(**named):
    """Frame with hourly timestamps from 2024-01-01T00:00Z."""
    data = dict(named)
    size = len(next(iter(data.values())))
    return Frame([utc(2024, 1, 1) + timedelta(hours=i) for i in range(size)], data)


# --- R13: forward fill ------------------------------------------------------------------

@pytest.mark.requirement("R13")
def test_ffill_unlimited():
    frame = hourly(v=[1.0, None, None, None, 5.0, None])
    result = fill_gaps(frame, "ffill")
    assert result.columns == {"v": [1.0, 1.0, 1.0, 1.0, 5.0, 5.0]}
    assert result.timestamps == frame.timestamps


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (1, [1.0, 1.0, None, None, 5.0, 5.0]),
        (2, [1.0, 1.0, 1.0, None, 5.0, 5.0]),
        (3, [1.0, 1.0, 1.0, 1.0, 5.0, 5.0]),
        (10, [1.0, 1.0, 1.0, 1.0, 5.0, 5.0]),
    ],
)
def test_ffill_limit(limit, expected):
    frame = hourly(v=[1.0, None, None, None, 5.0, None])
    assert fill_gaps(frame, "ffill", limit=limit).columns == {"v": expected}


@pytest.mark.requirement("R13")
def test_ffill_leading_missing_stay_and_columns_independent():
    frame = hourly(a=[None, None, 2.0, None], b=[7.0, None, None, 8.0])
    result = fill_gaps(frame, "ffill")
    assert result.columns == {"a": [None, None, 2.0, 2.0], "b": [7.0, 7.0, 7.0, 8.0]}
    assert list(result.columns) == ["a", "b"]


@pytest.mark.requirement("R13")
def test_method_none_copies_and_input_unchanged():
    frame = hourly(v=[1.0, None, 3.0])
    copy = fill_gaps(frame)
    assert copy == frame
    fill_gaps(frame, "ffill")
    assert frame.columns == {"v": [1.0, None, 3.0]}


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    ("method", "limit"),
    [("bfill", None), ("FFILL", None), ("ffill", 0), ("linear", -1), ("none", 0)],
)
def test_invalid_fill_arguments(method, limit):
    with pytest.raises(UsageError):
        fill_gaps(hourly(v=[1.0, None]), method, limit=limit)


# --- R14: linear interpolation ----------------------------------------------------------

@pytest.mark.requirement("R14")
def test_linear_on_regular_grid():
    frame = hourly(v=[1.0, None, None, 7.0])
    assert fill_gaps(frame, "linear").columns == {"v": [1.0, 3.0, 5.0, 7.0]}


@pytest.mark.requirement("R14")
def test_linear_is_weighted_by_time():
    frame = Frame(
        [utc(2024, 1, 1, 0, 0), utc(2024, 1, 1, 0, 10), utc(2024, 1, 1, 0, 30)],
        {"v": [0.0, None, 6.0]},
    )
    assert fill_gaps(frame, "linear").columns == {"v": [0.0, 2.0, 6.0]}


@pytest.mark.requirement("R14")
def test_linear_leaves_edges_missing():
    frame = hourly(v=[None, 2.0, None, 4.0, None], w=[None, None, None, None, None])
    result = fill_gaps(frame, "linear")
    assert result.columns == {"v": [None, 2.0, 3.0, 4.0, None], "w": [None] * 5}


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (1, [0.0, 5.0, 10.0, None, None, None, 40.0]),
        (2, [0.0, 5.0, 10.0, None, None, None, 40.0]),
        (3, [0.0, 5.0, 10.0, 17.5, 25.0, 32.5, 40.0]),
        (None, [0.0, 5.0, 10.0, 17.5, 25.0, 32.5, 40.0]),
    ],
)
def test_linear_limit_skips_long_gaps_entirely(limit, expected):
    frame = hourly(v=[0.0, None, 10.0, None, None, None, 40.0])
    assert fill_gaps(frame, "linear", limit=limit).columns == {"v": expected}


@pytest.mark.requirement("R14")
def test_linear_does_not_modify_input_and_keeps_timestamps():
    frame = hourly(v=[2.0, None, 4.0])
    result = fill_gaps(frame, "linear")
    assert result.columns == {"v": [2.0, 3.0, 4.0]}
    assert result.timestamps == frame.timestamps
    assert frame.columns == {"v": [2.0, None, 4.0]}


# --- R15: rolling windows ---------------------------------------------------------------

@pytest.mark.requirement("R15")
def test_rolling_window_excludes_left_edge():
    frame = hourly(v=[1.0, 2.0, 3.0, 4.0])
    result = rolling(frame, "2h")
    assert result.timestamps == frame.timestamps
    assert result.columns == {"v": [1.0, 1.5, 2.5, 3.5]}


@pytest.mark.requirement("R15")
def test_rolling_irregular_timestamps_sum():
    frame = Frame(
        [utc(2024, 1, 1, 0, 0), utc(2024, 1, 1, 0, 5), utc(2024, 1, 1, 0, 20), utc(2024, 1, 1, 0, 25)],
        {"v": [1.0, 2.0, 4.0, 8.0]},
    )
    result = rolling(frame, timedelta(minutes=20), "sum")
    assert result.columns == {"v": [1.0, 3.0, 6.0, 12.0]}


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    ("agg", "expected"),
    [
        ("count", [1, 1, 2, 2]),
        ("max", [5.0, 5.0, 5.0, 9.0]),
        ("min", [5.0, 5.0, 1.0, 1.0]),
        ("first", [5.0, 5.0, 5.0, 1.0]),
        ("last", [5.0, 5.0, 1.0, 9.0]),
        ("median", [5.0, 5.0, 3.0, 5.0]),
    ],
)
def test_rolling_aggregations_skip_missing(agg, expected):
    frame = hourly(v=[5.0, None, 1.0, 9.0])
    assert rolling(frame, "3h", agg).columns == {"v": expected}


@pytest.mark.requirement("R15")
def test_rolling_min_periods():
    frame = hourly(v=[1.0, None, 3.0, 5.0], w=[1.0, 1.0, 1.0, 1.0])
    result = rolling(frame, "2h", "mean", min_periods=2)
    assert result.columns == {"v": [None, None, None, 4.0], "w": [None, 1.0, 1.0, 1.0]}
    counted = rolling(frame, "2h", "count", min_periods=2)
    assert counted.columns == {"v": [None, None, None, 2], "w": [None, 2, 2, 2]}


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    ("window", "agg", "min_periods"),
    [("2h", "mean", 0), ("2h", "avg", 1), ("2x", "mean", 1), (timedelta(0), "mean", 1)],
)
def test_rolling_invalid_arguments(window, agg, min_periods):
    with pytest.raises(UsageError):
        rolling(hourly(v=[1.0, 2.0]), window, agg, min_periods=min_periods)
