"""Writable folders on a size-limited filesystem: every write of a command lands in a tmpfs.

A quota that measures the folders cannot see a file that was unlinked while a process holds it
open: its blocks stay in use until the last descriptor closes, so a run could hold far more of
the host's disk than its quota (issue 11, class 6). When the harness is root, a sandboxed
command therefore never writes to its folders directly. Each writable folder is shown to it as
an overlay (overlayfs): the folder itself is the read-only lower layer and the upper layer —
where every new file, change and deletion goes, unlinked-but-open files included — is a folder
of one tmpfs limited in bytes and inodes. Filling it fails with ``ENOSPC`` inside the sandbox.

When the command has ended (and every process of it is gone), the overlays are unmounted and
the harness applies the upper layers to the folders: new and changed files and links are
copied, deletions (whiteouts) and replaced folders (opaque folders) are applied; names of one
file (hard links) stay links to one copy, so what reaches the folder holds no more blocks than
the tmpfs held. This is done with descriptors, never following a link the command made, so a
link it left cannot send the harness's writes elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from .intake import IntakeLimits
from .mounts import OVERLAY_SOURCE

# Overlay features off: a change of metadata only must copy the whole file up (metacopy), and
# a renamed folder must be copied, not redirected (redirect_dir), so the upper layer alone says
# what changed.
_OPTIONS = "metacopy=off,redirect_dir=off,index=off"
_OPAQUE = "trusted.overlay.opaque"
# Folders deeper than intake takes (the run's project is taken in with the same bound) are not
# applied: each level holds three descriptors open while it is walked.
_MAX_DEPTH = IntakeLimits.max_depth
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _escape(path: Path) -> str:
    """A path as an overlay mount option value (``\\``, ``,`` and ``:`` escaped)."""
    text = str(path)
    for char in ("\\", ",", ":"):
        text = text.replace(char, "\\" + char)
    return text


@contextlib.contextmanager
def overlays(volume: Path, folders: Sequence[Path]) -> Iterator[dict[Path, Path] | None]:
    """Mount an overlay per folder with its upper layer in ``volume`` (a tmpfs of the harness).

    Yields where each folder's overlay is mounted (bind it at the folder inside the sandbox),
    or None when an overlay cannot be mounted here (the caller falls back to measuring the
    folders). On exit the overlays are unmounted and their upper layers applied to the folders.
    """
    mounted: list[tuple[Path, Path, Path]] = []  # (folder, upper, mount point)
    try:
        for index, folder in enumerate(folders):
            st = os.stat(folder, follow_symlinks=False)
            upper, work, point = (volume / f"{name}{index}" for name in ("upper", "work", "view"))
            for made in (upper, work, point):
                made.mkdir()
            # the merged folder's owner and mode are the upper layer's: the folder's own
            os.chown(upper, st.st_uid, st.st_gid)
            os.chmod(upper, stat.S_IMODE(st.st_mode))
            options = (
                f"lowerdir={_escape(folder)},upperdir={_escape(upper)},"
                f"workdir={_escape(work)},{_OPTIONS}"
            )
            command = ["mount", "-t", "overlay", "-o", options, OVERLAY_SOURCE, str(point)]
            if subprocess.run(command, capture_output=True).returncode != 0:
                break
            mounted.append((folder, upper, point))
        else:
            yield {folder: point for folder, _, point in mounted}
            return
    finally:
        for _, _, point in mounted:
            subprocess.run(["umount", "-l", str(point)], capture_output=True)
        for folder, upper, _ in mounted:
            apply(upper, folder)
    yield None  # an overlay could not be mounted: the ones made are gone again


def apply(upper: Path, lower: Path) -> None:
    """Apply an overlay's upper layer to its lower folder, never following a link."""
    upper_fd = os.open(upper, _DIR_FLAGS)
    try:
        lower_fd = os.open(lower, _DIR_FLAGS)
    except OSError:
        os.close(upper_fd)
        return
    try:
        _apply(upper_fd, lower_fd, 0, _Copies(lower_fd))
    finally:
        os.close(upper_fd)
        os.close(lower_fd)


