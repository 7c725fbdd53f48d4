"""The unit registry: named units, SI prefixes and name resolution.

A unit name is resolved in two steps.  An exactly registered name always wins (so ``min`` is
the minute and never milli-inch, ``Pa`` the pascal and never peta-annum).  Otherwise the name
is split into a prefix and a remainder, trying longer prefixes first, and the remainder must
be a registered *prefixable* unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .dimensions import Dimension
from .errors import UnitError, UnknownUnit

MICRO = "\u00b5"  # MICRO SIGN, the canonical spelling of the micro prefix

#: Prefix spellings and their factors.  ``u`` and GREEK SMALL LETTER MU are accepted as
#: alternative spellings of the micro prefix and normalised to :data:`MICRO`.
PREFIXES: dict[str, float] = {
    "E": 1e18,
    "P": 1e15,
    "T": 1e12,
    "G": 1e9,
    "M": 1e6,
    "k": 1e3,
    "h": 1e2,
    "da": 1e1,
    "d": 1e-1,
    "c": 1e-2,
    "m": 1e-3,
    MICRO: 1e-6,
    "u": 1e-6,
    "\u03bc": 1e-6,
    "n": 1e-9,
    "p": 1e-12,
    "f": 1e-15,
}

_PREFIX_SPELLING = {"u": MICRO, "\u03bc": MICRO}

# Longest spellings first, so that "dam" is deca-metre rather than deci-"am".
_PREFIX_ORDER = sorted(PREFIXES, key=len, reverse=True)


@dataclass(frozen=True)
class UnitDefinition:
    """One named unit.

    A value ``v`` in this unit equals ``v * factor + offset`` in the coherent SI unit of
    ``dimension``.  Only the absolute temperature scales have a non-zero ``offset``.
    """

    symbol: str
    factor: float
    dimension: Dimension
    offset: float = 0.0
    prefixable: bool = False

    @property
    def is_offset(self) -> bool:
        """True for units whose zero is not the SI zero (degC, degF)."""
        return self.offset != 0.0


class UnitRegistry:
    """A mapping of unit symbols to definitions with prefix-aware lookup."""

    def __init__(self) -> None:
        self._units: dict[str, UnitDefinition] = {}

    def add(self, definition: UnitDefinition) -> None:
        """Register ``definition``; raise :class:`UnitError` if its symbol is taken."""
        if self.knows(definition.symbol):
            raise UnitError(f"unit '{definition.symbol}' is already defined")
        self._units[definition.symbol] = definition

    def knows(self, name: str) -> bool:
        """True when ``name`` resolves to a unit, directly or through a prefix."""
        try:
            self.resolve(name)
        except UnknownUnit:
            return False
        return True

    def resolve(self, name: str) -> UnitDefinition:
        """Return the definition for ``name``; raise :class:`UnknownUnit` if there is none.

        A prefixed name yields a definition whose symbol uses the canonical prefix spelling
        and whose factor includes the prefix factor.
        """
        if name in self._units:
            return self._units[name]
        for prefix in _PREFIX_ORDER:
            if not name.startswith(prefix):
                continue
            base = self._units.get(name[len(prefix):])
            if base is not None and base.prefixable:
                spelling = _PREFIX_SPELLING.get(prefix, prefix)
                return replace(
                    base,
                    symbol=spelling + base.symbol,
                    factor=PREFIXES[prefix] * base.factor,
                    prefixable=False,
                )
        raise UnknownUnit(name)


LENGTH = Dimension.of(length=1)
MASS = Dimension.of(mass=1)
TIME = Dimension.of(time=1)
CURRENT = Dimension.of(current=1)
TEMPERATURE = Dimension.of(temperature=1)
AMOUNT = Dimension.of(amount=1)
LUMINOSITY = Dimension.of(luminosity=1)
DIMENSIONLESS = Dimension()

FORCE = Dimension.of(length=1, mass=1, time=-2)
ENERGY = FORCE * LENGTH
POWER = ENERGY / TIME
PRESSURE = FORCE / LENGTH**2
FREQUENCY = TIME**-1
CHARGE = CURRENT * TIME
VOLTAGE = POWER / CURRENT
VOLUME = LENGTH**3

#: Symbols of the coherent SI base units, used by ``Quantity.to_base``.
SI_BASE_SYMBOLS: dict[str, str] = {
    "length": "m",
    "mass": "kg",
    "time": "s",
    "current": "A",
    "temperature": "K",
    "amount": "mol",
    "luminosity": "cd",
}

# (symbol, factor, dimension, prefixable)
_MULTIPLICATIVE_UNITS: tuple[tuple[str, float, Dimension, bool], ...] = (
    # SI base units (the gram carries the mass prefixes, "kg" is registered as well)
    ("m", 1.0, LENGTH, True),
    ("kg", 1.0, MASS, False),
    ("g", 1e-3, MASS, True),
    ("s", 1.0, TIME, True),
    ("A", 1.0, CURRENT, True),
    ("K", 1.0, TEMPERATURE, True),
    ("mol", 1.0, AMOUNT, True),
    ("cd", 1.0, LUMINOSITY, True),
    # derived SI units
    ("N", 1.0, FORCE, True),
    ("J", 1.0, ENERGY, True),
    ("W", 1.0, POWER, True),
    ("Pa", 1.0, PRESSURE, True),
    ("Hz", 1.0, FREQUENCY, True),
    ("C", 1.0, CHARGE, True),
    ("V", 1.0, VOLTAGE, True),
    ("L", 1e-3, VOLUME, True),
    ("rad", 1.0, DIMENSIONLESS, True),
    # non-SI units
    ("deg", math.pi / 180, DIMENSIONLESS, False),
    ("min", 60.0, TIME, False),
    ("h", 3600.0, TIME, False),
    ("day", 86400.0, TIME, False),
    ("in", 0.0254, LENGTH, False),
    ("ft", 0.3048, LENGTH, False),
    ("yd", 0.9144, LENGTH, False),
    ("mi", 1609.344, LENGTH, False),
    ("lb", 0.45359237, MASS, False),
    ("oz", 0.028349523125, MASS, False),
    ("t", 1000.0, MASS, False),
    ("bar", 1e5, PRESSURE, True),
    ("atm", 101325.0, PRESSURE, False),
    ("cal", 4.184, ENERGY, True),
)

ZERO_CELSIUS = 273.15


def _builtin_registry() -> UnitRegistry:
    """Create a registry holding every built-in unit."""
    registry = UnitRegistry()
    for symbol, factor, dimension, prefixable in _MULTIPLICATIVE_UNITS:
        registry.add(UnitDefinition(symbol, factor, dimension, prefixable=prefixable))
    registry.add(UnitDefinition("degC", 1.0, TEMPERATURE, offset=ZERO_CELSIUS))
    # T[K] = (T[degF] + 459.67) * 5/9, i.e. factor 5/9 and offset 459.67 * 5/9
    registry.add(UnitDefinition("degF", 5 / 9, TEMPERATURE, offset=459.67 * 5 / 9))
    return registry


#: The process-wide registry used by every parser and quantity.
REGISTRY = _builtin_registry()
