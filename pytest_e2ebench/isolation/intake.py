"""Taking in a project tree from the project zone without following links, within limits.

Everything an agent wrote is untrusted (DESIGN.md "Trust boundary"): a symbolic link may point
at the task's reference implementation, at ``/proc/self/environ`` (the harness's environment,
API key included) or at ``/dev/zero``; a FIFO blocks whoever opens it; a million files or one
huge file fill the disk. :func:`copy_tree` copies only regular files and folders, opening every
entry relative to its parent folder's descriptor with ``O_NOFOLLOW`` and checking what it
opened with ``fstat``, so an entry swapped for a link while the copy runs is not followed.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import io
import itertools
import os
import posixpath
import stat
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..untrusted.text import has_control, printable

_CHUNK = 1 << 20
# Larger Python sources are not parsed: 2 MB of "1+1+…" already takes ~400 MB of AST, and no
# real module is that big. Parsing is the costly step; reading is bounded separately.
MAX_SOURCE_BYTES = 2 << 20
MAX_LISTED_DROPPED = 20  # dropped entries listed in a record (intake may drop thousands)
# What the AST parser raises on hostile input besides SyntaxError: ValueError (NUL bytes),
# RecursionError and MemoryError (deep nesting), UnicodeDecodeError (bad coding cookie).
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError)
# Left out of a taken-in project, uncounted: caches, build metadata, version control and
# environments are not the project, and an agent's .venv or .git alone can pass max_files.
SKIP_PATTERNS = (
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.egg-info",
    ".git",
    ".venv",
    ".tox",
)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK|O_NOCTTY: should a FIFO or a terminal be swapped in after the lstat, opening it
# must neither block nor adopt it; fstat then rejects it.
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclasses.dataclass(frozen=True)
class IntakeLimits:
    """Bounds on what one intake may copy.

    ``max_files`` counts every entry looked at (files, folders, dropped entries): each costs
    an inode or memory, and a tree of a million empty folders must stop as early as one of a
    million files.
    """

    max_files: int = 20_000
    max_bytes: int = 256 << 20
    max_file_bytes: int = 32 << 20
    max_depth: int = 64


@dataclasses.dataclass
class IntakeReport:
    """What an intake copied, what it left out and why, and which limit stopped it (if any)."""

    files: int = 0
    bytes: int = 0
    dropped: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    exceeded: str | None = None

    def to_dict(self) -> dict:
        """JSON-able form (``dropped`` as ``[path, reason]`` pairs)."""
        return {
            "files": self.files,
            "bytes": self.bytes,
            "dropped": [list(d) for d in self.dropped],
            "exceeded": self.exceeded,
        }

    @classmethod
    def from_dict(cls, data: dict) -> IntakeReport:
        """Inverse of :meth:`to_dict`."""
        return cls(
            files=int(data.get("files", 0)),
            bytes=int(data.get("bytes", 0)),
            dropped=[(str(p), str(r)) for p, r in data.get("dropped", [])],
            exceeded=data.get("exceeded"),
        )


class _Stop(Exception):
    """A limit was reached: the copy ends here."""


def copy_tree(
    src: Path,
    dest: Path,
    limits: IntakeLimits = IntakeLimits(),  # noqa: B008 - frozen, so sharing it is safe
    *,
    ignore: Iterable[str] = (),
) -> IntakeReport:
    """Copy the regular files and folders under ``src`` into ``dest``, following no link.

    ``dest`` is created; it must not exist or be an empty folder. ``src`` being a symbolic link
    (or not a folder) raises ValueError. A link whose target, read lexically from the link's
    folder, is a regular file inside the tree is copied as that file's bytes (one hop; the
    target's own path is walked without following links); every other link, every non-regular
    file and every name that is not UTF-8 or holds a control character (escape sequences,
    newlines, bidirectional overrides) is dropped and reported. Names matching an ``ignore``
    pattern (fnmatch) are skipped silently. Only the executable bit of a mode is kept.

    When a limit is reached the copy stops, ``exceeded`` names the limit and ``dest`` holds
    what was copied so far.
    """
    src, dest = Path(src), Path(dest)
    if src.is_symlink():
        raise ValueError(f"{src} is a symbolic link; intake copies only real folders")
    try:
        src_fd = os.open(src, _DIR_FLAGS)
    except OSError as exc:
        raise ValueError(f"{src} is not a readable folder: {exc}") from exc
    try:
        if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
            raise ValueError(f"{dest} must not exist or be an empty folder")
        dest.mkdir(parents=True, exist_ok=True)
        dest_fd = os.open(dest, _DIR_FLAGS)
        try:
            copier = _Copier(src_fd, limits, tuple(ignore))
            try:
                copier.copy_dir(src_fd, dest_fd, "", 0)
            except _Stop:
                pass
            return copier.report
        finally:
            os.close(dest_fd)
    finally:
        os.close(src_fd)


def _display(rel: str) -> str:
    # Non-UTF-8 bytes arrive as surrogate escapes; show them as \x.. so the report is JSON-able.
    # A control character is shown escaped too: the report reaches the terminal as a note.
    text = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return printable(text, lines=False)


class _Copier:
    def __init__(self, root_fd: int, limits: IntakeLimits, ignore: tuple[str, ...]) -> None:
        self.root_fd = root_fd
        self.limits = limits
        self.ignore = ignore
        self.report = IntakeReport()
        self.seen = 0

    def _exceed(self, limit: str) -> None:
        self.report.exceeded = limit
        raise _Stop

    def _drop(self, rel: str, reason: str) -> None:
        self.report.dropped.append((_display(rel), reason))

    def _names(self, dir_fd: int) -> list[str]:
        names = []
        with os.scandir(dir_fd) as entries:
            for entry in entries:
                if any(fnmatch.fnmatch(entry.name, p) for p in self.ignore):
                    continue
                # Counted while listing: a folder of a million entries is never held in memory.
                self.seen += 1
                if self.seen > self.limits.max_files:
                    self._exceed("max_files")
                names.append(entry.name)
        return sorted(names)

    def copy_dir(self, src_fd: int, dest_fd: int, rel_dir: str, depth: int) -> None:
        """Copy the entries of one folder (both given as open descriptors)."""
        for name in self._names(src_fd):
            rel = posixpath.join(rel_dir, name)
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                self._drop(rel, "name is not valid UTF-8")
                continue
            if has_control(name):  # an escape sequence in every report and log naming it
                self._drop(rel, "name holds a control character")
                continue
            try:
                st = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
            except OSError as exc:
                self._drop(rel, f"cannot stat: {exc.strerror}")
                continue
            if stat.S_ISDIR(st.st_mode):
                self._copy_subdir(src_fd, dest_fd, name, rel, st, depth + 1)
            elif stat.S_ISREG(st.st_mode):
                self._copy_file(src_fd, name, st, dest_fd, name, rel)
            elif stat.S_ISLNK(st.st_mode):
                self._copy_link(src_fd, dest_fd, name, rel_dir, rel)
            else:
                self._drop(rel, "not a regular file or folder")

    def _copy_subdir(
        self, src_fd: int, dest_fd: int, name: str, rel: str, st: os.stat_result, depth: int
    ) -> None:
        if depth > self.limits.max_depth:
            self._exceed("max_depth")
        try:
            sub_fd = os.open(name, _DIR_FLAGS, dir_fd=src_fd)
        except OSError:
            self._drop(rel, "changed while copying")
            return
        try:
            if not _same(os.fstat(sub_fd), st):
                self._drop(rel, "changed while copying")
                return
            os.mkdir(name, 0o755, dir_fd=dest_fd)
            sub_dest = os.open(name, _DIR_FLAGS, dir_fd=dest_fd)
            try:
                self.copy_dir(sub_fd, sub_dest, rel, depth)
            finally:
                os.close(sub_dest)
        finally:
            os.close(sub_fd)

    def _copy_link(self, src_fd: int, dest_fd: int, name: str, rel_dir: str, rel: str) -> None:
        try:
            target = os.readlink(name, dir_fd=src_fd)
        except OSError:
            self._drop(rel, "changed while copying")
            return
        if posixpath.isabs(target):
            self._drop(rel, f"link to an absolute path ({_display(target)})")
            return
        # Lexical: every folder on the way to the link was walked without following links,
        # so joining and normalising the text is where the link really points.
        resolved = posixpath.normpath(posixpath.join(rel_dir, target))
        if resolved == "." or resolved == ".." or resolved.startswith("../"):
            self._drop(rel, f"link leaves the tree ({_display(target)})")
            return
        parts = resolved.split("/")
        fd = os.dup(self.root_fd)
        try:
            for part in parts[:-1]:
                try:
                    nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    self._drop(
                        rel, f"link to a missing file or through a link ({_display(target)})"
                    )
                    return
                os.close(fd)
                fd = nxt
            try:
                st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            except OSError:
                self._drop(rel, f"dangling link ({_display(target)})")
                return
            if not stat.S_ISREG(st.st_mode):
                self._drop(rel, f"link to something other than a regular file ({_display(target)})")
                return
            self._copy_file(fd, parts[-1], st, dest_fd, name, rel)
        finally:
            os.close(fd)

    def _copy_file(
        self, src_fd: int, name: str, st: os.stat_result, dest_fd: int, dest_name: str, rel: str
    ) -> None:
        limits, report = self.limits, self.report
        try:
            in_fd = os.open(name, _FILE_FLAGS, dir_fd=src_fd)
        except OSError:
            self._drop(rel, "changed while copying")
            return
        try:
            opened = os.fstat(in_fd)
            if not stat.S_ISREG(opened.st_mode) or not _same(opened, st):
                self._drop(rel, "changed while copying")
                return
            room = limits.max_bytes - report.bytes
            cap = min(limits.max_file_bytes, room)
            limit = "max_file_bytes" if limits.max_file_bytes <= room else "max_bytes"
            if opened.st_size > cap:
                self._exceed(limit)
            mode = 0o755 if st.st_mode & 0o111 else 0o644
            out_fd = os.open(
                dest_name,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                mode,
                dir_fd=dest_fd,
            )
            copied = 0
            try:
                os.fchmod(out_fd, mode)  # the umask applied at creation
                # The size may grow after the fstat (or lie): read at most cap + 1 bytes.
                while chunk := os.read(in_fd, min(_CHUNK, cap + 1 - copied)):
                    copied += len(chunk)
                    if copied > cap:
                        break
                    _write_all(out_fd, chunk)
            finally:
                os.close(out_fd)
            if copied > cap:
                os.unlink(dest_name, dir_fd=dest_fd)
                self._exceed(limit)
            report.files += 1
            report.bytes += copied
        finally:
            os.close(in_fd)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_open(fd: int, limit: int, name: str) -> bytes:
    """At most ``limit`` bytes of the open file ``fd``, never reading more than ``limit + 1``.

    Raises OSError when it is not a regular file, ValueError when it is larger.
    """
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise OSError(f"{name} is not a regular file")
    chunks, size = [], 0
    while chunk := os.read(fd, min(_CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ValueError(f"{name} is larger than {limit} bytes")
    return b"".join(chunks)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, its last component opened without following a
    link (for files in folders the harness made), at most ``limit`` of them.

    Raises OSError for a link, a FIFO, a device or a missing file, ValueError when larger.
    """
    fd = os.open(path, _FILE_FLAGS)
    try:
        return _read_open(fd, limit, path.name)
    finally:
        os.close(fd)


