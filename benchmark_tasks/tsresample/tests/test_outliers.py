"""Outlier flagging: z-score and IQR rules (R16, R17)."""

from datetime import datetime, timedelta, timezone

import pytest

from tsresample import Frame, UsageError, flag_outliers


def series(**named):
    """Frame with minutely timestamps from 2024-01-01T00:00Z."""
    size = len(next(iter(named.values())))
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    return Frame([start + timedelta(minutes=i) for i in range(size)], dict(named))


# --- R16: z-score -----------------------------------------------------------------------

@pytest.mark.requirement("R16")
def test_zscore_default_threshold_and_layout():
    values = [0.0] * 10 + [100.0]
    frame = series(v=values)
    result = flag_outliers(frame)
    assert list(result.columns) == ["v", "v_outlier"]
    assert result.columns["v"] == values
    assert result.columns["v_outlier"] == [0] * 10 + [1]
    assert result.timestamps == frame.timestamps


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(("threshold", "flags"), [(1.0, [0, 0]), (0.5, [1, 1]), (0.999, [1, 1])])
def test_zscore_threshold_is_strict(threshold, flags):
    result = flag_outliers(series(v=[-1.0, 1.0]), "zscore", threshold=threshold)
    assert result.columns["v_outlier"] == flags


@pytest.mark.requirement("R16")
def test_zscore_uses_population_deviation_and_skips_missing():
    # mean 2.8, population sd 3.6: z(10) = 2.0, z(1) = 0.5; sample sd would give z(10) < 1.8
    frame = series(a=[1.0, None, 1.0, 1.0, 1.0, 10.0], b=[5.0, 5.0, 5.0, None, 5.0, 5.0])
    result = flag_outliers(frame, threshold=1.9)
    assert list(result.columns) == ["a", "a_outlier", "b", "b_outlier"]
    assert result.columns["a_outlier"] == [0, None, 0, 0, 0, 1]
    assert result.columns["b_outlier"] == [0, 0, 0, None, 0, 0]


@pytest.mark.requirement("R16")
def test_zscore_flags_are_ints_and_input_unchanged():
    frame = series(v=[-1.0, 1.0, None])
    result = flag_outliers(frame, threshold=0.5)
    assert all(type(flag) is int for flag in result.columns["v_outlier"][:2])
    assert result.columns["v_outlier"][2] is None
    assert frame.columns == {"v": [-1.0, 1.0, None]}


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(("method", "threshold"), [("zscore", 0), ("zscore", -1.0), ("mad", None)])
def test_invalid_outlier_arguments(method, threshold):
    with pytest.raises(UsageError):
        flag_outliers(series(v=[1.0, 2.0]), method, threshold=threshold)


# --- R17: IQR ---------------------------------------------------------------------------

@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    ("values", "flags"),
    [
        ([1.0, 2.0, 3.0, 4.0, 100.0], [0, 0, 0, 0, 1]),
        ([1.0, 2.0, 3.0, 4.0, 7.0], [0, 0, 0, 0, 0]),
        ([1.0, 2.0, 3.0, 4.0, 7.5], [0, 0, 0, 0, 1]),
        ([-5.0, 1.0, 2.0, 3.0, 4.0], [1, 0, 0, 0, 0]),
        ([-2.0, 1.0, 2.0, 3.0, 4.0], [0, 0, 0, 0, 0]),
        ([-2.5, 1.0, 2.0, 3.0, 4.0], [1, 0, 0, 0, 0]),
        ([42.0], [0]),
    ],
)
def test_iqr_default_fences(values, flags):
    result = flag_outliers(series(v=values), "iqr")
    assert result.columns["v_outlier"] == flags
    assert result.columns["v"] == values


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    ("threshold", "flags"),
    [(0.5, [0, 0, 0, 0, 0]), (0.25, [1, 0, 0, 0, 1])],
)
def test_iqr_custom_threshold(threshold, flags):
    # Q1 = 2, Q3 = 4, IQR = 2
    result = flag_outliers(series(v=[1.0, 2.0, 3.0, 4.0, 5.0]), "iqr", threshold=threshold)
    assert result.columns["v_outlier"] == flags


@pytest.mark.requirement("R17")
def test_iqr_interpolated_quartiles_on_unsorted_values():
    # sorted: 1..6; Q1 = 2.25, Q3 = 4.75, IQR = 2.5; k = 0.1 -> fences 2.0 and 5.0
    result = flag_outliers(series(v=[6.0, 1.0, 5.0, 2.0, 4.0, 3.0]), "iqr", threshold=0.1)
    assert result.columns["v_outlier"] == [1, 1, 0, 0, 0, 0]


@pytest.mark.requirement("R17")
def test_iqr_missing_values_and_several_columns():
    frame = series(a=[1.0, 2.0, None, 3.0, 4.0, 100.0], b=[None] * 6)
    result = flag_outliers(frame, "iqr")
    assert list(result.columns) == ["a", "a_outlier", "b", "b_outlier"]
    assert result.columns["a_outlier"] == [0, 0, None, 0, 0, 1]
    assert result.columns["b_outlier"] == [None] * 6


@pytest.mark.requirement("R17")
def test_iqr_rejects_non_positive_threshold():
    with pytest.raises(UsageError):
        flag_outliers(series(v=[1.0, 2.0]), "iqr", threshold=0.0)
