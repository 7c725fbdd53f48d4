"""Find a task's reference tests and their requirement tags without importing them.

The outer pytest must never import reference tests (they import the package under test, which
does not exist in the harness), so tags are read from the syntax tree. A tag is the literal
``pytest.mark.requirement("R1", ...)`` on a test function or class, or in a ``pytestmark``
assignment of the module or class.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
from pathlib import Path

from .intake import MAX_SOURCE_BYTES, PARSE_ERRORS

TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")


@dataclasses.dataclass(frozen=True)
class StaticTest:
    """One test function as written in a reference test module.

    ``nodeid`` is relative to the folder that holds the tests folder, e.g.
    ``tests/test_api.py::TestParse::test_empty``; ``cases`` is the number of items pytest will
    make of it (the product of literal ``parametrize`` lists, 1 when unknown).
    """

    nodeid: str
    requirements: tuple[str, ...]
    cases: int
    line: int

    @property
    def file(self) -> str:
        """The test module's path, relative like the node id."""
        return self.nodeid.split("::", 1)[0]


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _mark_name(node: ast.AST) -> str | None:
    """``pytest.mark.requirement(...)`` -> ``requirement``; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    dotted = _dotted(node.func)
    head, _, name = dotted.rpartition(".")
    if head.endswith("mark") and name:
        return name
    return None


class _Problems(list):
    def add(self, path: str, node: ast.AST, text: str) -> None:
        self.append(f"{path}:{getattr(node, 'lineno', 0)}: {text}")


def _requirement_ids(node: ast.AST, path: str, problems: _Problems) -> list[str]:
    """Requirement ids in one decorator / pytestmark expression (a mark or a list of marks)."""
    if isinstance(node, ast.List | ast.Tuple):
        ids: list[str] = []
        for elt in node.elts:
            ids.extend(_requirement_ids(elt, path, problems))
        return ids
    if _mark_name(node) != "requirement":
        return []
    ids = []
    assert isinstance(node, ast.Call)
    for arg in node.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            ids.append(arg.value.strip())
        else:
            problems.add(
                path,
                node,
                "requirement marker arguments must be string literals, "
                'e.g. @pytest.mark.requirement("R1")',
            )
    if not node.args:
        problems.add(
            path, node, 'requirement marker without an id; write @pytest.mark.requirement("R1")'
        )
    return ids


def _cases(decorators: list[ast.expr], constants: dict[str, int]) -> int:
    """Number of parametrized cases: product of the lengths of literal argvalue lists.

    A list may also be named by a module-level constant assigned a literal list or tuple.
    """
    total = 1
    for dec in decorators:
        if _mark_name(dec) != "parametrize":
            continue
        assert isinstance(dec, ast.Call)
        values = dec.args[1] if len(dec.args) > 1 else None
        for kw in dec.keywords:
            if kw.arg == "argvalues":
                values = kw.value
        if isinstance(values, ast.List | ast.Tuple):
            total *= len(values.elts)
        elif isinstance(values, ast.Name) and values.id in constants:
            total *= constants[values.id]
    return total


def _literal_lengths(tree: ast.Module) -> dict[str, int]:
    """Module-level ``NAME = [...]`` / ``(...)`` assignments and their lengths."""
    lengths: dict[str, int] = {}
    for stmt in tree.body:
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name) and isinstance(value, ast.List | ast.Tuple):
            lengths[target.id] = len(value.elts)
    return lengths


def _pytestmark(body: list[ast.stmt], path: str, problems: _Problems) -> list[str]:
    ids: list[str] = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
        ):
            ids.extend(_requirement_ids(stmt.value, path, problems))
    return ids


def _scan_body(body, prefix, inherited, path, problems, out, constants) -> None:
    own = inherited + _pytestmark(body, path, problems)
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith(
            "test"
        ):
            ids = list(own)
            for dec in stmt.decorator_list:
                ids.extend(_requirement_ids(dec, path, problems))
            out.append(
                StaticTest(
                    nodeid=f"{prefix}::{stmt.name}",
                    requirements=tuple(dict.fromkeys(ids)),
                    cases=_cases(stmt.decorator_list, constants),
                    line=stmt.lineno,
                )
            )
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            ids = list(own)
            for dec in stmt.decorator_list:
                ids.extend(_requirement_ids(dec, path, problems))
            _scan_body(stmt.body, f"{prefix}::{stmt.name}", ids, path, problems, out, constants)


def is_test_module(path: Path) -> bool:
    """True for file names pytest collects by default (``test_*.py``, ``*_test.py``)."""
    return any(fnmatch.fnmatch(path.name, pat) for pat in TEST_FILE_PATTERNS)


def scan_tests(tests: Path, *, label: str = "tests") -> tuple[list[StaticTest], list[str]]:
    """Every test function under ``tests`` (a folder or one module) with its tags, plus problems.

    Node ids start with ``label``, the folder the tests get in the harness's test directory.
    """
    found: list[StaticTest] = []
    problems = _Problems()
    files = [tests] if tests.is_file() else sorted(tests.rglob("*.py"))
    for file in files:
        if not is_test_module(file) or "__pycache__" in file.parts:
            continue
        rel = f"{label}/{file.relative_to(tests if tests.is_dir() else tests.parent).as_posix()}"
        # Tasks may be imported from elsewhere: the read is bounded and a module the parser
        # cannot take (too large, nested too deeply) is a problem of the task, not a crash.
        with file.open("rb") as fh:
            source = fh.read(MAX_SOURCE_BYTES + 1)
        if len(source) > MAX_SOURCE_BYTES:
            problems.append(f"{rel}: larger than {MAX_SOURCE_BYTES} bytes; split the module")
            continue
        try:
            tree = ast.parse(source, filename=str(file))
        except SyntaxError as exc:
            problems.append(f"{rel}:{exc.lineno}: syntax error: {exc.msg}; fix the test module")
            continue
        except PARSE_ERRORS as exc:
            problems.append(f"{rel}: cannot be parsed ({type(exc).__name__}); simplify it")
            continue
        _scan_body(tree.body, rel, [], rel, problems, found, _literal_lengths(tree))
    return found, list(problems)


def apply_mapping(tests: list[StaticTest], mapping: dict[str, list[str]]) -> list[StaticTest]:
    """Add requirement ids to tests whose node id matches a glob of ``[tests.requirements]``."""
    out = []
    for test in tests:
        extra = [
            rid
            for rid, globs in mapping.items()
            for pattern in globs
            if fnmatch.fnmatchcase(test.nodeid, pattern)
            or fnmatch.fnmatchcase(test.nodeid, pattern + "::*")
        ]
        if extra:
            test = dataclasses.replace(
                test, requirements=tuple(dict.fromkeys(test.requirements + tuple(extra)))
            )
        out.append(test)
    return out
