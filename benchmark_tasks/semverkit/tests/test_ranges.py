"""R9-R15: npm-style ranges."""

import pytest

from semverkit import InvalidRange, InvalidVersion, Range, Version, parse, satisfies


def _check(range_text, inside, outside):
    rng = Range(range_text)
    for version in inside:
        assert rng.contains(version), f"{version} should be in {range_text!r}"
    for version in outside:
        assert not rng.contains(version), f"{version} should not be in {range_text!r}"


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("1.2.3", ["1.2.3", "1.2.3+build"], ["1.2.4", "1.2.2", "1.2.3-rc.1"]),
        ("=1.2.3", ["1.2.3"], ["1.2.4"]),
        (">=1.2.3", ["1.2.3", "9.0.0"], ["1.2.2", "0.0.0"]),
        (">1.2.3", ["1.2.4", "2.0.0"], ["1.2.3", "1.0.0"]),
        ("<1.2.3", ["1.2.2", "0.0.0"], ["1.2.3", "1.3.0"]),
        ("<=1.2.3", ["1.2.3", "1.2.2"], ["1.2.4"]),
        (">= 1.2.3", ["1.2.3"], ["1.2.2"]),
        ("*", ["0.0.0", "1.2.3", "99.0.0"], []),
        ("x", ["0.0.0", "5.6.7"], []),
        ("X", ["3.0.0"], []),
        ("", ["0.0.0", "1.0.0"], []),
        ("   ", ["2.0.0"], []),
    ],
)
def test_primitive_comparators(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("1", ["1.0.0", "1.9.9"], ["0.9.9", "2.0.0"]),
        ("1.x", ["1.0.0", "1.9.9"], ["2.0.0", "0.1.0"]),
        ("1.x.x", ["1.5.0"], ["2.0.0"]),
        ("1.*", ["1.2.3"], ["2.0.0"]),
        ("=1", ["1.0.0", "1.99.0"], ["2.0.0"]),
        ("=1.x", ["1.4.0"], ["2.0.0"]),
        ("1.2", ["1.2.0", "1.2.99"], ["1.1.9", "1.3.0"]),
        ("1.2.x", ["1.2.5"], ["1.3.0"]),
        ("1.2.*", ["1.2.0"], ["1.3.0"]),
        ("=1.2", ["1.2.9"], ["1.3.0"]),
        ("*.x", ["0.0.1"], []),
    ],
)
def test_x_ranges(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        (">=1", ["1.0.0"], ["0.9.9"]),
        (">=1.2", ["1.2.0"], ["1.1.9"]),
        (">1", ["2.0.0"], ["1.9.9"]),
        (">1.2", ["1.3.0"], ["1.2.9"]),
        ("<1", ["0.9.9"], ["1.0.0"]),
        ("<1.2", ["1.1.9"], ["1.2.0"]),
        ("<=1", ["1.9.9"], ["2.0.0"]),
        ("<=1.2", ["1.2.9"], ["1.3.0"]),
        (">=1.x", ["1.0.0"], ["0.9.0"]),
        ("<=1.2.x", ["1.2.99"], ["1.3.0"]),
    ],
)
def test_operator_with_partial(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R9")
def test_contains_accepts_version_objects_and_in_operator():
    rng = Range(">=1.2.3")
    assert rng.contains(Version(1, 2, 3))
    assert parse("2.0.0") in rng
    assert "1.0.0" not in rng
    assert Range("1.2.3+build").contains("1.2.3")


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("~1.2.3", ["1.2.3", "1.2.99"], ["1.2.2", "1.3.0"]),
        ("~1.2.3-beta.2", ["1.2.3-beta.2", "1.2.3-beta.3", "1.2.3", "1.2.9"],
         ["1.2.3-beta.1", "1.3.0"]),
        ("~1.2", ["1.2.0", "1.2.9"], ["1.1.9", "1.3.0"]),
        ("~1.2.x", ["1.2.0"], ["1.3.0"]),
        ("~1", ["1.0.0", "1.9.0"], ["0.9.0", "2.0.0"]),
        ("~1.x", ["1.5.0"], ["2.0.0"]),
        ("~0.2.3", ["0.2.3", "0.2.9"], ["0.2.2", "0.3.0"]),
        ("~ 1.2.3", ["1.2.4"], ["1.3.0"]),
    ],
)
def test_tilde(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("^1.2.3", ["1.2.3", "1.9.9"], ["1.2.2", "2.0.0"]),
        ("^1.2.3-beta.2", ["1.2.3-beta.2", "1.2.3-beta.4", "1.2.3", "1.8.0"],
         ["1.2.3-beta.1", "2.0.0"]),
        ("^0.2.3", ["0.2.3", "0.2.9"], ["0.2.2", "0.3.0"]),
        ("^0.0.3", ["0.0.3"], ["0.0.2", "0.0.4", "0.1.0"]),
        ("^0.0.3-beta", ["0.0.3-beta", "0.0.3-pr.2", "0.0.3"], ["0.0.3-alpha", "0.0.4"]),
        ("^1.2", ["1.2.0", "1.9.0"], ["1.1.9", "2.0.0"]),
        ("^1.2.x", ["1.2.0"], ["2.0.0"]),
        ("^0.2", ["0.2.0", "0.2.9"], ["0.1.9", "0.3.0"]),
        ("^0.2.x", ["0.2.5"], ["0.3.0"]),
        ("^0.0", ["0.0.0", "0.0.9"], ["0.1.0"]),
        ("^0.0.x", ["0.0.5"], ["0.1.0"]),
        ("^1", ["1.0.0", "1.9.9"], ["0.9.9", "2.0.0"]),
        ("^1.x", ["1.1.0"], ["2.0.0"]),
        ("^0", ["0.0.0", "0.9.9"], ["1.0.0"]),
        ("^0.x", ["0.5.0"], ["1.0.0"]),
        ("^ 2.1.0", ["2.1.0"], ["3.0.0"]),
    ],
)
def test_caret(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R10")
@pytest.mark.parametrize("range_text", ["~*", "^*", "^x", "~X"])
def test_tilde_caret_with_full_wildcard_invalid(range_text):
    with pytest.raises(InvalidRange):
        Range(range_text)


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("1.2.3 - 2.3.4", ["1.2.3", "2.0.0", "2.3.4"], ["1.2.2", "2.3.5"]),
        ("1.2 - 2.3.4", ["1.2.0", "2.3.4"], ["1.1.9", "2.3.5"]),
        ("1.2.3 - 2.3", ["1.2.3", "2.3.99"], ["1.2.2", "2.4.0"]),
        ("1.2.3 - 2", ["2.9.9"], ["1.2.2", "3.0.0"]),
        ("1.x - 2.x", ["1.0.0", "2.9.9"], ["0.9.9", "3.0.0"]),
        ("1.2.3-alpha - 1.2.5", ["1.2.3-alpha", "1.2.3-beta", "1.2.5"], ["1.2.3-0", "1.2.6"]),
        ("1.0.0   -\t2.0.0", ["1.5.0"], ["2.0.1"]),
    ],
)
def test_hyphen_ranges(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R11")
def test_hyphen_needs_spaces():
    rng = Range("1.2.3-2.3.4")
    assert rng.contains("1.2.3-2.3.4")
    assert not rng.contains("2.0.0")
    assert not rng.contains("1.2.3")


@pytest.mark.requirement("R11")
def test_hyphen_range_in_union():
    _check("1.0.0 - 1.2.0 || 3.0.0 - 3.1.0", ["1.1.0", "3.0.5"], ["2.0.0", "3.1.1"])


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        (">=1.2.7 <1.3.0", ["1.2.7", "1.2.8", "1.2.99"], ["1.2.6", "1.3.0", "1.1.0"]),
        ("1.2.7 || >=1.2.9 <2.0.0", ["1.2.7", "1.2.9", "1.4.6"], ["1.2.8", "2.0.0"]),
        ("^1.2 ~1.4", ["1.4.0", "1.4.5"], ["1.3.0", "1.5.0"]),
        ("<1.0.0 || >=3.0.0||=2.0.0", ["0.9.0", "2.0.0", "3.1.0"], ["1.5.0", "2.0.1"]),
        (">2.0.0 <1.0.0", [], ["0.5.0", "1.5.0", "2.5.0"]),
        ("  >=1.0.0\t\t<1.1.0  ", ["1.0.5"], ["1.1.0"]),
        (">=1.0.0 * <2", ["1.5.0"], ["2.0.0", "0.9.0"]),
        ("1.x || 3.x || 5.x", ["1.1.1", "3.0.0", "5.9.0"], ["2.0.0", "4.0.0", "6.0.0"]),
    ],
)
def test_intersections_and_unions(range_text, inside, outside):
    _check(range_text, inside, outside)


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "version, range_spec, expected",
    [
        ("1.2.3", "^1.0.0", True),
        ("2.0.0", "^1.0.0", False),
        (Version(1, 4, 0), "~1.4 || ~1.6", True),
        ("1.5.0", Range("~1.4 || ~1.6"), False),
        (parse("1.6.2"), Range("~1.4 || ~1.6"), True),
    ],
)
def test_satisfies(version, range_spec, expected):
    assert satisfies(version, range_spec) is expected