class _Copies:
    """The files copied so far, by their inode in the upper layer: a second name of one is
    made a hard link to its first copy (the folders on the way are the harness's own, made or
    checked without following links)."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self.paths: dict[tuple[int, int], str] = {}

    def link(self, st: os.stat_result, lower_fd: int, name: str, where: str) -> bool:
        """Link ``name`` to an earlier copy of the same file; False when there is none."""
        first = self.paths.get((st.st_dev, st.st_ino))
        if first is None:
            self.paths[(st.st_dev, st.st_ino)] = f"{where}/{name}".lstrip("/")
            return False
        try:
            os.link(
                first, name, src_dir_fd=self.root_fd, dst_dir_fd=lower_fd, follow_symlinks=False
            )
        except OSError:  # the first copy is gone again: nothing is copied twice
            pass
        return True


def _apply(upper_fd: int, lower_fd: int, depth: int, copies: _Copies, where: str = "") -> None:
    for entry in os.scandir(upper_fd):
        name = entry.name
        st = entry.stat(follow_symlinks=False)
        mode = st.st_mode
        if stat.S_ISCHR(mode) and st.st_rdev == 0:  # a whiteout: deleted
            _remove(lower_fd, name)
        elif stat.S_ISDIR(mode):
            if depth < _MAX_DEPTH:
                _apply_folder(upper_fd, lower_fd, name, st, depth, copies, where)
        elif stat.S_ISLNK(mode):
            _remove(lower_fd, name)
            os.symlink(os.readlink(name, dir_fd=upper_fd), name, dir_fd=lower_fd)
            os.chown(name, st.st_uid, st.st_gid, dir_fd=lower_fd, follow_symlinks=False)
        elif stat.S_ISREG(mode):
            _remove(lower_fd, name)
            if st.st_nlink < 2 or not copies.link(st, lower_fd, name, where):
                _copy_file(upper_fd, lower_fd, name, st)
        # FIFOs, sockets and devices are not taken


def _apply_folder(
    upper_fd: int,
    lower_fd: int,
    name: str,
    st: os.stat_result,
    depth: int,
    copies: _Copies,
    where: str,
) -> None:
    child_upper = os.open(name, _DIR_FLAGS, dir_fd=upper_fd)
    try:
        # opaque: the folder was deleted and made again, nothing of the old one stays
        opaque = os.getxattr(child_upper, _OPAQUE) == b"y"
    except OSError:
        opaque = False
    try:
        try:
            found = os.stat(name, dir_fd=lower_fd, follow_symlinks=False)
        except FileNotFoundError:
            found = None
        if found is not None and (opaque or not stat.S_ISDIR(found.st_mode)):
            _remove(lower_fd, name)
            found = None
        if found is None:
            os.mkdir(name, 0o700, dir_fd=lower_fd)
        child_lower = os.open(name, _DIR_FLAGS, dir_fd=lower_fd)
        try:
            _apply(child_upper, child_lower, depth + 1, copies, f"{where}/{name}")
            os.fchown(child_lower, st.st_uid, st.st_gid)
            os.fchmod(child_lower, _mode(st))
        finally:
            os.close(child_lower)
    finally:
        os.close(child_upper)


def _copy_file(upper_fd: int, lower_fd: int, name: str, st: os.stat_result) -> None:
    source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=upper_fd)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        target = os.open(name, flags, 0o600, dir_fd=lower_fd)
        try:
            _copy_data(source, target, st.st_size)
            os.fchown(target, st.st_uid, st.st_gid)
            os.fchmod(target, _mode(st))
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(target)
    finally:
        os.close(source)


def _mode(st: os.stat_result) -> int:
    """The permission bits to give a copy, without set-user-ID and set-group-ID."""
    return stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)


def _copy_data(source: int, target: int, size: int) -> None:
    """Copy the data of ``source`` to ``target``, keeping holes: a sparse file of gigabytes
    that holds no blocks in the tmpfs holds none on the host either."""
    os.ftruncate(target, size)
    position = 0
    while position < size:
        try:
            start = os.lseek(source, position, os.SEEK_DATA)
        except OSError:  # ENXIO: no data after ``position``
            return
        end = os.lseek(source, start, os.SEEK_HOLE)
        os.lseek(target, start, os.SEEK_SET)
        while start < end:
            sent = os.sendfile(target, source, start, end - start)
            if sent == 0:
                return
            start += sent
        position = end


def _remove(dir_fd: int, name: str) -> None:
    """Remove ``name`` (a folder with everything in it) from the folder ``dir_fd``."""
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(found.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)  # rmtree with dir_fd never follows links
    else:
        os.unlink(name, dir_fd=dir_fd)
