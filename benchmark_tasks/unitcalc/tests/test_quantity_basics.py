"""R1 (construction and attributes) and R7 (conversion)."""

import math

import pytest

from unitcalc import DimensionalityError, Quantity, Unit


@pytest.mark.requirement("R1")
def test_value_is_stored_as_float():
    q = Quantity(3, "m")
    assert q.value == 3.0
    assert isinstance(q.value, float)


@pytest.mark.requirement("R1")
def test_unit_from_string_and_unit_object():
    assert str(Quantity(3, "m").unit) == "m"
    assert Quantity(3, "m").unit == Unit("m")
    assert Quantity(3, Unit("m/s")).unit == Unit("m/s")


@pytest.mark.requirement("R1")
def test_default_unit_is_dimensionless():
    q = Quantity(2)
    assert q.unit == Unit()
    assert str(q.unit) == ""
    assert q.dimensionality == "[dimensionless]"


@pytest.mark.requirement("R1")
def test_dimensionality_property():
    assert Quantity(1, "m/s").dimensionality == "[length]/[time]"


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("args", [("3", "m"), (None,), (True, "m"), (3, 5)])
def test_wrong_argument_types_raise_type_error(args):
    with pytest.raises(TypeError):
        Quantity(*args)


@pytest.mark.requirement("R1")
def test_attributes_are_read_only():
    q = Quantity(3, "m")
    with pytest.raises(AttributeError):
        q.value = 4.0
    with pytest.raises(AttributeError):
        q.unit = Unit("s")


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "quantity, expected",
    [(Quantity(3, "m/s"), "Quantity(3.0, 'm/s')"), (Quantity(2), "Quantity(2.0, '')")],
)
def test_repr(quantity, expected):
    assert repr(quantity) == expected


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (100, "km/h", "m/s", 27.77777777777778),
        (1, "km", "m", 1000.0),
        (2500, "mm", "m", 2.5),
        (1, "N", "kg*m/s^2", 1.0),
        (1, "kJ", "cal", 239.00573613766730),
        (3, "m^2", "cm^2", 30000.0),
        (1, "kHz", "1/s", 1000.0),
    ],
)
def test_to_converts_values(value, source, target, expected):
    result = Quantity(value, source).to(target)
    assert result.value == pytest.approx(expected)
    assert result.unit == Unit(target)


@pytest.mark.requirement("R7")
def test_to_accepts_unit_object_and_uses_canonical_target():
    result = Quantity(1, "m/s").to(Unit("h^-1*km"))
    assert str(result.unit) == "km/h"
    assert result.value == pytest.approx(3.6)


@pytest.mark.requirement("R7")
def test_to_does_not_modify_original():
    q = Quantity(1, "km")
    q.to("m")
    assert q.value == 1.0
    assert str(q.unit) == "km"


@pytest.mark.requirement("R7")
def test_to_incompatible_raises_with_source_and_target():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "m").to("s")
    err = info.value
    assert (err.unit1, err.dim1, err.unit2, err.dim2) == ("m", "[length]", "s", "[time]")


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "value, unit, expected_value, expected_unit",
    [
        (1, "N", 1.0, "kg*m/s^2"),
        (1, "kW*h", 3600000.0, "kg*m^2/s^2"),
        (1, "Pa", 1.0, "kg/(m*s^2)"),
        (1, "V", 1.0, "kg*m^2/(A*s^3)"),
        (3, "mmol/L", 3.0, "mol/m^3"),
        (0, "degC", 273.15, "K"),
        (5, "cd", 5.0, "cd"),
    ],
)
def test_to_base(value, unit, expected_value, expected_unit):
    result = Quantity(value, unit).to_base()
    assert result.value == pytest.approx(expected_value)
    assert str(result.unit) == expected_unit


@pytest.mark.requirement("R7")
def test_to_base_exact_string_and_angles():
    assert str(Quantity(1, "N").to_base()) == "1.0 kg*m/s^2"
    angle = Quantity(180, "deg").to_base()
    assert str(angle.unit) == ""
    assert angle.value == pytest.approx(math.pi)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "unit, other, expected",
    [
        ("J", "N*m", True),
        ("Hz", "1/s", True),
        ("m", "s", False),
        ("km/h", Unit("m/s"), True),
        ("kg", Quantity(3, "lb"), True),
        ("degC", "K", True),
        ("rad", "", True),
    ],
)
def test_is_compatible(unit, other, expected):
    assert Quantity(1, unit).is_compatible(other) is expected


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "quantity, expected", [(Quantity(50, "cm/m"), 0.5), (Quantity(3), 3.0), (Quantity(2, "m/km"), 0.002)]
)
def test_float_of_dimensionless(quantity, expected):
    assert float(quantity) == pytest.approx(expected)


@pytest.mark.requirement("R7")
def test_float_of_dimensional_quantity_raises():
    with pytest.raises(DimensionalityError) as info:
        float(Quantity(3, "m"))
    assert info.value.unit2 == ""
    assert info.value.dim2 == "[dimensionless]"
    assert info.value.dim1 == "[length]"
