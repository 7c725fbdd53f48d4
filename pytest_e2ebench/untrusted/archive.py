"""Unpacking a peer's published archive: regular files only, bounded, inside the destination.

``e2ebench fetch`` downloads a benchmark's repository as a ``.tar.gz`` (GitHub's archive of
a commit, or a user's mirror of it). The archive is peer data, possibly swapped on the way: a
member named ``../../.bashrc`` or ``/etc/cron.d/x``, a symbolic or hard link (to a host file,
or one a later member writes through), a device, the same name twice, a million members or a
gigabyte of zeros. :func:`unpack` reads the archive as a stream, once, and

* strips the one top folder every member must share (GitHub's ``<repo>-<commit>/``);
* keeps only members under the ``keep`` prefixes (the dataset, not the peer's code);
* refuses a kept member that is not a regular file or a folder, whose path is absolute, has
  ``..``, a NUL, an empty or over-deep component, or that is written twice;
* counts members, bytes kept and bytes read against :class:`ArchiveLimits`;
* writes each file with ``O_CREAT | O_EXCL | O_NOFOLLOW`` below a destination it created
  itself, so nothing it writes can go through a link;
* returns the content manifest: each kept file's git blob id (``sha1("blob <size>\\0" +
  bytes)``), the id git itself gives the file at the pinned commit.

Every refusal is an :class:`~pytest_e2ebench.errors.AgentFileError` naming the member; the
destination is then removed (nothing of a refused archive is left for an importer to read).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tarfile
from pathlib import Path, PurePosixPath

from ..errors import AgentFileError
from .text import has_control

_CHUNK = 1 << 20
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# Headers that tarfile reads whole into memory, and parses, before a member is handed out: a
# pax header or GNU long name of 300 MB (300 KB gzipped) took 940 MiB and 30 s, whatever the
# limits below (they count members' data). Real ones are a few hundred bytes.
MAX_HEADER_BYTES = 64 << 10
_HEADER_TYPES = frozenset(
    {
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
    }
)


# tarfile reads the header after an extended one by recursing: 5,000 pax headers in a row
# raised RecursionError out of unpack. A real member has two at most (global and its own).
MAX_HEADER_CHAIN = 8


class _BoundedTarInfo(tarfile.TarInfo):
    """A member header that refuses, before tarfile reads it, an extended header over
    :data:`MAX_HEADER_BYTES`, more than :data:`MAX_HEADER_CHAIN` of them in a row, and an old
    GNU sparse member (whose chain of extension headers tarfile collects without bound;
    ``git archive`` writes none)."""

    def _proc_member(self, tarfile_):  # noqa: ANN001, ANN202 - tarfile's own hook
        chain = (
            getattr(tarfile_, "e2ebench_header_chain", 0) + 1 if self.type in _HEADER_TYPES else 0
        )
        tarfile_.e2ebench_header_chain = chain
        if chain > MAX_HEADER_CHAIN:
            raise AgentFileError(self.name[:200], f"follows {chain - 1} extended headers in a row")
        if self.type in _HEADER_TYPES and self.size > MAX_HEADER_BYTES:
            raise AgentFileError(
                self.name[:200],
                f"has an extended header of {self.size} bytes (at most {MAX_HEADER_BYTES})",
            )
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise AgentFileError(self.name[:200], "is a sparse member (regular files only)")
        return super()._proc_member(tarfile_)


@dataclasses.dataclass(frozen=True)
class ArchiveLimits:
    """Bounds on one archive: members looked at, bytes kept, bytes read, one file, depth.

    The defaults fit the largest published dataset fetched here (DevEval's repository: 27,529
    files, 213 MB, most of them a vendored ``node_modules`` that is read past, not written) with
    room to spare, and stop a decompression bomb long before the disk fills.
    """

    max_members: int = 200_000
    max_kept_bytes: int = 512 << 20
    max_read_bytes: int = 4 << 30
    max_file_bytes: int = 128 << 20
    max_depth: int = 32


def git_blob_hasher(size: int):  # noqa: ANN201 - hashlib's hash type is private
    """A SHA-1 hasher primed with git's blob header for ``size`` bytes (feed it the content).

    SHA-1 because it is the id git gives the file at the pinned commit (the commit id itself is
    SHA-1 over these ids); the pin over the whole manifest is SHA-256.
    """
    h = hashlib.sha1(usedforsecurity=False)
    h.update(f"blob {size}\0".encode())
    return h


def manifest_digest(manifest: dict[str, str]) -> str:
    """SHA-256 (hex) of the manifest's lines ``<blob id> <path>\\n``, sorted by path bytes.

    The same bytes as ``git ls-tree -r --format='%(objectname) %(path)' COMMIT -- KEEP...``
    prints for paths without special characters, so a pin can be computed from git alone.
    """
    lines = (f"{manifest[p]} {p}\n" for p in sorted(manifest, key=lambda p: p.encode()))
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def manifest_text(manifest: dict[str, str]) -> str:
    """The manifest's lines as :func:`manifest_digest` hashes them."""
    return "".join(f"{manifest[p]} {p}\n" for p in sorted(manifest, key=lambda p: p.encode()))


