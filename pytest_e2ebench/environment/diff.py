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
KEEP_BYTES = 16 << 20  # of the given workspace's files kept to compare with; then digests
# relative path -> its bytes, or "large:<sha256>" (a file too large to show) or "kept:<sha256>"
# (one past KEEP_BYTES)
Snapshot = dict[str, bytes | str]


def _files(root: Path, keep: float):
    """(relative path, bytes or digest) of the regular files under ``root`` in walk order
    (intake's skipped names left out, at most ``MAX_FILES``), bytes while ``keep`` lasts."""
    count = 0
    for rel, _fd, st in walk(root, skip=SKIP_PATTERNS):
        if not stat.S_ISREG(st.st_mode):
            continue
        count += 1
        if count > MAX_FILES:
            return
        data = read_bytes(root, rel, HASH_BYTES) or b""
        if len(data) > FILE_BYTES:
            yield rel, "large:" + hashlib.sha256(data).hexdigest()
        elif len(data) > keep:
            yield rel, "kept:" + hashlib.sha256(data).hexdigest()
        else:
            keep -= len(data)
            yield rel, data


def snapshot(root: Path) -> Snapshot:
    """The files under ``root`` to compare a later tree with (bounded: ``_files``)."""
    return dict(_files(root, KEEP_BYTES))


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
        large = any(isinstance(v, str) and v.startswith("large:") for v in (old, new))
        why = f"larger than {FILE_BYTES} bytes" if large else f"past the {KEEP_BYTES} bytes kept"
        return [f"--- {a}\n+++ {b}\n", f"@@ {rel}: {why}, not shown\n"]
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


def _digest(value: bytes | str) -> str:
    return value.partition(":")[2] if isinstance(value, str) else hashlib.sha256(value).hexdigest()


def _same(old, new) -> bool:
    """Whether a file kept as bytes or as a digest is unchanged."""
    return old == new or _digest(old) == _digest(new)


def unified(before: Snapshot, root: Path) -> str:
    """The unified diff from ``before`` to the tree at ``root`` now, cut at ``MAX_BYTES``: the
    tree's files are read one at a time and no more once the cut is reached."""
    parts: list[str] = []
    size = 0
    seen: set[str] = set()
    after = _files(root, float("inf"))  # one file at a time: nothing of it is kept
    removed = ((rel, None) for rel in sorted(before))
    for rel, new in _chain(after, removed, seen):
        old = before.get(rel)
        present = (rel in before, new is not None)
        if present == (True, True) and _same(old, new):
            continue
        for line in _file_diff(rel, old, new, present):
            size += len(line.encode())
            if size > MAX_BYTES:
                parts.append(f"@@ the diff is cut here: it is larger than {MAX_BYTES} bytes\n")
                return "".join(parts)
            parts.append(line)
    return "".join(parts)


def _chain(after, removed, seen: set[str]):
    """The tree's files, then the given ones it no longer has (with ``None``)."""
    for rel, value in after:
        seen.add(rel)
        yield rel, value
    for rel, value in removed:
        if rel not in seen:
            yield rel, value


def write(folder: Path, before: Snapshot, workspace: Path) -> Path:
    """Write the diff from ``before`` to ``workspace`` now as ``folder/repo.diff``."""
    path = folder / DIFF_FILE
    path.write_text(unified(before, workspace), encoding="utf-8")
    return path
