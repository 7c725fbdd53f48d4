"""R5 (built-in units), R6 (dimensions), R17 (user-defined units)."""

import math

import pytest

from unitcalc import (
    OffsetUnitError,
    Quantity,
    Unit,
    UnitError,
    UnitParseError,
    UnknownUnit,
    define_unit,
)


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "symbol, factor",
    [
        ("m", 1.0),
        ("kg", 1.0),
        ("g", 0.001),
        ("s", 1.0),
        ("A", 1.0),
        ("K", 1.0),
        ("mol", 1.0),
        ("cd", 1.0),
        ("N", 1.0),
        ("J", 1.0),
        ("W", 1.0),
        ("Pa", 1.0),
        ("Hz", 1.0),
        ("C", 1.0),
        ("V", 1.0),
        ("L", 0.001),
        ("rad", 1.0),
        ("deg", math.pi / 180),
        ("min", 60.0),
        ("h", 3600.0),
        ("day", 86400.0),
        ("in", 0.0254),
        ("ft", 0.3048),
        ("yd", 0.9144),
        ("mi", 1609.344),
        ("lb", 0.45359237),
        ("oz", 0.028349523125),
        ("t", 1000.0),
        ("bar", 100000.0),
        ("atm", 101325.0),
        ("cal", 4.184),
    ],
)
def test_builtin_factors(symbol, factor):
    unit = Unit(symbol)
    assert unit.factor == pytest.approx(factor)
    assert str(unit) == symbol


@pytest.mark.requirement("R5")
@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (1, "mi", "ft", 5280.0),
        (1, "lb", "oz", 16.0),
        (1, "atm", "bar", 1.01325),
        (2, "h", "min", 120.0),
        (1, "day", "h", 24.0),
        (1, "yd", "in", 36.0),
        (1, "ft", "in", 12.0),
        (2, "t", "kg", 2000.0),
        (1, "L", "cm^3", 1000.0),
        (180, "deg", "rad", math.pi),
        (60, "mi/h", "km/h", 96.56064),
        (1, "kcal", "J", 4184.0),
        (1, "kW*h", "MJ", 3.6),
    ],
)
def test_builtin_conversions(value, source, target, expected):
    assert Quantity(value, source).to(target).value == pytest.approx(expected)


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("symbol", ["kmi", "klb", "Mt", "katm", "mday"])
def test_non_prefixable_builtins(symbol):
    with pytest.raises(UnknownUnit):
        Unit(symbol)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "unit, expected",
    [
        ("N", "[length]*[mass]/[time]^2"),
        ("J", "[length]^2*[mass]/[time]^2"),
        ("W", "[length]^2*[mass]/[time]^3"),
        ("Pa", "[mass]/([length]*[time]^2)"),
        ("Hz", "1/[time]"),
        ("V", "[length]^2*[mass]/([time]^3*[current])"),
        ("C", "[time]*[current]"),
        ("mol/L", "[amount]/[length]^3"),
        ("degC", "[temperature]"),
        ("cd", "[luminosity]"),
        ("rad", "[dimensionless]"),
        ("deg", "[dimensionless]"),
        ("m/km", "[dimensionless]"),
        ("", "[dimensionless]"),
        ("s*m", "[length]*[time]"),
    ],
)
def test_dimensionality_strings(unit, expected):
    assert Unit(unit).dimensionality == expected
    assert Quantity(1, unit).dimensionality == expected


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("prefixed, plain", [("kN", "N"), ("mm", "m"), ("GHz", "Hz"), ("µmol", "mol")])
def test_prefix_keeps_dimension(prefixed, plain):
    assert Unit(prefixed).dimensionality == Unit(plain).dimensionality


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "left, right", [("J", "N*m"), ("W", "J/s"), ("Pa", "N/m^2"), ("Hz", "1/s"), ("C", "A*s"), ("V", "W/A")]
)
def test_derived_units_have_expected_dimensions(left, right):
    assert Unit(left).dimensionality == Unit(right).dimensionality
    assert Unit(left).is_dimensionless is False


@pytest.mark.requirement("R6")
def test_is_dimensionless_flag():
    assert Unit("rad").is_dimensionless
    assert Unit("m/km").is_dimensionless
    assert not Unit("m").is_dimensionless


@pytest.mark.requirement("R17")
def test_define_unit_and_convert():
    unit = define_unit("furlong", 201.168, "m")
    assert unit == Unit("furlong")
    assert Quantity(1, "furlong").to("m").value == pytest.approx(201.168)
    assert Quantity(1, "mi").to("furlong").value == pytest.approx(8)


@pytest.mark.requirement("R17")
def test_define_unit_with_compound_base():
    define_unit("knot", 1852, "m/h")
    assert Unit("knot").dimensionality == "[length]/[time]"
    assert Quantity(10, "knot").to("km/h").value == pytest.approx(18.52)
    assert str(Quantity(2, "knot*h")) == "2.0 h*knot"


@pytest.mark.requirement("R17")
def test_define_dimensionless_unit():
    define_unit("dozen", 12)
    assert Unit("dozen").is_dimensionless
    assert float(Quantity(2, "dozen")) == pytest.approx(24)


@pytest.mark.requirement("R17")
def test_prefixable_user_unit():
    define_unit("smoot", 1.7018, "m", prefixable=True)
    assert Unit("ksmoot").factor == pytest.approx(1701.8)
    define_unit("cubit", 0.4572, "m")
    with pytest.raises(UnknownUnit):
        Unit("kcubit")


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("symbol", ["", "x1", "a b", "m/s"])
def test_invalid_symbol(symbol):
    with pytest.raises(UnitError):
        define_unit(symbol, 1.0, "m")


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("symbol", ["m", "min", "km", "degC", "µs"])
def test_already_defined_symbol(symbol):
    factor = Unit(symbol).factor
    with pytest.raises(UnitError):
        define_unit(symbol, 2.0, "s")
    assert Unit(symbol).factor == pytest.approx(factor)


@pytest.mark.requirement("R17")
def test_redefining_user_unit_fails():
    define_unit("parsec", 3.0857e16, "m")
    with pytest.raises(UnitError):
        define_unit("parsec", 1.0, "m")
    assert Unit("parsec").factor == pytest.approx(3.0857e16)


@pytest.mark.requirement("R17")
@pytest.mark.parametrize("factor", [0, -1, float("inf"), float("nan")])
def test_invalid_factor(factor):
    with pytest.raises(UnitError):
        define_unit("badfactor", factor, "m")


@pytest.mark.requirement("R17")
def test_factor_of_wrong_type():
    with pytest.raises(TypeError):
        define_unit("strfactor", "2", "m")


@pytest.mark.requirement("R17")
def test_invalid_base():
    with pytest.raises(OffsetUnitError):
        define_unit("hotdeg", 2.0, "degC")
    with pytest.raises(UnknownUnit):
        define_unit("weird", 2.0, "foo")
    with pytest.raises(UnitParseError):
        define_unit("weirder", 2.0, "m/")
