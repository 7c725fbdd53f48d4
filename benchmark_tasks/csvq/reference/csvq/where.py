"""The ``--where`` expression language: tokenizer, parser and conditions.

Grammar (keywords are case-insensitive)::

    expression  := disjunction
    disjunction := conjunction { "or" conjunction }
    conjunction := negation { "and" negation }
    negation    := "not" negation | "(" disjunction ")" | comparison
    comparison  := operand OPERATOR operand
    operand     := WORD | STRING
    OPERATOR    := "=" | "!=" | "<" | "<=" | ">" | ">=" | "~" | "!~"
"""

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import UsageError
from .values import compare_values

OPERATORS = (">=", "<=", "!=", "!~", "=", "<", ">", "~")
KEYWORDS = frozenset({"and", "or", "not"})
_WORD_STOP = frozenset("()'\"=!<>~")

_ORDERINGS = {
    "=": lambda result: result == 0,
    "!=": lambda result: result != 0,
    "<": lambda result: result < 0,
    "<=": lambda result: result <= 0,
    ">": lambda result: result > 0,
    ">=": lambda result: result >= 0,
}


def _syntax_error(detail: str) -> UsageError:
    return UsageError(f"invalid where expression: {detail}")


@dataclass(frozen=True)
class Token:
    """One lexical unit of a where-expression."""

    kind: str  # "word", "string", "keyword", "operator" or "paren"
    text: str
    position: int

    def describe(self) -> str:
        """Return the token as it should be quoted in error messages."""
        return f"{self.text!r} at position {self.position + 1}"


def tokenize(text: str) -> list[Token]:
    """Split a where-expression into tokens."""
    tokens: list[Token] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
        elif char in "()":
            tokens.append(Token("paren", char, index))
            index += 1
        elif char in "'\"":
            end = text.find(char, index + 1)
            if end < 0:
                raise _syntax_error(f"unterminated string at position {index + 1}")
            tokens.append(Token("string", text[index + 1:end], index))
            index = end + 1
        else:
            operator = next((op for op in OPERATORS if text.startswith(op, index)), None)
            if operator is not None:
                tokens.append(Token("operator", operator, index))
                index += len(operator)
                continue
            if char == "!":
                raise _syntax_error(f"unexpected '!' at position {index + 1}")
            end = index
            while end < len(text) and not text[end].isspace() and text[end] not in _WORD_STOP:
                end += 1
            word = text[index:end]
            if word.lower() in KEYWORDS:
                tokens.append(Token("keyword", word.lower(), index))
            else:
                tokens.append(Token("word", word, index))
            index = end
    return tokens


class Condition(ABC):
    """A compiled where-expression that can be tested against a row."""

    @abstractmethod
    def matches(self, row: Mapping[str, str]) -> bool:
        """Return True if ``row`` (column name to cell value) satisfies the condition."""

    @property
    @abstractmethod
    def columns(self) -> frozenset[str]:
        """The names of all columns the condition refers to."""


@dataclass(frozen=True)
class Comparison(Condition):
    """``column OPERATOR value``."""

    column: str
    operator: str
    value: str
    pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def build(cls, column: str, operator: str, value: str) -> "Comparison":
        """Create a comparison, compiling the regular expression of ``~``/``!~``."""
        if operator not in ("~", "!~"):
            return cls(column, operator, value)
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise UsageError(f"invalid regular expression {value!r}: {exc}") from exc
        return cls(column, operator, value, pattern)

    def matches(self, row: Mapping[str, str]) -> bool:
        cell = row[self.column]
        if self.pattern is not None:
            found = self.pattern.search(cell) is not None
            return found if self.operator == "~" else not found
        return _ORDERINGS[self.operator](compare_values(cell, self.value))

    @property
    def columns(self) -> frozenset[str]:
        return frozenset({self.column})


@dataclass(frozen=True)
class Not(Condition):
    """Logical negation of another condition."""

    operand: Condition

    def matches(self, row: Mapping[str, str]) -> bool:
        return not self.operand.matches(row)

    @property
    def columns(self) -> frozenset[str]:
        return self.operand.columns


@dataclass(frozen=True)
class And(Condition):
    """True when every operand is true."""

    operands: tuple[Condition, ...]

    def matches(self, row: Mapping[str, str]) -> bool:
        return all(operand.matches(row) for operand in self.operands)

    @property
    def columns(self) -> frozenset[str]:
        return frozenset().union(*(operand.columns for operand in self.operands))


@dataclass(frozen=True)
class Or(Condition):
    """True when at least one operand is true."""

    operands: tuple[Condition, ...]

    def matches(self, row: Mapping[str, str]) -> bool:
        return any(operand.matches(row) for operand in self.operands)

    @property
    def columns(self) -> frozenset[str]:
        return frozenset().union(*(operand.columns for operand in self.operands))


class _Parser:
    """Recursive-descent parser over a token list."""

    def __init__(self, tokens: list[Token]) -> None:
        self._tokens = tokens
        self._index = 0

    def parse(self) -> Condition:
        if not self._tokens:
            raise _syntax_error("empty expression")
        condition = self._disjunction()
        if self._index < len(self._tokens):
            raise _syntax_error(f"unexpected {self._tokens[self._index].describe()}")
        return condition

    def _peek(self) -> Token | None:
        return self._tokens[self._index] if self._index < len(self._tokens) else None

    def _accept(self, kind: str, text: str) -> bool:
        token = self._peek()
        if token is not None and token.kind == kind and token.text == text:
            self._index += 1
            return True
        return False

    def _unexpected(self, what: str) -> UsageError:
        token = self._peek()
        if token is None:
            return _syntax_error(f"expected {what} at end of expression")
        return _syntax_error(f"expected {what}, found {token.describe()}")

    def _expect(self, kinds: tuple[str, ...], what: str) -> Token:
        token = self._peek()
        if token is None or token.kind not in kinds:
            raise self._unexpected(what)
        self._index += 1
        return token

    def _disjunction(self) -> Condition:
        operands = [self._conjunction()]
        while self._accept("keyword", "or"):
            operands.append(self._conjunction())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def _conjunction(self) -> Condition:
        operands = [self._negation()]
        while self._accept("keyword", "and"):
            operands.append(self._negation())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def _negation(self) -> Condition:
        if self._accept("keyword", "not"):
            return Not(self._negation())
        if self._accept("paren", "("):
            inner = self._disjunction()
            if not self._accept("paren", ")"):
                raise self._unexpected("')'")
            return inner
        column = self._expect(("word", "string"), "column name").text
        operator = self._expect(("operator",), "comparison operator").text
        value = self._expect(("word", "string"), "value").text
        return Comparison.build(column, operator, value)


def parse_where(expression: str) -> Condition:
    """Compile a where-expression; raise :class:`UsageError` if it is malformed."""
    return _Parser(tokenize(expression)).parse()
