"""R8 coercion of loose strings."""

import pytest

from semverkit import InvalidVersion, Version, coerce

pytestmark = pytest.mark.requirement("R8")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("v1.2", "1.2.0"),
        ("1", "1.0.0"),
        ("1.2.3", "1.2.3"),
        ("v2.0.1-beta+5", "2.0.1"),
        ("release 3.4.5.6", "3.4.5"),
        ("01.002.0003", "1.2.3"),
        ("1..2", "1.0.0"),
        ("1.2.", "1.2.0"),
        ("x1y2", "1.0.0"),
        ("  =v10.20  ", "10.20.0"),
        ("version-42", "42.0.0"),
        ("tag: 0.0.7rc1", "0.0.7"),
        ("\uff11.2.3", "2.3.0"),
    ],
)
def test_coerce(text, expected):
    result = coerce(text)
    assert isinstance(result, Version)
    assert str(result) == expected


def test_coerce_drops_prerelease_and_build():
    result = coerce("1.2.3-alpha.1+exp")
    assert result.prerelease == ()
    assert result.build == ()


@pytest.mark.parametrize("text", ["", "abc", "v.x.y", "\uff11"])
def test_coerce_without_digits_raises(text):
    with pytest.raises(InvalidVersion) as excinfo:
        coerce(text)
    assert text in str(excinfo.value)


@pytest.mark.parametrize("value", [None, 1, 1.2])
def test_coerce_non_string(value):
    with pytest.raises(TypeError):
        coerce(value)
