"""Physical dimensions as vectors of exponents over the seven SI base dimensions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

BASE_DIMENSIONS: tuple[str, ...] = (
    "length",
    "mass",
    "time",
    "current",
    "temperature",
    "amount",
    "luminosity",
)


def format_terms(terms: Iterable[tuple[str, int]], empty: str) -> str:
    """Render ``(symbol, exponent)`` pairs as ``a*b^2/(c*d^3)``.

    Terms keep the order they are given in.  Positive exponents form the numerator and
    negative ones the denominator (written with their absolute value); an exponent of 1 is
    not written.  A denominator of more than one term is parenthesised, and a missing
    numerator is written as ``1``.  ``empty`` is returned when there are no terms.
    """

    def render(symbol: str, exponent: int) -> str:
        return symbol if exponent == 1 else f"{symbol}^{exponent}"

    terms = [(symbol, exponent) for symbol, exponent in terms if exponent != 0]
    if not terms:
        return empty
    numerator = "*".join(render(s, e) for s, e in terms if e > 0)
    denominator = [render(s, -e) for s, e in terms if e < 0]
    if not denominator:
        return numerator
    below = denominator[0] if len(denominator) == 1 else f"({'*'.join(denominator)})"
    return f"{numerator or '1'}/{below}"


@dataclass(frozen=True)
class Dimension:
    """An immutable product of powers of the SI base dimensions.

    ``exponents`` holds one integer per entry of :data:`BASE_DIMENSIONS`, in that order.
    """

    exponents: tuple[int, ...] = (0,) * len(BASE_DIMENSIONS)

    @classmethod
    def of(cls, **powers: int) -> Dimension:
        """Build a dimension from keyword exponents, e.g. ``Dimension.of(length=1, time=-1)``."""
        unknown = set(powers) - set(BASE_DIMENSIONS)
        if unknown:
            raise ValueError(f"unknown base dimension(s): {', '.join(sorted(unknown))}")
        return cls(tuple(powers.get(name, 0) for name in BASE_DIMENSIONS))

    @property
    def is_dimensionless(self) -> bool:
        """True when every exponent is zero."""
        return not any(self.exponents)

    def __mul__(self, other: Dimension) -> Dimension:
        return Dimension(tuple(a + b for a, b in zip(self.exponents, other.exponents)))

    def __truediv__(self, other: Dimension) -> Dimension:
        return Dimension(tuple(a - b for a, b in zip(self.exponents, other.exponents)))

    def __pow__(self, power: int) -> Dimension:
        return Dimension(tuple(a * power for a in self.exponents))

    def __str__(self) -> str:
        """Render as e.g. ``[length]*[mass]/[time]^2``, or ``[dimensionless]``."""
        named = ((f"[{name}]", exp) for name, exp in zip(BASE_DIMENSIONS, self.exponents))
        return format_terms(named, empty="[dimensionless]")
