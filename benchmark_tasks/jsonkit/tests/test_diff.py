"""Structural diff (R10-R12)."""

import copy

import pytest

from jsonkit import apply_patch, diff, json_equal


def rm(path):
    return {"op": "remove", "path": path}


def add(path, value):
    return {"op": "add", "path": path, "value": value}


def rep(path, value):
    return {"op": "replace", "path": path, "value": value}


# --- R10: objects and scalars ---------------------------------------------------------------

@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "source, target",
    [(1, 1.0), ({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}), ("x", "x"), (None, None), ([], [])],
)
def test_equal_documents_give_empty_patch(source, target):
    assert diff(source, target) == []


@pytest.mark.requirement("R10")
def test_object_diff_uses_sorted_key_union():
    source = {"b": 1, "a": {"x": 1}, "c": 3}
    target = {"a": {"x": 2}, "b": 1, "d": 4}
    assert diff(source, target) == [rep("/a/x", 2), rm("/c"), add("/d", 4)]


@pytest.mark.requirement("R10")
def test_object_diff_key_order_interleaves_adds_and_removes():
    assert diff({"b": 1, "d": 1}, {"a": 1, "c": 1}) == [add("/a", 1), rm("/b"), add("/c", 1), rm("/d")]


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "source, target, expected",
    [
        ({"a": 1}, [1], [rep("", [1])]),
        (1, 2, [rep("", 2)]),
        ({"a": True}, {"a": 1}, [rep("/a", 1)]),
        ({"a": None}, {"a": False}, [rep("/a", False)]),
        ({"a": "1"}, {"a": 1}, [rep("/a", 1)]),
        ({"a": []}, {"a": {}}, [rep("/a", {})]),
        ({"a/b": 1, "m~n": 1}, {"a/b": 2, "m~n": 2}, [rep("/a~1b", 2), rep("/m~0n", 2)]),
        ({"": 1}, {"": 2}, [rep("/", 2)]),
    ],
)
def test_replace_cases(source, target, expected):
    assert diff(source, target) == expected


@pytest.mark.requirement("R10")
def test_diff_values_are_deep_copies():
    target = {"new": {"list": [1]}}
    patch = diff({}, target)
    assert patch == [add("/new", {"list": [1]})]
    patch[0]["value"]["list"].append(2)
    assert target == {"new": {"list": [1]}}


# --- R11: arrays ------------------------------------------------------------------------------

@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "source, target, expected",
    [
        ([1, 2, 3], [1, 3], [rm("/1")]),
        ([1, 3], [1, 2, 3], [add("/1", 2)]),
        ([1, 2, 3], [4, 5, 6], [rep("/0", 4), rep("/1", 5), rep("/2", 6)]),
        ([1, 2, 3, 4], [1, 4], [rm("/2"), rm("/1")]),
        ([1, 1], [1], [rm("/1")]),
        ([1], [1, 1], [add("/1", 1)]),
        ([1, 2, 1], [1], [rm("/2"), rm("/1")]),
        ([{"x": 1}], [{"x": 2}, 5], [rep("/0/x", 2), add("/1", 5)]),
        ([], [1, 2], [add("/0", 1), add("/1", 2)]),
        ([1, 2], [], [rm("/1"), rm("/0")]),
        ([0, 1, 2, 9], [0, 5, 6, 7, 9], [rep("/1", 5), rep("/2", 6), add("/3", 7)]),
        ([0, 5, 6, 7, 9], [0, 1, 9], [rep("/1", 1), rm("/3"), rm("/2")]),
        ({"k": [1, 2]}, {"k": [1, 2, 3]}, [add("/k/2", 3)]),
        ([[1, 2]], [[2]], [rm("/0/0")]),
    ],
)
def test_array_diff(source, target, expected):
    assert diff(source, target) == expected


# --- R12: round trip --------------------------------------------------------------------------

ROUND_TRIP_CASES = [
    ({"a": 1}, {"a": 1, "b": [1, 2]}),
    ([1, 2, 3, 4, 5], [0, 2, 4, 6]),
    ([1, 2, 3], [3, 2, 1]),
    ([1, 1, 1, 2], [1, 2, 2, 2, 1]),
    ({"a": [{"b": [1, 2]}, 3]}, {"a": [{"b": [2]}, 3, {"c": None}]}),
    ({"a/b": {"~": 1}, "": [1]}, {"a/b": {"~": 2, "/": 3}, "": []}),
    ([], {"x": [1]}),
    ("scalar", ["list"]),
    (None, {"a": None}),
    ({"a": [True, 1, 0]}, {"a": [1, True, False]}),
    ([[1, [2, [3]]], 4], [[1, [2, [3, 3.5]]], [4]]),
    ({"list": list(range(10))}, {"list": list(range(3, 15, 2))}),
]


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("source, target", ROUND_TRIP_CASES)
def test_round_trip(source, target):
    assert json_equal(apply_patch(source, diff(source, target)), target)


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("source, target", ROUND_TRIP_CASES[:4])
def test_reverse_round_trip(source, target):
    assert json_equal(apply_patch(target, diff(target, source)), source)


@pytest.mark.requirement("R12")
def test_diff_does_not_mutate_arguments():
    source = {"a": [1, 2, {"b": 3}], "c": 1}
    target = {"a": [2, {"b": 4}], "d": [5]}
    snapshot = copy.deepcopy((source, target))
    patch = diff(source, target)
    assert (source, target) == snapshot
    assert apply_patch(source, patch) == target