@pytest.mark.requirement("R12")
def test_contains_rejects_bad_versions():
    rng = Range("^1.0.0")
    with pytest.raises(InvalidVersion):
        rng.contains("1.0")
    with pytest.raises(InvalidVersion):
        "v1.2.3" in rng
    with pytest.raises(TypeError):
        rng.contains(1)


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "version, range_text, expected",
    [
        ("3.0.0-beta", ">=1.0.0", False),
        ("3.0.0-beta", "*", False),
        ("3.0.0-beta", "", False),
        ("1.2.3-beta.3", ">=1.2.3-beta.2 <2.0.0", True),
        ("1.2.3-beta.3", "^1.2.3-beta.2", True),
        ("1.2.4-beta.3", "^1.2.3-beta.2", False),
        ("1.2.3-beta.1", "^1.2.3-beta.2", False),
        ("1.2.3-alpha", "=1.2.3-alpha", True),
        ("1.2.3-alpha", "1.2.3-alpha - 1.2.5", True),
        ("2.0.1-alpha", "1.2.3-alpha.7 || >=2.0.0", False),
        ("2.0.0-rc.1", "<2.0.0", False),
        ("2.0.0-rc.1", "^1.0.0", False),
        ("1.0.0-rc.1", "<1.0.0", False),
        ("1.0.0-rc.2", ">=1.0.0-rc.1", True),
        ("1.0.0-rc.2", ">=0.9.0 <=1.0.0-rc.5", True),
        ("1.0.0-rc.2", ">=1.0.0-rc.1 || >=2.0.0", True),
        ("1.0.0-rc.2", ">=2.0.0 || >=1.0.0-rc.1", True),
        ("1.0.1-rc.2", ">=1.0.0-rc.1", False),
        ("1.2.3", ">=1.2.3-beta.2", True),
    ],
)
def test_prerelease_rule(version, range_text, expected):
    assert Range(range_text).contains(version) is expected
    assert satisfies(version, range_text) is expected


