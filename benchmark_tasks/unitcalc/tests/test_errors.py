"""R16: exception hierarchy and messages."""

import pytest

from unitcalc import (
    DimensionalityError,
    OffsetUnitError,
    Quantity,
    Unit,
    UnitError,
    UnitParseError,
    UnknownUnit,
)


@pytest.mark.requirement("R16")
@pytest.mark.parametrize("cls", [UnknownUnit, UnitParseError, DimensionalityError, OffsetUnitError])
def test_subclasses_of_unit_error(cls):
    assert issubclass(cls, UnitError)
    assert issubclass(UnitError, Exception)


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "action",
    [
        lambda: Unit("foo"),
        lambda: Unit("m/"),
        lambda: Quantity(1, "m").to("s"),
        lambda: Unit("degC/s"),
        lambda: Quantity(1, "m") + Quantity(1, "kg"),
    ],
)
def test_catch_all_with_unit_error(action):
    with pytest.raises(UnitError):
        action()


@pytest.mark.requirement("R16")
def test_dimensionality_error_message_exact():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "N").to("J")
    assert str(info.value) == (
        "incompatible dimensions: 'N' ([length]*[mass]/[time]^2) "
        "and 'J' ([length]^2*[mass]/[time]^2)"
    )


@pytest.mark.requirement("R16")
def test_dimensionality_error_attributes_and_both_dimensions():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "km/h") + Quantity(1, "kg")
    err = info.value
    assert err.unit1 == "km/h"
    assert err.dim1 == "[length]/[time]"
    assert err.unit2 == "kg"
    assert err.dim2 == "[mass]"
    assert "[length]/[time]" in str(err)
    assert "[mass]" in str(err)
    assert str(err) == "incompatible dimensions: 'km/h' ([length]/[time]) and 'kg' ([mass])"


@pytest.mark.requirement("R16")
def test_dimensionality_error_for_comparison():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "m") < Quantity(1, "1/s")
    assert str(info.value) == "incompatible dimensions: 'm' ([length]) and '1/s' (1/[time])"


@pytest.mark.requirement("R16")
def test_unknown_unit_attribute_and_message():
    with pytest.raises(UnknownUnit) as info:
        Unit("m*parsecs")
    assert info.value.name == "parsecs"
    assert str(info.value) == "unknown unit: 'parsecs'"


@pytest.mark.requirement("R16")
def test_offset_unit_error_message():
    with pytest.raises(OffsetUnitError) as info:
        Quantity(1, "degF") * Quantity(1, "m")
    assert "offset unit" in str(info.value)
