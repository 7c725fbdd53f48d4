"""Test migration: the reference tests, adapted to the generated project without touching it.

The ``pytest_e2ebench_migrate_tests`` hook picks the migrator; the built-ins are ``static``
(default), ``llm`` and ``none``, chosen with ``--e2e-migrate``. Whatever the migrator, the
harness enforces the rule that it may not change the code under evaluation: the project is
made read-only and hashed before and after; any change rejects the migration (an
infrastructure error naming the changed paths). It also compares every migrated test with its
original: a test with fewer assertions, or a requirement left with fewer tests, is *weakened*
and counts as failed.
"""

from __future__ import annotations

import ast
import hashlib
import os
import stat
from pathlib import Path

import pytest

from ..contracts import MigrationResult
from ..errors import InfrastructureError
from ..isolation.intake import IntakeLimits, parse_python, read_bytes, walk
from ..taskmodel.testindex import is_test_module, module_tests
from .bounded import bounded_migrate
from .llm import migrate_with_llm

HASHED_BYTES = IntakeLimits.max_file_bytes
MODES = ("static", "llm", "none")


class MigrationRejected(InfrastructureError):
    """A migrator changed the generated project."""

    def __init__(self, message: str) -> None:
        super().__init__("migrate", message)


def _file_hashes(root: Path) -> dict[str, str]:
    # Bounded and without following links (the project is untrusted): a file too large to
    # read is compared by size and modification time.
    hashes = {}
    for rel, dir_fd, st in walk(root, skip=("__pycache__",)):
        if stat.S_ISLNK(st.st_mode):
            hashes[rel] = "link:" + os.readlink(os.path.basename(rel), dir_fd=dir_fd)
            continue
        data = read_bytes(root, rel, HASHED_BYTES) if stat.S_ISREG(st.st_mode) else None
        digest = hashlib.sha256(data).hexdigest() if data is not None else ""
        hashes[rel] = f"{stat.S_IFMT(st.st_mode)}:{st.st_size}:{st.st_mtime_ns}:{digest}"
    return hashes


def _set_writable(root: Path, writable: bool) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            if path.is_symlink():
                continue
            mode = path.stat().st_mode
            mode = (
                mode | stat.S_IWUSR
                if writable
                else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            )
            os.chmod(path, mode)
    mode = root.stat().st_mode
    os.chmod(
        root,
        mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH),
    )


def run_migration(config: pytest.Config, task, repo: Path, out: Path, mode: str, ctx) -> dict:
    """Migrate ``task``'s tests for ``repo`` into ``out``, enforcing the read-only rule."""
    before = _file_hashes(repo)
    _set_writable(repo, False)
    try:
        report = config.hook.pytest_e2ebench_migrate_tests(
            config=config, task=task, repo=repo, out=out, mode=mode, ctx=ctx
        )
    finally:
        _set_writable(repo, True)
    after = _file_hashes(repo)
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    if changed:
        raise MigrationRejected(
            f"the {mode!r} migration changed the generated project, which it must not touch: "
            f"{', '.join(changed[:10])}{' …' if len(changed) > 10 else ''}"
        )
    if report is None:
        raise InfrastructureError("migrate", f"no migrator handles --e2e-migrate={mode}")
    if not out.is_dir():
        raise InfrastructureError("migrate", f"the {mode!r} migrator wrote no tests to {out}")
    report = MigrationResult.coerce(report).to_dict()
    report["weakened"] = weakened(task, out)
    return report


def count_assertions(node: ast.AST) -> int:
    """Assertions in a test: ``assert``, ``pytest.raises``/``warns`` and ``assert*`` calls."""
    total = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            total += 1
        elif isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("raises", "warns", "deprecated_call") or name.startswith("assert"):
                total += 1
    return total


def _assertions_by_test(tests: Path) -> dict[str, int]:
    """Assertions of every test pytest collects under ``tests`` (by the test index's rules)."""
    counts: dict[str, int] = {}
    if tests.is_file():
        files = [tests]
    else:
        files = sorted(p for p in tests.rglob("*.py") if is_test_module(p))
    for file in files:
        rel = file.name if tests.is_file() else file.relative_to(tests).as_posix()
        # A migrated module may come from an LLM: bounded, and unparseable ones count nothing.
        tree = parse_python(file.parent, file.name)
        if tree is None:
            continue
        functions = {
            node.lineno: node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for test in module_tests(tree, rel):
            counts[test.nodeid] = count_assertions(functions[test.line])
    return counts


def weakened(task, migrated: Path) -> list[str]:
    """Reference tests the migration dropped or left with fewer assertions (``tests/...`` ids)."""
    before = _assertions_by_test(task.tests_dir)
    after = _assertions_by_test(migrated)
    return sorted(f"tests/{name}" for name, n in before.items() if after.get(name, -1) < n)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_migrate_modes(config) -> list[str]:
    """The built-in migrators' ``--e2e-migrate`` modes."""
    return list(MODES)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_migrate_tests(config, task, repo: Path, out: Path, mode: str, ctx):
    """The built-in migrators: ``static``, ``llm`` and ``none``."""
    if mode == "none":
        task.copy_tests(out)
        return {"migrator": "none"}
    if mode == "static":
        return bounded_migrate(task, repo, out)
    if mode == "llm":
        return migrate_with_llm(ctx, repo, out)
    return None
