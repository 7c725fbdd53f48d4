"""JSON value equality (R5)."""

import pytest

from jsonkit import json_equal

pytestmark = pytest.mark.requirement("R5")


@pytest.mark.parametrize(
    "left, right",
    [
        (1, 1.0),
        (0, -0.0),
        ("a", "a"),
        (None, None),
        ({"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1}),
        ([{"x": True}], [{"x": True}]),
        ({}, {}),
        ([], []),
    ],
)
def test_equal_values(left, right):
    assert json_equal(left, right) is True


@pytest.mark.parametrize(
    "left, right",
    [
        (True, 1),
        (False, 0),
        (1, True),
        (None, 0),
        (None, False),
        ("1", 1),
        ([], {}),
        ([1, 2], [2, 1]),
        ([1], [1, 1]),
        ({"a": 1}, {"a": 1, "b": 2}),
        ({"a": None}, {}),
        ({"a": [True]}, {"a": [1]}),
        ("a", "A"),
    ],
)
def test_unequal_values(left, right):
    assert json_equal(left, right) is False
