"""R8 (addition/subtraction), R9 (multiplication, division, powers), R10 (comparison)."""

import pytest

from unitcalc import DimensionalityError, Quantity


def _check(quantity, value, unit):
    assert quantity.value == pytest.approx(value)
    assert str(quantity.unit) == unit


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "left, right, value, unit",
    [
        (Quantity(1, "km"), Quantity(500, "m"), 1.5, "km"),
        (Quantity(500, "m"), Quantity(1, "km"), 1500.0, "m"),
        (Quantity(1, "ft"), Quantity(6, "in"), 1.5, "ft"),
        (Quantity(2, "N"), Quantity(1, "kg*m/s^2"), 3.0, "N"),
        (Quantity(1, "m/km"), 1, 1001.0, "m/km"),
    ],
)
def test_addition_uses_left_unit(left, right, value, unit):
    _check(left + right, value, unit)


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "left, right, value, unit",
    [
        (Quantity(1, "h"), Quantity(30, "min"), 0.5, "h"),
        (Quantity(1, "km"), Quantity(1, "mi"), -0.609344, "km"),
        (Quantity(5, "kg"), Quantity(500, "g"), 4.5, "kg"),
    ],
)
def test_subtraction_uses_left_unit(left, right, value, unit):
    _check(left - right, value, unit)


@pytest.mark.requirement("R8")
def test_numbers_with_dimensionless_quantities():
    _check(Quantity(2) + 3, 5.0, "")
    _check(3 + Quantity(2), 5.0, "")
    _check(3 - Quantity(2), 1.0, "")
    _check(Quantity(2) - 0.5, 1.5, "")


@pytest.mark.requirement("R8")
def test_add_incompatible_quantities():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "m") + Quantity(1, "s")
    err = info.value
    assert (err.unit1, err.dim1, err.unit2, err.dim2) == ("m", "[length]", "s", "[time]")


@pytest.mark.requirement("R8")
def test_add_number_to_dimensional_quantity():
    with pytest.raises(DimensionalityError) as info:
        Quantity(1, "m") + 1
    assert (info.value.unit1, info.value.unit2, info.value.dim2) == ("m", "", "[dimensionless]")
    with pytest.raises(DimensionalityError) as info:
        1 + Quantity(1, "m")
    assert (info.value.unit1, info.value.unit2) == ("", "m")
    with pytest.raises(DimensionalityError):
        Quantity(1, "m") - 1


@pytest.mark.requirement("R8")
def test_add_non_number_raises_type_error():
    with pytest.raises(TypeError):
        Quantity(1, "m") + "1 m"
    with pytest.raises(TypeError):
        "1 m" - Quantity(1, "m")


@pytest.mark.requirement("R8")
def test_operands_are_not_modified():
    a, b = Quantity(1, "km"), Quantity(500, "m")
    a + b
    a - b
    _check(a, 1.0, "km")
    _check(b, 500.0, "m")


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "result, value, unit",
    [
        (Quantity(2, "m") * Quantity(3, "s"), 6.0, "m*s"),
        (Quantity(10, "km") / Quantity(2, "h"), 5.0, "km/h"),
        (Quantity(2, "m") * Quantity(3, "m"), 6.0, "m^2"),
        (Quantity(6, "m") / Quantity(2, "m"), 3.0, ""),
        (Quantity(1, "km") * Quantity(1, "m"), 1.0, "km*m"),
        (Quantity(3, "N") * Quantity(2, "m"), 6.0, "N*m"),
        (Quantity(4, "kg") * Quantity(2, "m/s^2"), 8.0, "kg*m/s^2"),
        (Quantity(1, "J") / Quantity(2, "kg*K"), 0.5, "J/(K*kg)"),
    ],
)
def test_quantity_products(result, value, unit):
    _check(result, value, unit)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "result, value, unit",
    [
        (Quantity(2, "m") * 3, 6.0, "m"),
        (3 * Quantity(2, "m"), 6.0, "m"),
        (Quantity(6, "m") / 4, 1.5, "m"),
        (2 / Quantity(4, "s"), 0.5, "1/s"),
        (2.5 * Quantity(2, "km/h"), 5.0, "km/h"),
    ],
)
def test_scaling_by_numbers(result, value, unit):
    _check(result, value, unit)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "result, value, unit",
    [
        (Quantity(3, "m") ** 2, 9.0, "m^2"),
        (Quantity(2, "s") ** -1, 0.5, "1/s"),
        (Quantity(5, "m/s") ** 0, 1.0, ""),
        (Quantity(2, "m/s") ** 3, 8.0, "m^3/s^3"),
        (Quantity(7, "kg") ** 1, 7.0, "kg"),
    ],
)
def test_integer_powers(result, value, unit):
    _check(result, value, unit)


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("exponent", [0.5, 2.0, True, Quantity(2)])
def test_non_integer_exponent(exponent):
    with pytest.raises(TypeError):
        Quantity(3, "m") ** exponent


