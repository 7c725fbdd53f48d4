"""Flattening into pointer/leaf pairs and rebuilding (R14-R15)."""

import pytest

from jsonkit import PointerSyntaxError, UnflattenError, flatten, unflatten


# --- R14: flatten -----------------------------------------------------------------------------

@pytest.mark.requirement("R14")
def test_flatten_example_in_document_order():
    result = flatten({"a": {"b": [1, {}]}, "c/d": None, "e": []})
    assert list(result.items()) == [("/a/b/0", 1), ("/a/b/1", {}), ("/c~1d", None), ("/e", [])]


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("document", [5, "s", None, True, 1.5, {}, []])
def test_flatten_leaf_document(document):
    assert flatten(document) == {"": document}


@pytest.mark.requirement("R14")
def test_flatten_follows_insertion_order_not_sorted_order():
    result = flatten({"z": 1, "a": [True, False], "m~": {"": 0}})
    assert list(result) == ["/z", "/a/0", "/a/1", "/m~0/"]
    assert result["/a/1"] is False


@pytest.mark.requirement("R14")
def test_flatten_nested_arrays():
    assert flatten([[1, [2]], [], [[]]]) == {"/0/0": 1, "/0/1/0": 2, "/1": [], "/2/0": []}


# --- R15: unflatten ---------------------------------------------------------------------------

@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "leaves, expected",
    [
        ({"/a/1": "y", "/a/0": "x"}, {"a": ["x", "y"]}),
        ({"/a/0": 1, "/a/2": 2}, {"a": {"0": 1, "2": 2}}),
        ({"/a/01": 1}, {"a": {"01": 1}}),
        ({"": 7}, 7),
        ({"": {}}, {}),
        ({}, {}),
        ({"/0": "a", "/1": {}}, ["a", {}]),
        ({"/x~1y/~0": None}, {"x/y": {"~": None}}),
        ({"/": 1}, {"": 1}),
    ],
)
def test_unflatten(leaves, expected):
    assert unflatten(leaves) == expected


@pytest.mark.requirement("R15")
def test_unflatten_object_keys_in_first_appearance_order():
    result = unflatten({"/b/x": 1, "/a": 2, "/b/y": 3})
    assert list(result) == ["b", "a"]
    assert list(result["b"]) == ["x", "y"]


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "document",
    [
        {"a": {"b": [1, {}]}, "c/d": None, "e": []},
        [[1, [2]], [], [[]]],
        {"": {"~": [True, False, 1.5, "s"]}},
        "scalar",
    ],
)
def test_round_trip(document):
    assert unflatten(flatten(document)) == document


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "leaves",
    [{"/a": 1, "/a/b": 2}, {"/a/b": 1, "/a": {}}, {"": 1, "/x": 2}, {"/x": 2, "": 1}],
)
def test_unflatten_conflicts(leaves):
    with pytest.raises(UnflattenError, match="conflicting"):
        unflatten(leaves)


@pytest.mark.requirement("R15")
def test_unflatten_bad_pointer():
    with pytest.raises(PointerSyntaxError):
        unflatten({"a": 1})
    assert issubclass(UnflattenError, ValueError)


@pytest.mark.requirement("R15")
def test_unflatten_copies_values():
    inner = [1]
    result = unflatten({"/a": inner})
    result["a"].append(2)
    assert inner == [1]
