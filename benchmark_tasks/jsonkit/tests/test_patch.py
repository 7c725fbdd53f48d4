"""JSON Patch application (R6-R9)."""

import copy

import pytest

from jsonkit import (
    InvalidPatchError,
    JsonKitError,
    PatchConflictError,
    PatchError,
    PatchTestError,
    apply_patch,
)


# --- R6: add, remove, replace ---------------------------------------------------------------

@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "document, operation, expected",
    [
        ([1, 2], {"op": "add", "path": "/1", "value": 9}, [1, 9, 2]),
        ([1, 2], {"op": "add", "path": "/0", "value": 9}, [9, 1, 2]),
        ([1, 2], {"op": "add", "path": "/2", "value": 9}, [1, 2, 9]),
        ([1, 2], {"op": "add", "path": "/-", "value": 9}, [1, 2, 9]),
        ([], {"op": "add", "path": "/0", "value": None}, [None]),
        ({"a": 1}, {"op": "add", "path": "/a", "value": 2}, {"a": 2}),
        ({"a": 1}, {"op": "add", "path": "/b", "value": [1]}, {"a": 1, "b": [1]}),
        ({"a": 1}, {"op": "add", "path": "/", "value": 0}, {"a": 1, "": 0}),
        ({"a": {}}, {"op": "add", "path": "/a/x~1y", "value": 1}, {"a": {"x/y": 1}}),
        ({"a": 1}, {"op": "add", "path": "", "value": [3]}, [3]),
    ],
)
def test_add(document, operation, expected):
    assert apply_patch(document, [operation]) == expected


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "document, operation, expected",
    [
        ({"a": [1, 2, 3]}, {"op": "remove", "path": "/a/0"}, {"a": [2, 3]}),
        ({"a": [1, 2, 3]}, {"op": "remove", "path": "/a/2"}, {"a": [1, 2]}),
        ({"a": 1, "b": None}, {"op": "remove", "path": "/b"}, {"a": 1}),
        ({"a": {"b": {"c": 1}}}, {"op": "remove", "path": "/a/b"}, {"a": {}}),
    ],
)
def test_remove(document, operation, expected):
    assert apply_patch(document, [operation]) == expected


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "document, operation, expected",
    [
        ([1, 2], {"op": "replace", "path": "/0", "value": {"x": None}}, [{"x": None}, 2]),
        ({"a": 1, "b": 2}, {"op": "replace", "path": "/b", "value": None}, {"a": 1, "b": None}),
        ({"a": 1}, {"op": "replace", "path": "", "value": "whole"}, "whole"),
        ({"a": [[0]]}, {"op": "replace", "path": "/a/0/0", "value": 5}, {"a": [[5]]}),
    ],
)
def test_replace(document, operation, expected):
    assert apply_patch(document, [operation]) == expected


@pytest.mark.requirement("R6")
def test_operations_apply_in_order():
    patch = [
        {"op": "add", "path": "/list", "value": []},
        {"op": "add", "path": "/list/-", "value": 1},
        {"op": "add", "path": "/list/0", "value": 0},
        {"op": "replace", "path": "/list/1", "value": 2},
        {"op": "remove", "path": "/old"},
    ]
    assert apply_patch({"old": True}, patch) == {"list": [0, 2]}


@pytest.mark.requirement("R6")
def test_empty_patch():
    document = {"a": [1, {"b": 2}]}
    assert apply_patch(document, []) == document


# --- R7: move, copy, test -------------------------------------------------------------------

@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "document, operation, expected",
    [
        ([1, 2, 3], {"op": "move", "from": "/0", "path": "/2"}, [2, 3, 1]),
        ([1, 2, 3], {"op": "move", "from": "/2", "path": "/0"}, [3, 1, 2]),
        ({"a": {"b": 1}}, {"op": "move", "from": "/a/b", "path": "/c"}, {"a": {}, "c": 1}),
        ({"a": [1], "b": []}, {"op": "move", "from": "/a/0", "path": "/b/-"}, {"a": [], "b": [1]}),
        ({"a": 1}, {"op": "move", "from": "/a", "path": "/a"}, {"a": 1}),
        ({"a": {"b": 1}}, {"op": "move", "from": "/a", "path": ""}, {"b": 1}),
    ],
)
def test_move(document, operation, expected):
    assert apply_patch(document, [operation]) == expected


@pytest.mark.requirement("R7")
def test_copy_is_deep():
    patch = [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "add", "path": "/b/-", "value": 2}]
    assert apply_patch({"a": [1]}, patch) == {"a": [1], "b": [1, 2]}


@pytest.mark.requirement("R7")
def test_copy_into_array_and_root():
    assert apply_patch({"a": [1, 2]}, [{"op": "copy", "from": "/a/1", "path": "/a/0"}]) == {"a": [2, 1, 2]}
    assert apply_patch({"a": 1}, [{"op": "copy", "from": "", "path": "/b"}]) == {"a": 1, "b": {"a": 1}}


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "document, path, value",
    [
        ({"a": 1}, "/a", 1.0),
        ({"a": [1, {"b": None}]}, "/a", [1, {"b": None}]),
        ({"a": {"x": 1, "y": 2}}, "/a", {"y": 2, "x": 1}),
        ("s", "", "s"),
        ({"a": None}, "/a", None),
    ],
)
def test_test_succeeds(document, path, value):
    assert apply_patch(document, [{"op": "test", "path": path, "value": value}]) == document


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "document, path, value",
    [
        ({"a": 1}, "/a", True),
        ({"a": True}, "/a", 1),
        ({"a": [1, 2]}, "/a", [2, 1]),
        ({"a": "1"}, "/a", 1),
        ({"a": 1}, "/missing", None),
        ({"a": [1]}, "/a/1", 1),
    ],
)
def test_test_fails(document, path, value):
    with pytest.raises(PatchTestError):
        apply_patch(document, [{"op": "test", "path": path, "value": value}])


