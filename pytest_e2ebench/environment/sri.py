"""Subresource integrity of vendored files: does npm's copy pass the page's ``integrity``?

A page may pin a CDN file with ``<script src=... integrity="sha512-...">``; the browser then
runs it only if the bytes it gets have that digest. The harness serves a CDN file from its npm
package (:mod:`.vendor`), and a CDN's copy is not always npm's: cdnjs minifies some libraries
itself (E2EDev's E2ESD_Bench_02 pins cdnjs's marked 1.2.7, whose ``marked.min.js`` is not the
npm package's). Served as it is, the page's script never loads offline and its reference fails
the scenarios that need it, for every agent too (issue 47).

The harness then serves the page without that pin (``probe/e2ebench_sri.py``, the browser's
rule), so the library loads as it would have from the CDN; the import report names the task.
"""

from __future__ import annotations

import html.parser
from pathlib import Path

from ..probe.e2ebench_sri import matches
from .vendor import Vendored, address_forms, app_texts, fetch


class _Pins(html.parser.HTMLParser):
    """Each ``<script src>`` and ``<link href>`` with an ``integrity`` attribute: its value."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pins: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k.lower(): (v or "") for k, v in attrs}
        where = values.get("src") if tag == "script" else values.get("href")
        if tag in ("script", "link") and where and values.get("integrity", "").strip():
            self.pins.setdefault(where.strip(), values["integrity"].strip())


def pins(app: Path) -> dict[str, str]:
    """The ``integrity`` values of the app's pages, by the address they pin (a parser per file:
    an unclosed tag or comment in one file swallows nothing of the next)."""
    found: dict[str, str] = {}
    for text in app_texts(app):
        parser = _Pins()
        parser.feed(text)
        parser.close()
        for where, value in parser.pins.items():
            found.setdefault(where, value)
    return found


def failures(app: Path, vendored: list[Vendored]) -> list[dict]:
    """``{"url", "reason"}`` for each vendored address a page of ``app`` pins with a hash that
    npm's copy does not match: the browser would refuse it."""
    pinned = pins(app)
    found = []
    for item in vendored:
        wanted = next((pinned[f] for f in address_forms(item.url) if f in pinned), None)
        if wanted is None or matches(_entry_bytes(item), wanted):
            continue
        found.append(
            {
                "url": item.url,
                "reason": f"the page pins {item.url} with an integrity hash npm's copy "
                f"({item.entry}) does not match (the CDN's own build): it is served without "
                "that pin, which the browser would refuse",
            }
        )
    return found


def _entry_bytes(item: Vendored) -> bytes:
    """What the harness serves at ``item.url``: its stylesheet, or its package's entry file."""
    if item.stylesheet is not None:
        return item.stylesheet.encode("utf-8")
    for pkg in item.packages:
        prefix = f"{pkg['name']}@{pkg['version']}/"
        if item.entry.startswith(prefix):
            path = fetch(pkg["name"], pkg["version"]) / item.entry.removeprefix(prefix)
            return path.read_bytes()
    return b""
