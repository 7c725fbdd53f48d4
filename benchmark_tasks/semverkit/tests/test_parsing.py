"""R1 strict parsing and R2 rejection of invalid version strings."""

import pytest

from semverkit import InvalidVersion, Version, is_valid, parse


@pytest.mark.requirement("R1")
def test_parse_plain_release():
    v = Version.parse("1.2.3")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    assert v.prerelease == ()
    assert v.build == ()
    assert v.is_prerelease is False


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "text, prerelease, build",
    [
        ("1.0.0-alpha.1", ("alpha", 1), ()),
        ("1.0.0-x-y-z.--", ("x-y-z", "--"), ()),
        ("1.0.0+20130313144700", (), ("20130313144700",)),
        ("1.0.0-beta+exp.sha.5114f85", ("beta",), ("exp", "sha", "5114f85")),
        ("1.0.0-0A.is.legal", ("0A", "is", "legal"), ()),
        ("1.0.0+001", (), ("001",)),
        ("1.0.0-0.3.7", (0, 3, 7), ()),
        ("0.0.0-rc-1+build-2.0", ("rc-1",), ("build-2", "0")),
    ],
)
def test_parse_prerelease_and_build(text, prerelease, build):
    v = Version.parse(text)
    assert v.prerelease == prerelease
    assert v.build == build
    assert v.is_prerelease is bool(prerelease)


@pytest.mark.requirement("R1")
def test_numeric_prerelease_identifiers_are_ints():
    v = parse("2.0.0-rc.10")
    assert v.prerelease == ("rc", 10)
    assert isinstance(v.prerelease[1], int)
    assert isinstance(v.major, int)


@pytest.mark.requirement("R1")
def test_parse_function_matches_classmethod():
    v = parse("10.20.30-beta.2+exp")
    assert isinstance(v, Version)
    assert (v.major, v.minor, v.patch) == (10, 20, 30)
    assert v.prerelease == ("beta", 2)
    assert v.build == ("exp",)


@pytest.mark.requirement("R1")
def test_parse_huge_numbers():
    v = parse("99999999999999999999.0.0")
    assert v.major == 99999999999999999999


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "value, expected",
    [("1.2.3", True), ("1.0.0-alpha+b", True), ("1.2", False), ("v1.2.3", False),
     ("", False), (None, False), (123, False), (b"1.2.3", False)],
)
def test_is_valid(value, expected):
    assert is_valid(value) is expected


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "01.2.3",
        "1.02.3",
        "1.2.03",
        "v1.2.3",
        "=1.2.3",
        " 1.2.3",
        "1.2.3 ",
        "1.2.3\n",
        "1.2.3-",
        "1.2.3+",
        "1.2.3-alpha..1",
        "1.2.3-01",
        "1.2.3-alpha.01",
        "1.2.3+build..1",
        "1.2.3-alpha_beta",
        "1.2.-3",
        "a.b.c",
        "1.2.3-\u00e4",
        "\uff11.2.3",
    ],
)
def test_invalid_versions_rejected(text):
    with pytest.raises(InvalidVersion):
        Version.parse(text)
    with pytest.raises(InvalidVersion):
        parse(text)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("text", ["1.2", "v1.2.3", "1.2.3-01"])
def test_invalid_version_message_contains_text(text):
    with pytest.raises(InvalidVersion) as excinfo:
        parse(text)
    assert text in str(excinfo.value)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("value", [None, 123, (1, 2, 3)])
def test_parse_non_string_raises_type_error(value):
    with pytest.raises(TypeError):
        Version.parse(value)
