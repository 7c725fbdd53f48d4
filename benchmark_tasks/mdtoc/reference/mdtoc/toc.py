"""Generating a table of contents and maintaining it between marker comments."""

from .scanner import LineKind, classify_lines, headings

START_MARKER = "<!-- toc -->"
STOP_MARKER = "<!-- tocstop -->"


class MarkerError(ValueError):
    """The TOC markers of a document are missing, repeated or out of order."""


def _check_options(min_level: int, max_level: int, indent: int) -> None:
    """Raise ``ValueError`` for option values that make no sense."""
    for name, level in (("min_level", min_level), ("max_level", max_level)):
        if not 1 <= level <= 6:
            raise ValueError(f"{name} must be between 1 and 6, got {level}")
    if min_level > max_level:
        raise ValueError(f"min_level {min_level} is greater than max_level {max_level}")
    if indent < 1:
        raise ValueError(f"indent must be at least 1, got {indent}")


def make_toc(text: str, *, min_level: int = 1, max_level: int = 6, indent: int = 2) -> str:
    """Return the table of contents of ``text`` as a Markdown bullet list.

    Only headings with ``min_level <= level <= max_level`` are listed. A
    heading is indented by ``indent`` spaces per level below the smallest
    listed level. Every line ends with ``\\n``; without headings the result is
    the empty string.
    """
    _check_options(min_level, max_level, indent)
    selected = [h for h in headings(text) if min_level <= h.level <= max_level]
    if not selected:
        return ""
    top = min(heading.level for heading in selected)
    return "".join(
        f"{' ' * (indent * (heading.level - top))}- [{heading.text}](#{heading.slug})\n"
        for heading in selected
    )


def _find_markers(lines: list[str]) -> tuple[int, int]:
    """Return the indexes of the start and stop marker lines.

    Markers inside fenced code blocks do not count. Raises :class:`MarkerError`
    unless there is exactly one start marker followed by exactly one stop marker.
    """
    starts: list[int] = []
    stops: list[int] = []
    for index, (line, kind) in enumerate(zip(lines, classify_lines(lines), strict=True)):
        if kind is not LineKind.TEXT:
            continue
        if line.strip() == START_MARKER:
            starts.append(index)
        elif line.strip() == STOP_MARKER:
            stops.append(index)
    if not starts:
        raise MarkerError(f"missing {START_MARKER} marker")
    if len(starts) > 1:
        raise MarkerError(f"duplicate {START_MARKER} marker")
    if not stops:
        raise MarkerError(f"missing {STOP_MARKER} marker")
    if len(stops) > 1:
        raise MarkerError(f"duplicate {STOP_MARKER} marker")
    if stops[0] < starts[0]:
        raise MarkerError(f"{STOP_MARKER} marker before {START_MARKER} marker")
    return starts[0], stops[0]


def update_toc(text: str, *, min_level: int = 1, max_level: int = 6, indent: int = 2) -> str:
    """Return ``text`` with the region between the TOC markers regenerated.

    The marker lines and everything outside them are kept unchanged. A
    non-empty TOC is surrounded by one blank line on each side; an empty one
    leaves nothing between the markers. Applying it twice changes nothing more.
    """
    toc = make_toc(text, min_level=min_level, max_level=max_level, indent=indent)
    lines = text.split("\n")
    start, stop = _find_markers(lines)
    region = ["", *toc[:-1].split("\n"), ""] if toc else []
    return "\n".join(lines[: start + 1] + region + lines[stop:])