@pytest.mark.requirement("R9")
def test_unary_operators():
    _check(-Quantity(3, "m"), -3.0, "m")
    _check(+Quantity(3, "m"), 3.0, "m")
    _check(abs(Quantity(-3, "km/h")), 3.0, "km/h")


@pytest.mark.requirement("R9")
def test_division_by_zero_and_bad_operands():
    with pytest.raises(ZeroDivisionError):
        Quantity(1, "m") / 0
    with pytest.raises(ZeroDivisionError):
        Quantity(1, "m") / Quantity(0, "s")
    with pytest.raises(TypeError):
        Quantity(1, "m") * "2"


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "left, right",
    [
        (Quantity(1, "km"), Quantity(1000, "m")),
        (Quantity(1, "mi"), Quantity(5280, "ft")),
        (Quantity(0, "degC"), Quantity(32, "degF")),
        (Quantity(1, "h"), Quantity(3600, "s")),
        (Quantity(3), 3),
        (Quantity(0.1 + 0.2, "m"), Quantity(0.3, "m")),
        (Quantity(1, "N*m"), Quantity(1, "J")),
    ],
)
def test_equal_across_units(left, right):
    assert left == right
    assert right == left
    assert not left != right


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "left, right",
    [
        (Quantity(1, "m"), Quantity(1, "s")),
        (Quantity(3, "m"), 3),
        (Quantity(1, "m"), "1 m"),
        (Quantity(1, "km"), Quantity(1001, "m")),
        (Quantity(1.0, "m"), Quantity(1.0 + 1e-8, "m")),
        (Quantity(0, "m"), Quantity(1e-12, "m")),
    ],
)
def test_not_equal(left, right):
    assert not left == right
    assert left != right


@pytest.mark.requirement("R10")
def test_ordering():
    assert Quantity(999, "m") < Quantity(1, "km")
    assert Quantity(1, "km") <= Quantity(1000, "m")
    assert Quantity(1, "km") >= Quantity(1000, "m")
    assert not Quantity(1, "km") < Quantity(1000, "m")
    assert not Quantity(1, "km") > Quantity(1000, "m")
    assert Quantity(1, "ft") > Quantity(12, "cm")
    assert Quantity(30, "degC") > Quantity(80, "degF")
    assert Quantity(0.5) < 1
    assert 2 > Quantity(1.5)


@pytest.mark.requirement("R10")
def test_sorting_mixed_units():
    items = [Quantity(1, "km"), Quantity(1, "mi"), Quantity(900, "m"), Quantity(3000, "ft")]
    assert [str(q) for q in sorted(items)] == ["900.0 m", "3000.0 ft", "1.0 km", "1.0 mi"]


@pytest.mark.requirement("R10")
def test_ordering_incompatible_raises():
    with pytest.raises(DimensionalityError):
        Quantity(1, "m") < Quantity(1, "s")
    with pytest.raises(DimensionalityError):
        Quantity(1, "m") < 5
    with pytest.raises(TypeError):
        Quantity(1, "m") < "2 m"


@pytest.mark.requirement("R10")
def test_quantities_are_unhashable():
    with pytest.raises(TypeError):
        hash(Quantity(1, "m"))
