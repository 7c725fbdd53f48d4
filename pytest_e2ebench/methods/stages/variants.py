"""Behaviour-preserving variants of a reference: what written tests must also pass on.

Issue 26, class 6: a written test that asserts the reference's file hashes (or its source
text, or a line number) passes on the reference and fails on every mutant, so the oracle test
and the mutation score read 100 % for a test of bytes. A test of *behaviour* does not notice
how the source is written, so the test stages also run the tests against a variant of the
reference that behaves the same and is written differently (docs/stages.md):

* every Python file is re-printed from its syntax tree (:func:`ast.unparse`: other layout,
  quotes and line numbers, no comments) and ends with a comment line of the harness's, so its
  bytes differ even when the printing is the same;
* local variables of functions are renamed where that is provably safe
  (:class:`LocalRenamer`);
* docstrings are rewritten (the same text behind a prefix, so doctest examples survive);
* runs of adjacent undecorated functions are put in reverse order where nothing at
  definition time refers to them;
* ``pyproject.toml``, ``setup.cfg`` and Markdown/reStructuredText/plain-text files get a
  comment or a blank line appended.

Data files are left as they are: they are behaviour (a table the code reads).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from ...run.cache import locked, tree_hash

VARIANT_FORMAT = 1  # part of the test stages' grade key: bump when the variant changes
VARIANT_NOTE = "# e2ebench: a behaviour-preserving variant of this file (issue 26)\n"
DOC_PREFIX = "(variant) "
RENAME_PREFIX = "_e2e_v_"
# Functions that use these names can see their locals by name: none of them is renamed.
INTROSPECTING = frozenset({"locals", "vars", "eval", "exec", "dir", "__import__"})
# Text files appended to: (suffix or name, what is appended). A comment where the format has
# one; a newline elsewhere.
APPENDED = {
    "pyproject.toml": "# e2ebench variant\n",
    "setup.cfg": "# e2ebench variant\n",
    ".md": "\n",
    ".rst": "\n",
    ".txt": "\n",
}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef):
    """The nodes of ``func``'s body (not its defaults, annotations or decorators: those are
    evaluated in the enclosing scope)."""
    for stmt in func.body:
        yield from ast.walk(stmt)


def _stores(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str] | None:
    """The names ``func`` binds by plain assignment that may be renamed, or None when the
    function must be left alone (nested scopes, introspection, pattern matching)."""
    assigned: set[str] = set()
    kept: set[str] = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    for node in _body_nodes(func):
        if isinstance(node, SCOPES):
            return None  # a closure or a class body would need scope analysis: not worth it
        if isinstance(node, ast.Match):
            return None  # capture patterns bind names outside Name nodes
        if isinstance(node, ast.Global | ast.Nonlocal):
            kept.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            kept.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name):
            if node.id in INTROSPECTING and isinstance(node.ctx, ast.Load):
                return None
            if isinstance(node.ctx, ast.Store | ast.Del):
                assigned.add(node.id)
    return {n for n in assigned - kept if not n.startswith("__")}


class LocalRenamer(ast.NodeTransformer):
    """Renames the plain local variables of each function (never parameters, globals,
    nonlocals, imports, attributes or keyword names: those are visible from outside)."""

    def __init__(self) -> None:
        self.renamed = 0

    def _function(self, node):
        names = _stores(node)
        if not names:
            self.generic_visit(node)
            return node
        mapping = {name: f"{RENAME_PREFIX}{index}" for index, name in enumerate(sorted(names))}
        for child in _body_nodes(node):
            if isinstance(child, ast.Name) and child.id in mapping:
                child.id = mapping[child.id]
            elif isinstance(child, ast.ExceptHandler) and child.name in mapping:
                child.name = mapping[child.name]
        self.renamed += len(mapping)
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function


def _rewrite_docstrings(tree: ast.Module) -> None:
    """Prefix every docstring (module, class, function): same content, other bytes."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0].value.value = DOC_PREFIX + body[0].value.value


def _reversible(run: list[ast.stmt]) -> bool:
    """True when reversing the run of function definitions cannot change what they do: no
    duplicate names, and no default or annotation (evaluated at definition) names one."""
    names = {f.name for f in run}
    if len(names) != len(run):
        return False
    for func in run:
        evaluated = [*func.args.defaults, *func.args.kw_defaults, func.returns]
        evaluated += [a.annotation for a in ast.walk(func.args) if isinstance(a, ast.arg)]
        for expr in filter(None, evaluated):
            if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr)):
                return False
    return True


def _reverse_function_runs(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each run of adjacent undecorated functions reversed (where safe)."""
    out: list[ast.stmt] = []
    run: list[ast.stmt] = []
    for stmt in [*body, None]:
        plain = isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and not stmt.decorator_list
        if plain:
            run.append(stmt)
            continue
        out.extend(reversed(run) if len(run) > 1 and _reversible(run) else run)
        run = []
        if stmt is not None:
            if isinstance(stmt, ast.ClassDef):
                stmt.body = _reverse_function_runs(stmt.body)
            out.append(stmt)
    return out


def variant_source(text: str) -> str:
    """The variant of one Python file's source; the text with a comment appended when it
    cannot be parsed or re-printed (its bytes still differ)."""
    shebang = text.split("\n", 1)[0] + "\n" if text.startswith("#!") else ""
    try:
        tree = ast.parse(text)
        LocalRenamer().visit(tree)
        _rewrite_docstrings(tree)
        tree.body = _reverse_function_runs(tree.body)
        printed = ast.unparse(tree)
        ast.parse(printed)  # what is written must still be Python
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text + ("" if text.endswith("\n") or not text else "\n") + VARIANT_NOTE
    return f"{shebang}{printed}\n{VARIANT_NOTE}"


def write_variant(reference: Path, dest: Path) -> Path:
    """Copy ``reference`` to ``dest`` as its behaviour-preserving variant."""
    shutil.copytree(
        reference, dest, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    )
    for path in sorted(dest.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        appended = APPENDED.get(path.name) or APPENDED.get(path.suffix)
        if path.suffix == ".py":
            text = path.read_bytes().decode("utf-8", errors="surrogateescape")
            try:
                path.write_text(variant_source(text), encoding="utf-8")
            except UnicodeEncodeError:  # a file in another encoding: bytes differ by the note
                path.write_bytes(path.read_bytes() + b"\n" + VARIANT_NOTE.encode())
        elif appended is not None:
            path.write_bytes(path.read_bytes() + appended.encode())
    return dest


def shared_variant(reference: Path, shared: Path) -> Path:
    """The variant of ``reference``, built once per content under ``shared``."""
    where = shared / f"reference-variant-{tree_hash(reference)[:16]}"
    with locked(where):
        if not (where / "complete").is_file():
            shutil.rmtree(where / "source", ignore_errors=True)
            where.mkdir(parents=True, exist_ok=True)
            write_variant(reference, where / "source")
            (where / "complete").write_text("ok\n")
    return where / "source"
