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
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

SKIP_NAMES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
SCHEMA = 1


def tree_hash(root: Path) -> str:
    """SHA-256 over the relative paths, executable bits and bytes of every file under ``root``.

    Byte-code caches are skipped; a missing folder hashes like an empty one.
    """
    digest = hashlib.sha256()
    if root.is_dir():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_NAMES)
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = Path(dirpath, name)
                rel = path.relative_to(root).as_posix()
                mode = path.lstat().st_mode
                digest.update(rel.encode() + b"\0")
                if stat.S_ISLNK(mode):
                    digest.update(b"L" + os.readlink(path).encode())
                elif stat.S_ISREG(mode):
                    digest.update(b"X" if mode & 0o111 else b"F")
                    with path.open("rb") as fh:
                        for chunk in iter(lambda: fh.read(1 << 20), b""):
                            digest.update(chunk)
                digest.update(b"\0")
    return digest.hexdigest()


def file_hash(path: Path) -> str:
    """SHA-256 of one file's name and bytes."""
    digest = hashlib.sha256(path.name.encode() + b"\0")
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


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
    """Remove a file or folder if it exists, making read-only entries writable first."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():

        def onerror(func, target, _exc):
            os.chmod(target, 0o700)
            func(target)

        shutil.rmtree(path, onerror=onerror)


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
def locked(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on a run directory (two processes never build one run)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / ".lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
