"""R11 (temperature conversion) and R12 (offset units in expressions and arithmetic)."""

import pytest

from unitcalc import DimensionalityError, OffsetUnitError, Quantity, Unit, UnitError


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (100, "degC", "degF", 212.0),
        (0, "degC", "K", 273.15),
        (32, "degF", "degC", 0.0),
        (-40, "degC", "degF", -40.0),
        (-40, "degF", "degC", -40.0),
        (0, "K", "degF", -459.67),
        (300, "K", "mK", 300000.0),
        (373.15, "K", "degC", 100.0),
        (98.6, "degF", "degC", 37.0),
        (25, "degC", "degC", 25.0),
    ],
)
def test_absolute_temperature_conversion(value, source, target, expected):
    result = Quantity(value, source).to(target)
    assert result.value == pytest.approx(expected, abs=1e-9)
    assert str(result.unit) == target


@pytest.mark.requirement("R11")
def test_offset_and_factor_attributes():
    assert Unit("degC").offset == pytest.approx(273.15)
    assert Unit("degC").factor == pytest.approx(1.0)
    assert Unit("degF").factor == pytest.approx(5 / 9)
    assert Unit("degF").offset == pytest.approx(255.3722222)
    assert Unit("K").offset == 0.0
    assert Unit("km").offset == 0.0


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("symbol, expected", [("degC", True), ("degF", True), ("K", False), ("mK", False), ("m", False)])
def test_is_offset(symbol, expected):
    assert Unit(symbol).is_offset is expected


@pytest.mark.requirement("R11")
def test_temperature_scales_share_dimension():
    for symbol in ("K", "degC", "degF"):
        assert Unit(symbol).dimensionality == "[temperature]"
    assert Quantity(20, "degC").is_compatible("degF")


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("text", ["degC/s", "J/degC", "1/degC", "degC^2", "degC*degC", "degF*m", "degC^-1"])
def test_offset_units_in_expressions(text):
    with pytest.raises(OffsetUnitError) as info:
        Unit(text)
    assert "offset unit" in str(info.value)


@pytest.mark.requirement("R12")
@pytest.mark.parametrize("text", ["degC^1", "(degC)", " degF "])
def test_offset_unit_alone_is_allowed(text):
    assert Unit(text).is_offset


@pytest.mark.requirement("R12")
def test_offset_units_in_multiplication():
    cases = [
        lambda: Quantity(10, "degC") * Quantity(2, "s"),
        lambda: Quantity(2) * Quantity(10, "degC"),
        lambda: Quantity(10, "degC") / Quantity(1, "s"),
        lambda: 1 / Quantity(10, "degC"),
        lambda: Quantity(10, "degC") ** 2,
        lambda: Unit("degC") * Unit("s"),
    ]
    for case in cases:
        with pytest.raises(OffsetUnitError, match="offset unit"):
            case()


@pytest.mark.requirement("R12")
def test_scaling_offset_quantity_by_number():
    assert str(Quantity(10, "degC") * 2) == "20.0 degC"
    assert str(2 * Quantity(10, "degC")) == "20.0 degC"
    assert str(Quantity(10, "degC") / 2) == "5.0 degC"


@pytest.mark.requirement("R12")
def test_adding_absolute_temperatures_fails():
    with pytest.raises(OffsetUnitError):
        Quantity(10, "degC") + Quantity(5, "degC")
    with pytest.raises(OffsetUnitError):
        Quantity(300, "K") + Quantity(5, "degC")
    with pytest.raises(UnitError):
        Quantity(50, "degF") + Quantity(5, "degC")


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "left, right, expected",
    [
        (Quantity(30, "degC"), Quantity(10, "degC"), 20.0),
        (Quantity(50, "degF"), Quantity(32, "degF"), 10.0),
        (Quantity(300, "K"), Quantity(0, "degC"), 26.85),
        (Quantity(212, "degF"), Quantity(0, "degC"), 100.0),
    ],
)
def test_subtracting_absolute_temperatures_gives_kelvin(left, right, expected):
    result = left - right
    assert result.value == pytest.approx(expected)
    assert str(result.unit) == "K"


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "result, value, unit",
    [
        (Quantity(20, "degC") + Quantity(5, "K"), 25.0, "degC"),
        (Quantity(20, "degC") - Quantity(5, "K"), 15.0, "degC"),
        (Quantity(10, "degF") + Quantity(5, "K"), 19.0, "degF"),
        (Quantity(20, "degC") + Quantity(500, "mK"), 20.5, "degC"),
    ],
)
def test_temperature_difference_added_to_offset_quantity(result, value, unit):
    assert result.value == pytest.approx(value)
    assert str(result.unit) == unit


@pytest.mark.requirement("R12")
def test_offset_arithmetic_still_checks_dimensions():
    with pytest.raises(DimensionalityError):
        Quantity(20, "degC") + Quantity(5, "m")
