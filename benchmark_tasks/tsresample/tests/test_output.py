"""Number formatting, CSV and JSON output (R18-R20)."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from tsresample import Frame, UsageError, format_number, to_csv, to_json


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


# --- R18: number formatting -------------------------------------------------------------

@pytest.mark.requirement("R18")
@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [
        (2.0, 6, "2"),
        (2.5, 6, "2.5"),
        (1 / 3, 6, "0.333333"),
        (2 / 3, 6, "0.666667"),
        (0.1 + 0.2, 6, "0.3"),
        (-1e-9, 6, "0"),
        (-0.0, 6, "0"),
        (-2.25, 6, "-2.25"),
        (1e20, 6, "100000000000000000000"),
        (1.5e-7, 6, "0"),
        (2.675, 2, "2.67"),
        (0.125, 2, "0.12"),
        (0.375, 2, "0.38"),
        (2.5, 0, "2"),
        (3.5, 0, "4"),
        (-0.4, 0, "0"),
        (1234.5678, 1, "1234.6"),
        (10.0, 3, "10"),
    ],
)
def test_format_float(value, decimals, expected):
    assert format_number(value, decimals) == expected


@pytest.mark.requirement("R18")
@pytest.mark.parametrize(("value", "expected"), [(None, ""), (7, "7"), (0, "0"), (-12, "-12")])
def test_format_none_and_int(value, expected):
    assert format_number(value) == expected


@pytest.mark.requirement("R18")
def test_default_decimals_is_six():
    assert format_number(1.23456789) == "1.234568"
    assert format_number(100.0000004) == "100"


@pytest.mark.requirement("R18")
def test_negative_decimals_is_usage_error():
    frame = Frame([utc(2024, 1, 1)], {"v": [1.0]})
    with pytest.raises(UsageError):
        format_number(1.0, -1)
    with pytest.raises(UsageError):
        to_csv(frame, -1)
    with pytest.raises(UsageError):
        to_json(frame, -1)


# --- R19: CSV output --------------------------------------------------------------------

@pytest.mark.requirement("R19")
def test_csv_exact_text():
    frame = Frame(
        [utc(2024, 1, 1, 0), utc(2024, 1, 1, 1)],
        {"temp": [2.5, None], "count": [2, 0]},
    )
    assert to_csv(frame) == (
        "timestamp,temp,count\n"
        "2024-01-01T00:00:00Z,2.5,2\n"
        "2024-01-01T01:00:00Z,,0\n"
    )


@pytest.mark.requirement("R19")
def test_csv_decimals_offsets_and_microseconds():
    plus1 = timezone(timedelta(hours=1))
    frame = Frame(
        [datetime(2024, 1, 1, 1, 0, tzinfo=plus1), utc(2024, 1, 1, 0, 0, 0, 250000)],
        {"v": [1 / 3, 2.0]},
    )
    assert to_csv(frame, 2) == (
        "timestamp,v\n"
        "2024-01-01T00:00:00Z,0.33\n"
        "2024-01-01T00:00:00.250000Z,2\n"
    )


@pytest.mark.requirement("R19")
def test_csv_quotes_special_names():
    frame = Frame([utc(2024, 1, 1)], {"a,b": [1.0], 'say "x"': [None], "c": [None]})
    assert to_csv(frame) == 'timestamp,"a,b","say ""x""",c\n2024-01-01T00:00:00Z,1,,\n'


@pytest.mark.requirement("R19")
def test_csv_empty_frame_has_only_header():
    assert to_csv(Frame([], {"a": [], "b": []})) == "timestamp,a,b\n"
    assert "\r" not in to_csv(Frame([utc(2024, 1, 1)], {"a": [1.0]}))


# --- R20: JSON output -------------------------------------------------------------------

@pytest.mark.requirement("R20")
def test_json_exact_text():
    frame = Frame([utc(2024, 1, 1, 0), utc(2024, 1, 1, 1)], {"v": [1.0, 1 / 3]})
    assert to_json(frame) == (
        "{\n"
        '  "columns": [\n'
        '    "v"\n'
        "  ],\n"
        '  "rows": [\n'
        "    {\n"
        '      "timestamp": "2024-01-01T00:00:00Z",\n'
        '      "v": 1\n'
        "    },\n"
        "    {\n"
        '      "timestamp": "2024-01-01T01:00:00Z",\n'
        '      "v": 0.333333\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )


@pytest.mark.requirement("R20")
def test_json_structure_nulls_ints_and_key_order():
    frame = Frame(
        [utc(2024, 1, 1)],
        {"b": [None], "a": [2.5], "n": [3], "big": [1e20], "tiny": [-1e-9]},
    )
    text = to_json(frame)
    data = json.loads(text)
    assert data == {
        "columns": ["b", "a", "n", "big", "tiny"],
        "rows": [
            {"timestamp": "2024-01-01T00:00:00Z", "b": None, "a": 2.5, "n": 3,
             "big": 100000000000000000000, "tiny": 0}
        ],
    }
    assert list(data) == ["columns", "rows"]
    assert list(data["rows"][0]) == ["timestamp", "b", "a", "n", "big", "tiny"]
    assert '"n": 3,' in text and '"tiny": 0\n' in text and '"b": null,' in text


@pytest.mark.requirement("R20")
def test_json_decimals():
    frame = Frame([utc(2024, 1, 1)], {"v": [2.675], "w": [0.4]})
    data = json.loads(to_json(frame, 2))
    assert data["rows"][0]["v"] == 2.67
    assert to_json(frame, 0).count('"w": 0\n') == 1


@pytest.mark.requirement("R20")
def test_json_empty_frame():
    text = to_json(Frame([], {"a": []}))
    assert json.loads(text) == {"columns": ["a"], "rows": []}
    assert text == '{\n  "columns": [\n    "a"\n  ],\n  "rows": []\n}\n'
