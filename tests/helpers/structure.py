"""Shared by the tests (moved from test_boundary_parse.py)."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

# names under which the boundary modules are imported (``from ..untrusted import peer``)
BOUNDARY_MODULES = {"parse", "peer", "intake"}


PARSERS = {("json", "load"), ("json", "loads"), ("tomllib", "load"), ("tomllib", "loads")}


# Parsers of other formats a project or a peer can write (XML of JUnit or coverage reports:
# entity expansion; archives; pickles run code): each a raw read too, under any alias.
PARSERS |= {
    *(
        (m, f)
        for m in ("xml.etree.ElementTree", "xml.etree.cElementTree")
        for f in ("parse", "iterparse", "fromstring", "fromstringlist", "XML", "XMLParser")
    ),
    ("xml.dom.minidom", "parse"),
    ("xml.dom.minidom", "parseString"),
    ("xml.sax", "parse"),
    ("xml.sax", "parseString"),
    ("zipfile", "ZipFile"),
    ("tarfile", "open"),
    ("shelve", "open"),
    ("pickle", "load"),
    ("pickle", "loads"),
    ("marshal", "load"),
    ("marshal", "loads"),
    ("plistlib", "load"),
    ("plistlib", "loads"),
}
_PARSER_MODULES = {m for m, _ in PARSERS}


_READ_METHODS = ("read_text", "read_bytes", "open")


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> module, for ``import json``, ``import json as j`` and ``from xml.etree
    import ElementTree as ET`` (so a renamed module is no way around the scan)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.partition(".")[0]  # ``import xml.etree.ElementTree`` binds xml
                names[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _module_of(value: ast.expr, aliases: dict[str, str]) -> str:
    """The module a call's object names: an alias resolved (``ET`` -> xml.etree.ElementTree,
    ``xml.etree.ElementTree`` as written)."""
    if isinstance(value, ast.Name):
        return aliases.get(value.id, value.id)
    return ast.unparse(value) if isinstance(value, ast.Attribute) else ""


def _writes(call: ast.Call, mode_index: int) -> bool:
    """Whether the call opens for writing only (a literal mode with w, a or x)."""
    mode = call.args[mode_index] if len(call.args) > mode_index else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    return (
        isinstance(mode, ast.Constant)
        and isinstance(mode.value, str)
        and any(c in mode.value for c in "wax")
    )


def raw_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every raw read primitive called in ``tree``."""
    found = []
    aliases = _aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "") in _PARSER_MODULES:
            found += [
                (node.lineno, f"from {node.module} import {a.name}")
                for a in node.names
                if (node.module, a.name) in PARSERS
            ]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open" and not _writes(node, 1):
            found.append((node.lineno, "open()"))
        elif (
            isinstance(func, ast.Name)
            and func.id == "getattr"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in _READ_METHODS
        ):
            found.append((node.lineno, f"getattr(..., {node.args[1].value!r})()"))
        elif not isinstance(func, ast.Attribute):
            continue
        elif (_module_of(func.value, aliases), func.attr) in PARSERS:
            found.append((node.lineno, f"{ast.unparse(func)}()"))
        elif isinstance(func.value, ast.Name) and func.value.id in BOUNDARY_MODULES:
            continue  # parse.read_text(...), peer.read_text(...): the boundary's functions
        elif func.attr in ("read_text", "read_bytes"):
            found.append((node.lineno, f".{func.attr}()"))
        elif func.attr == "open" and not _writes(node, 0):
            found.append((node.lineno, f"{ast.unparse(func)}()"))
    return sorted(found)


ROOT = Path(__file__).resolve().parents[2]


PACKAGE = "pytest_e2ebench"


@dataclass(frozen=True)
class Import:
    """One first-party import: ``source`` imports ``target`` (a module), for ``names``."""

    source: str
    target: str
    names: tuple[str, ...]
    line: int
    attribute: bool = False  # a ``module._name`` access, not an import statement

    def where(self) -> str:
        """``module:line`` of the import, for a failure message."""
        return f"{self.source}:{self.line}"


@functools.cache
def tree_of(path: Path) -> ast.Module:
    """A file of the package parsed, once per test session (every structure test reads the
    same trees: parsing the whole package per test took most of tests/unit's time)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``'s name)."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from … import`` names, with its relative dots resolved."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if _is_package(path) else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _is_script_block(node: ast.AST) -> bool:
    """``if __name__ == "__main__":`` -- code that runs only when the file is run as a script,
    as the module ``__main__`` (the top of any import chain), never when it is imported."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _walk_module(tree: ast.Module):
    """Every node of a module, its script block (``if __name__ == "__main__":``) left out."""
    todo = [n for n in tree.body if not _is_script_block(n)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(ast.iter_child_nodes(node))


def imports_in(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The first-party imports of one module, and its ``alias._private`` attribute accesses."""
    tree = tree_of(path)
    found: list[Import] = []
    bound: dict[str, str] = {}  # a local name bound to a first-party module
    for node in _walk_module(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != PACKAGE:
                    continue
                found.append(Import(module, alias.name, (), node.lineno))
                if alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path, node)
            if base.split(".")[0] != PACKAGE:
                continue
            loose = []
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in modules:
                    found.append(Import(module, child, (), node.lineno))
                    bound[alias.asname or alias.name] = child
                else:
                    loose.append(alias.name)
            if loose:
                found.append(Import(module, base, tuple(loose), node.lineno))
    for node in _walk_module(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            target = bound[node.value.id]
            found.append(Import(module, target, (node.attr,), node.lineno, attribute=True))
    return [i for i in found if i.target in modules and i.target != module]


@functools.cache
def _all_imports() -> tuple[Import, ...]:
    modules = module_files()
    return tuple(i for name, path in modules.items() for i in imports_in(name, path, modules))


def all_imports() -> list[Import]:
    """The first-party imports of the whole package (read once per session)."""
    return list(_all_imports())


def long_functions(limit: int) -> list[tuple[str, str, int]]:
    """``(module, function, lines)`` of every function longer than ``limit`` lines."""
    found = []
    for module, path in module_files().items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1
                if size > limit:
                    found.append((module, node.name, size))
    return sorted(found, key=lambda f: -f[2])
