"""Line-level Markdown scanning: fenced code blocks, ATX headings and inline links.

mdtoc does not build a full Markdown syntax tree. Every feature works on the
lines of a document (split at ``\\n``) and only needs to know which lines are
ordinary text and which belong to a fenced code block.
"""

import enum
import re
from dataclasses import dataclass

from .slugs import Slugger

_FENCE_OPEN = re.compile(r"( *)(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" *(`+|~+)[ \t]*")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?")
_CLOSING_SEQUENCE = re.compile(r"[ \t]+#+$")
_LINK = re.compile(r"(!?)\[([^\[\]]*)\]\(([^()]*)\)")
_CODE_SPAN = re.compile(r"`[^`]*`")


class LineKind(enum.Enum):
    """The role a line plays with respect to fenced code blocks."""

    TEXT = "text"  # an ordinary line
    FENCE = "fence"  # the opening fence line of a fenced code block
    CODE = "code"  # a line inside a fenced code block, including its closing fence


@dataclass(frozen=True)
class Heading:
    """An ATX heading: its level, display text, unique anchor slug and line number."""

    level: int
    text: str
    slug: str
    line: int


@dataclass(frozen=True)
class Link:
    """An inline link or image: ``[text](target)`` or ``![text](target)``."""

    line: int
    text: str
    target: str
    image: bool


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines at ``\\n``, without the line terminators."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def classify_lines(lines: list[str]) -> list[LineKind]:
    """Return the :class:`LineKind` of every line.

    A fence is three or more backticks or tildes after any number of spaces.
    A backtick fence whose info string contains a backtick is not a fence. A
    block is closed by a line made of at least as many of the same fence
    characters (spaces around them allowed); an unclosed block runs to the end.
    """
    kinds: list[LineKind] = []
    fence: str | None = None
    for line in lines:
        if fence is None:
            match = _FENCE_OPEN.fullmatch(line)
            if match and not (match[2][0] == "`" and "`" in match[3]):
                fence = match[2]
                kinds.append(LineKind.FENCE)
            else:
                kinds.append(LineKind.TEXT)
            continue
        kinds.append(LineKind.CODE)
        closing = _FENCE_CLOSE.fullmatch(line)
        if closing and closing[1][0] == fence[0] and len(closing[1]) >= len(fence):
            fence = None
    return kinds


def text_lines(text: str) -> list[tuple[int, str]]:
    """Return ``(line number, line)`` for every line outside fenced code blocks."""
    lines = split_lines(text)
    kinds = classify_lines(lines)
    return [
        (number, line)
        for number, (line, kind) in enumerate(zip(lines, kinds, strict=True), start=1)
        if kind is LineKind.TEXT
    ]


def replace_links(text: str) -> str:
    """Replace every inline link or image in ``text`` by its link text."""
    return _LINK.sub(lambda match: match[2], text)


def parse_heading(line: str) -> tuple[int, str] | None:
    """Return ``(level, content)`` if ``line`` is an ATX heading with content.

    The content is stripped of surrounding blanks and of an optional closing
    sequence of ``#`` characters. Headings without content are ignored.
    """
    match = _HEADING.fullmatch(line)
    if match is None:
        return None
    content = (match[2] or "").strip(" \t")
    if content.strip("#") == "":
        return None
    return len(match[1]), _CLOSING_SEQUENCE.sub("", content)


def headings(text: str) -> list[Heading]:
    """Return all ATX headings of a document, outside fenced code blocks.

    Slugs are assigned in document order by one :class:`Slugger`, so repeated
    headings receive the suffixes ``-1``, ``-2`` and so on.
    """
    slugger = Slugger()
    found: list[Heading] = []
    for number, line in text_lines(text):
        parsed = parse_heading(line)
        if parsed is None:
            continue
        level, content = parsed
        title = replace_links(content)
        found.append(Heading(level, title, slugger.slug(title), number))
    return found


def links(text: str) -> list[Link]:
    """Return the inline links and images outside fenced code blocks and code spans.

    The target is the part of the parenthesised destination before the first
    whitespace; anything after it (a title) is ignored.
    """
    found: list[Link] = []
    for number, line in text_lines(text):
        for match in _LINK.finditer(_CODE_SPAN.sub(" ", line)):
            destination = match[3].split()
            target = destination[0] if destination else ""
            found.append(Link(number, match[2], target, match[1] == "!"))
    return found
