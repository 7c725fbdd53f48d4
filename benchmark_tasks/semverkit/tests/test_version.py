"""R3 construction/immutability, R4 string form, R5 precedence."""

import pytest

from semverkit import InvalidVersion, Version, compare, parse


@pytest.mark.requirement("R3")
def test_construct_from_parts():
    v = Version(1, 2, 3, "alpha.1", "b.7")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    assert v.prerelease == ("alpha", 1)
    assert v.build == ("b", "7")


@pytest.mark.requirement("R3")
def test_construct_defaults_and_iterables():
    assert Version(0, 0, 0).prerelease == ()
    assert Version(0, 0, 0).build == ()
    assert Version(1, 0, 0, ["rc", "2"]).prerelease == ("rc", 2)
    assert Version(1, 0, 0, ("rc", 2), ["001"]).build == ("001",)
    assert Version(1, 0, 0, "", "").prerelease == ()
    assert Version(1, 0, 0, prerelease="beta", build="x").is_prerelease


@pytest.mark.requirement("R3")
def test_constructed_equals_parsed():
    assert Version(1, 0, 0, ["rc", "2"]) == parse("1.0.0-rc.2")
    assert hash(Version(1, 0, 0, ("rc", 2))) == hash(parse("1.0.0-rc.2"))


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "args",
    [
        (-1, 0, 0),
        (1, -2, 0),
        (1, 0, -3),
        ("1", 0, 0),
        (1.0, 0, 0),
        (True, 0, 0),
        (1, 0, 0, "01"),
        (1, 0, 0, "a_b"),
        (1, 0, 0, "alpha..1"),
        (1, 0, 0, ["alpha", ""]),
        (1, 0, 0, [-1]),
        (1, 0, 0, (), "a..b"),
        (1, 0, 0, (), ["ok", "bad!"]),
    ],
)
def test_construct_invalid_raises(args):
    with pytest.raises(InvalidVersion):
        Version(*args)


@pytest.mark.requirement("R3")
def test_version_is_immutable():
    v = parse("1.2.3")
    with pytest.raises(AttributeError):
        v.major = 5
    with pytest.raises(AttributeError):
        v.foo = 1
    with pytest.raises(AttributeError):
        del v.minor
    assert v == parse("1.2.3")


@pytest.mark.requirement("R3")
def test_hashable_and_build_ignored_in_sets():
    assert len({parse("1.0.0+a"), parse("1.0.0+b"), parse("1.0.0")}) == 1
    mapping = {parse("1.2.3"): "x"}
    assert mapping[Version(1, 2, 3)] == "x"
    assert hash(parse("1.0.0+a")) == hash(parse("1.0.0+b"))


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "text",
    [
        "0.0.0",
        "1.2.3",
        "1.0.0-alpha.1",
        "1.0.0-x-y-z.--",
        "1.0.0+001",
        "1.0.0-beta+exp.sha.5114f85",
        "1.0.0-0A.is.legal",
        "99999999999999999999.1.2-rc.0+b",
    ],
)
def test_str_round_trip(text):
    assert str(Version.parse(text)) == text


@pytest.mark.requirement("R4")
def test_str_of_constructed_version():
    assert str(Version(1, 2, 3, ("alpha", 1), "b.7")) == "1.2.3-alpha.1+b.7"
    assert str(Version(0, 0, 0)) == "0.0.0"
    assert str(Version(4, 5, 6, build=["x", "01"])) == "4.5.6+x.01"


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "text", ["1.0.0-rc.1", "1.2.3", "0.1.0+build.5"]
)
def test_repr(text):
    assert repr(parse(text)) == f"Version('{text}')"


PRECEDENCE_CHAIN = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "2.0.0",
    "2.1.0",
    "2.1.1",
]


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("index", range(len(PRECEDENCE_CHAIN) - 1))
def test_precedence_chain(index):
    low = parse(PRECEDENCE_CHAIN[index])
    high = parse(PRECEDENCE_CHAIN[index + 1])
    assert low < high
    assert high > low
    assert low <= high and high >= low
    assert low != high
    assert compare(low, high) == -1
    assert compare(high, low) == 1


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("1.10.0", "1.9.0", 1),
        ("1.0.10", "1.0.9", 1),
        ("10.0.0", "9.99.99", 1),
        ("1.0.0-2", "1.0.0-11", -1),
        ("1.0.0-Beta", "1.0.0-alpha", -1),
        ("1.0.0-alpha.10", "1.0.0-alpha.9", 1),
        ("1.0.0-alpha1", "1.0.0-alpha10", -1),
        ("1.0.0-999", "1.0.0-a", -1),
        ("1.0.0-a.b.c", "1.0.0-a.b", 1),
        ("1.0.0+a", "1.0.0+b", 0),
        ("1.0.0-rc.1+x", "1.0.0-rc.1", 0),
        ("1.2.3", "1.2.3", 0),
    ],
)
def test_compare_strings(a, b, expected):
    assert compare(a, b) == expected
    assert compare(b, a) == -expected


@pytest.mark.requirement("R5")
def test_equality_ignores_build():
    assert parse("1.0.0+a") == parse("1.0.0+b")
    assert not parse("1.0.0+a") != parse("1.0.0+b")
    assert parse("1.0.0+a") <= parse("1.0.0+b") <= parse("1.0.0+a")


@pytest.mark.requirement("R5")
def test_compare_accepts_mixed_types():
    assert compare(parse("1.0.0"), "1.0.1") == -1
    assert compare("2.0.0", Version(1, 9, 9)) == 1


@pytest.mark.requirement("R5")
def test_comparison_with_non_version():
    v = parse("1.0.0")
    assert (v == "1.0.0") is False
    assert v != "1.0.0"
    with pytest.raises(TypeError):
        v < "1.0.1"
    with pytest.raises(TypeError):
        v >= 1


@pytest.mark.requirement("R5")
def test_compare_invalid_string_raises():
    with pytest.raises(InvalidVersion):
        compare("1.0", "1.0.0")
