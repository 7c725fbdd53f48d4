"""Editable imports without the project's root on ``sys.path``: a harness-written finder.

Coverage measures the files in the repository (its ``source`` is the repo folder), so tests
must import the project from there, as after an editable install. But putting the repo root
(or ``src/``) on ``sys.path`` would make every file there importable under its bare name: a
root ``sitecustomize.py`` would run at every interpreter start, a ``pytest_timeout.py`` would
replace the test tool (issue 11, class 2b). Instead the harness writes into site-packages a
small finder module and a ``.pth`` that imports it; the finder maps only the project's own
top-level names (from its wheel's file list, or found in ``repo/`` and ``repo/src/`` for a
project without packaging) to where they are in the repository, first on ``sys.meta_path``.
Nothing else in the repository is importable.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from .wheel import STARTUP_MODULES
from .workspace import IGNORED_DIRS, TEST_DIRS

FINDER_MODULE = "_e2ebench_project_finder"
PTH_FILE = "_e2ebench_project.pth"
# Never the project's importable code, whatever its layout says.
NOT_PROJECT = frozenset(
    {
        *TEST_DIRS,
        "conftest",
        "setup",
        *STARTUP_MODULES,
        "src",
        # A project module named like the standard library (hmac.py, sqlite3/) would run inside
        # the probe's or coverage's own imports, before the probe watches anything.
        *sys.stdlib_module_names,
    }
)
SUITE_ENV = "E2EBENCH_SUITE_MODULES"  # the test run's: names its suite's folder provides
# Set by the harness for a task with ``[tests] rootdir_on_path`` (docs/writing-a-task.md):
# the repository's root-level names (ROOTED) become importable, from the repository.
ROOTED_ENV = "E2EBENCH_ROOTDIR_ON_PATH"
_MAX_SCAN = 2000  # entries looked at per folder: a million files must not stall the harness

FINDER_SOURCE = '''\
"""Written by pytest-e2ebench: the project's own top-level names, from its repository."""

import importlib.machinery
import os
import sys

ROOTS = {roots!r}  # import name -> folder that holds it
EXTRA = {extra!r}  # package -> installed copy, searched after the repository's
# The repository's root-level names and its root, importable only in a test run the harness
# started with {rooted_env}=1 (a task whose suite imports ``src.pkg`` as run from the root).
ROOTED = {rooted!r}
if os.environ.get("{rooted_env}") == "1":
    ROOTS = {{**{{n: ROOTED[1] for n in ROOTED[0]}}, **ROOTS}}
# Names the harness's test suite provides itself (its helper modules, read when the interpreter
# starts, before any project code): the suite's, as pytest imports them from the tests'
# folder, never a project file of the same name.
SUITE = frozenset(os.environ.get("{suite_env}", "").split(os.pathsep)) - {{""}}


class ProjectFinder:
    """Finds only the names in ROOTS, and only in their folder."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None or name not in ROOTS or name in SUITE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, [ROOTS[name]])
        if spec is None or spec.submodule_search_locations is None:
            return spec
        locations = [*spec.submodule_search_locations, *EXTRA.get(name, ())]
        if spec.loader is None:  # a namespace package: fix its path to these folders
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = locations
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass


sys.meta_path.insert(0, ProjectFinder)
'''


def _kind(path: Path) -> str | None:
    """ "dir", "file" or None (a link, missing, or something else): links are not followed."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else None


def _holds(folder: Path, name: str) -> bool:
    """True when ``folder`` holds a package or module ``name`` (a real folder or file)."""
    return _kind(folder / name) == "dir" or _kind(folder / f"{name}.py") == "file"


def _entries(folder: Path) -> list[os.DirEntry]:
    found = []
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                found.append(entry)
                if len(found) >= _MAX_SCAN:
                    break
    except OSError:
        pass
    return found


def locate(repo: Path, names: Iterable[str]) -> dict[str, str]:
    """Where in ``repo`` each of ``names`` lives: ``repo``, ``repo/src`` or a first-level folder.

    Names found nowhere are left out (their installed copy is imported instead).
    """
    folders = [repo, repo / "src"]
    folders += sorted(
        Path(e.path)
        for e in _entries(repo)
        if e.is_dir(follow_symlinks=False) and not e.name.startswith(".") and e.name != "src"
    )
    roots = {}
    for name in names:
        if name in NOT_PROJECT:
            continue
        found = next((f for f in folders if _kind(f) == "dir" and _holds(f, name)), None)
        if found is not None:
            roots[name] = str(found)
    return roots


def project_names(repo: Path, reserved: frozenset[str]) -> dict[str, str]:
    """A project without packaging: its top-level packages and modules in ``repo``/``repo/src``.

    A package is a folder holding Python files; tests, ``conftest.py``, ``setup.py``, the
    start-up modules and the test tools' names (``reserved``) are left out. Returns
    ``{name: folder}``; ``repo`` wins over ``repo/src``. A ``src/`` holding Python files is also
    the package ``src`` (tests written as ``from src.module import ...``, as DevEval's are): only
    its dotted names become importable, never a bare one.
    """
    roots: dict[str, str] = {}
    src = repo / "src"
    if _kind(src) == "dir" and any(
        e.name.endswith(".py") and e.is_file(follow_symlinks=False) for e in _entries(src)
    ):
        roots["src"] = str(repo)
    for folder in (repo, repo / "src"):
        if _kind(folder) != "dir":
            continue
        for entry in sorted(_entries(folder), key=lambda e: e.name):
            name = _module_name(entry, depth=1)
            if name is not None and _importable(name, reserved):
                roots.setdefault(name, str(folder))
    return roots


