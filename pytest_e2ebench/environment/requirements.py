"""What a project asks the harness to install, read as data and vetted first.

The harness's own uv installs a project's build requirements and runtime dependencies outside
the sandbox, because only the harness may reach the package index. A direct reference
(``name @ file:///…`` pointing into the project, any URL) or a local path would make that uv
read, and build, bytes the agent wrote on the host (issue 11, class 2c). So only plain index
requirements pass: a name, extras, a version specifier and markers, parsed with
:class:`packaging.requirements.Requirement` and written back in a canonical form (one line,
no pip options, the name normalized so that it cannot read as a file name). Anything else is
the agent's failure, with a message naming the field.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..errors import AgentFileError
from ..untrusted.parse import read_toml

MAX_REQUIREMENTS = 200
MAX_REQUIREMENT_CHARS = 1000
# packaging parses a marker's parentheses by recursion, about two frames a level: 492 levels
# (998 characters) raised RecursionError in the harness, a harness error instead of the
# agent's failure. Honest markers nest two or three.
MAX_MARKER_NESTING = 32
MAX_PYPROJECT_BYTES = 1 << 20
# module[.sub…][:object[.attr…]] (PEP 517)
_BACKEND = re.compile(r"^[A-Za-z_][\w.]*(:[A-Za-z_][\w.]*)?$")
# PEP 517/518 defaults for a project that does not name its build system
LEGACY_BUILD_SYSTEM = {
    "requires": ["setuptools>=40.8.0"],
    "build-backend": "setuptools.build_meta:__legacy__",
    "backend-path": [],
}


class InstallRefused(Exception):
    """The project cannot be installed as it is: the agent's failure, the text says why."""


def parse_requirement(text: str) -> Requirement:
    """``text`` as a requirement; InvalidRequirement for anything the parser cannot take
    within bounds (parentheses nested past :data:`MAX_MARKER_NESTING`, a recursion or memory
    error), as for a requirement that is not one."""
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_MARKER_NESTING:
        raise InvalidRequirement(f"parentheses nested deeper than {MAX_MARKER_NESTING} levels")
    try:
        return Requirement(text)
    except (RecursionError, MemoryError) as exc:
        raise InvalidRequirement(f"cannot be parsed ({type(exc).__name__})") from None


def vet(texts: object, where: str) -> list[str]:
    """``texts`` as canonical index requirements; InstallRefused naming ``where`` otherwise."""
    if not isinstance(texts, list | tuple) or not all(isinstance(t, str) for t in texts):
        raise InstallRefused(f"{where} must be a list of strings")
    if len(texts) > MAX_REQUIREMENTS:
        raise InstallRefused(f"{where}: more than {MAX_REQUIREMENTS} requirements")
    vetted = []
    for text in texts:
        shown = text if len(text) <= 80 else text[:77] + "..."
        if len(text) > MAX_REQUIREMENT_CHARS:
            raise InstallRefused(f"{where}: {shown!r} is too long for a requirement")
        try:
            req = parse_requirement(text)
        except InvalidRequirement as exc:
            first = str(exc).splitlines()[0] if str(exc) else "invalid"
            raise InstallRefused(
                f"{where}: {shown!r} is not a requirement from the package index ({first})"
            ) from None
        if req.url:
            raise InstallRefused(
                f"{where}: {shown!r} is a direct reference (a URL or a path); the harness "
                "installs only requirements from the package index"
            )
        vetted.append(_canonical(req))
    return vetted


def _canonical(req: Requirement) -> str:
    """One line uv cannot read as a path: the name normalized (``evil.whl`` -> ``evil-whl``)."""
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    return f"{canonicalize_name(req.name)}{extras}{req.specifier}{marker}"


def build_system(repo: Path) -> dict:
    """``[build-system]`` of the project, defaults filled in and ``requires`` vetted.

    Raises InstallRefused naming pyproject.toml and the reason (not TOML, a malformed table,
    a requirement that is not from the package index).
    """
    try:
        document = read_toml(repo, "pyproject.toml", max_bytes=MAX_PYPROJECT_BYTES)
    except AgentFileError as exc:  # a link, too large, too deep, not UTF-8, not TOML
        raise InstallRefused(str(exc)) from None
    if document is None:
        return dict(LEGACY_BUILD_SYSTEM)
    declared = document.get("build-system", {})
    if not isinstance(declared, dict):
        raise InstallRefused("pyproject.toml: [build-system] must be a table")
    system = {**LEGACY_BUILD_SYSTEM, **declared}
    backend, paths = system["build-backend"], system["backend-path"]
    if not isinstance(backend, str) or not _BACKEND.match(backend):
        raise InstallRefused(
            "pyproject.toml: [build-system] build-backend must name a module (module:object)"
        )
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise InstallRefused(
            "pyproject.toml: [build-system] backend-path must be a list of strings"
        )
    system["requires"] = vet(system["requires"], "pyproject.toml [build-system] requires")
    return system
