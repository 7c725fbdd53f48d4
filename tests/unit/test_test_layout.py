"""The suite's own layout (docs/testing.md): helpers are a package, no test module imports
another or a conftest, and the readers of a shared session say so with a mark."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# the session-scoped shared sessions of tests/conftest.py and the group each one's readers join
SHARED_FIXTURES = {"calc_session": "calc_session"}


def _files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _imported(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.lineno, node.module))
        elif (  # __import__("conftest"), importlib.import_module("test_x")
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", ""))
            in ("__import__", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_no_test_module_or_helper_imports_a_test_module_or_a_conftest():
    """Shared code is in ``tests/helpers`` (imported as ``helpers.<module>``); a fixture two
    tiers share is in their ``conftest.py``: a test module is never imported, so its tests
    are never collected twice and moving one never breaks another."""
    wrong = []
    for path in _files():
        for line, module in _imported(ast.parse(path.read_text())):
            top = module.split(".")[0]
            if top == "conftest" or top.startswith("test_"):
                wrong.append(f"{path.relative_to(TESTS)}:{line}: {module}")
    assert not wrong, wrong


def _marks(node: ast.ClassDef) -> dict[str, str]:
    found = {}
    for mark in node.decorator_list:
        call = mark if isinstance(mark, ast.Call) else None
        target = call.func if call is not None else mark
        if isinstance(target, ast.Attribute):
            args = call.args if call is not None else []
            name = args[0].value if args and isinstance(args[0], ast.Constant) else ""
            found[target.attr] = str(name)
    return found


def _fixtures_of(node: ast.ClassDef) -> set[str]:
    names = set()
    for item in ast.walk(node):
        if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
            names |= {a.arg for a in item.args.args}
    return names


def test_every_reader_of_a_shared_session_carries_the_mark():
    """Under ``-n`` the root conftest's scheduler keeps a class marked ``shares_session`` on
    one worker (a named mark: every class of that name in every file), read from the files'
    source. A reader of a session-scoped shared session without the mark would run the
    session again on the other worker; a ``TestBatch`` class without it, its module's."""
    missing = []
    for path in _files():
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            mark = _marks(node).get("shares_session")
            needs = {SHARED_FIXTURES[f] for f in _fixtures_of(node) if f in SHARED_FIXTURES}
            if needs and mark not in needs:
                missing.append(f"{path.relative_to(TESTS)}::{node.name} (wants {needs})")
            elif node.name.startswith("TestBatch") and mark is None:
                missing.append(f"{path.relative_to(TESTS)}::{node.name}")
    assert not missing, missing
