"""A static index of a Python project: its modules and the names they define or re-export.

Built by parsing source files, never by importing them: the project is untrusted and its
dependencies are not installed in the harness.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from ..intake import parse_python
from ..workspace import code_files


@dataclasses.dataclass(frozen=True)
class Symbol:
    """A public name of a module: a class, a function or anything else (``value``)."""

    module: str
    name: str
    kind: str  # "class" | "function" | "value"
    required: int | None = None  # required positional parameters (functions; __init__ of classes)
    methods: tuple[str, ...] = ()


@dataclasses.dataclass
class ProjectIndex:
    """Modules by dotted name, and what each one defines or imports."""

    modules: dict[str, dict[str, Symbol]] = dataclasses.field(default_factory=dict)

    @property
    def packages(self) -> list[str]:
        """Top-level package or module names, sorted."""
        return sorted({m.split(".")[0] for m in self.modules})

    def lookup(self, module: str, name: str) -> Symbol | None:
        """The symbol ``name`` of ``module``, following re-exports."""
        seen = set()
        while (module, name) not in seen:
            seen.add((module, name))
            symbol = self.modules.get(module, {}).get(name)
            if symbol is None or symbol.kind != "import":
                return symbol
            module, name = symbol.module, symbol.name  # a re-export: follow it
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
    parts = list(rel.with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([target] if target else [])])


def index_project(root: Path) -> ProjectIndex:
    """Parse every code file under ``root`` (tests excluded) into a :class:`ProjectIndex`."""
    index = ProjectIndex()
    for rel in code_files(root):
        module = _module_name(rel)
        if not module:
            continue
        # Too large, nested too deeply or not Python: the module exists but defines nothing.
        tree = parse_python(root, rel)
        if tree is None:
            index.modules.setdefault(module, {})
            continue
        names: dict[str, Symbol] = {}
        is_package = rel.name == "__init__.py"
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                names[stmt.name] = Symbol(
                    module, stmt.name, "function", _required(stmt.args, False)
                )
            elif isinstance(stmt, ast.ClassDef):
                methods = tuple(
                    f.name
                    for f in stmt.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                )
                init = next(
                    (
                        f
                        for f in stmt.body
                        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                    ),
                    None,
                )
                names[stmt.name] = Symbol(
                    module,
                    stmt.name,
                    "class",
                    _required(init.args, True) if init else None,
                    methods,
                )
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = Symbol(module, target.id, "value")
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names[stmt.target.id] = Symbol(module, stmt.target.id, "value")
            elif isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
                source = (
                    _resolve_relative(module, is_package, stmt.level, stmt.module)
                    if stmt.level
                    else stmt.module or ""
                )
                for alias in stmt.names:
                    if alias.name != "*":
                        names[alias.asname or alias.name] = Symbol(source, alias.name, "import")
        index.modules[module] = names
    return index
