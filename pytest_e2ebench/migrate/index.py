"""A static index of a Python project: its modules and the names they define or re-export.

Built by parsing source files, never by importing them: the project is untrusted and its
dependencies are not installed in the harness.
"""

from __future__ import annotations

import ast
import dataclasses
import keyword
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..environment.workspace import code_files
from ..isolation.intake import parse_python
from ..taskmodel.testindex import is_test_module


@dataclasses.dataclass(frozen=True)
class Symbol:
    """A public name of a module: a class, a function or anything else (``value``)."""

    module: str
    name: str
    kind: str  # "class" | "function" | "value" | "module" | "import" (a re-export)
    required: int | None = None  # required positional parameters (functions; __init__ of classes)
    methods: tuple[str, ...] = ()


@dataclasses.dataclass
class ProjectIndex:
    """Modules by dotted name, and what each one defines or imports."""

    modules: dict[str, dict[str, Symbol]] = dataclasses.field(default_factory=dict)
    # ``from x import *`` in a module: the modules whose public names it re-exports
    star_imports: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    # modules that define a module-level ``__getattr__``: their names are made at run time
    dynamic: set[str] = dataclasses.field(default_factory=set)

    def is_dynamic(self, module: str) -> bool:
        """True when ``module`` may have names no index sees: a module ``__getattr__``, or
        ``import *`` from a third-party module.

        A walk with a stack, each module once: the project's ``import *`` may go round in a
        circle (``pkg`` from ``pkg.b``, ``pkg.b`` from ``pkg``) or thousands of modules deep,
        where a recursion raised RecursionError and the run became a harness error.
        """
        stack, seen = [module], set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            if current in self.dynamic:
                return True
            for source in self.star_imports.get(current, ()):
                if source.split(".")[0] not in self.packages:
                    return True
                stack.append(source)
        return False

    @property
    def packages(self) -> list[str]:
        """Top-level package or module names, sorted."""
        return sorted({m.split(".")[0] for m in self.modules})

    def lookup(self, module: str, name: str) -> Symbol | None:
        """The symbol ``name`` of ``module``, following re-exports (also ``import *``).

        Depth first, in the order of the ``import *`` statements, with a stack rather than a
        recursion: a chain of ``import *`` is as deep as the project makes it.
        """
        stack, seen = [(module, name)], set()
        while stack:
            module, name = stack.pop()
            if (module, name) in seen:
                continue
            seen.add((module, name))
            symbol = self.modules.get(module, {}).get(name)
            if symbol is None:
                if not name.startswith("_"):  # ``import *`` does not re-export private names
                    sources = self.star_imports.get(module, ())
                    stack.extend((source, name) for source in reversed(sources))
                continue
            if symbol.kind != "import":
                return symbol
            if f"{symbol.module}.{symbol.name}" in self.modules:
                # ``from . import sub``: the name is a submodule
                return Symbol(f"{symbol.module}.{symbol.name}", "", "module")
            if symbol.module.split(".")[0] not in self.packages:
                return symbol  # imported from a third-party module: it exists
            stack.append((symbol.module, symbol.name))  # a re-export: follow it
        return None

    def definitions(self, package: str) -> list[Symbol]:
        """Every class and function defined under ``package``."""
        return [
            s
            for m, names in self.modules.items()
            if m == package or m.startswith(package + ".")
            for s in names.values()
            if s.kind in ("class", "function")
        ]


def _required(args: ast.arguments, skip_self: bool) -> int:
    positional = [*args.posonlyargs, *args.args]
    if skip_self and positional:
        positional = positional[1:]
    return len(positional) - len(args.defaults)


def _module_name(rel: Path) -> str:
    """The dotted name a test imports ``rel`` by; "" when no import statement can name it.

    The names are the author's and the static migrator writes them into the suite's import
    statements: a folder named ``os import sep; <code>; from x`` was a line of code in the
    harness's test module, run as the suite's own. Only identifiers that are no keyword pass.
    """
    parts = list(rel.with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        return ""
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([target] if target else [])])