def unpack(
    archive: Path, dest: Path, keep: tuple[str, ...], limits: ArchiveLimits | None = None
) -> dict[str, str]:
    """Unpack the members of ``archive`` under ``keep`` into ``dest`` (which must not exist).

    Returns ``{path: git blob id}`` of every file written (paths relative to the archive's top
    folder, POSIX). Raises AgentFileError (``dest`` removed) on anything refused.
    """
    dest = Path(dest)
    dest.mkdir(parents=True)  # FileExistsError: never unpack over what is there
    try:
        return _unpack_stream(archive, dest, keep, limits or ArchiveLimits())
    except AgentFileError:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise AgentFileError(archive.name, f"is not a readable .tar.gz archive ({exc})") from None


def _unpack_stream(
    archive: Path, dest: Path, keep: tuple[str, ...], limits: ArchiveLimits
) -> dict[str, str]:
    manifest: dict[str, str] = {}
    top: str | None = None
    members = kept = read = 0
    with tarfile.open(archive, mode="r|*", tarinfo=_BoundedTarInfo) as tar:
        for member in tar:
            members += 1
            read += max(member.size, 0)
            if members > limits.max_members or read > limits.max_read_bytes:
                raise AgentFileError(archive.name, _over(members, read, limits))
            top, rel = _split_top(member.name, top, archive.name)
            if rel is None or not _kept(rel, keep):
                continue
            path = _checked_path(rel, member, limits)
            if member.isdir():
                (dest / path).mkdir(parents=True, exist_ok=True)
                continue
            kept += member.size
            if kept > limits.max_kept_bytes:
                raise AgentFileError(
                    archive.name, f"keeps more than {limits.max_kept_bytes} bytes (the limit)"
                )
            manifest[path] = _write_member(tar, member, dest, path)
    if top is None:
        raise AgentFileError(archive.name, "is an empty archive")
    return manifest


def _over(members: int, read: int, limits: ArchiveLimits) -> str:
    if members > limits.max_members:
        return f"has more than {limits.max_members} members (the limit)"
    return f"unpacks to more than {limits.max_read_bytes} bytes (the limit)"


def _split_top(name: str, top: str | None, where: str) -> tuple[str, str | None]:
    """The archive's top folder and ``name`` below it (None: the top folder itself)."""
    parts = PurePosixPath(name).parts
    first = parts[0] if parts else ""
    if first in ("", "/", ".", ".."):
        raise AgentFileError(f"{where}: {name[:200]!r}", "is not below one top folder")
    if top is not None and first != top:
        raise AgentFileError(
            f"{where}: {name[:200]!r}",
            f"lies outside the top folder {top!r} (an archive of a repository has one top "
            "folder, as `git archive --prefix=NAME/` writes it)",
        )
    rest = "/".join(parts[1:])
    return first, (rest or None)


def _kept(rel: str, keep: tuple[str, ...]) -> bool:
    return any(rel == k or rel.startswith(k.rstrip("/") + "/") for k in keep)


def _checked_path(rel: str, member: tarfile.TarInfo, limits: ArchiveLimits) -> str:
    """``rel`` if the member is a regular file or folder with a safe relative path."""
    if not (member.isfile() or member.isdir()):
        kind = "symbolic link" if member.issym() else "hard link" if member.islnk() else "special"
        raise AgentFileError(
            rel[:200], f"is a {kind} member (a published dataset is regular files only)"
        )
    path = PurePosixPath(rel)
    bad = (
        "\x00" in rel
        or "\\" in rel
        or path.is_absolute()
        or any(p in ("", ".", "..") for p in rel.split("/"))
    )
    if bad:
        raise AgentFileError(rel[:200], "is not a plain relative path (absolute, '..' or NUL)")
    if has_control(rel):  # an escape sequence in every import report and terminal naming it
        raise AgentFileError(rel[:200], "has a control character in its name")
    if len(path.parts) > limits.max_depth:
        raise AgentFileError(rel[:200], f"lies deeper than {limits.max_depth} folders")
    if member.size > limits.max_file_bytes:
        raise AgentFileError(rel[:200], f"is larger than {limits.max_file_bytes} bytes")
    return path.as_posix()


def _write_member(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path, path: str) -> str:
    """Write one regular member to ``dest/path``; its git blob id."""
    target = dest / path
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(target, _WRITE_FLAGS, 0o644)
    except FileExistsError:
        raise AgentFileError(path, "appears twice in the archive") from None
    source = tar.extractfile(member)
    h = git_blob_hasher(member.size)
    written = 0
    with os.fdopen(fd, "wb") as out:
        while source is not None and (chunk := source.read(_CHUNK)):
            written += len(chunk)
            h.update(chunk)
            out.write(chunk)
    if written != member.size:
        raise AgentFileError(path, f"is truncated ({written} of {member.size} bytes)")
    return h.hexdigest()
