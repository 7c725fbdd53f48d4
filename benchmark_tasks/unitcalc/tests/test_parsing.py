"""R2 (syntax), R3 (errors), R4 (prefixes), R15 (parse_quantity)."""

import pytest

from unitcalc import (
    OffsetUnitError,
    Quantity,
    Unit,
    UnitParseError,
    UnknownUnit,
    parse_quantity,
    parse_unit,
)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "left, right",
    [
        ("J/kg/K", "J/(kg*K)"),
        ("m/s*kg", "kg*m/s"),
        ("(m/s)^2", "m^2/s^2"),
        ("m**2", "m^2"),
        ("s^-1", "1/s"),
        ("s^+2", "s^2"),
        ("  kg * m / s ^ 2  ", "kg*m/s^2"),
        ("m*m", "m^2"),
        ("kg/(m*s^2)", "kg*m^-1*s^-2"),
        ("1*m", "m"),
    ],
)
def test_equivalent_expressions(left, right):
    assert Unit(left) == Unit(right)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("text", ["", "   ", "1", "m/m", "m^0", "(1)"])
def test_dimensionless_expressions(text):
    unit = Unit(text)
    assert str(unit) == ""
    assert unit.is_dimensionless


@pytest.mark.requirement("R2")
def test_different_names_are_not_merged():
    assert str(Unit("km*m")) == "km*m"
    assert Unit("J") != Unit("N*m")
    assert Unit("km*m").factor == pytest.approx(1000)


@pytest.mark.requirement("R2")
def test_unit_operators():
    assert Unit("m") / Unit("s") == Unit("m/s")
    assert Unit("m") ** 2 == Unit("m^2")
    assert Unit("kg") * Unit("m") / Unit("s") ** 2 == Unit("kg*m/s^2")


@pytest.mark.requirement("R2")
def test_parse_unit_matches_constructor():
    assert parse_unit("kg*m/s^2") == Unit("kg*m/s^2")
    assert isinstance(parse_unit("m"), Unit)
    with pytest.raises(TypeError):
        parse_unit(5)


@pytest.mark.requirement("R2")
def test_factor_of_compound_expression():
    assert Unit("km/h").factor == pytest.approx(1000 / 3600)
    assert Unit("1/min").factor == pytest.approx(1 / 60)


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "text", ["m/", "*m", "m s", "m^", "m^1.5", "m^x", "(m", "m)", "()", "2*m", "m2", "m$", "m//s"]
)
def test_malformed_expressions(text):
    with pytest.raises(UnitParseError):
        Unit(text)


@pytest.mark.requirement("R3")
@pytest.mark.parametrize("text, name", [("kg*foo", "foo"), ("M", "M"), ("KG", "KG"), ("Kg", "Kg"), ("m/meter", "meter")])
def test_unknown_names(text, name):
    with pytest.raises(UnknownUnit) as info:
        Unit(text)
    assert info.value.name == name
    assert str(info.value) == f"unknown unit: '{name}'"


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "text, factor",
    [
        ("km", 1e3),
        ("mm", 1e-3),
        ("cm", 1e-2),
        ("hPa", 1e2),
        ("GHz", 1e9),
        ("µs", 1e-6),
        ("us", 1e-6),
        ("μs", 1e-6),
        ("mg", 1e-6),
        ("mL", 1e-6),
        ("dam", 10.0),
        ("dm", 0.1),
        ("nm", 1e-9),
        ("pJ", 1e-12),
        ("fs", 1e-15),
        ("MW", 1e6),
        ("TJ", 1e12),
        ("PJ", 1e15),
        ("EJ", 1e18),
        ("kmol", 1e3),
        ("mK", 1e-3),
        ("mbar", 100.0),
        ("kcal", 4184.0),
        ("mrad", 1e-3),
    ],
)
def test_prefix_factors(text, factor):
    assert Unit(text).factor == pytest.approx(factor)


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "text, factor, dimensionality",
    [
        ("min", 60.0, "[time]"),
        ("Pa", 1.0, "[mass]/([length]*[time]^2)"),
        ("cd", 1.0, "[luminosity]"),
        ("h", 3600.0, "[time]"),
        ("mi", 1609.344, "[length]"),
        ("ft", 0.3048, "[length]"),
    ],
)
def test_registered_names_win_over_prefixes(text, factor, dimensionality):
    unit = Unit(text)
    assert unit.factor == pytest.approx(factor)
    assert unit.dimensionality == dimensionality


@pytest.mark.requirement("R4")
@pytest.mark.parametrize("text", ["kmin", "kft", "mkg", "kdegC", "kkm", "kh", "Mmi"])
def test_prefixes_do_not_apply(text):
    with pytest.raises(UnknownUnit) as info:
        Unit(text)
    assert info.value.name == text


@pytest.mark.requirement("R4")
def test_micro_spellings_are_the_same_unit():
    assert Unit("um") == Unit("µm") == Unit("μm")


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("9.81 m/s^2", 9.81, "m/s^2"),
        ("5km", 5.0, "km"),
        ("-3.5e2 kJ", -350.0, "kJ"),
        (" .5 h ", 0.5, "h"),
        ("42", 42.0, ""),
        ("1e3m", 1000.0, "m"),
        ("3 1/s", 3.0, "1/s"),
        ("20 degC", 20.0, "degC"),
        ("+12. kg*m", 12.0, "kg*m"),
        ("2.5E-3 s", 0.0025, "s"),
    ],
)
def test_parse_quantity(text, value, unit):
    q = parse_quantity(text)
    assert isinstance(q, Quantity)
    assert q.value == pytest.approx(value)
    assert str(q.unit) == unit


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    "quantity",
    [Quantity(9.81, "m/s^2"), Quantity(-0.25, "J/(kg*K)"), Quantity(1e-05, "um"), Quantity(7), Quantity(2, "1/s")],
)
def test_round_trip(quantity):
    parsed = parse_quantity(str(quantity))
    assert parsed == quantity
    assert str(parsed.unit) == str(quantity.unit)
    assert parsed.value == quantity.value


@pytest.mark.requirement("R15")
@pytest.mark.parametrize("text", ["", "m", "abc", "1/s", "- 5 m", "e5 m"])
def test_parse_quantity_without_number(text):
    with pytest.raises(UnitParseError):
        parse_quantity(text)


@pytest.mark.requirement("R15")
def test_parse_quantity_unit_errors():
    with pytest.raises(UnknownUnit):
        parse_quantity("3 foo")
    with pytest.raises(UnitParseError):
        parse_quantity("3 m s")
    with pytest.raises(OffsetUnitError):
        parse_quantity("3 degC/s")
    with pytest.raises(TypeError):
        parse_quantity(3.0)
