"""A built wheel, inspected as data before the harness installs it (issue 11, class 3).

The wheel comes out of the sandbox, so every byte of it is the agent's. It is read with
:mod:`zipfile` only, within bounds (entry count, uncompressed size, no absolute or ``..``
paths, no links), and refused when installing it would put code where the test process loads
it without importing the project: a ``.pth`` file anywhere, a ``sitecustomize`` or
``usercustomize`` module, a top-level name of a test tool (pytest, _pytest, pluggy, coverage,
the probe, … — every name the test environment's distributions install), another
distribution's metadata, a console script over one of the environment's own commands, or data
files outside ``share/``. Refusing is the agent's failure, naming the offending file.
"""

from __future__ import annotations

import configparser
import dataclasses
import email.parser
import posixpath
import re
import stat
import zipfile
from pathlib import Path

from packaging.utils import canonicalize_name

from .requirements import InstallRefused

MAX_ENTRIES = 20_000
MAX_UNCOMPRESSED = 512 << 20
MAX_METADATA = 1 << 20
# configparser takes time quadratic in the sections: 100,000 of them (870 KB) held the harness
# 14 s. A real entry_points.txt has a handful. Counted as lines opening with ``[``.
MAX_SECTIONS = 1000
_SECTION = re.compile(rb"^[ \t]*\[", re.MULTILINE)
# Names the interpreter itself loads at start-up, whoever installs them.
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})
# Wheel install schemes (PEP 427 ``.data``): where each lands relative to site-packages.
_LIB_SCHEMES = ("purelib", "platlib")
_WHEEL_NAME = re.compile(r"^(?P<name>[^-/\\]+)-(?P<version>[^-/\\]+)(-[^/\\]+)?\.whl$")


@dataclasses.dataclass(frozen=True)
class WheelContents:
    """What an inspected wheel installs."""

    name: str  # the distribution's name, as its metadata spells it
    top_level: tuple[str, ...]  # importable top-level names (packages and modules)
    requires: tuple[str, ...]  # Requires-Dist, not yet vetted


def _module_name(component: str, is_dir: bool) -> str | None:
    """The import name a top-level site-packages entry provides, if any."""
    if is_dir:
        return component if component.isidentifier() else None
    stem, _, suffix = component.partition(".")
    if suffix == "py" or suffix.endswith(("so", "pyd")):
        return stem if stem.isidentifier() else None
    return None


def _check_path(name: str) -> None:
    if (
        not name
        or name.startswith("/")
        or "\\" in name
        or "\0" in name
        or any(part in ("", ".", "..") for part in name.rstrip("/").split("/"))
    ):
        raise InstallRefused(f"the built wheel has an unsafe path {name!r}")


# zipfile reads the whole central directory, one object per entry, before ``infolist`` can
# be counted: a 44 MiB wheel of a million empty entries took 36 s and 370 MiB of the harness
# (the 256 MiB a build may write, minutes and gigabytes). Each entry it makes starts with this
# signature, so the signatures in the file bound the entries, whatever the end record says.
_CENTRAL_ENTRY = b"PK\x01\x02"


def _entries_at_most(path: Path) -> int:
    """An upper bound on the entries of the zip at ``path`` (signatures counted, streamed;
    stops once past :data:`MAX_ENTRIES`)."""
    count, tail = 0, b""
    with open(path, "rb") as fh:  # the wheel's copy the harness made (bounded, no link)
        while count <= MAX_ENTRIES and (chunk := fh.read(1 << 20)):
            data = tail + chunk
            count += data.count(_CENTRAL_ENTRY)
            tail = data[-3:]  # a signature across two chunks; 3 bytes cannot hold a whole one
    return count


def inspect(
    path: Path, *, reserved: frozenset[str], commands: frozenset[str], dists: frozenset[str]
) -> WheelContents:
    """Check the wheel at ``path`` and say what it installs; InstallRefused if it must not be.

    ``reserved``: top-level import names of the test tools; ``commands``: the names already in
    the environment's ``bin``; ``dists``: canonical names of its installed distributions.
    """
    match = _WHEEL_NAME.match(path.name)
    if not match:
        raise InstallRefused(f"the build backend produced {path.name!r}, not a wheel file name")
    own = f"{match['name']}-{match['version']}"
    if _entries_at_most(path) > MAX_ENTRIES:
        raise InstallRefused(f"the built wheel has more than {MAX_ENTRIES} entries")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InstallRefused(f"the built wheel {path.name} is not a zip archive ({exc})") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise InstallRefused(f"the built wheel has more than {MAX_ENTRIES} entries")
        if sum(e.file_size for e in entries) > MAX_UNCOMPRESSED:
            raise InstallRefused(f"the built wheel unpacks to more than {MAX_UNCOMPRESSED} bytes")
        top: set[str] = set()
        for entry in entries:
            _check_entry(entry, own, reserved, commands, top)
        metadata = _read(archive, f"{own}.dist-info/METADATA")
        scripts = _read(archive, f"{own}.dist-info/entry_points.txt", required=False)
    _check_entry_points(scripts, own, commands)
    meta = email.parser.Parser().parsestr(metadata.decode("utf-8", errors="replace"))
    name = str(meta.get("Name") or match["name"])
    if canonicalize_name(name) in dists:
        raise InstallRefused(
            f"the project is named {name!r} like a distribution of the test environment"
        )
    return WheelContents(
        name=name, top_level=tuple(sorted(top)), requires=tuple(meta.get_all("Requires-Dist", []))
    )


