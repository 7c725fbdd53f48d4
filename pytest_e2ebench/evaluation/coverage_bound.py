"""Project files too big for coverage.py to analyse, left out of measurement and reports.

coverage.py parses every file it reports (statements, then branch arcs) in a harness process;
a project module of megabytes of dense code makes that analysis take minutes and gigabytes,
once per suite and again for the session's reports. The harness parses no Python source
larger than :data:`~pytest_e2ebench.isolation.intake.MAX_SOURCE_BYTES` anywhere else, so
coverage leaves such files out as well (``omit`` in the ``[run]`` and ``[report]`` sections)
and the run record names them (issue 26).
"""

from __future__ import annotations

import os
import stat
import string
from pathlib import Path

from ..isolation.intake import MAX_LISTED_DROPPED, MAX_SOURCE_BYTES

# characters a coverage.py file pattern takes literally; every other one becomes "?"
_LITERAL = frozenset(string.ascii_letters + string.digits + "_-./")


def oversized(root: Path, limit: int = MAX_SOURCE_BYTES) -> list[str]:
    """Regular files under ``root`` larger than ``limit`` bytes, relative, sorted.

    Every file, not only ``*.py``: code run from a file of another name is measured under
    that name and parsed to be reported. Links are not followed (``root`` is an intake copy
    or the intake-checked project, where there are none)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:  # gone since the listing: nothing to leave out
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                found.append(os.path.relpath(path, root))
    return sorted(found)


def omit_patterns(root: Path, names: list[str]) -> list[str]:
    """coverage.py ``omit`` patterns matching ``root/name`` for each of ``names``.

    A project's file names are the agent's: each character outside letters, digits and
    ``_-./`` becomes ``?`` (one character, never a slash), so a name with glob characters,
    a newline or a ``[`` can neither break the rc file nor widen the pattern beyond names
    that differ from it only in those characters."""
    return ["".join(c if c in _LITERAL else "?" for c in f"{root}/{name}") for name in names]


def omitted_record(names: list[str]) -> dict | None:
    """What a suite's coverage record says about the files left out (None: none were)."""
    if not names:
        return None
    return {"files": names[:MAX_LISTED_DROPPED], "total": len(names), "limit": MAX_SOURCE_BYTES}


def omitted_note(coverage: dict | None) -> str | None:
    """The run record's note about files left out of coverage (None: none were)."""
    omitted = (coverage or {}).get("omitted")
    if not isinstance(omitted, dict):
        return None
    shown = ", ".join(omitted["files"]) + (" …" if omitted["total"] > len(omitted["files"]) else "")
    return (
        f"coverage leaves out {omitted['total']} project file(s) over "
        f"{omitted['limit'] >> 20} MB, too big to analyse: {shown}"
    )
