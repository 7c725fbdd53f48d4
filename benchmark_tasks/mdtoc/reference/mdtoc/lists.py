"""Renumbering ordered lists."""

import re
from dataclasses import dataclass

from .scanner import LineKind, classify_lines

_ORDERED_ITEM = re.compile(r"( *)([0-9]{1,9})([.)])(?=[ \t]|$)")


@dataclass
class _OpenList:
    """An ordered list that later lines may still continue."""

    indent: int
    delimiter: str
    next_number: int


def _indentation(line: str) -> int:
    """Return the number of leading spaces of ``line`` (tabs are not expanded)."""
    return len(line) - len(line.lstrip(" "))


def renumber(text: str) -> str:
    """Return ``text`` with the items of every ordered list numbered consecutively.

    A list keeps the number of its first item. It is continued by items with
    the same indentation and delimiter, and survives blank lines and lines
    indented deeper than its items; any other line ends it. Nested lists are
    numbered independently. Only the digits of item lines change.
    """
    lines = text.split("\n")
    stack: list[_OpenList] = []
    for index, (line, kind) in enumerate(zip(lines, classify_lines(lines), strict=True)):
        if kind is LineKind.CODE or not line.strip():
            continue
        indent = _indentation(line)
        item = _ORDERED_ITEM.match(line)
        delimiter = item[3] if item else None
        while stack and (
            stack[-1].indent > indent
            or (stack[-1].indent == indent and stack[-1].delimiter != delimiter)
        ):
            stack.pop()
        if item is None:
            continue
        if stack and stack[-1].indent == indent:
            number = stack[-1].next_number
        else:
            number = int(item[2])
            stack.append(_OpenList(indent, delimiter, number))
        stack[-1].next_number = number + 1
        lines[index] = f"{item[1]}{number}{line[item.end(2) :]}"
    return "\n".join(lines)
