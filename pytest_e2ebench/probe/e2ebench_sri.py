"""Subresource integrity as the browser checks it, for files the harness serves from npm.

Imported by the web plugin (in a web run's environment: the standard library only) and by the
harness's import check (``environment/sri.py``). A page may pin a CDN file with ``<script
src=... integrity="sha512-...">``; the harness serves that address from the file's npm package
(``environment/vendor.py``), and a CDN's copy is not always npm's (cdnjs minifies some
libraries itself). A pin npm's copy fails is a pin of bytes the harness cannot serve offline:
the page is served without that one attribute (:func:`unpin`), so the library loads as it
would from the CDN, and the import names the task (issue 47).

The rule (W3C Subresource Integrity, 3.3.4): of the hashes listed, only those of the strongest
algorithm count, and one of them must match.
"""

from __future__ import annotations

import base64
import hashlib
import re
import urllib.parse

ALGORITHMS = ("sha256", "sha384", "sha512")  # weakest first
_TAG = re.compile(r"<(?:script|link)\b[^<>]*>", re.IGNORECASE)
_INTEGRITY = re.compile(r"""\s+integrity\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+)""", re.IGNORECASE)


def matches(data: bytes, integrity: str) -> bool:
    """Whether ``data`` passes the ``integrity`` metadata (a value with no known algorithm
    passes: the browser does not check it either)."""
    listed = []
    for token in integrity.split():
        algorithm, _, digest = token.partition("-")
        if algorithm.lower() in ALGORITHMS:
            listed.append((ALGORITHMS.index(algorithm.lower()), digest.partition("?")[0]))
    if not listed:
        return True
    strongest = max(rank for rank, _ in listed)
    mine = base64.b64encode(hashlib.new(ALGORITHMS[strongest], data).digest()).decode()
    return any(digest == mine for rank, digest in listed if rank == strongest)


def unpin(text: str, prefix: str, served) -> str:
    """``text`` (a page, its CDN addresses already rewritten to ``prefix``) without the
    ``integrity`` attribute of each tag that loads a vendored file failing it. ``served(rel)``
    gives the bytes served under ``prefix + rel`` (None when there is no such file)."""

    def one(tag: re.Match) -> str:
        found = _INTEGRITY.search(tag[0])
        at = tag[0].find(prefix)
        if found is None or at < 0:
            return tag[0]
        rel = re.match(r"[^\"'\s<>]*", tag[0][at + len(prefix) :])[0]
        data = served(urllib.parse.unquote(rel))
        value = found[0].split("=", 1)[1].strip().strip("\"'")
        if data is None or matches(data, value):
            return tag[0]
        return tag[0][: found.start()] + tag[0][found.end() :]

    return _TAG.sub(one, text)
