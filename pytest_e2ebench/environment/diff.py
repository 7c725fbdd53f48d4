"""What an agent changed in its workspace: a unified diff against the workspace it was given.

The workspace an agent starts from is empty, or holds what the harness put there before it
ran (an app task's materials, ProjectEval's skeleton, a cascade's earlier step). The diff is
taken after intake, on the harness's copy, and is bounded in time and memory like every read
of agent output: files are read without following links and only up to ``FILE_BYTES``, a file
changed on both sides is compared line by line only up to ``DIFF_LINES`` lines a side
(difflib's matcher is quadratic in the worst case), and the whole text stops at ``MAX_BYTES``.
The HTML report shows it (issue 42).
"""

from __future__ import annotations

import difflib
import hashlib
import stat
from pathlib import Path

from ..isolation.intake import SKIP_PATTERNS, read_bytes, walk

DIFF_FILE = "repo.diff"  # next to the step's repo/ and repo.json
FILE_BYTES = 256 << 10  # of one file read for the diff; larger ones are named, not shown
MAX_FILES = 5000  # files of one side looked at
DIFF_LINES = 4000  # lines a side of a changed file compared
MAX_BYTES = 2 << 20  # of the whole diff written

HASH_BYTES = 32 << 20  # of a larger file read for its digest (intake's largest file)
# relative path -> its bytes, or for a file too large to show the sha256 of its bytes
Snapshot = dict[str, bytes | str]


def snapshot(root: Path) -> Snapshot:
    """The regular files under ``root`` (intake's skipped names left out), bounded."""
    found: Snapshot = {}
    for rel, _fd, st in walk(root, skip=SKIP_PATTERNS):
        if len(found) >= MAX_FILES:
            break
        if not stat.S_ISREG(st.st_mode):
            continue
        data = read_bytes(root, rel, HASH_BYTES) or b""
        found[rel] = data if len(data) <= FILE_BYTES else hashlib.sha256(data).hexdigest()
    return found


def _lines(data: bytes) -> list[str] | None:
    """The text lines of ``data``, None for a binary file (a NUL byte or not UTF-8)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _file_diff(rel: str, old, new, present: tuple[bool, bool]) -> list[str]:
    """The diff lines of one file (``present``: whether it is on each side)."""
    a, b = (f"a/{rel}" if present[0] else "/dev/null"), (f"b/{rel}" if present[1] else "/dev/null")
    if isinstance(old, str) or isinstance(new, str):
        return [f"--- {a}\n+++ {b}\n", f"@@ {rel}: larger than {FILE_BYTES} bytes, not shown\n"]
    old_lines = _lines(old or b"") if present[0] else []
    new_lines = _lines(new or b"") if present[1] else []
    if old_lines is None or new_lines is None:
        return [f"Binary files {a} and {b} differ\n"]
    if old_lines and new_lines and max(len(old_lines), len(new_lines)) > DIFF_LINES:
        return [
            f"--- {a}\n+++ {b}\n",
            f"@@ {rel}: {len(old_lines)} -> {len(new_lines)} lines, too long to compare\n",
        ]
    out = list(difflib.unified_diff(old_lines, new_lines, a, b))
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in out]  # fmt: skip


def unified(before: Snapshot, after: Snapshot) -> str:
    """The unified diff from ``before`` to ``after``, in path order, cut at ``MAX_BYTES``."""
    parts: list[str] = []
    size = 0
    for rel in sorted(before.keys() | after.keys()):
        old, new = before.get(rel), after.get(rel)
        present = (rel in before, rel in after)
        if present == (True, True) and old == new:
            continue
        for line in _file_diff(rel, old, new, present):
            size += len(line.encode())
            if size > MAX_BYTES:
                parts.append(f"@@ the diff is cut here: it is larger than {MAX_BYTES} bytes\n")
                return "".join(parts)
            parts.append(line)
    return "".join(parts)


def write(folder: Path, before: Snapshot, workspace: Path) -> Path:
    """Write the diff from ``before`` to ``workspace`` now as ``folder/repo.diff``."""
    path = folder / DIFF_FILE
    path.write_text(unified(before, snapshot(workspace)), encoding="utf-8")
    return path