# --- R8: malformed patches ------------------------------------------------------------------

@pytest.mark.requirement("R8")
@pytest.mark.parametrize("patch", [{"op": "add", "path": "/a", "value": 1}, "[]", None])
def test_patch_not_a_list(patch):
    with pytest.raises(InvalidPatchError) as info:
        apply_patch({}, patch)
    assert info.value.index is None


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "operation",
    [
        "add",
        ["op", "add"],
        {"path": "/a", "value": 1},
        {"op": "delete", "path": "/a"},
        {"op": "ADD", "path": "/a", "value": 1},
        {"op": None, "path": "/a"},
        {"op": "add", "value": 1},
        {"op": "add", "path": "/a"},
        {"op": "replace", "path": "/a"},
        {"op": "test", "path": "/a"},
        {"op": "move", "path": "/a"},
        {"op": "copy", "path": "/a"},
        {"op": "remove", "path": 3},
        {"op": "remove", "path": "a"},
        {"op": "remove", "path": "/a~2"},
        {"op": "copy", "from": None, "path": "/b"},
        {"op": "move", "from": "/a", "path": "/a/b"},
        {"op": "move", "from": "", "path": "/a"},
    ],
)
def test_malformed_operation(operation):
    document = {"a": {"b": 1}}
    with pytest.raises(InvalidPatchError) as info:
        apply_patch(document, [{"op": "test", "path": "/a/b", "value": 1}, operation])
    assert info.value.index == 1
    assert info.value.operation == operation
    assert str(info.value).startswith("operation 1: ")


@pytest.mark.requirement("R8")
def test_null_value_counts_as_present_and_extra_members_ignored():
    patch = [{"op": "add", "path": "/a", "value": None, "comment": "x"}]
    assert apply_patch({}, patch) == {"a": None}


@pytest.mark.requirement("R8")
def test_move_to_sibling_with_common_string_prefix_is_valid():
    patch = [{"op": "move", "from": "/a", "path": "/ab"}]
    assert apply_patch({"a": 1}, patch) == {"ab": 1}


# --- R9: conflicts, reporting, atomicity ----------------------------------------------------

@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "operation",
    [
        {"op": "remove", "path": "/missing"},
        {"op": "remove", "path": "/list/3"},
        {"op": "remove", "path": "/list/-"},
        {"op": "remove", "path": ""},
        {"op": "replace", "path": "/missing", "value": 1},
        {"op": "replace", "path": "/list/3", "value": 1},
        {"op": "add", "path": "/missing/x", "value": 1},
        {"op": "add", "path": "/list/4", "value": 1},
        {"op": "add", "path": "/list/01", "value": 1},
        {"op": "add", "path": "/num/x", "value": 1},
        {"op": "add", "path": "/list/-/x", "value": 1},
        {"op": "move", "from": "/missing", "path": "/x"},
        {"op": "move", "from": "/list/0", "path": "/list/5"},
        {"op": "copy", "from": "/list/9", "path": "/x"},
    ],
)
def test_conflicts(operation):
    document = {"list": [1, 2, 3], "num": 5}
    with pytest.raises(PatchConflictError) as info:
        apply_patch(document, [operation])
    assert info.value.index == 0
    assert info.value.operation == operation


@pytest.mark.requirement("R9")
def test_error_reports_first_failing_operation():
    patch = [
        {"op": "add", "path": "/b", "value": 1},
        {"op": "replace", "path": "/a", "value": 2},
        {"op": "remove", "path": "/nope"},
        {"op": "frobnicate"},
    ]
    with pytest.raises(PatchError) as info:
        apply_patch({"a": 1}, patch)
    assert isinstance(info.value, PatchConflictError)
    assert isinstance(info.value, JsonKitError)
    assert info.value.index == 2
    assert info.value.operation == {"op": "remove", "path": "/nope"}
    assert str(info.value).startswith("operation 2: ")


@pytest.mark.requirement("R9")
def test_failed_patch_leaves_input_untouched():
    document = {"a": [1, 2], "b": {"c": 1}}
    snapshot = copy.deepcopy(document)
    patch = [
        {"op": "add", "path": "/a/-", "value": 3},
        {"op": "remove", "path": "/b/c"},
        {"op": "test", "path": "/a/0", "value": 99},
    ]
    patch_snapshot = copy.deepcopy(patch)
    with pytest.raises(PatchTestError) as info:
        apply_patch(document, patch)
    assert info.value.index == 2
    assert document == snapshot
    assert patch == patch_snapshot


@pytest.mark.requirement("R9")
def test_successful_patch_does_not_mutate_or_share():
    document = {"a": [1, 2], "b": {"c": 1}}
    value = {"deep": [1]}
    patch = [{"op": "add", "path": "/v", "value": value}, {"op": "remove", "path": "/a/0"}]
    snapshot, patch_snapshot = copy.deepcopy(document), copy.deepcopy(patch)
    result = apply_patch(document, patch)
    assert result == {"a": [2], "b": {"c": 1}, "v": {"deep": [1]}}
    assert document == snapshot and patch == patch_snapshot
    result["v"]["deep"].append(2)
    result["b"]["c"] = 99
    assert value == {"deep": [1]}
    assert document == snapshot