def root_names(repo: Path, reserved: frozenset[str]) -> tuple[str, ...]:
    """The packages and modules at ``repo``'s root that a suite run from the root imports
    (``from src.pkg import x``), for ``[tests] rootdir_on_path``.

    A package is a real folder holding Python files, directly or one folder down (``src/`` of
    a src layout); links are never followed. Left out, as for :func:`project_names`: tests,
    ``conftest``, ``setup``, the start-up modules, the standard library's names and the test
    tools' (``reserved``): a root file never stands in for the probe, pytest or ``hmac``.
    ``src`` is allowed here (the reason for the option).
    """
    found = []
    for entry in sorted(_entries(repo), key=lambda e: e.name):
        name = _module_name(entry, depth=2)
        if name is not None and _importable(name, reserved, allowed=frozenset({"src"})):
            found.append(name)
    return tuple(found)


def _module_name(entry: os.DirEntry, depth: int) -> str | None:
    """The import name of a folder holding Python files (at most ``depth`` folders down) or
    of a ``.py`` file; None for anything else (a link, another file, an ignored folder)."""
    if entry.is_dir(follow_symlinks=False):
        if entry.name in IGNORED_DIRS or not _holds_python(Path(entry.path), depth):
            return None
        return entry.name
    if entry.is_file(follow_symlinks=False) and entry.name.endswith(".py"):
        return entry.name[:-3]
    return None


def _holds_python(folder: Path, depth: int) -> bool:
    for entry in _entries(folder):
        if entry.name.endswith(".py"):
            return True
        if depth > 1 and entry.is_dir(follow_symlinks=False):
            if _holds_python(Path(entry.path), depth - 1):
                return True
    return False


def project_importable(name: str, reserved: frozenset[str]) -> bool:
    """Whether a test run may import a top-level ``name`` from the project (a finder maps it):
    an identifier, never a test's, a start-up module's, the standard library's or one of
    ``reserved`` (the test tools', the suite's own modules)."""
    return _importable(name, reserved)


def _importable(name: str, reserved: frozenset[str], allowed: frozenset[str] = frozenset()):
    """Whether a project file's ``name`` may be imported from the repository: never a test's,
    a start-up module's, the standard library's or a test tool's (``reserved``)."""
    return (
        name.isidentifier()
        and not name.startswith(("__", "test_"))
        and (name in allowed or name not in NOT_PROJECT)
        and name not in reserved
    )


def install(
    site: Path,
    roots: dict[str, str],
    extra: dict[str, list[str]] | None = None,
    rooted: tuple[tuple[str, ...], str] = ((), ""),
) -> None:
    """Write the finder module and the ``.pth`` that loads it into ``site``.

    ``roots`` maps import names to the folder holding them; ``extra`` adds, per package,
    folders searched after the repository's (the installed copy, for files only the build
    generates); ``rooted`` the repository's :func:`root_names` and its root, mapped only when
    the test run sets :data:`ROOTED_ENV` (the names in ``roots`` keep their folder).
    """
    source = FINDER_SOURCE.format(
        roots=dict(sorted(roots.items())),
        extra=extra or {},
        suite_env=SUITE_ENV,
        rooted=rooted,
        rooted_env=ROOTED_ENV,
    )
    (site / f"{FINDER_MODULE}.py").write_text(source, encoding="utf-8")
    (site / PTH_FILE).write_text(f"import {FINDER_MODULE}\n", encoding="utf-8")


def suite_modules(tests: Path) -> str:
    """The top-level names the harness's suite in ``tests`` makes importable, for
    :data:`SUITE_ENV` (``os.pathsep``-separated).

    pytest (``prepend`` import mode) puts the folder above a test module's package (the module's
    own folder when it is in none) first on ``sys.path``: every module and package there is
    importable by its bare name, a suite's helper module (``from helpers import expected``)
    included. A project's file of that name would otherwise be found first (the finder is first
    on ``sys.meta_path``) and stand in for it: its expected values, its data.
    """
    names: set[str] = set()
    bases: set[Path] = set()
    for dirpath, _dirnames, filenames in os.walk(tests):
        if not any(f.endswith(".py") for f in filenames):
            continue
        base = Path(dirpath)
        while (base / "__init__.py").is_file() and base != tests.parent:
            base = base.parent
        bases.add(base)
    for base in bases:
        if base == tests.parent:
            # the suite is a package: of its parent (the harness's suite folder, or the
            # project's writable copy under rootdir_writable) only the suite is the suite's
            names.add(tests.name)
            continue
        for entry in _entries(base):
            name = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if name.isidentifier() and (entry.name.endswith(".py") or entry.is_dir()):
                names.add(name)
    return os.pathsep.join(sorted(names - {"conftest", "__init__"}))
