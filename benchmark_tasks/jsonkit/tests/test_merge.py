"""JSON Merge Patch (R13)."""

import copy

import pytest

from jsonkit import merge_patch

pytestmark = pytest.mark.requirement("R13")


# The test cases of RFC 7396, appendix A.
@pytest.mark.parametrize(
    "target, patch, expected",
    [
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
        ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
        ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
        (["a", "b"], ["c", "d"], ["c", "d"]),
        ({"a": "b"}, ["c"], ["c"]),
        ({"a": "foo"}, None, None),
        ({"a": "foo"}, "bar", "bar"),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
        ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
        ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ],
)
def test_rfc_examples(target, patch, expected):
    assert merge_patch(target, patch) == expected


def test_non_object_target_member_is_replaced_by_object():
    assert merge_patch({"a": 5}, {"a": {"b": 1, "c": None}}) == {"a": {"b": 1}}
    assert merge_patch(None, {"x": 1}) == {"x": 1}


def test_deleting_absent_key_is_ignored():
    assert merge_patch({"a": 1}, {"zzz": None}) == {"a": 1}


def test_inputs_not_mutated_and_not_shared():
    target = {"a": {"b": [1]}, "keep": {"k": 1}}
    patch = {"a": {"c": [2]}, "new": {"n": [3]}}
    snapshot = copy.deepcopy((target, patch))
    result = merge_patch(target, patch)
    assert result == {"a": {"b": [1], "c": [2]}, "keep": {"k": 1}, "new": {"n": [3]}}
    assert (target, patch) == snapshot
    result["a"]["b"].append(9)
    result["keep"]["k"] = 2
    result["new"]["n"].append(4)
    assert (target, patch) == snapshot
