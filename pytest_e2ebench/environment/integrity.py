"""The test environment's own files: what they are before the project arrives, and after.

Right after the harness installs the test tools (pytest, coverage, the task's test
requirements and their dependencies), :func:`snapshot` records from each distribution's
RECORD which files it owns and hashes them, and which top-level import names they provide
(the names a project must not ship). After the project and its dependencies are installed,
:func:`check` hashes the same files again: a dependency that replaced one of pytest's files,
or that added a ``.pth`` or ``sitecustomize`` module (code run at every interpreter start), is
the agent's failure. Everything is read with the harness's interpreter, as data, without
following links.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import email.parser
import hashlib
import io
import json
import os
import posixpath
import stat
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..isolation.intake import read_regular
from .requirements import InstallRefused
from .wheel import STARTUP_MODULES

MAX_RECORD = 8 << 20
MAX_METADATA = 4 << 20
# In the environment's root, written before the project arrives and checked with the tools'
# files after: each test tool's site-packages entries and the distributions it requires, so the
# split run's suite process can have the task's test libraries (evaluation/split.py) without
# reading any metadata a later install could have added.
TOOLS_FILE = "e2ebench-tools.json"
# Always the harness's, whatever a RECORD says: the probe and web plugins (on PYTHONPATH),
# uv's virtualenv hook, the import finder the harness writes, and the test tools by name.
HARNESS_NAMES = frozenset(
    {
        "pytest",
        "_pytest",
        "pluggy",
        "coverage",
        "pytest_timeout",
        "iniconfig",
        "py",
        "e2ebench_probe",
        "e2ebench_guard",
        "e2ebench_web",
        "e2ebench_behave",
        "pytest_bdd",
        "selenium",
        "_virtualenv",
        "_e2ebench_project_finder",
    }
)
# A .pth file a dependency may bring: setuptools' own, when setuptools itself owns it.
ALLOWED_PTH = frozenset({("setuptools", "distutils-precedence.pth")})


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The test environment before the project: its files' states and the names it owns."""

    files: dict[str, str]  # path relative to the venv -> state (see _state)
    owners: dict[str, str]  # path relative to the venv -> distribution name
    names: frozenset[str]  # top-level import names of the installed distributions
    dists: dict[str, str]  # canonical distribution name -> version
    dist_infos: frozenset[str]  # *.dist-info folder names in site-packages
    startup: frozenset[str]  # .pth files and start-up modules in site-packages
    commands: frozenset[str]  # entries of the venv's bin folder

    def pins(self) -> list[str]:
        """``name==version`` of every installed distribution (constraints for dependencies)."""
        return [f"{name}=={version}" for name, version in sorted(self.dists.items())]


def site_packages(venv: Path) -> Path:
    """The site-packages folder of a virtual environment."""
    return next((venv / "lib").glob("python*/site-packages"))


def _state(path: Path) -> str:
    """``sha256:<hex>`` of a regular file, ``link:<target>`` of a link, else what it is."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        return f"link:{os.readlink(path)}"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    # opened without following a link planted in the file's place since the lstat above
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        return f"sha256:{hashlib.file_digest(fh, 'sha256').hexdigest()}"


def _record(site: Path, dist_info: str) -> list[str]:
    """Paths (relative to site-packages, as written) a distribution's RECORD lists."""
    try:
        text = read_regular(site / dist_info / "RECORD", MAX_RECORD).decode("utf-8", "replace")
    except (OSError, ValueError):
        return []
    return [row[0] for row in csv.reader(io.StringIO(text)) if row and row[0]]


def _name_version(dist_info: str) -> tuple[str, str]:
    """(name, version) of a dist-info folder, from its name (``name-version.dist-info``)."""
    stem = dist_info.removesuffix(".dist-info")
    name, _, version = stem.partition("-")
    return name, version


def _in_venv(site: Path, venv: Path, rel: str) -> str | None:
    """A RECORD path as a path relative to the venv, or None if it points outside."""
    joined = posixpath.normpath(posixpath.join(site.relative_to(venv).as_posix(), rel))
    return None if joined.startswith("../") or joined in ("..", ".") else joined


def _startup_files(site: Path) -> frozenset[str]:
    return frozenset(
        p.name
        for p in site.iterdir()
        if p.name.endswith(".pth") or p.name.partition(".")[0] in STARTUP_MODULES
    )