def read_beneath(root: Path, rel: str | Path, max_bytes: int) -> bytes:
    """The bytes of the regular file ``root/rel``, read without following any link.

    Every component of ``rel`` is opened relative to its parent's descriptor with
    ``O_NOFOLLOW``, so a folder or file swapped for a link (say by a test run that could write
    the project) is not followed; never reads more than ``max_bytes + 1`` bytes. Raises
    FileNotFoundError when a component is missing, OSError for a link (``ELOOP``), a
    non-regular file or another failure, ValueError for an absolute or ``..`` path or a file
    larger than ``max_bytes``.
    """
    parts = [p for p in Path(rel).parts if p not in ("", ".")]
    if not parts or ".." in parts or Path(rel).is_absolute():
        raise ValueError(f"{rel}: not a relative path inside the folder")
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        file_fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)
    try:
        return _read_open(file_fd, max_bytes, parts[-1])
    finally:
        os.close(file_fd)


def read_bytes(root: Path, rel: str | Path, max_bytes: int) -> bytes | None:
    """:func:`read_beneath`, or None when the file is missing, not a regular file, behind a
    link or larger than ``max_bytes`` (for callers that need not say which)."""
    try:
        return read_beneath(root, rel, max_bytes)
    except (OSError, ValueError):
        return None


