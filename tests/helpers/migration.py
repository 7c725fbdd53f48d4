"""Shared by the tests (moved from test_migration.py)."""

from __future__ import annotations

from helpers.tasks import CALC_CODE

RENAMED = {  # same behaviour, package renamed and two functions renamed
    "add": "def add_numbers(a, b):\n    return a + b\n",
    "sub": "def subtract(a, b):\n    return a - b\n",
    "mul": CALC_CODE["mul"],
}


def renamed_project(tasks, where):
    tasks.write(
        where / "pyproject.toml",
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "calculator"\nversion = "1.0"\n',
    )
    tasks.write(
        where / "calculator" / "__init__.py", "from .ops import add_numbers, mul, subtract\n"
    )
    tasks.write(where / "calculator" / "ops.py", "".join(RENAMED.values()))
    return where