def snapshot(venv: Path) -> Snapshot:
    """Record the environment's distributions, their files' states and their import names."""
    site = site_packages(venv)
    files: dict[str, str] = {}
    owners: dict[str, str] = {}
    names: set[str] = set(HARNESS_NAMES)
    dists: dict[str, str] = {}
    infos = sorted(p.name for p in site.glob("*.dist-info"))
    for info in infos:
        name, version = _name_version(info)
        dists[canonicalize_name(name)] = version
        for rel in _record(site, info):
            first = rel.split("/", 1)[0]
            if not first.endswith((".dist-info", ".data")) and first != "..":
                stem = first.partition(".")[0]
                if stem.isidentifier():
                    names.add(stem)
            where = _in_venv(site, venv, rel)
            if where is not None and not where.endswith(".pyc"):
                files[where] = _state(venv / where)
                owners[where] = name
    # Written by uv (or the harness), listed in no RECORD, and loaded by every test run.
    bins = [str(p.relative_to(venv)) for p in (venv / "bin").iterdir()]
    for extra in ["pyvenv.cfg", TOOLS_FILE, *bins]:
        files.setdefault(extra, _state(venv / extra))
        owners.setdefault(extra, "the virtual environment")
    for hook in site.glob("_virtualenv.*"):
        rel = str(hook.relative_to(venv))
        files[rel], owners[rel] = _state(hook), "the virtual environment"
    return Snapshot(
        files=files,
        owners=owners,
        names=frozenset(names),
        dists=dists,
        dist_infos=frozenset(infos),
        startup=_startup_files(site),
        commands=frozenset(p.name for p in (venv / "bin").iterdir()),
    )


def check(venv: Path, before: Snapshot, *, allowed: frozenset[str] = frozenset()) -> None:
    """Raise InstallRefused if an install changed the tools' files or added start-up code.

    ``allowed``: start-up files the harness wrote itself (its import finder's ``.pth``). The
    message names the distribution that did it when its RECORD says so.
    """
    site = site_packages(venv)
    new = sorted(p.name for p in site.glob("*.dist-info") if p.name not in before.dist_infos)
    listed = {}  # path relative to the venv -> the new distribution listing it
    for info in new:
        name = _name_version(info)[0]
        for rel in _record(site, info):
            where = _in_venv(site, venv, rel)
            if where is not None:
                listed.setdefault(where, name)
    for rel, state in before.files.items():
        if _state(venv / rel) != state:
            culprit = listed.get(rel)
            who = f"dependency {culprit}" if culprit else "an install"
            raise InstallRefused(f"{who} changed {before.owners[rel]}'s files ({rel})")
    site_rel = site.relative_to(venv).as_posix()
    for name in sorted(_startup_files(site) - before.startup - allowed):
        owner = listed.get(f"{site_rel}/{name}")
        if owner and (canonicalize_name(owner), name) in ALLOWED_PTH:
            continue
        who = f"dependency {owner}" if owner else "an install"
        raise InstallRefused(
            f"{who} added {name} to site-packages, which would run at every interpreter start"
        )


def write_tools(venv: Path) -> None:
    """Write :data:`TOOLS_FILE`: for each distribution now in the environment (the test tools,
    before the project), its site-packages entries and the installed distributions it requires
    (markers aside: only the tools are installed, so a listed one is a tool too)."""
    site = site_packages(venv)
    infos = {canonicalize_name(_name_version(p.name)[0]): p.name for p in site.glob("*.dist-info")}
    found = {}
    for name, info in sorted(infos.items()):
        entries = {rel.split("/", 1)[0] for rel in _record(site, info)} | {info}
        entries = {e for e in entries if e not in ("..", "__pycache__") and not e.endswith(".data")}
        needs = sorted(n for n in _requires(site / info / "METADATA") if n in infos and n != name)
        found[name] = {"entries": sorted(entries), "requires": needs}
    (venv / TOOLS_FILE).write_text(json.dumps(found, indent=1, sort_keys=True), encoding="utf-8")


def _requires(metadata: Path) -> set[str]:
    """The canonical names a distribution's METADATA requires (any marker, any extra)."""
    try:
        text = read_regular(metadata, MAX_METADATA).decode("utf-8", "replace")
    except (OSError, ValueError):
        return set()
    names = set()
    for line in email.parser.Parser().parsestr(text, headersonly=True).get_all("Requires-Dist", []):
        try:
            names.add(canonicalize_name(Requirement(line).name))
        except InvalidRequirement:
            continue
    return names


def tool_entries(venv: Path, requires: tuple[str, ...]) -> list[str] | None:
    """The site-packages entries of the distributions ``requires`` names and of those they
    require, from :data:`TOOLS_FILE` (None when the environment has none: made before it)."""
    try:
        tools = json.loads(read_regular(venv / TOOLS_FILE, MAX_RECORD))
    except (OSError, ValueError):
        return None
    todo = []
    for line in requires:
        with contextlib.suppress(InvalidRequirement):  # (vetted at install: none left here)
            todo.append(canonicalize_name(Requirement(line).name))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen and name in tools:
            seen.add(name)
            todo += tools[name]["requires"]
    return sorted({e for name in seen for e in tools[name]["entries"]})
