"""Exception hierarchy of unitcalc.

Every error the library raises on purpose derives from :class:`UnitError`, so callers can
catch all unit problems with a single ``except`` clause.
"""

from __future__ import annotations


class UnitError(Exception):
    """Base class of every error defined by unitcalc."""


class UnknownUnit(UnitError):
    """A unit name is neither registered nor a prefixed form of a prefixable unit."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown unit: '{name}'")
        self.name = name


class UnitParseError(UnitError):
    """A unit expression or a quantity string is syntactically malformed."""


class DimensionalityError(UnitError):
    """Two units (or quantities) of different physical dimensions were combined.

    ``unit1``/``dim1`` describe the left operand (or the source of a conversion) and
    ``unit2``/``dim2`` the right operand (or the conversion target).
    """

    def __init__(self, unit1: str, dim1: str, unit2: str, dim2: str) -> None:
        super().__init__(
            f"incompatible dimensions: '{unit1}' ({dim1}) and '{unit2}' ({dim2})"
        )
        self.unit1 = unit1
        self.dim1 = dim1
        self.unit2 = unit2
        self.dim2 = dim2


class OffsetUnitError(UnitError):
    """An offset unit (degC, degF) was used where only multiplicative units make sense."""
