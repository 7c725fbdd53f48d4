"""Document statistics: lines, words, headings, code blocks, links and images."""

from collections import Counter
from dataclasses import dataclass

from .scanner import LineKind, classify_lines, headings, links, replace_links, split_lines


@dataclass(frozen=True)
class Stats:
    """Counts describing one Markdown document."""

    lines: int
    words: int
    headings: int
    levels: dict[int, int]
    code_blocks: int
    links: int
    images: int

    def format(self) -> str:
        """Return the six-line report printed by ``mdtoc stats``."""
        heading_line = f"headings: {self.headings}"
        if self.levels:
            breakdown = ", ".join(
                f"h{level}: {count}" for level, count in sorted(self.levels.items())
            )
            heading_line += f" ({breakdown})"
        return (
            f"lines: {self.lines}\n"
            f"words: {self.words}\n"
            f"{heading_line}\n"
            f"code blocks: {self.code_blocks}\n"
            f"links: {self.links}\n"
            f"images: {self.images}\n"
        )


def _is_word(token: str) -> bool:
    """A word is a whitespace-separated token containing at least one letter."""
    return any(char.isalpha() for char in token)


def stats(text: str) -> Stats:
    """Compute the :class:`Stats` of a document.

    Words are counted on lines outside fenced code blocks after replacing
    links and images by their link text.
    """
    lines = split_lines(text)
    kinds = classify_lines(lines)
    words = sum(
        1
        for line, kind in zip(lines, kinds, strict=True)
        if kind is LineKind.TEXT
        for token in replace_links(line).split()
        if _is_word(token)
    )
    found_headings = headings(text)
    found_links = links(text)
    images = sum(1 for link in found_links if link.image)
    return Stats(
        lines=len(lines),
        words=words,
        headings=len(found_headings),
        levels=dict(Counter(heading.level for heading in found_headings)),
        code_blocks=kinds.count(LineKind.FENCE),
        links=len(found_links) - images,
        images=images,
    )
