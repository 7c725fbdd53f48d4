"""Canonical serialization (R16-R17)."""

import pytest

from jsonkit import CanonicalError, JsonKitError, canonical_dumps


# --- R16: structure and strings ----------------------------------------------------------

@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "value, text",
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        ({}, "{}"),
        ([], "[]"),
        ({"b": [1, "x"], "a": {"d": None, "c": True}}, '{"a":{"c":true,"d":null},"b":[1,"x"]}'),
        ([[], {}, [None]], "[[],{},[null]]"),
        ({"b": 1, "B": 2, "a": 3, "": 4}, '{"":4,"B":2,"a":3,"b":1}'),
        ({"é": 1, "z": 2}, '{"z":2,"é":1}'),
    ],
)
def test_structure(value, text):
    assert canonical_dumps(value) == text


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "value, text",
    [
        ('say "hi"', r'"say \"hi\""'),
        ("back\\slash", r'"back\\slash"'),
        ("a/b", '"a/b"'),
        ("\b\t\n\f\r", r'"\b\t\n\f\r"'),
        ("\x00\x01\x1f", r'"\u0000\u0001\u001f"'),
        ("\x7f", '"\x7f"'),
        ("é😀中", '"é😀中"'),
        ("", '""'),
    ],
)
def test_strings(value, text):
    assert canonical_dumps(value) == text


@pytest.mark.requirement("R16")
def test_no_trailing_newline_and_keys_escaped():
    text = canonical_dumps({"a\nb": "c"})
    assert text == '{"a\\nb":"c"}'
    assert not text.endswith("\n")


# --- R17: numbers and unsupported values -------------------------------------------------

@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    "value, text",
    [
        (0, "0"),
        (-12, "-12"),
        (10**30, "1" + "0" * 30),
        (1.0, "1"),
        (-3.0, "-3"),
        (-0.0, "0"),
        (9007199254740991.0, "9007199254740991"),
        (2.0**53, "9007199254740992.0"),
        (0.5, "0.5"),
        (0.1, "0.1"),
        (-2.25, "-2.25"),
        (1e-07, "1e-07"),
        (1e22, "1e+22"),
        ([1.0, 2.5, {"x": -0.0}], '[1,2.5,{"x":0}]'),
    ],
)
def test_numbers(value, text):
    assert canonical_dumps(value) == text


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), float("-inf"), [1, float("nan")], {"a": {"b": float("inf")}}],
)
def test_non_finite_numbers_rejected(value):
    with pytest.raises(CanonicalError):
        canonical_dumps(value)


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("value", [{1: "a"}, {"a": {None: 1}}, {1, 2}, (1, 2), b"x", object(), [{"a": (1,)}]])
def test_unsupported_values_rejected(value):
    with pytest.raises(CanonicalError) as info:
        canonical_dumps(value)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, JsonKitError)
