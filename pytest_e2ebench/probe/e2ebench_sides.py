"""Where the reference's own value met a literal as an object (issue 39, item 4).

In a split run, ``assert result == "1.2.3"`` is decided by the suite's process when ``result``
came back as plain data, and by the project's ``__eq__`` when it came back as a handle. A
project may return an object equal to anything there. The reference's run says where an
object of the project meets a plain literal in an honest run: its *sides*, one key per
assertion site. In an agent's run, a site that is not among the reference's takes only plain
data: a builtin value (or the builtin value inside a subclass of one), compared by the
suite's process; any other object there is refused and the test fails.

A site's key is the test module's path in the suite and the statement's shape with every name
and constant masked: the same for the reference's tests, their migrated copies (other names)
and the planted tests made from them (other literals).

Standard library only; runs in the suite's process.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys

SIDES_ENV = "E2EBENCH_SPLIT_SIDES"  # the harness's file of the reference's sides (a JSON list)
MAX_SIDES = 16384  # keys reported by one run (comparisons, truths and attributes read)
# reported first when a run saw more keys than it reports: a table that holds it is no table
# (every site is answered as in a run without one), never one that refuses the sites left out
OVERFLOW = "*"
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


class _Mask(ast.NodeTransformer):
    """Names, attributes, keywords and constants blanked: the statement's shape alone."""

    def visit_Name(self, node):
        return ast.Name(id="_", ctx=ast.Load())

    def visit_Attribute(self, node):
        return ast.Attribute(value=self.visit(node.value), attr="_", ctx=ast.Load())

    def visit_Constant(self, node):
        return ast.Constant(value=None)

    def visit_keyword(self, node):
        return ast.keyword(arg="_", value=self.visit(node.value))

    def visit_JoinedStr(self, node):
        return ast.Constant(value=None)

    def visit_alias(self, node):
        return ast.alias(name="_")

    def visit_arg(self, node):
        return ast.arg(arg="_")

    def visit_ImportFrom(self, node):
        return ast.ImportFrom(module="_", names=[self.visit(a) for a in node.names], level=0)


def _shape(stmt: ast.stmt) -> str:
    fields = {f: [] for f in _BLOCKS if hasattr(stmt, f)}
    head = type(stmt)(**{**{f: getattr(stmt, f) for f in stmt._fields}, **fields})
    text = ast.dump(_Mask().visit(head), annotate_fields=False, include_attributes=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _line_keys(path: str) -> dict[int, str]:
    """Each line of the module at ``path``: the shape of the innermost statement on it."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    keys: dict[int, str] = {}
    for node in ast.walk(tree):  # outer statements first: an inner one claims its lines
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            shape = _shape(node)
            last = node.lineno if any(hasattr(node, f) for f in _BLOCKS) else node.end_lineno
            for line in range(node.lineno, (last or node.lineno) + 1):
                keys[line] = shape
    return keys


class Sides:
    """The sites of one run: those seen (reported at the end) and the reference's (a set, or
    None when the harness gave none: then every site takes what the project answers)."""

    def __init__(self, suite: str, table: list | None) -> None:
        self.suite = os.path.realpath(suite) + os.sep if suite else ""
        self.table = None if table is None else {str(k) for k in table}
        if self.table is not None and OVERFLOW in self.table:
            self.table = None
        self.seen: set[str] = set()
        self.overflow = False
        self._files: dict[str, tuple[str, dict[int, str]] | None] = {}

    def _module(self, path: str) -> tuple[str, dict[int, str]] | None:
        """A code file's path in the suite and its lines' keys, or None outside the suite."""
        if path not in self._files:
            real = os.path.realpath(path)
            inside = bool(self.suite) and real.startswith(self.suite)
            self._files[path] = (real[len(self.suite) :], _line_keys(real)) if inside else None
        return self._files[path]

    def site(self, depth: int = 2) -> str:
        """The key of the suite's innermost frame (the caller's ``depth`` up), "" if none."""
        frame = sys._getframe(depth)
        while frame is not None:
            module = self._module(frame.f_code.co_filename)
            if module is not None:
                return f"{module[0]}:{module[1].get(frame.f_lineno, '')}"
            frame = frame.f_back
        return ""

    def plain_only(self, depth: int = 2, name: str | None = None) -> bool:
        """Whether the current comparison's site takes plain data only (noted as seen); with
        ``name``, whether the attribute ``name`` read there of an object does (its key is the
        site's and the name: ``assert text.startswith(x)`` where the reference's ``text`` was
        a ``str`` read no attribute of an object of its)."""
        key = self.site(depth + 1)
        if name is not None:
            key = f"{key}.{name}"
        if key not in self.seen:
            if len(self.seen) < MAX_SIDES:
                self.seen.add(key)
            else:
                self.overflow = True
        return self.table is not None and key not in self.table

    def asked_here(self, depth: int = 2) -> bool:
        """Whether the code the caller's ``depth`` up is the suite's own (a test, a fixture, a
        helper of its folder), not a library's it called (pytest explaining a failed
        assertion reads attributes of what it shows; those stay the project's answers)."""
        return self._module(sys._getframe(depth).f_code.co_filename) is not None

    def reported(self) -> list[str]:
        """The keys seen, :data:`OVERFLOW` first when some were not kept."""
        return ([OVERFLOW] if self.overflow else []) + sorted(self.seen)


def load(suite: str) -> Sides:
    """The run's sides: the reference's from the file the harness named, if any."""
    path = os.environ.pop(SIDES_ENV, "")
    table = None
    if path:
        with open(path, encoding="utf-8") as handle:
            table = json.load(handle)
    return Sides(suite, table)
