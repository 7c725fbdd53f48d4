"""unitcalc: physical quantities with units and dimensional analysis.

>>> from unitcalc import Quantity
>>> speed = Quantity(100, "km/h")
>>> f"{speed.to('m/s'):.2f}"
'27.78 m/s'
"""

from .errors import (
    DimensionalityError,
    OffsetUnitError,
    UnitError,
    UnitParseError,
    UnknownUnit,
)
from .quantity import Quantity, parse_quantity
from .units import Unit, define_unit, parse_unit

__all__ = [
    "DimensionalityError",
    "OffsetUnitError",
    "Quantity",
    "Unit",
    "UnitError",
    "UnitParseError",
    "UnknownUnit",
    "define_unit",
    "parse_quantity",
    "parse_unit",
]

__version__ = "1.0.0"
