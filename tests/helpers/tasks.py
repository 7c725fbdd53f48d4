"""Throw-away benchmark tasks in a few lines: the calc task, a task folder factory, git and inode helpers."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1"
"""


CALC_CODE = {
    "add": "def add(a, b):\n    return a + b\n",
    "sub": "def sub(a, b):\n    return a - b\n",
    "mul": "def mul(a, b):\n    if a == 0 or b == 0:\n        return 0\n    return a * b\n",
}


CALC_TESTS = """\
import pytest
from calc import add, sub, mul


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("a, b, total", [(1, 2, 3), (0, 0, 0), (-1, 1, 0)])
def test_add(a, b, total):
    assert add(a, b) == total


@pytest.mark.requirement("R2")
def test_sub():
    assert sub(5, 3) == 2


@pytest.mark.requirement("R2")
def test_sub_negative():
    assert sub(3, 5) == -2


class TestMul:
    pytestmark = pytest.mark.requirement("R3")

    def test_mul(self):
        assert mul(3, 4) == 12

    def test_mul_zero(self):
        assert mul(0, 4) == 0
"""


def requirements_md(title: str, requirements: list[tuple[str, str]]) -> str:
    """A requirements.md with one ``### R<n>: <title>`` section per entry, each tagged core."""
    sections = "".join(
        f"### {rid}: {what}\nTags: core\n\n{what}.\n\n" for rid, what in requirements
    )
    return f"# {title}\n\n## Functional requirements\n\n" + sections


CALC_REQUIREMENTS = """\
# calc

## Functional requirements

### R1: Addition
Tags: core

`calc.add(a, b)` returns the sum.

### R2: Subtraction
Tags: core, extra

`calc.sub(a, b)` returns the difference.

### R3: Multiplication

`calc.mul(a, b)` returns the product.
"""


class TaskFactory:
    """Builds benchmark task folders under ``<root>/tasks`` for pytester runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tasks = root / "tasks"

    def write(self, path: Path, text: str) -> Path:
        """Write ``text`` (dedented) to ``path``, creating folders."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
        return path

    def make(
        self,
        task_id: str = "calc",
        *,
        requirements: str = CALC_REQUIREMENTS,
        tests: dict[str, str] | None = None,
        code: dict[str, str] | None = None,
        package: str = "calc",
        toml_extra: str = "",
        toml: str | None = None,
    ) -> Path:
        """A task folder: task.toml, requirements.md, reference/<package>/, tests/."""
        root = self.tasks / task_id
        self.write(
            root / "task.toml",
            toml
            if toml is not None
            else (
                f'id = "{task_id}"\ntitle = "A calculator"\nkind = "library"\n'
                f'language = "python"\ncreated = 2026-11-01\nsource = "tests"\n{toml_extra}'
            ),
        )
        self.write(root / "requirements.md", requirements)
        self.reference(root / "reference", code if code is not None else CALC_CODE, package)
        for name, text in (tests if tests is not None else {"test_calc.py": CALC_TESTS}).items():
            self.write(root / "tests" / name, text)
        return root

    def reference(self, where: Path, code: dict[str, str], package: str = "calc") -> Path:
        """An installable project with one module per entry of ``code``."""
        self.write(where / "pyproject.toml", PYPROJECT.format(name=package))
        names = ", ".join(sorted(code))
        init = (
            "".join(f"from .{m} import {m}\n" for m in sorted(code))
            + f"__all__ = [{', '.join(repr(m) for m in sorted(code))}]\n"
        )
        self.write(where / package / "__init__.py", init if names else "")
        for module, text in code.items():
            self.write(where / package / f"{module}.py", text)
        return where


def git(where: Path, *args: str) -> str:
    """Run git in ``where`` as a throw-away identity; its output."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": str(where)}
    return subprocess.run(
        ["git", *args], cwd=where, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def inodes(folder: Path) -> dict[str, int]:
    """The inode of each regular file under ``folder``, by relative path (which files two
    folders share: hard links, or copies of their own)."""
    return {
        str(p.relative_to(folder)): p.stat().st_ino
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
    }
