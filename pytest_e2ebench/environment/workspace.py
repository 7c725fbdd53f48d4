"""The generated repository: what counts as its code, how big it is, how it installs.

Test files, ``conftest.py`` and ``setup.py`` are not "code" for the size and coverage figures;
hidden folders, virtual environments and build output are ignored altogether.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from ..isolation.intake import (
    MAX_SOURCE_BYTES,
    SKIP_PATTERNS,
    IntakeLimits,
    IntakeReport,
    copy_tree,
    read_text,
)
from ..run.cache import remove
from ..taskmodel.testindex import TEST_FILE_PATTERNS

IGNORED_DIRS = frozenset(
    {"__pycache__", "build", "dist", "node_modules", "venv", ".venv", "env", ".tox", ".eggs"}
)
NON_TEST_NON_CODE = ("conftest.py", "setup.py")
NON_CODE_FILES = (*TEST_FILE_PATTERNS, *NON_TEST_NON_CODE)
TEST_DIRS = frozenset({"tests", "test"})
DOC_DIRS = frozenset({"docs", "doc"})  # top-level documentation folders: not measured
PACKAGING_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
PYTHON_SUFFIXES = (".py",)
WEB_SUFFIXES = (".html", ".htm", ".css", ".js", ".mjs")  # what a web app's code is written in
# a toolchain task's (issue 43): C, C++, JavaScript (Node, Vue), TypeScript, Java
TOOLCHAIN_SUFFIXES = (
    *(".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"),
    *(".js", ".mjs", ".cjs", ".ts", ".vue", ".java"),
)
# Bounds on what is read of a project (it is untrusted): intake's file limit, and files
# larger than a parser would take are not code worth counting.
MAX_CODE_FILES = 20_000
MAX_CODE_FILE_BYTES = MAX_SOURCE_BYTES


def _ignored_dir(name: str) -> bool:
    return name in IGNORED_DIRS or name.startswith(".") or name.endswith(".egg-info")


def suffixes_for(kind: str) -> tuple[str, ...]:
    """File suffixes of a task kind's code: Python, HTML/CSS/JS for ``web``, both for ``app``."""
    if kind == "app":
        return (*WEB_SUFFIXES, *PYTHON_SUFFIXES)
    if kind == "toolchain":
        return TOOLCHAIN_SUFFIXES
    return WEB_SUFFIXES if kind == "web" else PYTHON_SUFFIXES


def is_test_dir_path(rel: Path) -> bool:
    """True for a file inside a ``tests``/``test`` folder."""
    return any(part in TEST_DIRS for part in rel.parts[:-1])


def is_code_file(
    rel: Path, suffixes: tuple[str, ...] = PYTHON_SUFFIXES, *, include_test_names: bool = False
) -> bool:
    """True for a source file of the project proper (not a test, not packaging).

    ``include_test_names`` keeps files named like tests (``test_*.py``) outside test folders:
    inside a package such a file may be a module (``pkg/test_utils.py``).
    """
    if rel.suffix not in suffixes or is_test_dir_path(rel):
        return False
    patterns = NON_TEST_NON_CODE if include_test_names else NON_CODE_FILES
    return not any(fnmatch.fnmatch(rel.name, pat) for pat in patterns)


def code_files(
    repo: Path, suffixes: tuple[str, ...] = PYTHON_SUFFIXES, *, include_test_names: bool = False
) -> list[Path]:
    """The project's source files, relative to ``repo``, sorted (at most MAX_CODE_FILES).

    Links to folders are not entered (``os.walk`` default); a link to a file is listed, and
    readers open it without following it (:func:`pytest_e2ebench.isolation.intake.read_bytes`).
    """
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if not _ignored_dir(d))
        for name in filenames:
            rel = Path(dirpath, name).relative_to(repo)
            if is_code_file(rel, suffixes, include_test_names=include_test_names):
                found.append(rel)
                if len(found) >= MAX_CODE_FILES:
                    return sorted(found)
    return sorted(found)


def code_size(repo: Path, suffixes: tuple[str, ...] = PYTHON_SUFFIXES) -> dict[str, int]:
    """``code_files`` and ``code_lines`` (non-blank lines) of the generated project.

    Files over MAX_CODE_FILE_BYTES, links and unreadable files count as files of no lines.
    """
    files = code_files(repo, suffixes)
    lines = 0
    for rel in files:
        text = read_text(repo, rel, MAX_CODE_FILE_BYTES) or ""
        lines += sum(1 for line in text.splitlines() if line.strip())
    return {"code_files": len(files), "code_lines": lines}


def coverage_omit(repo: Path) -> list[str]:
    """coverage.py ``omit`` patterns matching the non-code files of :func:`is_code_file`."""
    root = str(repo)
    patterns = [f"{root}/*/{d}/*" for d in sorted(TEST_DIRS)]
    patterns += [f"{root}/{d}/*" for d in sorted(TEST_DIRS)]
    # the documentation's files at the top (Sphinx's conf.py, doctest helpers): not the code
    patterns += [f"{root}/{d}/*" for d in sorted(DOC_DIRS)]
    for pat in NON_CODE_FILES:
        patterns += [f"{root}/{pat}", f"{root}/*/{pat}"]
    return patterns


def is_installable(repo: Path) -> bool:
    """True when the project has packaging metadata a Python installer understands."""
    return any((repo / name).is_file() for name in PACKAGING_FILES)


def take_in(workspace: Path, limits: IntakeLimits, earlier: dict | None = None) -> IntakeReport:
    """Pass what an agent wrote through intake: copy it to a clean folder and swap.

    Links are resolved or dropped, non-regular files dropped (see :mod:`.intake`). When a limit
    is exceeded the workspace is left empty: the run is graded as an empty repository, the
    agent's failure. ``earlier`` is a report of an intake the agent itself made (``dir:``):
    what it dropped or exceeded counts too.
    """
    raw = workspace.with_name(f"{workspace.name}.raw")
    remove(raw)
    if not os.path.lexists(workspace):
        workspace.mkdir()  # the agent removed it: an empty repository
    os.rename(workspace, raw)  # a link in the workspace's place is renamed, not followed
    try:
        report = copy_tree(raw, workspace, limits, ignore=SKIP_PATTERNS)
    except ValueError:
        workspace.mkdir()
        report = IntakeReport(dropped=[(".", "the workspace is not a folder")])
    finally:
        remove(raw)
    if earlier:
        first = IntakeReport.from_dict(earlier)
        report.dropped[:0] = first.dropped
        report.exceeded = first.exceeded or report.exceeded
    if report.exceeded:
        remove(workspace)
        workspace.mkdir()
        report.files = report.bytes = 0
    return report