def read_text(root: Path, rel: str | Path, max_bytes: int) -> str | None:
    """:func:`read_bytes` decoded as UTF-8 (undecodable bytes replaced)."""
    data = read_bytes(root, rel, max_bytes)
    return None if data is None else data.decode("utf-8", "replace")


def parse_python(
    root: Path, rel: str | Path, max_bytes: int = MAX_SOURCE_BYTES
) -> ast.Module | None:
    """The AST of the Python file ``root/rel``, or None when it cannot be had within bounds.

    Too large, unreadable, not valid Python, or nested too deeply for the parser: all the same
    to the harness — the file is unparseable, never a crash.
    """
    data = read_bytes(root, rel, max_bytes)
    if data is None or crowded_fstring(data):
        return None
    try:
        return ast.parse(data)
    except PARSE_ERRORS:
        return None


# Python 3.11 parses an f-string in time quadratic in its replacement fields: one of 50,000
# (150 KB) took 13 s of the harness's process, the 2 MiB allowed above about 40 minutes.
MAX_FSTRING_FIELDS = 2000


def crowded_fstring(data: bytes) -> bool:
    """Whether one f-string literal of ``data`` holds over :data:`MAX_FSTRING_FIELDS` ``{``
    (tokenized, linear; only a file with that many ``{`` at all is tokenized)."""
    if data.count(b"{") <= MAX_FSTRING_FIELDS:
        return False
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type != tokenize.STRING or token.string.count("{") <= MAX_FSTRING_FIELDS:
                continue
            prefix = token.string[: len(token.string) - len(token.string.lstrip("bBrRuUfF"))]
            if "f" in prefix.lower():  # a plain string of braces (a JSON blob) is no f-string
                return True
    except (tokenize.TokenError, SyntaxError, ValueError, UnicodeDecodeError):
        return True  # not Python the parser would take either
    return False