def _check_entry(
    entry: zipfile.ZipInfo,
    own: str,
    reserved: frozenset[str],
    commands: frozenset[str],
    top: set[str],
) -> None:
    """Refuse one archive entry if installing it is not safe; collect its top-level name."""
    name = entry.filename
    _check_path(name)
    if stat.S_ISLNK(entry.external_attr >> 16):
        raise InstallRefused(f"the built wheel holds a symbolic link ({name})")
    if posixpath.basename(name.rstrip("/")).endswith(".pth"):
        raise InstallRefused(
            f"the built wheel ships a .pth file ({name}), which would run at every interpreter "
            "start"
        )
    first, _, rest = name.partition("/")
    if first.endswith(".dist-info"):
        if first != f"{own}.dist-info":
            raise InstallRefused(f"the built wheel writes another distribution's metadata ({name})")
        return
    if first.endswith(".data"):
        if first != f"{own}.data":
            raise InstallRefused(f"the built wheel writes another distribution's data ({name})")
        scheme, _, inner = rest.partition("/")
        if scheme in _LIB_SCHEMES:
            if inner:
                _check_site_entry(inner, name, entry.is_dir(), reserved, top)
        elif scheme == "scripts":
            if inner and ("/" in inner.rstrip("/") or inner in commands):
                raise InstallRefused(
                    f"the built wheel installs a script over the environment's {inner!r} ({name})"
                )
        elif scheme == "data":
            if inner and not inner.startswith("share/"):
                raise InstallRefused(f"the built wheel installs data files outside share/ ({name})")
        elif scheme != "headers":
            raise InstallRefused(f"the built wheel uses an unknown install scheme ({name})")
        return
    _check_site_entry(name, name, entry.is_dir(), reserved, top)


def _check_site_entry(
    inner: str, shown: str, is_dir: bool, reserved: frozenset[str], top: set[str]
) -> None:
    """An entry that lands in site-packages at ``inner``."""
    first, sep, _ = inner.partition("/")
    module = _module_name(first, bool(sep) or is_dir)
    if module is None:
        return
    if module in STARTUP_MODULES:
        raise InstallRefused(
            f"the built wheel ships a {module} module ({shown}), which would run at every "
            "interpreter start"
        )
    if module in reserved:
        raise InstallRefused(
            f"the built wheel ships {module!r} ({shown}), a name of the test tools"
        )
    top.add(module)


def _read(archive: zipfile.ZipFile, member: str, *, required: bool = True) -> bytes:
    try:
        info = archive.getinfo(member)
    except KeyError:
        if required:
            raise InstallRefused(f"the built wheel has no {member}") from None
        return b""
    if info.file_size > MAX_METADATA:
        raise InstallRefused(f"the built wheel's {member} is larger than {MAX_METADATA} bytes")
    with archive.open(info) as fh:
        return fh.read(MAX_METADATA + 1)[:MAX_METADATA]


def _check_entry_points(text: bytes, own: str, commands: frozenset[str]) -> None:
    """Console and GUI scripts must not replace the environment's own commands."""
    if not text:
        return
    if len(_SECTION.findall(text)) > MAX_SECTIONS:
        raise InstallRefused(f"{own}.dist-info/entry_points.txt has over {MAX_SECTIONS} sections")
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # keep the names' case
    try:
        parser.read_string(text.decode("utf-8", errors="replace"))
    except configparser.Error as exc:
        raise InstallRefused(f"{own}.dist-info/entry_points.txt is malformed ({exc})") from None
    for group in ("console_scripts", "gui_scripts"):
        if parser.has_section(group):
            for script in parser.options(group):
                if script in commands or "/" in script:
                    raise InstallRefused(
                        f"the built wheel installs a command over the environment's "
                        f"{script!r} ({own}.dist-info/entry_points.txt)"
                    )
