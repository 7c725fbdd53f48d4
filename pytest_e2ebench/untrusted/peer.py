"""What a published dataset names, checked before an importer uses it (issue 26, class 4).

A dataset is peer data: whoever published it chose every id, path and link in it. Importers
used to join those with the dataset folder and copy what they found, so a file list naming
``/etc/hostname`` (``src / "/etc/hostname"`` is ``/etc/hostname``), a link to ``/etc`` in a
repository (``shutil.copytree`` follows links) or an id of ``..`` in a glob put host files
into task folders, which every agent then receives. Here an id must match :data:`SAFE_ID`, a
path must be relative without ``..``, no component of a path may be a link, and folders are
copied by :func:`~pytest_e2ebench.isolation.intake.copy_tree` (no link followed, bounded). Every
refusal is an :class:`~pytest_e2ebench.errors.AgentFileError` naming what and why: the
importer turns it into that project's entry in the import report and goes on with the rest.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ..errors import AgentFileError
from ..isolation.intake import IntakeLimits, IntakeReport, copy_tree
from . import parse

SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# copy_tree's reasons for a link pointing out of the copied folder (intake.py): a dataset
# that ships one is hostile, not merely untidy.
_ESCAPING = ("link to an absolute path", "link leaves the tree")


def safe_id(value: object, what: str) -> str:
    """``value`` as an id fit for file names and globs (letters, digits, ``._-``)."""
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not SAFE_ID.fullmatch(text) or ".." in text:
        raise AgentFileError(
            what, f"{str(value)[:80]!r} is not a safe id (letters, digits, '.', '_', '-')"
        )
    return text


def relative_path(value: object, what: str) -> PurePosixPath:
    """``value`` as a relative path inside the dataset: no absolute path, ``..`` or NUL."""
    text = value if isinstance(value, str) else ""
    path = PurePosixPath(text)
    if not text.strip() or "\x00" in text or path.is_absolute() or ".." in path.parts:
        raise AgentFileError(what, f"{text[:120]!r} is not a relative path inside the dataset")
    return path


def beneath(root: Path, rel: str | PurePosixPath, what: str = "") -> Path:
    """``root/rel``, checked: relative, and no component of it is a symbolic link.

    Raises AgentFileError for a link on the way (a missing component is left to the reader).
    """
    what = what or str(rel)
    path = relative_path(str(rel), what)
    here = Path(root)
    for part in path.parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return Path(root).joinpath(*path.parts)
        if stat.S_ISLNK(mode):
            raise AgentFileError(what, "is or lies behind a symbolic link (links are not followed)")
    return here


def read_text(root: Path, rel: str | PurePosixPath, max_bytes: int = parse.MAX_BYTES) -> str | None:
    """The UTF-8 text of the dataset file ``root/rel`` (None: missing); bounded, no link."""
    relative_path(str(rel), str(rel))
    return parse.read_text(root, str(rel), max_bytes=max_bytes)


def copy_file(root: Path, rel: str | PurePosixPath, dest: Path, max_bytes: int) -> bool:
    """Copy the dataset file ``root/rel`` to ``dest`` (False: it does not exist)."""
    relative_path(str(rel), str(rel))
    with contextlib.suppress(OSError):  # a missing file is read_data's to say
        if os.lstat(beneath(Path(root).resolve(), rel)).st_nlink > 1:
            raise AgentFileError(
                str(rel), "is a hard link (it may share a file outside the dataset)"
            )
    data = parse.read_data(root, str(rel), max_bytes=max_bytes)
    if data is None:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return True


def copy_folder(
    root: Path, rel: str | PurePosixPath, dest: Path, ignore: Iterable[str] = ()
) -> IntakeReport:
    """Copy the dataset folder ``root/rel`` (``"."``: ``root`` itself) to ``dest``.

    No link is followed (links between files inside the folder are copied as those files).
    Raises AgentFileError when a link points out of the folder or a limit is reached; other
    entries left out (a dangling link, a FIFO) are in the returned report's ``dropped``.
    """
    root = Path(root).resolve()  # the dataset's own folder may be reached through a link
    folder = root if str(rel) == "." else beneath(root, rel)
    where = folder.name if str(rel) == "." else str(rel)
    _refuse_hard_links(folder, where, tuple(ignore))
    try:
        report = copy_tree(folder, dest, IntakeLimits(), ignore=ignore)
    except ValueError as exc:
        raise AgentFileError(where, f"cannot be copied ({exc})") from None
    escaping = [f"{p} ({why})" for p, why in report.dropped if why.startswith(_ESCAPING)]
    if escaping:
        raise AgentFileError(where, "links out of the dataset: " + "; ".join(escaping[:3]))
    if report.exceeded:
        raise AgentFileError(where, f"too large to import (intake limit {report.exceeded})")
    return report


def _refuse_hard_links(folder: Path, where: str, ignore: tuple[str, ...]) -> None:
    """AgentFileError when a regular file copied from ``folder`` shares its data with a file
    outside it: a hard link (left by an archive extracted without a filter, or made on a shared
    machine) is no symbolic link, and would be copied as the file it shares. Links between
    files inside ``folder`` are counted and allowed; what ``ignore`` leaves out is not looked at
    (a local ``git clone`` hard-links ``.git/objects``).
    """
    seen: dict[tuple[int, int], list] = {}
    for top, dirs, names in os.walk(folder):  # links to folders are not followed
        dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in ignore)]
        for name in names:
            if any(fnmatch.fnmatch(name, p) for p in ignore):
                continue
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(top, name))
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    seen.setdefault((st.st_dev, st.st_ino), [st.st_nlink, 0, top, name])[1] += 1
    for nlink, inside, top, name in seen.values():
        if inside < nlink:
            shown = Path(top, name).relative_to(folder)
            raise AgentFileError(where, f"{shown} is a hard link to a file outside the dataset")