def walk(
    root: Path, *, skip: Iterable[str] = (), max_depth: int = IntakeLimits.max_depth
) -> Iterator[tuple[str, int, os.stat_result]]:
    """Every entry under ``root`` that is not a folder: ``(relative path, parent fd, lstat)``.

    In sorted order, never entering a link (folders are opened relative to their parent with
    ``O_NOFOLLOW`` and checked with ``fstat``). Names in ``skip`` (fnmatch) are left out; a
    folder deeper than ``max_depth`` is yielded itself instead of entered. The parent
    descriptor is valid only until the next entry. A missing root, or a link, yields nothing.
    """
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError:
        return
    try:
        yield from _walk(fd, "", tuple(skip), max_depth)
    finally:
        os.close(fd)


def _walk(
    dir_fd: int, rel_dir: str, skip: tuple[str, ...], depth: int
) -> Iterator[tuple[str, int, os.stat_result]]:
    with os.scandir(dir_fd) as entries:
        names = sorted(e.name for e in entries if not any(fnmatch.fnmatch(e.name, p) for p in skip))
    for name in names:
        rel = posixpath.join(rel_dir, name)
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or depth <= 0:
            yield rel, dir_fd, st
            continue
        try:
            sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            if _same(os.fstat(sub), st):
                yield from _walk(sub, rel, skip, depth - 1)
        finally:
            os.close(sub)


