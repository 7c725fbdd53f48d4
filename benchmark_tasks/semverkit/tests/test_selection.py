"""R16 max/min satisfying and R17 sorting."""

import pytest

from semverkit import (
    InvalidRange,
    InvalidVersion,
    Range,
    Version,
    max_satisfying,
    min_satisfying,
    parse,
    sort_versions,
)

VERSIONS = ["1.2.3", "1.2.4", "1.3.0", "2.0.0-rc.1", "2.0.0"]


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "func, range_spec, expected",
    [
        (max_satisfying, "^1.2.3", "1.3.0"),
        (min_satisfying, "^1.2.3", "1.2.3"),
        (min_satisfying, "~1.2.4", "1.2.4"),
        (max_satisfying, "~1.2.4", "1.2.4"),
        (max_satisfying, ">=2.0.0-rc.0", "2.0.0"),
        (min_satisfying, ">=2.0.0-rc.0", "2.0.0-rc.1"),
        (max_satisfying, "*", "2.0.0"),
        (min_satisfying, ">1.2.3 <2", "1.2.4"),
        (max_satisfying, "1.2.x || 2.x", "2.0.0"),
    ],
)
def test_satisfying_extremes(func, range_spec, expected):
    result = func(VERSIONS, range_spec)
    assert isinstance(result, Version)
    assert str(result) == expected


@pytest.mark.requirement("R16")
@pytest.mark.parametrize("func", [max_satisfying, min_satisfying])
def test_satisfying_none(func):
    assert func(VERSIONS, ">=3") is None
    assert func([], "*") is None
    assert func(["2.0.0-rc.1"], "^2.0.0") is None


@pytest.mark.requirement("R16")
def test_satisfying_with_objects_and_generators():
    rng = Range("~1.2")
    items = [Version(1, 2, 0), parse("1.2.5"), "1.3.0"]
    assert max_satisfying(iter(items), rng) == parse("1.2.5")
    assert min_satisfying((v for v in items), rng) == Version(1, 2, 0)


@pytest.mark.requirement("R16")
def test_satisfying_ties_return_first():
    items = ["1.0.0+first", "0.5.0", "1.0.0+second"]
    assert max_satisfying(items, "<2").build == ("first",)
    items = ["0.1.0+a", "1.0.0", "0.1.0+b"]
    assert min_satisfying(items, "*").build == ("a",)


@pytest.mark.requirement("R16")
def test_satisfying_errors():
    with pytest.raises(InvalidVersion):
        max_satisfying(["1.0.0", "1.0"], "*")
    with pytest.raises(InvalidRange):
        min_satisfying(["1.0.0"], ">=>1")


@pytest.mark.requirement("R17")
def test_sort_ascending():
    items = ["1.0.0", "1.0.0-rc.1", "0.9.0", "1.0.0-alpha", "1.0.0-alpha.1"]
    result = sort_versions(items)
    assert [str(v) for v in result] == [
        "0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-rc.1", "1.0.0",
    ]
    assert all(isinstance(v, Version) for v in result)
    assert items[0] == "1.0.0"


@pytest.mark.requirement("R17")
def test_sort_descending():
    items = ["1.10.0", "1.2.0", "1.9.0-beta.11", "1.9.0-beta.2", "1.9.0"]
    result = sort_versions(items, reverse=True)
    assert [str(v) for v in result] == [
        "1.10.0", "1.9.0", "1.9.0-beta.11", "1.9.0-beta.2", "1.2.0",
    ]


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("reverse", [False, True])
def test_sort_is_stable(reverse):
    items = ["1.0.0+b", "0.1.0", "1.0.0+a", "1.0.0+c"]
    result = [str(v) for v in sort_versions(items, reverse=reverse)]
    ones = [text for text in result if text.startswith("1.0.0")]
    assert ones == ["1.0.0+b", "1.0.0+a", "1.0.0+c"]
    assert result[0 if not reverse else -1] == "0.1.0"


@pytest.mark.requirement("R17")
def test_sort_does_not_modify_input_and_matches_sorted():
    items = [parse("2.0.0"), parse("1.0.0-2"), parse("1.0.0-10"), parse("1.0.0-a")]
    copy = list(items)
    result = sort_versions(items)
    assert items == copy and items is not result
    assert result == sorted(items)
    assert [str(v) for v in sorted(items)] == ["1.0.0-2", "1.0.0-10", "1.0.0-a", "2.0.0"]


@pytest.mark.requirement("R17")
def test_sort_empty_and_invalid():
    assert sort_versions([]) == []
    with pytest.raises(InvalidVersion):
        sort_versions(["1.0.0", "one"])
