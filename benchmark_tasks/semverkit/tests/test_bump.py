"""R6 major/minor/patch bumps and R7 pre-release bumps."""

import pytest

from semverkit import InvalidVersion, Version, bump, parse


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "text, part, expected",
    [
        ("1.2.3", "major", "2.0.0"),
        ("1.2.3", "minor", "1.3.0"),
        ("1.2.3", "patch", "1.2.4"),
        ("1.2.3+build", "patch", "1.2.4"),
        ("0.0.0", "patch", "0.0.1"),
        ("0.9.9", "major", "1.0.0"),
        ("2.0.0-rc.1", "major", "2.0.0"),
        ("1.2.0-rc.1", "major", "2.0.0"),
        ("1.2.0-rc.1", "minor", "1.2.0"),
        ("1.2.3-rc.1", "minor", "1.3.0"),
        ("1.2.3-rc.1", "patch", "1.2.3"),
        ("1.0.0-alpha+b.1", "minor", "1.0.0"),
        ("1.2.9", "minor", "1.3.0"),
    ],
)
def test_bump_parts(text, part, expected):
    assert str(parse(text).bump(part)) == expected
    assert str(bump(text, part)) == expected


@pytest.mark.requirement("R6")
def test_bump_returns_new_version_and_keeps_original():
    v = parse("1.2.3+meta")
    bumped = v.bump("minor")
    assert isinstance(bumped, Version)
    assert str(v) == "1.2.3+meta"
    assert bumped.build == ()
    assert isinstance(bump(Version(1, 2, 3), "major"), Version)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("part", ["build", "Major", "", "pre"])
def test_bump_unknown_part(part):
    with pytest.raises(ValueError) as excinfo:
        parse("1.2.3").bump(part)
    if part:
        assert part in str(excinfo.value)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("part", ["major", "minor", "patch"])
def test_identifier_only_with_prerelease(part):
    with pytest.raises(ValueError):
        parse("1.2.3").bump(part, "alpha")


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "text, identifier, expected",
    [
        ("1.2.3", None, "1.2.4-0"),
        ("1.2.3", "alpha", "1.2.4-alpha.0"),
        ("1.2.3+build", "rc", "1.2.4-rc.0"),
        ("1.2.4-alpha.3", "beta", "1.2.4-beta.0"),
        ("1.2.4-alpha.0", None, "1.2.4-alpha.1"),
        ("1.2.4-alpha.1", "alpha", "1.2.4-alpha.2"),
        ("1.0.0-rc.1.beta", None, "1.0.0-rc.2.beta"),
        ("1.0.0-alpha", None, "1.0.0-alpha.0"),
        ("1.0.0-alpha", "alpha", "1.0.0-alpha.0"),
        ("1.0.0-9", None, "1.0.0-10"),
        ("1.0.0-1.2", None, "1.0.0-1.3"),
        ("1.0.0-0.alpha", "beta", "1.0.0-beta.0"),
        ("2.0.0-beta.9+exp", None, "2.0.0-beta.10"),
    ],
)
def test_bump_prerelease(text, identifier, expected):
    assert str(parse(text).bump("prerelease", identifier)) == expected
    assert str(bump(text, "prerelease", identifier)) == expected


@pytest.mark.requirement("R7")
def test_bump_prerelease_keyword_and_result_type():
    result = Version(3, 1, 4).bump("prerelease", identifier="dev")
    assert result == parse("3.1.5-dev.0")
    assert result.prerelease == ("dev", 0)
    assert result > Version(3, 1, 4)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("identifier", ["", "1", "a.b", "a_b", "007"])
def test_bump_prerelease_invalid_identifier(identifier):
    with pytest.raises(InvalidVersion):
        parse("1.2.3").bump("prerelease", identifier)
