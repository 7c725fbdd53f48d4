"""Which reference tests may skip on the reference, read from their source (issue 11, class 9).

A project can make a test skip from its own code (``pytest.skip()``, ``pytest.xfail()``, raising
``unittest.SkipTest``), and a skipped test leaves the pass rate's denominator. So a reference test
counts as skipped only where its own source (or the task's test folder) can skip it: a
``skip``/``skipif``/``xfail`` mark on the test, its class or module, a skip call in the test, in
its class outside the tests, at module level, or in a fixture it requests (also through other
fixtures, and autouse ones), or anywhere in a ``conftest.py`` of the tests other than in its
fixtures. Everywhere else a skip counts as not passed.

The reading is generous on purpose (a helper of a module that skips makes every test of that
module skippable): a test wrongly allowed to skip only leaves one test out of the pass rate,
while a test wrongly refused would fail an honest project.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from .testindex import dotted_name, is_test_module

_MARKS = frozenset({"skip", "skipif", "xfail"})
_CALLS = frozenset(
    {"skip", "importorskip", "xfail", "skipTest", "skipIf", "skipUnless", "expectedFailure"}
)
_RAISED = ("SkipTest", "Skipped", "skip.Exception", "XFailed", "xfail.Exception")
_MAX_BYTES = 2 << 20  # a reference test module larger than this is not read (none is)


def skips(node: ast.AST) -> bool:
    """True when ``node`` contains a skip or xfail mark, call or raise."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            if sub.attr in _MARKS and dotted_name(sub.value).endswith("mark"):
                return True
            if sub.attr == "expectedFailure":
                return True
        elif isinstance(sub, ast.Call):
            if dotted_name(sub.func).rpartition(".")[2] in _CALLS:
                return True
        elif isinstance(sub, ast.Raise) and sub.exc is not None:
            target = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            if dotted_name(target).endswith(_RAISED):
                return True
    return False


def _is_fixture(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if dotted_name(target).rpartition(".")[2] == "fixture":
            return True
    return False


def _fixture_name(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    for dec in func.decorator_list:
        if isinstance(dec, ast.Call):
            for kw in dec.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                    return str(kw.value.value)
    return func.name


def _autouse(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(dec, ast.Call)
        and any(
            kw.arg == "autouse" and isinstance(kw.value, ast.Constant) and kw.value.value
            for kw in dec.keywords
        )
        for dec in func.decorator_list
    )


def _requested(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Fixture names a function requests: its parameters and ``usefixtures`` marks."""
    names = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    for dec in func.decorator_list:
        if isinstance(dec, ast.Call) and dotted_name(dec.func).endswith("usefixtures"):
            names |= {a.value for a in dec.args if isinstance(a, ast.Constant)}
    return names


_Funcs = ast.FunctionDef | ast.AsyncFunctionDef


class _Reading:
    """Fixtures and scopes of one task's test folder."""

    def __init__(self) -> None:
        self.fixtures: dict[str, tuple[set[str], bool]] = {}  # name -> (requests, skips)
        self.always: set[str] = set()  # test ids that skip whatever they request
        self.requests: dict[str, set[str]] = {}  # test id -> fixture names
        self.wide: list[tuple[str, str]] = []  # (folder prefix, why) of skipping conftests

    def fixture(self, func: _Funcs, scope_ids: list[str]) -> None:
        name = _fixture_name(func)
        requests, skipping = self.fixtures.get(name, (set(), False))
        self.fixtures[name] = (requests | _requested(func), skipping or skips(func))
        if _autouse(func):
            for test in scope_ids:
                self.requests.setdefault(test, set()).add(name)

    def skipping_fixtures(self) -> set[str]:
        found = {n for n, (_, s) in self.fixtures.items() if s}
        while True:
            more = {n for n, (req, _) in self.fixtures.items() if req & found} - found
            if not more:
                return found
            found |= more


def _scope(body: list[ast.stmt], prefix: str, reading: _Reading, out: list[str]) -> bool:
    """Read one module or class body; True when code outside its tests can skip."""
    wide = False
    tests: list[tuple[str, _Funcs]] = []
    nested: list[str] = []
    for stmt in body:
        if isinstance(stmt, _Funcs) and stmt.name.startswith("test"):
            tests.append((f"{prefix}::{stmt.name}", stmt))
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            inner: list[str] = []
            class_wide = _scope(stmt.body, f"{prefix}::{stmt.name}", reading, inner)
            if class_wide or any(skips(d) for d in stmt.decorator_list):
                reading.always.update(inner)
            nested.extend(inner)
        elif isinstance(stmt, _Funcs) and _is_fixture(stmt):
            continue  # read below, once the scope's tests are known
        elif skips(stmt):
            wide = True
    ids = [test for test, _ in tests]
    for stmt in body:
        if isinstance(stmt, _Funcs) and not stmt.name.startswith("test") and _is_fixture(stmt):
            reading.fixture(stmt, ids + nested)
    for test, func in tests:
        reading.requests.setdefault(test, set()).update(_requested(func))
        if skips(func):
            reading.always.add(test)
    out.extend(nested + ids)
    return wide


def _parse(path: Path) -> ast.Module | None:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        return ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def scan(tests: Path, label: str = "tests") -> frozenset[str]:
    """Base node ids (as :func:`~pytest_e2ebench.taskmodel.testindex.scan_tests` names them) of the
    tests
    under ``tests`` (a folder or one module) that may skip on the reference."""
    root = tests if tests.is_dir() else tests.parent
    files = [tests] if tests.is_file() else sorted(tests.rglob("*.py"))
    reading = _Reading()
    per_module: list[tuple[str, list[str]]] = []
    for file in files:
        if "__pycache__" in file.parts:
            continue
        tree = _parse(file)
        rel = f"{label}/{file.relative_to(root).as_posix()}"
        if tree is None:
            continue
        if file.name == "conftest.py":
            for stmt in tree.body:
                if isinstance(stmt, _Funcs) and _is_fixture(stmt):
                    reading.fixture(stmt, [])
                    if _autouse(stmt) and skips(stmt):
                        reading.wide.append((rel.rpartition("/")[0] + "/", "autouse"))
                elif skips(stmt):
                    reading.wide.append((rel.rpartition("/")[0] + "/", "conftest"))
        elif is_test_module(file):
            ids: list[str] = []
            if _scope(tree.body, rel, reading, ids):
                reading.always.update(ids)
            per_module.append((rel, ids))
    skipping = reading.skipping_fixtures()
    found = set(reading.always)
    for _, ids in per_module:
        for test in ids:
            if reading.requests.get(test, set()) & skipping:
                found.add(test)
            if any(test.startswith(folder) for folder, _ in reading.wide):
                found.add(test)
    return frozenset(found)


@functools.lru_cache(maxsize=64)
def _cached(tests: Path, digest: str) -> frozenset[str]:
    return scan(tests)


def may_skip(task) -> frozenset[str]:
    """Base node ids of the task's reference tests that may skip on the reference."""
    if task.kind == "web" or task.tests_dir is None:
        return frozenset()
    return _cached(task.tests_dir, task.tests_hash)
