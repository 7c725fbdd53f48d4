"""One session over two small tasks (issue 30's leftovers): a suite that uses hypothesis's
``@given`` (its wrappers are no tampering), and a suite run as from the repository root
(``[tests] rootdir_on_path`` and ``rootdir_writable``: ``from src.calc import add``, a file
written next to the tests' folder) graded for the reference and for a submission whose code
tries to rewrite the suite it runs beside."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.batch import SharedSession, batch_folder
from helpers.tasks import PYPROJECT

REQUIREMENTS = """\
# calc

## Functional requirements

### R1: Addition

`add(a, b)` returns the sum.

### R2: Subtraction

`sub(a, b)` returns the difference.
"""
CODE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
HYPOTHESIS_TESTS = """\
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from calc import add, sub


@pytest.mark.requirement("R1")
@given(st.integers(), st.integers())
def test_add_commutes(a, b):
    assert add(a, b) == add(b, a)


@pytest.mark.requirement("R1")
@settings(max_examples=20, deadline=None)
@given(a=st.integers())
@example(a=0)
def test_add_zero(a):
    assert add(a, 0) == a


class TestSub:
    pytestmark = pytest.mark.requirement("R2")

    @given(st.integers())
    def test_sub_self(self, a):
        assert sub(a, a) == 0
"""
# as cstructpy's and sagkit's suites are written: the package through src., files written
# beside the tests' folder (the repository root when the suite runs from there)
ROOTED_TESTS = {
    "__init__.py": "",
    "conftest.py": "from src.calc import add  # noqa: F401\n",
    "test_calc.py": """\
import os

import pytest

from src.calc import add, sub

JOBS = os.path.join(os.path.dirname(__file__), "..", "jobs.txt")


@pytest.mark.requirement("R1")
def test_add_reads_what_it_wrote_at_the_root():
    with open(JOBS, "w") as fh:
        fh.write("2 3")
    with open(JOBS) as fh:
        a, b = map(int, fh.read().split())
    assert add(a, b) == 5


@pytest.mark.requirement("R2")
def test_sub():
    assert sub(5, 3) == 2
""",
}
ROOTED_TOML = """\
id = "rooted"
title = "A calculator run from its root"
kind = "library"
language = "python"
created = 2026-11-01
source = "tests"

[tests]
cwd = "project"
rootdir_on_path = true
rootdir_writable = true
"""
SRC_PYPROJECT = (
    PYPROJECT.format(name="calc") + '\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
)
# Correct code that, when the suite imports it, tries to rewrite the suite beside it: its test
# module, a new conftest.py, the folder itself; it notes what worked in its own copy.
ATTACK = (
    CODE
    + """

def _attack():
    import os

    root = os.getcwd()
    tests = os.path.join(root, "tests")
    tried = []
    for name, act in [
        ("rewrite", lambda: open(os.path.join(tests, "test_calc.py"), "a").write("\\n")),
        ("conftest", lambda: open(os.path.join(tests, "conftest.py"), "w").write("")),
        ("rename", lambda: os.rename(tests, os.path.join(root, "moved"))),
        ("remove", lambda: os.remove(os.path.join(tests, "test_calc.py"))),
    ]:
        try:
            act()
            tried.append(name + ":done")
        except OSError as exc:
            tried.append(name + ":" + type(exc).__name__)
    with open(os.path.join(root, "attack.txt"), "w") as fh:
        fh.write(" ".join(tried))


_attack()
"""
)


def _src_project(batch: SharedSession, where: Path, code: str) -> None:
    batch.tasks.write(where / "pyproject.toml", SRC_PYPROJECT)
    batch.tasks.write(where / "src" / "calc" / "__init__.py", code)


@pytest.fixture(scope="module")
def layout_session(request, tmp_path_factory) -> SharedSession:
    """The reference on both tasks; ``dir:out`` run 1 of ``rooted`` is the attack."""
    with batch_folder(request, tmp_path_factory, "run-layout") as root:
        batch = SharedSession(root)
        hyp = batch.tasks.make(
            "hyp",
            requirements=REQUIREMENTS,
            tests={"test_calc.py": HYPOTHESIS_TESTS},
            code={},
            toml_extra='\n[tests]\nrequires = ["hypothesis"]\n',
        )
        batch.tasks.write(hyp / "reference" / "calc" / "__init__.py", CODE)
        rooted = batch.tasks.make(
            "rooted", requirements=REQUIREMENTS, tests=ROOTED_TESTS, code={}, toml=ROOTED_TOML
        )
        for stale in ("pyproject.toml", "calc/__init__.py"):
            (rooted / "reference" / stale).unlink()
        _src_project(batch, rooted / "reference", CODE)
        _src_project(batch, batch.variant("rooted", 1), ATTACK)
        batch.tasks.reference(batch.variant("hyp", 1), {})  # an empty calc: hyp's nop
        batch.run("--e2e-agent=reference,dir:out", "--e2e-tasks=tasks")
        yield batch


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchRunLayout:
    @pytest.mark.parametrize("task", ["hyp", "rooted"])
    def test_the_reference_passes_untampered(self, layout_session, task):
        run = layout_session.record(task, 1, agent="reference")
        assert run["metrics"]["impl_rate"] == 1.0, layout_session.output()
        assert not run.get("containment", {}).get("tampered"), run.get("containment")

    def test_hypothesis_tests_fail_on_a_project_without_the_code(self, layout_session):
        assert layout_session.record("hyp", 1)["metrics"]["passed"] == 0

    @pytest.mark.parametrize("agent", ["reference", "dir-out"])
    def test_a_suite_with_test_libraries_runs_split(self, layout_session, agent):
        """``[tests] requires`` (hypothesis, with attrs and sortedcontainers) are the suite's
        process's, linked from the list written before the project: the suite runs split."""
        run = layout_session.record("hyp", 1, agent=agent)
        assert run["test_run"]["verdict_mode"] == "split", run["test_run"]

    def test_the_root_file_is_written_in_the_runs_copy(self, layout_session):
        run = Path(layout_session.record("rooted", 1, agent="reference")["dir"])
        root = run / "eval" / "extended" / "work" / "root"
        assert (root / "jobs.txt").read_text() == "2 3"
        assert not (run / "repo" / "jobs.txt").exists()

    def test_a_project_cannot_touch_the_suite_it_runs_beside(self, layout_session):
        run = layout_session.record("rooted", 1)
        root = Path(run["dir"]) / "eval" / "extended" / "work" / "root"
        tried = dict(t.split(":") for t in (root / "attack.txt").read_text().split())
        assert set(tried) == {"rewrite", "conftest", "rename", "remove"}
        assert "done" not in tried.values(), tried
        # (the test module holds the run's planted tests besides the suite's: not compared)
        assert sorted(p.name for p in (root / "tests").iterdir()) == sorted(ROOTED_TESTS)
        assert not (root / "moved").exists()
        # opening the suite's module is evidence in itself: the run scores 0
        assert run["containment"]["tampered"] is True
        assert any("read the suite's" in e for e in run["containment"]["evidence"])
        assert run["metrics"]["impl_rate"] == 0.0
