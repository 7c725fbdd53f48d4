"""R13 (canonical unit string) and R14 (quantity text output)."""

import pytest

from unitcalc import Quantity, Unit


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "text, expected",
    [
        ("kg*m/s^2", "kg*m/s^2"),
        ("J/kg/K", "J/(K*kg)"),
        ("1/(s*m)", "1/(m*s)"),
        ("s^-2*m", "m/s^2"),
        ("m*m*m", "m^3"),
        ("kg/(m*s^2)", "kg/(m*s^2)"),
        ("m/m", ""),
        ("µm*um", "µm^2"),
        ("mol*K/J", "K*mol/J"),
        ("s*m", "m*s"),
        ("m*kg", "kg*m"),
        ("m*N", "N*m"),
        ("kW*h", "h*kW"),
        ("1/s", "1/s"),
        ("s^-2", "1/s^2"),
        ("m^2*s^-1*kg^-3", "m^2/(kg^3*s)"),
        ("μs", "µs"),
    ],
)
def test_canonical_unit_string(text, expected):
    assert str(Unit(text)) == expected


@pytest.mark.requirement("R13")
def test_unit_repr():
    assert repr(Unit("m/s")) == "Unit('m/s')"
    assert repr(Unit("s*kg")) == "Unit('kg*s')"
    assert repr(Unit()) == "Unit('')"


@pytest.mark.requirement("R13")
def test_unit_equality_and_hash():
    assert Unit("s*m") == Unit("m*s")
    assert hash(Unit("s*m")) == hash(Unit("m*s"))
    assert Unit("J") != Unit("N*m")
    assert len({Unit("m/s"), Unit("m*s^-1"), Unit("km/h")}) == 2


@pytest.mark.requirement("R13")
def test_result_units_are_canonical():
    q = Quantity(1, "s") * Quantity(2, "m") / Quantity(4, "kg") / Quantity(1, "A")
    assert str(q.unit) == "m*s/(A*kg)"


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "quantity, expected",
    [
        (Quantity(3, "m"), "3.0 m"),
        (Quantity(2.5, "kg*m/s^2"), "2.5 kg*m/s^2"),
        (Quantity(0.5, "1/s"), "0.5 1/s"),
        (Quantity(4), "4.0"),
        (Quantity(1e-05, "m"), "1e-05 m"),
        (Quantity(-7.25, "J/kg/K"), "-7.25 J/(K*kg)"),
        (Quantity(1, "um"), "1.0 µm"),
        (Quantity(3, "m/m"), "3.0"),
    ],
)
def test_str(quantity, expected):
    assert str(quantity) == expected


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "quantity, spec, expected",
    [
        (Quantity(100, "km/h").to("m/s"), ".2f", "27.78 m/s"),
        (Quantity(1234.0, "J"), ".3e", "1.234e+03 J"),
        (Quantity(2, "m"), ">8.1f", "     2.0 m"),
        (Quantity(1.0 / 3), ".3f", "0.333"),
        (Quantity(9.80665, "m/s^2"), ".3g", "9.81 m/s^2"),
        (Quantity(1500, "W"), ",.1f", "1,500.0 W"),
        (Quantity(3, "m"), "", "3.0 m"),
    ],
)
def test_format_spec(quantity, spec, expected):
    assert format(quantity, spec) == expected


@pytest.mark.requirement("R14")
def test_fstring():
    speed = Quantity(100, "km/h")
    assert f"{speed.to('m/s'):.1f}" == "27.8 m/s"
    assert f"{speed}" == "100.0 km/h"


@pytest.mark.requirement("R14")
def test_invalid_format_spec():
    with pytest.raises(ValueError):
        format(Quantity(3, "m"), "q")