@pytest.mark.requirement("R13")
def test_prerelease_rule_is_per_set():
    rng = Range(">=1.0.0-beta <1.0.1 || >=1.0.0")
    assert rng.contains("1.0.0-beta.1")
    assert not rng.contains("1.0.1-beta.1")
    other = Range(">=4.0.0 || >=5.0.0-beta <6.0.0")
    assert other.contains("5.0.0-beta.2")
    assert not other.contains("5.1.0-beta")


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "range_text",
    [
        "~>1.2",
        "!1.2.3",
        "=>1.2",
        "1.2.3a",
        "v1.2.3",
        "1.2.3.4",
        "01.2",
        "1.02.3",
        "1.2-beta",
        "1.x-beta",
        "1.x.3",
        "*.1",
        ">=*",
        "<x",
        "^x",
        ">=",
        "1.2.3 <",
        "1.2.3 ||",
        "|| 1.2.3",
        "1 || || 2",
        "1.2.3 -",
        "- 1.2.3",
        "1 - 2 - 3",
        ">=1 - 2",
        "1.2.3 - 2.0.0 >1",
        "* - 2",
        "1.2.3 | 2.0.0",
        "1.2.3-01",
    ],
)
def test_invalid_ranges(range_text):
    with pytest.raises(InvalidRange):
        Range(range_text)


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("range_text", ["~>1.2", "1.2.3 ||", "1 - 2 - 3"])
def test_invalid_range_message_contains_text(range_text):
    with pytest.raises(InvalidRange) as excinfo:
        Range(range_text)
    assert range_text in str(excinfo.value)


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("value", [None, 1, ["^1.0.0"]])
def test_range_non_string(value):
    with pytest.raises(TypeError):
        Range(value)


@pytest.mark.requirement("R14")
def test_satisfies_with_invalid_range():
    with pytest.raises(InvalidRange):
        satisfies("1.2.3", ">=1.2.3.4")


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "range_text, canonical",
    [
        ("^1.2.3", ">=1.2.3 <2.0.0"),
        ("  1.x ||   =2.0.0+b ", ">=1.0.0 <2.0.0 || 2.0.0"),
        (">= 1.2.3 * <  2", ">=1.2.3 <2.0.0"),
        ("", "*"),
        ("*", "*"),
        ("x || 1.2.3", "* || 1.2.3"),
        ("1.2.3 - 2", ">=1.2.3 <3.0.0"),
        ("1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4"),
        ("=1.2.3", "1.2.3"),
        ("1.2.3-rc.1+build.5", "1.2.3-rc.1"),
        (">1.2", ">=1.3.0"),
        ("<=1", "<2.0.0"),
        ("<1.2.x", "<1.2.0"),
        ("~1.2.3-beta.2", ">=1.2.3-beta.2 <1.3.0"),
        ("~1", ">=1.0.0 <2.0.0"),
        ("^0.0.3", ">=0.0.3 <0.0.4"),
        ("^0.0", ">=0.0.0 <0.1.0"),
        ("^0.x", ">=0.0.0 <1.0.0"),
        ("^0.2.3 ~0.2.5", ">=0.2.3 <0.3.0 >=0.2.5 <0.3.0"),
        ("<1.0.0||>=3.0.0", "<1.0.0 || >=3.0.0"),
    ],
)
def test_canonical_string(range_text, canonical):
    assert str(Range(range_text)) == canonical


@pytest.mark.requirement("R15")
def test_range_repr():
    assert repr(Range("~1.2")) == "Range('>=1.2.0 <1.3.0')"
    assert repr(Range("")) == "Range('*')"


@pytest.mark.requirement("R15")
def test_range_equality_and_hash():
    assert Range("~1.2") == Range("1.2.x")
    assert hash(Range("~1.2")) == hash(Range("1.2.x"))
    assert Range("^1.2.3") == Range(">=1.2.3   <2.0.0")
    assert Range("^1.2.3") != Range("~1.2.3")
    assert (Range("1.2.3") == "1.2.3") is False
    assert len({Range("1.x"), Range("1"), Range("1.*")}) == 1
