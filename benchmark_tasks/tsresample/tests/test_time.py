"""Frame model, timestamp parsing and formatting (R1-R4)."""

from datetime import datetime, timedelta, timezone

import pytest

from tsresample import DataError, Frame, UsageError, format_timestamp, parse_timestamp

UTC = timezone.utc


def utc(*args):
    return datetime(*args, tzinfo=UTC)


# --- R1: Frame ---------------------------------------------------------------------------

@pytest.mark.requirement("R1")
def test_frame_fields_len_and_column_names():
    frame = Frame([utc(2024, 1, 1), utc(2024, 1, 2)], {"b": [1.0, None], "a": [2, 3.5]})
    assert frame.timestamps == [utc(2024, 1, 1), utc(2024, 1, 2)]
    assert frame.columns == {"b": [1.0, None], "a": [2, 3.5]}
    assert len(frame) == 2
    assert frame.column_names == ["b", "a"]


@pytest.mark.requirement("R1")
def test_frame_equality_and_empty_frame():
    assert Frame([utc(2024, 1, 1)], {"a": [1.0]}) == Frame([utc(2024, 1, 1)], {"a": [1]})
    assert Frame([utc(2024, 1, 1)], {"a": [1.0]}) != Frame([utc(2024, 1, 1)], {"a": [2.0]})
    empty = Frame([], {"a": []})
    assert len(empty) == 0
    assert empty.column_names == ["a"]


@pytest.mark.requirement("R1")
def test_frame_rejects_naive_timestamp():
    with pytest.raises(ValueError):
        Frame([datetime(2024, 1, 1)], {"a": [1.0]})


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "timestamps",
    [
        [utc(2024, 1, 2), utc(2024, 1, 1)],
        [utc(2024, 1, 1), utc(2024, 1, 1)],
        [utc(2024, 1, 1, 10), datetime(2024, 1, 1, 11, tzinfo=timezone(timedelta(hours=1)))],
    ],
)
def test_frame_rejects_non_increasing_timestamps(timestamps):
    with pytest.raises(ValueError):
        Frame(timestamps, {"a": [1.0, 2.0]})


@pytest.mark.requirement("R1")
def test_frame_rejects_column_length_mismatch():
    with pytest.raises(ValueError):
        Frame([utc(2024, 1, 1), utc(2024, 1, 2)], {"a": [1.0, 2.0], "b": [1.0]})


# --- R2: timestamp syntax ---------------------------------------------------------------

@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-05", utc(2024, 3, 5)),
        ("2024-03-05T07:08", utc(2024, 3, 5, 7, 8)),
        ("2024-03-05 07:08:09", utc(2024, 3, 5, 7, 8, 9)),
        ("2024-03-05T07:08:09.5", utc(2024, 3, 5, 7, 8, 9, 500000)),
        ("2024-03-05T07:08:09.000123", utc(2024, 3, 5, 7, 8, 9, 123)),
        ("2024-02-29T23:59:59", utc(2024, 2, 29, 23, 59, 59)),
        ("  2024-03-05T07:08Z ", utc(2024, 3, 5, 7, 8)),
    ],
)
def test_accepted_timestamp_forms(text, expected):
    assert parse_timestamp(text) == expected


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "text",
    [
        "2024-3-5",
        "2024/03/05",
        "2023-02-29",
        "2024-03-05T24:00",
        "2024-03-05T07:60",
        "2024-03-05T07:08:60",
        "2024-03-05T07",
        "2024-03-05T07:08:09.1234567",
        "2024-03-05Z",
        "2024-03-05T07:08+0100",
        "2024-03-05T07:08+01",
        "2024-03-05T07:08+24:00",
        "20240305",
        "",
        "now",
    ],
)
def test_rejected_timestamps(text):
    with pytest.raises(DataError):
        parse_timestamp(text)


# --- R3: offsets and naive timestamps ---------------------------------------------------

@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-05T07:08:09+02:00", utc(2024, 3, 5, 5, 8, 9)),
        ("2024-03-01T01:00-05:30", utc(2024, 3, 1, 6, 30)),
        ("2024-03-01T01:00+03:00", utc(2024, 2, 29, 22, 0)),
        ("2024-03-05T07:08Z", utc(2024, 3, 5, 7, 8)),
        ("2024-03-05T07:08+00:00", utc(2024, 3, 5, 7, 8)),
        ("2024-03-05T07:08-00:00", utc(2024, 3, 5, 7, 8)),
    ],
)
def test_offsets_are_converted_to_utc(text, expected):
    result = parse_timestamp(text)
    assert result == expected
    assert result.tzinfo == timezone.utc
    assert (result.year, result.month, result.day, result.hour, result.minute) == (
        expected.year, expected.month, expected.day, expected.hour, expected.minute
    )


@pytest.mark.requirement("R3")
def test_naive_timestamps_default_to_utc():
    result = parse_timestamp("2024-03-05 00:30")
    assert result == utc(2024, 3, 5, 0, 30)
    assert result.tzinfo == timezone.utc


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("text", "offset", "expected"),
    [
        ("2024-03-05 00:30", "+01:00", utc(2024, 3, 4, 23, 30)),
        ("2024-03-05", "-01:00", utc(2024, 3, 5, 1, 0)),
        ("2024-03-05T12:00", "Z", utc(2024, 3, 5, 12, 0)),
        ("2024-03-05T12:00+02:00", "-07:00", utc(2024, 3, 5, 10, 0)),
        ("2024-03-05T12:00Z", "+05:30", utc(2024, 3, 5, 12, 0)),
    ],
)
def test_naive_offset_rule(text, offset, expected):
    assert parse_timestamp(text, naive_offset=offset) == expected


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("offset", ["UTC", "+2", "+02:60", "0100", ""])
def test_invalid_naive_offset_is_usage_error(offset):
    with pytest.raises(UsageError):
        parse_timestamp("2024-03-05T00:00", naive_offset=offset)


# --- R4: timestamp output format --------------------------------------------------------

@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (utc(2024, 3, 5, 7, 8, 9), "2024-03-05T07:08:09Z"),
        (utc(2024, 3, 5), "2024-03-05T00:00:00Z"),
        (utc(2024, 3, 5, 7, 8, 9, 500000), "2024-03-05T07:08:09.500000Z"),
        (utc(2024, 3, 5, 7, 8, 9, 123), "2024-03-05T07:08:09.000123Z"),
        (datetime(2024, 1, 1, 10, tzinfo=timezone(timedelta(hours=2))), "2024-01-01T08:00:00Z"),
        (datetime(2024, 1, 1, 1, tzinfo=timezone(timedelta(hours=3))), "2023-12-31T22:00:00Z"),
    ],
)
def test_format_timestamp(moment, expected):
    assert format_timestamp(moment) == expected


@pytest.mark.requirement("R4")
def test_format_timestamp_rejects_naive():
    with pytest.raises(ValueError):
        format_timestamp(datetime(2024, 1, 1))


@pytest.mark.requirement("R4")
def test_format_round_trips_through_parse():
    text = "2024-12-31T23:59:59.000001Z"
    assert format_timestamp(parse_timestamp(text)) == text
