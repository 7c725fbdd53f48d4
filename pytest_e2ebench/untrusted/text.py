"""Agent- and peer-written text made safe to print on a terminal.

A failing test's message is the project's exception, a requirement's title a peer dataset's,
a file name the agent's: printed as they are, their escape sequences drive the user's
terminal (``ESC [2J`` clears it, ``ESC ]52`` writes the clipboard, ``ESC ]8`` makes links, a
carriage return writes over the line before) and bidirectional controls reorder what is shown.
:func:`printable` writes every such character as a visible escape (``\\x1b``, ``\\u202e``).
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the Unicode characters that change
# how the rest of a line is shown (bidirectional embeddings, overrides and isolates, marks,
# line and paragraph separators)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NEWLINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character escaped; newlines kept when ``lines``, escaped
    too otherwise (a name or a title that must stay on its own line)."""
    return (_UNSAFE if lines else _NEWLINE).sub(_escape, text)


def has_control(name: str) -> bool:
    """Whether ``name`` holds a character :func:`printable` would escape (newlines too)."""
    return _NEWLINE.search(name) is not None