def _scope_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that bind module-level names: ``body`` and, recursively, the branches of
    ``if`` (``TYPE_CHECKING``, version checks), ``try`` (optional imports), ``with`` and loops.

    Every branch counts: which one runs is decided when the module is imported, and a name
    bound in any of them may exist then.
    """
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While):
            yield from _scope_statements([*stmt.body, *stmt.orelse])
        elif isinstance(stmt, ast.Try | ast.TryStar):
            blocks = [*stmt.body, *stmt.orelse, *stmt.finalbody]
            for handler in stmt.handlers:
                blocks.extend(handler.body)
            yield from _scope_statements(blocks)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            yield from _scope_statements(stmt.body)


def _targets(node: ast.expr) -> Iterator[str]:
    """Names bound by an assignment target (``a``, ``a, b = ...``, ``[a, *b] = ...``)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            yield from _targets(elt)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _in_package(root: Path, rel: Path) -> bool:
    """True when ``rel`` sits in a folder with an ``__init__.py`` (a regular package)."""
    if len(rel.parts) < 2:
        return False
    try:  # lstat: the project is untrusted, a link is not followed
        return stat.S_ISREG(os.lstat(root / rel.parent / "__init__.py").st_mode)
    except OSError:
        return False


def index_files(root: Path) -> list[Path]:
    """The modules to index: the project's code, plus modules of its packages whose names
    only look like tests (``pkg/test_utils.py`` is a module of ``pkg``, not a test file).

    Bounded and without entering links (:func:`pytest_e2ebench.environment.workspace.code_files`).
    """
    return [
        rel
        for rel in code_files(root, include_test_names=True)
        if not is_test_module(rel) or _in_package(root, rel)
    ]


def index_project(root: Path) -> ProjectIndex:
    """Parse every module under ``root`` (tests excluded) into a :class:`ProjectIndex`."""
    index = ProjectIndex()
    for rel in index_files(root):
        module = _module_name(rel)
        if not module:
            continue
        # Too large, nested too deeply or not Python: the module exists but defines nothing.
        tree = parse_python(root, rel)
        if tree is None:
            index.modules.setdefault(module, {})
            continue
        index.modules[module] = _module_names(index, module, rel.name == "__init__.py", tree)
    return index


def _module_names(
    index: ProjectIndex, module: str, is_package: bool, tree: ast.Module
) -> dict[str, Symbol]:
    """The names ``module``'s top-level statements bind (the first binding wins). A module
    ``__getattr__`` and star imports are noted in ``index`` (``dynamic``, ``star_imports``)."""
    names: dict[str, Symbol] = {}
    for stmt in _scope_statements(tree.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name == "__getattr__":
                index.dynamic.add(module)
            names.setdefault(
                stmt.name, Symbol(module, stmt.name, "function", _required(stmt.args, False))
            )
        elif isinstance(stmt, ast.ClassDef):
            names.setdefault(stmt.name, _class_symbol(module, stmt))
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for name in _targets(target):
                    names.setdefault(name, Symbol(module, name, "value"))
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
            names.setdefault(stmt.target.id, Symbol(module, stmt.target.id, "value"))
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:  # ``import x.y as z`` binds z to the module x.y
                    names.setdefault(alias.asname, Symbol(alias.name, "", "module"))
        elif isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
            source = (
                _resolve_relative(module, is_package, stmt.level, stmt.module)
                if stmt.level
                else stmt.module or ""
            )
            for alias in stmt.names:
                if alias.name == "*":
                    index.star_imports.setdefault(module, []).append(source)
                else:
                    names.setdefault(
                        alias.asname or alias.name, Symbol(source, alias.name, "import")
                    )
    return names


def _class_symbol(module: str, stmt: ast.ClassDef) -> Symbol:
    """A class: the arguments its ``__init__`` requires (None without one) and its methods."""
    methods = tuple(
        f.name for f in stmt.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    init = next(
        (f for f in stmt.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"),
        None,
    )
    required = _required(init.args, True) if init else None
    return Symbol(module, stmt.name, "class", required, methods)
