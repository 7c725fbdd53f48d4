"""What a release's tests import and nobody declares (issue 47, item 3).

An sdist ships its tests but seldom its development requirements: emptylog 0.0.9's tests
import ``loguru`` and ``full_match`` at module level, which neither its ``pyproject.toml`` nor
any file of the sdist names (they are in the repository's ``requirements_dev.txt``). Graded as
imported, every one of its tests failed at collection, on the reference too, and every agent
scored 0 for the dataset's defect. :func:`undeclared` reads the test files' module-level
imports (peer data: bounded, parsed as data) and keeps the top-level names that are not the
standard library's, the release's own, the test folder's, the harness's test tools or a
distribution already declared, and that name a project on the package index.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import email.parser
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Collection
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from ...environment.source import SourceError, index_files
from ...environment.venv import uv_binary
from ...untrusted.parse import read_toml
from ...untrusted.peer import read_text as peer_text

# Import names whose distribution on PyPI is named otherwise.
DISTRIBUTIONS = {
    "bs4": "beautifulsoup4",
    "PIL": "pillow",
    "yaml": "pyyaml",
    "cv2": "opencv-python",
    "dateutil": "python-dateutil",
    "sklearn": "scikit-learn",
    "attr": "attrs",
    "dotenv": "python-dotenv",
    "jwt": "pyjwt",
    "magic": "python-magic",
}
TOOLS = frozenset({"pytest", "_pytest", "pluggy", "coverage", "pytest_timeout", "hypothesis"})
MAX_FILES = 400
MAX_FOUND = 10  # a release whose tests need more than this is reported, not guessed for
RESOLVE_SECONDS = 120.0  # uv's resolution of the release's dependencies


def undeclared(
    root: Path, tests: list[str], declared: Collection[str], before: dt.date | None = None
) -> list[str]:
    """Requirements for what the test files ``tests`` (paths in the unpacked release
    ``root``) import at module level and no one provides: each project's newest release
    uploaded before ``before`` (the release's date: what its tests ran with; full_match 0.0.2
    of 2025 is no longer what emptylog's 2024 tests call), else its name. ``declared``:
    requirement names the task already installs (dependencies, test extras, plugins)."""
    own = _local_names(root)
    known = {canonicalize_name(n) for n in declared}
    provided = _provided(root)
    if provided is None:  # its dependencies did not resolve: nothing is added blind
        return []
    known |= provided  # numpy, which scikit-learn brings, is the project's: never pinned here
    found: list[str] = []
    for rel in tests[:MAX_FILES]:
        for name in _module_imports(root, rel):
            dist = DISTRIBUTIONS.get(name, name)
            if name in own or name in TOOLS or name in sys.stdlib_module_names:
                continue
            if canonicalize_name(dist) in known or dist in found:
                continue
            found.append(dist)
    return [r for r in (_requirement(d, before) for d in found[:MAX_FOUND]) if r]


def _module_imports(root: Path, rel: str) -> list[str]:
    """The top-level names a test file imports unconditionally (not under try, if or def:
    an optional import is not a requirement)."""
    if not rel.endswith(".py"):
        return []
    try:
        tree = ast.parse(peer_text(root, rel) or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError, SystemError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [a.name.partition(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module.partition(".")[0])
    return names


def _provided(root: Path) -> set[str] | None:
    """The canonical names of the release's runtime dependencies and theirs, as uv resolves
    them now (what the project's environment will hold), or None when they do not resolve.
    A test's import of one of them is the project's, and a pin of it among the test tools
    would constrain the project's own install."""
    wanted = _runtime_requirements(root)
    if not wanted:
        return set()
    with tempfile.TemporaryDirectory(prefix="e2ebench-testimports-") as tmp:
        listed = Path(tmp) / "requirements.in"
        listed.write_text("\n".join(wanted) + "\n", encoding="utf-8")
        version = sys.version.split()[0]
        command = [uv_binary(), "pip", "compile", str(listed), "--no-header", "--no-annotate",
                   "--quiet", "--no-config", "--python-version", version]  # fmt: skip
        try:
            done = subprocess.run(command, capture_output=True, text=True, cwd=tmp, check=False,
                                  timeout=RESOLVE_SECONDS)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return None
    if done.returncode != 0:
        return None
    names = set()
    for line in done.stdout.splitlines():
        with contextlib.suppress(InvalidRequirement):
            names.add(canonicalize_name(Requirement(line.split("#")[0].strip()).name))
    return names


def _runtime_requirements(root: Path) -> list[str]:
    """The release's runtime requirements (no extra's): its pyproject's, else PKG-INFO's."""
    try:
        project = (read_toml(root, "pyproject.toml") or {}).get("project", {})
    except (ValueError, AttributeError):
        project = {}
    listed = project.get("dependencies") if isinstance(project, dict) else None
    if not isinstance(listed, list):
        text = peer_text(root, "PKG-INFO") or ""
        listed = email.parser.Parser().parsestr(text, headersonly=True).get_all("Requires-Dist", [])
    found = []
    for line in listed:
        with contextlib.suppress(InvalidRequirement, TypeError):
            req = Requirement(line)
            if req.url is None and not (req.marker and "extra" in str(req.marker)):
                found.append(str(req))
    return found


def _local_names(root: Path) -> set[str]:
    """Module and package names the release's files provide (at its root, under ``src/``,
    and beside its tests): what a test imports from the project or its own folder."""
    names = set()
    for _, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        names |= {d for d in dirs if d.isidentifier()}
        names |= {f.removesuffix(".py") for f in files if f.endswith(".py")}
        if len(names) > 20_000:
            break
    return names


def _requirement(name: str, before: dt.date | None) -> str:
    """``name==<newest final release uploaded before before>``, ``name`` when the index says
    no dates, "" when it has no such project."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}", name):
        return ""
    try:
        files = index_files(name)
    except SourceError:  # (FetchError among them: no answer)
        return ""
    if not files:
        return ""
    versions = set()
    for entry in files:
        uploaded = str(entry.get("upload-time") or "")[:10]
        version = _version_of(entry["filename"])
        if before and uploaded and uploaded < before.isoformat() and version is not None:
            if not version.is_prerelease:
                versions.add(version)
    return f"{name}=={max(versions)}" if versions else name


def _version_of(filename: str) -> Version | None:
    with contextlib.suppress(InvalidWheelFilename, InvalidSdistFilename, ValueError):
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        return parse_sdist_filename(filename)[1]
    return None
