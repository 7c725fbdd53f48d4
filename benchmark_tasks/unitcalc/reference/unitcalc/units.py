"""Units: products of powers of named units, and the unit-expression parser."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from .dimensions import BASE_DIMENSIONS, Dimension, format_terms
from .errors import OffsetUnitError, UnitError, UnitParseError
from .registry import REGISTRY, SI_BASE_SYMBOLS, UnitDefinition


class Unit:
    """An immutable unit such as ``kg*m/s^2``.

    A unit is a product of named units (possibly prefixed) raised to non-zero integer
    powers.  Terms with the same symbol are merged, so ``m*m`` is ``m^2`` and ``m/m`` is the
    dimensionless unit, but different symbols are never merged (``km*m`` stays as it is).

    ``Unit(expression)`` parses ``expression`` (see :func:`parse_unit`); ``Unit()`` is the
    dimensionless unit.
    """

    __slots__ = ("_terms", "_definitions", "_factor", "_dimension")

    def __init__(self, expression: str = "") -> None:
        parsed = _Parser(expression).parse()
        self._terms: dict[str, int] = parsed._terms
        self._definitions: dict[str, UnitDefinition] = parsed._definitions
        self._factor: float = parsed._factor
        self._dimension: Dimension = parsed._dimension

    @classmethod
    def _from_terms(
        cls, terms: Mapping[str, int], definitions: Mapping[str, UnitDefinition]
    ) -> Unit:
        """Build a unit from merged terms; zero exponents are dropped."""
        unit = object.__new__(cls)
        unit._terms = {s: e for s, e in sorted(terms.items()) if e != 0}
        unit._definitions = {s: definitions[s] for s in unit._terms}
        unit._factor = math.prod(
            unit._definitions[s].factor ** e for s, e in unit._terms.items()
        )
        dimension = Dimension()
        for symbol, exponent in unit._terms.items():
            dimension *= unit._definitions[symbol].dimension ** exponent
        unit._dimension = dimension
        return unit

    @classmethod
    def _named(cls, definition: UnitDefinition) -> Unit:
        """The unit consisting of ``definition`` to the first power."""
        return cls._from_terms({definition.symbol: 1}, {definition.symbol: definition})

    @property
    def factor(self) -> float:
        """Multiplier from this unit to the coherent SI unit of the same dimension."""
        return self._factor

    @property
    def offset(self) -> float:
        """SI value of zero in this unit: 273.15 for degC, 0.0 for multiplicative units."""
        return self._offset_definition().offset if self.is_offset else 0.0

    @property
    def dimension(self) -> Dimension:
        """The physical dimension of the unit."""
        return self._dimension

    @property
    def dimensionality(self) -> str:
        """The dimension rendered as text, e.g. ``[length]/[time]``."""
        return str(self._dimension)

    @property
    def is_dimensionless(self) -> bool:
        """True when all base-dimension exponents are zero (``""``, ``m/km``, ``rad``)."""
        return self._dimension.is_dimensionless

    @property
    def is_offset(self) -> bool:
        """True for the absolute temperature scales with a shifted zero (degC, degF)."""
        return any(d.is_offset for d in self._definitions.values())

    def _offset_definition(self) -> UnitDefinition:
        return next(d for d in self._definitions.values() if d.is_offset)

    def _require_multiplicative(self) -> None:
        if self.is_offset:
            symbol = self._offset_definition().symbol
            raise OffsetUnitError(
                f"offset unit '{symbol}' cannot be multiplied, divided or raised to a power"
            )

    def __mul__(self, other: Unit) -> Unit:
        if not isinstance(other, Unit):
            return NotImplemented
        self._require_multiplicative()
        other._require_multiplicative()
        terms = dict(self._terms)
        for symbol, exponent in other._terms.items():
            terms[symbol] = terms.get(symbol, 0) + exponent
        return Unit._from_terms(terms, self._definitions | other._definitions)

    def __truediv__(self, other: Unit) -> Unit:
        if not isinstance(other, Unit):
            return NotImplemented
        return self * other ** -1

    def __pow__(self, exponent: int) -> Unit:
        if isinstance(exponent, bool) or not isinstance(exponent, int):
            return NotImplemented
        if exponent != 1:
            self._require_multiplicative()
        terms = {s: e * exponent for s, e in self._terms.items()}
        return Unit._from_terms(terms, self._definitions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Unit):
            return NotImplemented
        return self._terms == other._terms

    def __hash__(self) -> int:
        return hash(tuple(self._terms.items()))

    def __str__(self) -> str:
        """Canonical text: terms sorted by code point, numerator before denominator."""
        return format_terms(self._terms.items(), empty="")

    def __repr__(self) -> str:
        return f"Unit({str(self)!r})"


def parse_unit(expression: str) -> Unit:
    """Parse a unit expression such as ``"kg*m/s^2"`` into a :class:`Unit`."""
    return Unit(expression)


def as_unit(unit: str | Unit) -> Unit:
    """Accept a unit or a unit expression; raise :class:`TypeError` for anything else."""
    if isinstance(unit, Unit):
        return unit
    if isinstance(unit, str):
        return Unit(unit)
    raise TypeError(f"unit must be a str or Unit, not {type(unit).__name__}")


def si_base_unit(dimension: Dimension) -> Unit:
    """The product of SI base units (m, kg, s, A, K, mol, cd) with ``dimension``."""
    terms: dict[str, int] = {}
    definitions: dict[str, UnitDefinition] = {}
    for name, exponent in zip(BASE_DIMENSIONS, dimension.exponents):
        symbol = SI_BASE_SYMBOLS[name]
        terms[symbol] = exponent
        definitions[symbol] = REGISTRY.resolve(symbol)
    return Unit._from_terms(terms, definitions)


def define_unit(
    symbol: str, factor: float, base: str | Unit = "", *, prefixable: bool = False
) -> Unit:
    """Register ``symbol`` as a new unit equal to ``factor`` times ``base``.

    The unit is added to the process-wide registry and can be used in every expression
    afterwards.  Returns the new unit.
    """
    if not isinstance(symbol, str) or not symbol.isalpha():
        raise UnitError(f"invalid unit symbol {symbol!r}: use letters only")
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise TypeError(f"factor must be a number, not {type(factor).__name__}")
    if not math.isfinite(factor) or factor <= 0:
        raise UnitError(f"factor of unit '{symbol}' must be positive and finite")
    base_unit = as_unit(base)
    if base_unit.is_offset:
        raise OffsetUnitError(f"unit '{symbol}' cannot be based on offset unit '{base_unit}'")
    REGISTRY.add(
        UnitDefinition(
            symbol, factor * base_unit.factor, base_unit.dimension, prefixable=prefixable
        )
    )
    return Unit(symbol)


class _Token(NamedTuple):
    kind: str  # "name", "number", "op", "end"
    text: str
    position: int


_TOKEN = re.compile(r"\s*(?:(?P<op>\*\*|[*/^()+-])|(?P<number>\d+)|(?P<name>[^\W\d_]+))")


def _tokenize(expression: str) -> Iterator[_Token]:
    position = 0
    while position < len(expression):
        if expression[position:].isspace():
            break
        match = _TOKEN.match(expression, position)
        if match is None:
            offending = expression[position:].lstrip()[0]
            raise UnitParseError(
                f"invalid character {offending!r} in unit expression {expression!r}"
            )
        kind = match.lastgroup
        text = match.group(kind)
        yield _Token(kind, "^" if text == "**" else text, match.start(kind))
        position = match.end()
    yield _Token("end", "", len(expression))


class _Parser:
    """Recursive-descent parser for the unit grammar.

    ::

        expression := term (("*" | "/") term)*
        term       := factor ("^" ["+" | "-"] INTEGER)?
        factor     := NAME | "1" | "(" expression ")"
    """

    def __init__(self, expression: str) -> None:
        if not isinstance(expression, str):
            raise TypeError(f"unit expression must be a str, not {type(expression).__name__}")
        self._expression = expression
        self._tokens = _tokenize(expression)
        self._current = next(self._tokens)

    def parse(self) -> Unit:
        if self._current.kind == "end":
            return Unit._from_terms({}, {})
        unit = self._parse_expression()
        if self._current.kind != "end":
            raise self._error(f"unexpected {self._current.text!r}")
        return unit

    def _advance(self) -> _Token:
        token = self._current
        self._current = next(self._tokens)
        return token

    def _error(self, problem: str) -> UnitParseError:
        """An error describing ``problem`` at the current token."""
        return UnitParseError(
            f"{problem} at position {self._current.position} "
            f"in unit expression {self._expression!r}"
        )

    def _parse_expression(self) -> Unit:
        unit = self._parse_term()
        while self._current.kind == "op" and self._current.text in "*/":
            operator = self._advance().text
            right = self._parse_term()
            unit = unit * right if operator == "*" else unit / right
        return unit

    def _parse_term(self) -> Unit:
        unit = self._parse_factor()
        if self._current.kind == "op" and self._current.text == "^":
            self._advance()
            sign = 1
            if self._current.kind == "op" and self._current.text in "+-":
                sign = -1 if self._advance().text == "-" else 1
            if self._current.kind != "number":
                raise self._error("expected an integer exponent")
            unit = unit ** (sign * int(self._advance().text))
        return unit

    def _parse_factor(self) -> Unit:
        token = self._current
        if token.kind == "name":
            self._advance()
            return Unit._named(REGISTRY.resolve(token.text))
        if token.kind == "number":
            if token.text != "1":
                raise self._error(f"unexpected number {token.text!r} (only 1 is allowed)")
            self._advance()
            return Unit._from_terms({}, {})
        if token.kind == "op" and token.text == "(":
            self._advance()
            unit = self._parse_expression()
            if self._current.kind != "op" or self._current.text != ")":
                raise self._error("expected ')'")
            self._advance()
            return unit
        if token.kind == "end":
            raise self._error("unexpected end")
        raise self._error(f"unexpected {token.text!r}, expected a unit name, '1' or '('")
