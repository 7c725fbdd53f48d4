"""Finding broken intra-document anchors and relative file links."""

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from .scanner import Link, headings, links

BROKEN_ANCHOR = "broken anchor"
MISSING_FILE = "missing file"

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class BrokenLink:
    """A link that does not resolve: its line, its target and why."""

    line: int
    target: str
    reason: str


def _slugs(text: str) -> set[str]:
    """Return the anchor slugs of all headings of ``text``."""
    return {heading.slug for heading in headings(text)}


def _is_skipped(target: str) -> bool:
    """Tell whether a link target is out of scope: empty, a URL or an absolute path."""
    return not target or target.startswith("/") or _SCHEME.match(target) is not None


def _check_file_link(link: Link, base_dir: Path) -> BrokenLink | None:
    """Check a relative file link, and its fragment when it points into a ``.md`` file."""
    path_part, _, fragment = link.target.partition("#")
    path = base_dir / unquote(path_part)
    if not path.exists():
        return BrokenLink(link.line, link.target, MISSING_FILE)
    if not fragment or not path.is_file() or path.suffix.lower() != ".md":
        return None
    try:
        other = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if unquote(fragment) not in _slugs(other):
        return BrokenLink(link.line, link.target, BROKEN_ANCHOR)
    return None


def check_links(text: str, base_dir: str | Path | None = None) -> list[BrokenLink]:
    """Return the broken links of a document, in the order of :func:`links`.

    ``#fragment`` targets must name a heading slug of ``text`` (``#`` alone is
    fine). Relative file targets are resolved against ``base_dir`` and are only
    checked when it is given. URLs, absolute paths and empty targets are
    never reported.
    """
    own_slugs = _slugs(text)
    broken: list[BrokenLink] = []
    for link in links(text):
        if _is_skipped(link.target):
            continue
        if link.target.startswith("#"):
            fragment = unquote(link.target[1:])
            if fragment and fragment not in own_slugs:
                broken.append(BrokenLink(link.line, link.target, BROKEN_ANCHOR))
        elif base_dir is not None:
            problem = _check_file_link(link, Path(base_dir))
            if problem is not None:
                broken.append(problem)
    return broken