_OPEN_LEVELS = 128  # folders a removal holds open at once; deeper ones are moved up first
_MOVED = itertools.count()  # names of the folders moved up


def remove_tree(root: Path) -> None:
    """Remove the folder ``root`` and everything in it, following no link, at any depth.

    ``shutil.rmtree`` recurses once per level: an agent's tree 3,000 folders deep raised
    ``RecursionError`` in the harness (a run that became a harness error, out of the mean).
    Here a loop walks the tree with a stack of open folders; a folder deeper than
    :data:`_OPEN_LEVELS` below where the walk began is moved up into ``root`` under a fresh
    name and emptied later, so neither the stack nor the open descriptors grow with the
    depth. Read-only folders are made writable first (never through a link: each was seen as
    a folder, not a link, and the processes that wrote the tree have ended).
    """
    if not os.access(root, os.R_OK | os.W_OK | os.X_OK) and not root.is_symlink():
        os.chmod(root, 0o700)
    top = os.open(root, _DIR_FLAGS)
    try:
        pending: list[str | None] = [None]  # folders in ``root`` to empty (None: itself)
        while pending:
            name = pending.pop()
            start = top if name is None else _open_emptied(top, name)
            if start is not None:
                _empty(start, top, pending)
            if name is not None:
                _writing(top, os.rmdir, name, dir_fd=top)
    finally:
        os.close(top)
    os.rmdir(root)


def _empty(start: int, top: int, pending: list) -> None:
    """Empty the open folder ``start`` (closed here unless it is ``top``)."""
    stack = [(start, _entries(start), "")]
    while stack:
        fd, entries, name = stack[-1]
        if not entries:
            stack.pop()
            if fd != top:
                os.close(fd)
            if stack:  # emptied: removed from its parent
                _writing(stack[-1][0], os.rmdir, name, dir_fd=stack[-1][0])
            continue
        entry, is_dir = entries.pop()
        if not is_dir:
            _writing(fd, os.unlink, entry, dir_fd=fd)
        elif len(stack) >= _OPEN_LEVELS:
            fresh = f".e2ebench-remove-{os.getpid()}-{next(_MOVED)}"
            _writing(fd, os.rename, entry, fresh, src_dir_fd=fd, dst_dir_fd=top)
            pending.append(fresh)
        else:
            child = _open_emptied(fd, entry)
            if child is not None:
                stack.append((child, _entries(child), entry))


def _entries(fd: int) -> list[tuple[str, bool]]:
    with os.scandir(fd) as found:
        return [(e.name, e.is_dir(follow_symlinks=False)) for e in found]


def _open_emptied(parent: int, name: str) -> int | None:
    """The folder ``name`` of ``parent``, made readable first when it is not."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        return None


def _writing(folder: int, change, *args, **kwargs) -> None:
    """``change(*args, **kwargs)`` in the open ``folder``, made writable when it is not."""
    try:
        change(*args, **kwargs)
    except PermissionError:
        os.fchmod(folder, 0o700)
        change(*args, **kwargs)
    except FileNotFoundError:
        pass


def intake_summary(intake: dict | None) -> dict | None:
    """The record's ``intake``: counts, the limit exceeded, the first dropped entries."""
    if not intake:
        return None
    dropped = intake.get("dropped", [])
    return {
        "files": intake.get("files"),
        "bytes": intake.get("bytes"),
        "exceeded": intake.get("exceeded"),
        "dropped": dropped[:MAX_LISTED_DROPPED],
        "dropped_total": len(dropped),
    }


def intake_notes(intake: dict | None) -> list[str]:
    """What intake stopped at or dropped, as notes for a record."""
    if not intake:
        return []
    notes = []
    if intake.get("exceeded"):
        notes.append(
            f"intake stopped at the {intake['exceeded']} limit (see intake in the record): "
            "graded as an empty repository"
        )
    if intake.get("dropped"):
        n = len(intake["dropped"])
        first = ", ".join(f"{p} ({r})" for p, r in intake["dropped"][:3])
        notes.append(f"intake dropped {n} {'entry' if n == 1 else 'entries'}: {first}")
    return notes
