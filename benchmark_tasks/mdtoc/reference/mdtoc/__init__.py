"""mdtoc: tables of contents, link checking, list renumbering and statistics for Markdown."""

from .linkcheck import BrokenLink, check_links
from .lists import renumber
from .metrics import Stats, stats
from .scanner import Heading, Link, headings, links
from .slugs import Slugger, slugify
from .toc import MarkerError, make_toc, update_toc

__all__ = [
    "BrokenLink",
    "Heading",
    "Link",
    "MarkerError",
    "Slugger",
    "Stats",
    "check_links",
    "headings",
    "links",
    "make_toc",
    "renumber",
    "slugify",
    "stats",
    "update_toc",
]
