"""The Quantity class: a float value together with a unit."""

from __future__ import annotations

import math
import re

from .errors import DimensionalityError, OffsetUnitError, UnitParseError
from .units import Unit, as_unit, si_base_unit

#: Relative tolerance of ``==`` (and of the equality part of ``<=`` and ``>=``).
REL_TOL = 1e-9

_NUMBER = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*")

_KELVIN = Unit("K")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Quantity:
    """An immutable physical quantity: ``Quantity(9.81, "m/s^2")``.

    The value is stored as a ``float``; the unit is a :class:`Unit` or a unit expression.
    Quantities are not hashable because equality is tolerant (see :data:`REL_TOL`).
    """

    __slots__ = ("_value", "_unit")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: float, unit: str | Unit = "") -> None:
        if not _is_number(value):
            raise TypeError(f"value must be an int or float, not {type(value).__name__}")
        self._value = float(value)
        self._unit = as_unit(unit)

    @property
    def value(self) -> float:
        """The numeric value, expressed in :attr:`unit`."""
        return self._value

    @property
    def unit(self) -> Unit:
        """The unit of the quantity."""
        return self._unit

    @property
    def dimensionality(self) -> str:
        """The dimension of the unit as text, e.g. ``[length]/[time]``."""
        return self._unit.dimensionality

    def is_compatible(self, other: Quantity | Unit | str) -> bool:
        """True when ``other`` (a quantity, unit or unit expression) has the same dimension."""
        unit = other.unit if isinstance(other, Quantity) else as_unit(other)
        return unit.dimension == self._unit.dimension

    def _require_compatible(self, other: Unit) -> None:
        if other.dimension != self._unit.dimension:
            raise DimensionalityError(
                str(self._unit), self.dimensionality, str(other), other.dimensionality
            )

    def _si_value(self) -> float:
        """The value in the coherent SI unit of the dimension (kelvin for temperatures)."""
        return self._value * self._unit.factor + self._unit.offset

    def to(self, unit: str | Unit) -> Quantity:
        """Convert to ``unit`` (absolute conversion for temperatures)."""
        target = as_unit(unit)
        self._require_compatible(target)
        return Quantity((self._si_value() - target.offset) / target.factor, target)

    def to_base(self) -> Quantity:
        """Convert to the product of SI base units of the same dimension."""
        return self.to(si_base_unit(self._unit.dimension))

    def __float__(self) -> float:
        """The value of a dimensionless quantity as a pure number (``50 cm/m`` -> 0.5)."""
        self._require_compatible(Unit())
        return self._value * self._unit.factor

    # -- addition and subtraction -----------------------------------------------------

    def _add(self, other: Quantity, subtract: bool) -> Quantity:
        """``self + other`` or ``self - other`` with the temperature rules applied."""
        self._require_compatible(other.unit)
        if other.unit.is_offset:
            if not subtract:
                raise OffsetUnitError(
                    f"cannot add a temperature in offset unit '{other.unit}'; "
                    "only temperature differences (K) can be added"
                )
            difference = self.to(_KELVIN).value - other.to(_KELVIN).value
            return Quantity(difference, _KELVIN)
        if self._unit.is_offset:
            # the right operand is a temperature difference: scale it, never shift it
            delta = other.value * other.unit.factor / self._unit.factor
        else:
            delta = other.to(self._unit).value
        return Quantity(self._value - delta if subtract else self._value + delta, self._unit)

    def __add__(self, other: object) -> Quantity:
        right = _coerce(other)
        return NotImplemented if right is None else self._add(right, subtract=False)

    def __radd__(self, other: object) -> Quantity:
        left = _coerce(other)
        return NotImplemented if left is None else left._add(self, subtract=False)

    def __sub__(self, other: object) -> Quantity:
        right = _coerce(other)
        return NotImplemented if right is None else self._add(right, subtract=True)

    def __rsub__(self, other: object) -> Quantity:
        left = _coerce(other)
        return NotImplemented if left is None else left._add(self, subtract=True)

    # -- multiplication, division, powers ----------------------------------------------

    def __mul__(self, other: object) -> Quantity:
        if _is_number(other):
            return Quantity(self._value * other, self._unit)
        if isinstance(other, Quantity):
            return Quantity(self._value * other._value, self._unit * other._unit)
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Quantity:
        if _is_number(other):
            return Quantity(self._value / other, self._unit)
        if isinstance(other, Quantity):
            return Quantity(self._value / other._value, self._unit / other._unit)
        return NotImplemented

    def __rtruediv__(self, other: object) -> Quantity:
        if _is_number(other):
            return Quantity(other / self._value, Unit() / self._unit)
        return NotImplemented

    def __pow__(self, exponent: object) -> Quantity:
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            return NotImplemented
        return Quantity(self._value**exponent, self._unit**exponent)

    def __neg__(self) -> Quantity:
        return Quantity(-self._value, self._unit)

    def __pos__(self) -> Quantity:
        return Quantity(self._value, self._unit)

    def __abs__(self) -> Quantity:
        return Quantity(abs(self._value), self._unit)

    # -- comparison -------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        right = _coerce(other)
        if right is None:
            return NotImplemented
        if right.unit.dimension != self._unit.dimension:
            return False
        return math.isclose(self._si_value(), right._si_value(), rel_tol=REL_TOL)

    def _order(self, other: object) -> int | None:
        """-1, 0 or 1 as ``self`` is below, equal to or above ``other``.

        Returns None when ``other`` is neither a quantity nor a number.
        """
        right = _coerce(other)
        if right is None:
            return None
        self._require_compatible(right.unit)
        left_si, right_si = self._si_value(), right._si_value()
        if math.isclose(left_si, right_si, rel_tol=REL_TOL):
            return 0
        return -1 if left_si < right_si else 1

    def __lt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order < 0

    def __le__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order <= 0

    def __gt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order > 0

    def __ge__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order >= 0

    # -- text -------------------------------------------------------------------------

    def __str__(self) -> str:
        return self._with_unit(str(self._value))

    def __format__(self, spec: str) -> str:
        """Apply ``spec`` (any float format spec) to the value and append the unit."""
        return self._with_unit(format(self._value, spec)) if spec else str(self)

    def __repr__(self) -> str:
        return f"Quantity({self._value!r}, {str(self._unit)!r})"

    def _with_unit(self, number: str) -> str:
        unit = str(self._unit)
        return f"{number} {unit}" if unit else number


def _coerce(value: object) -> Quantity | None:
    """A quantity for ``value``: plain numbers become dimensionless quantities."""
    if isinstance(value, Quantity):
        return value
    if _is_number(value):
        return Quantity(value)
    return None


def parse_quantity(text: str) -> Quantity:
    """Parse ``"<number> <unit expression>"``, e.g. ``"9.81 m/s^2"`` or ``"-4e3 kJ"``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    match = _NUMBER.match(text)
    if match is None:
        raise UnitParseError(f"no number at the start of {text!r}")
    return Quantity(float(match.group(1)), Unit(text[match.end():]))
