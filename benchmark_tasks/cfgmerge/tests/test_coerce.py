"""Type coercion of INI values and environment variables (R4)."""

import pytest

from cfgmerge import coerce, loads

pytestmark = pytest.mark.requirement("R4")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("0", 0),
        ("5432", 5432),
        ("-17", -17),
        ("-0", 0),
        ("1.5", 1.5),
        ("-0.25", -0.25),
        ("1e3", 1000.0),
        ("2E-2", 0.02),
        ("1.5e+2", 150.0),
    ],
)
def test_typed_values(text, expected):
    result = coerce(text)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    "text",
    ["yes", "on", "007", "+5", "1_000", " 5", "5 ", "1.", ".5", "inf", "nan", "0x1F", "", "hello world"],
)
def test_texts_that_stay_strings(text):
    result = coerce(text)
    assert result == text
    assert type(result) is str


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"5432"', "5432"),
        ('"true"', "true"),
        ('""', ""),
        ('"a\\nb"', "a\nb"),
        ('" padded "', " padded "),
        ('"caf\\u00e9"', "caf\u00e9"),
    ],
)
def test_quoted_json_strings(text, expected):
    assert coerce(text) == expected


@pytest.mark.parametrize("text", ['"a"b"', '"', '"unterminated'])
def test_invalid_quoted_text_kept(text):
    assert coerce(text) == text


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[1, "x", true]', [1, "x", True]),
        ("[]", []),
        ('[[1], {"k": 2.5}]', [[1], {"k": 2.5}]),
    ],
)
def test_json_arrays(text, expected):
    assert coerce(text) == expected


@pytest.mark.parametrize("text", ["[1,", "[null]", '[{"a": null}]', "[abc]", "[x"])
def test_invalid_or_null_arrays_kept(text):
    assert coerce(text) == text


def test_ini_values_are_coerced_after_stripping():
    text = '[s]\ni = 42\nf = 2.5\nb = false\nq = "42"\nz = 007\nl = [1, 2]\n'
    result = loads(text, "ini")["s"]
    assert result == {"i": 42, "f": 2.5, "b": False, "q": "42", "z": "007", "l": [1, 2]}
    assert type(result["q"]) is str
