"""Content hashes and the on-disk stage cache.

Each pipeline stage writes its output under the run directory and, last, a manifest
``<stage>.json`` holding the hash of the stage's inputs. A stage is reused only when its
manifest exists, is complete and carries the same key; anything else (a run killed half-way,
changed inputs) is thrown away and rebuilt. Manifests are written atomically, so a crash leaves
either the old manifest or none.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from ..isolation.intake import IntakeLimits, remove_tree, walk

SKIP_NAMES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_SKIP_PATTERNS = (*sorted(SKIP_NAMES), "*.pyc", "*.pyo")
SCHEMA = 1


def tree_hash(root: Path, limits: IntakeLimits = IntakeLimits()) -> str:  # noqa: B008
    """SHA-256 over the relative paths, executable bits and bytes of every file under ``root``.

    Byte-code caches are skipped; a missing folder (or a link in its place) hashes like an
    empty one. Links are hashed by their text, never followed; other non-regular files by their
    type. Bounded by ``limits`` (the tree may be a project's): past ``max_files`` entries the
    walk stops, and past ``max_bytes`` (or for a file over ``max_file_bytes``) a file is hashed
    by its size and modification time instead of its bytes.
    """
    digest = hashlib.sha256()
    seen = read = 0
    for rel, dir_fd, st in walk(root, skip=_SKIP_PATTERNS, max_depth=limits.max_depth):
        seen += 1
        if seen > limits.max_files:
            digest.update(b"\0truncated")
            break
        name = os.path.basename(rel)
        digest.update(os.fsencode(rel) + b"\0")
        if stat.S_ISLNK(st.st_mode):
            digest.update(b"L" + os.fsencode(os.readlink(name, dir_fd=dir_fd)))
        elif stat.S_ISREG(st.st_mode):
            digest.update(b"X" if st.st_mode & 0o111 else b"F")
            if st.st_size > limits.max_file_bytes or read + st.st_size > limits.max_bytes:
                digest.update(f"size={st.st_size},mtime={st.st_mtime_ns}".encode())
            else:
                read += _hash_file(digest, name, dir_fd, limits.max_file_bytes)
        else:
            digest.update(b"S%o" % stat.S_IFMT(st.st_mode))
        digest.update(b"\0")
    return digest.hexdigest()


def _hash_file(digest, name: str, dir_fd: int, max_bytes: int) -> int:
    """Feed at most ``max_bytes`` of a regular file (opened without following links)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return 0
    read = 0
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            while read < max_bytes and (chunk := os.read(fd, min(1 << 20, max_bytes - read))):
                digest.update(chunk)
                read += len(chunk)
    finally:
        os.close(fd)
    return read


def file_hash(path: Path) -> str:
    """SHA-256 of one file's name and bytes."""
    with path.open("rb") as fh:
        return hashlib.file_digest(
            fh, lambda: hashlib.sha256(path.name.encode() + b"\0")
        ).hexdigest()


def key_of(*parts: object) -> str:
    """A stable hash of JSON-able parts: the cache key of a stage."""
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def write_json(path: Path, data: object) -> None:
    """Write JSON atomically (temporary file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=True, default=str)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def remove(path: Path) -> None:
    """Remove a file or folder if it exists, making read-only entries writable first.

    A link is removed, never followed; so is any other non-folder (a FIFO a project made).
    """
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)  # at any depth: the tree may be an agent's
    elif os.path.lexists(path):
        path.unlink()


class Stage:
    """One cached stage of a run: output folder ``run_dir/name`` plus ``run_dir/name.json``.

    ``not_before`` (a UNIX time) makes manifests written earlier count as stale: that is how
    ``--e2e-rerun`` ignores the cache while items of the same session still share a stage.
    """

    def __init__(self, run_dir: Path, name: str, key: str, *, not_before: float = 0.0) -> None:
        self.name = name
        self.key = key
        self.dir = run_dir / name
        self.manifest = run_dir / f"{name}.json"
        self.not_before = not_before

    def load(self) -> dict | None:
        """The cached data if this stage is complete and current, else None."""
        try:
            doc = json.loads(self.manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if (
            not isinstance(doc, dict)
            or doc.get("schema") != SCHEMA
            or doc.get("key") != self.key
            or doc.get("written_at", 0) < self.not_before
            or not self.dir.is_dir()
        ):
            return None
        return doc.get("data")

    def reset(self, *, create: bool = True) -> Path:
        """Forget this stage: drop the manifest first, then the output.

        Returns the output folder, created empty unless ``create`` is false (for producers that
        create it themselves).
        """
        remove(self.manifest)
        remove(self.dir)
        if create:
            self.dir.mkdir(parents=True)
        return self.dir

    def commit(self, data: dict) -> dict:
        """Record the stage as complete with ``data`` and return it."""
        write_json(
            self.manifest,
            {"schema": SCHEMA, "key": self.key, "written_at": time.time(), "data": data},
        )
        return data


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the lock file ``path`` (created, with its folder), so two
    processes never fill one cache entry or build one run at once; released on exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def locked(run_dir: Path):
    """Hold an exclusive lock on a run directory (two processes never build one run)."""
    return file_lock(run_dir / ".lock")
