"""R18 exception hierarchy."""

import pytest

from semverkit import InvalidRange, InvalidVersion, Range, SemverError, parse, satisfies

pytestmark = pytest.mark.requirement("R18")


def test_base_is_value_error():
    assert issubclass(SemverError, ValueError)
    assert issubclass(SemverError, Exception)


@pytest.mark.parametrize("cls", [InvalidVersion, InvalidRange])
def test_subclasses_of_semver_error(cls):
    assert issubclass(cls, SemverError)
    assert issubclass(cls, ValueError)


def test_subclasses_are_distinct():
    assert not issubclass(InvalidVersion, InvalidRange)
    assert not issubclass(InvalidRange, InvalidVersion)


@pytest.mark.parametrize("call", [lambda: parse("1.2"), lambda: Range(">=>1")])
def test_catchable_as_base(call):
    with pytest.raises(SemverError):
        call()
    with pytest.raises(ValueError):
        call()


def test_invalid_range_never_invalid_version():
    with pytest.raises(InvalidRange) as excinfo:
        Range("1.2.3-01")
    assert not isinstance(excinfo.value, InvalidVersion)


def test_bad_version_in_satisfies_is_invalid_version():
    with pytest.raises(InvalidVersion) as excinfo:
        satisfies("bad", "^1.0.0")
    assert not isinstance(excinfo.value, InvalidRange)
