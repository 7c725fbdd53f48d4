"""A suite run from a copy of the project (``[tests] cwd = "project"``) graded split (issue 39).

E2EDevBench runs every suite from the repository's root, so its importer writes cwd =
"project" for all of its tasks: the suite's process then has its working folder in the
project's files. The task here, ``notes``, has tests that write a file in the working folder
the project reads and read one the project wrote, by relative and by absolute path, and a
helper module of the suite's own. Its reference passes every requirement split.

The hostile project (run 1) is the reference's package plus, in its root, a module named like
the suite's helper, a ``conftest.py``, a ``pytest.ini`` that loads a plugin of its own, a
``.pth``, ``sitecustomize.py`` and ``usercustomize.py``, modules named like the probe's
(``e2ebench_split``, ``e2ebench_wire``), the standard library's (``json``) and a test tool
(``pytest_timeout``), and a ``test_*.py`` and a plain module a test imports after putting the
working folder on ``sys.path``. Each writes a line naming the process that ran it into that
process's home: none of them may run in the suite's process (whose command line names
``e2ebench_split``), and the package itself does run, in the project's (``e2ebench_host``).
"""

from __future__ import annotations

import pytest
from helpers.batch import Batch, batch_folder
from helpers.tasks import PYPROJECT as CONFTEST_PYPROJECT
from helpers.tasks import requirements_md

from pytest_e2ebench.isolation.sandbox import resolve_mode

REQUIREMENTS = requirements_md(
    "notes",
    [
        ("R1", "Reads what the test wrote"),
        ("R2", "Writes what the test reads"),
        ("R3", "Runs in the working folder"),
        ("R4", "Leaves the suite its own modules"),
    ],
)

# one package, named: setuptools would refuse a flat root of many modules (the hostile one's)
PYPROJECT = CONFTEST_PYPROJECT.format(name="notes") + '\n[tool.setuptools]\npackages = ["notes"]\n'

CODE = """\
import os


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def where():
    return os.getcwd()


def shipped():
    return read("notes.txt")
"""

TESTS = {
    "helpers.py": 'ORIGIN = "suite"\n',
    "test_notes.py": """
import importlib
import json
import os
import pathlib
import sys

import pytest

import notes
from helpers import ORIGIN


@pytest.mark.requirement("R1")
def test_the_project_reads_what_the_test_wrote():
    pathlib.Path("from_test.txt").write_text("written by the test", encoding="utf-8")
    assert notes.read("from_test.txt") == "written by the test"
    assert notes.read(os.path.abspath("from_test.txt")) == "written by the test"


@pytest.mark.requirement("R2")
def test_the_test_reads_what_the_project_wrote():
    notes.write("from_project.txt", "written by the project")
    assert pathlib.Path("from_project.txt").read_text(encoding="utf-8") == "written by the project"
    os.makedirs("out", exist_ok=True)
    notes.write(os.path.join(os.getcwd(), "out", "deep.txt"), "deep")
    assert pathlib.Path("out/deep.txt").read_text(encoding="utf-8") == "deep"


@pytest.mark.requirement("R3")
def test_both_run_in_the_copy_of_the_project():
    assert notes.where() == os.getcwd()
    assert pathlib.Path("notes.txt").read_text(encoding="utf-8") == "shipped\\n"
    assert notes.shipped() == "shipped\\n"


@pytest.mark.requirement("R4")
def test_the_suite_keeps_its_own_modules():
    assert ORIGIN == "suite"
    assert json.dumps([1]) == "[1]"
    here = os.getcwd()
    sys.path.insert(0, here)
    try:
        for name in ("extra", "test_sneaky", "conftest", "sitecustomize"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
    finally:
        sys.path.remove(here)
""",
}

# what every hostile file runs: a line naming the process that ran it, in that process's home
MARK = """\
import os as _os


def _mark(what):
    try:
        with open("/proc/self/cmdline", "rb") as fh:
            command = fh.read().replace(b"\\0", b" ").decode("utf-8", "replace")
    except OSError:
        command = "?"
    with open(_os.path.join(_os.path.expanduser("~"), "e2ebench-hostile.log"), "a") as fh:
        fh.write(f"{what}\\t{_os.getpid()}\\t{command}\\n")


_mark(__name__)
"""

HOSTILE = {
    "helpers.py": MARK + 'ORIGIN = "project"\n',
    "conftest.py": MARK,
    "hostile_plugin.py": MARK,
    "sitecustomize.py": MARK,
    "usercustomize.py": MARK,
    "hostile_pth.py": MARK,
    "e2ebench_split.py": MARK,
    "e2ebench_wire.py": MARK,
    "json.py": MARK,
    "pytest_timeout.py": MARK,
    "extra.py": MARK,
    "test_sneaky.py": MARK,
    "hostile.pth": "import hostile_pth\n",
    "pytest.ini": "[pytest]\naddopts = -p hostile_plugin -p conftest\n",
}


@pytest.fixture(scope="module")
def batch(request, tmp_path_factory):
    if resolve_mode("auto")[0] != "bwrap":
        pytest.skip("needs bubblewrap (apt-get install bubblewrap)")
    with batch_folder(request, tmp_path_factory, "split-project-cwd") as root:
        batch = Batch(root)
        batch.tasks.make(
            "notes",
            requirements=REQUIREMENTS,
            tests=TESTS,
            code={},
            package="notes",
            toml_extra='\n[tests]\ncwd = "project"\n',
        )
        _project(batch.tasks.tasks / "notes" / "reference", {})
        hostile = {**HOSTILE, "notes/__init__.py": MARK + CODE}
        _project(batch.variant("notes", 1), hostile)
        batch.run("--e2e-agent=reference,dir:out", "--e2e-tasks=tasks", "--e2e-runs=1",
                  "-p", "no:xdist",
                  env={"E2EBENCH_VERDICT_MODE": "split"})  # fmt: skip
        yield batch


def _project(where, extra: dict[str, str]) -> None:
    files = {"pyproject.toml": PYPROJECT, "notes.txt": "shipped\n", "notes/__init__.py": CODE}
    for name, text in {**files, **extra}.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(text)


def _marks(batch: Batch) -> list[list[str]]:
    lines = []
    for log in batch.root.rglob("e2ebench-hostile.log"):
        lines += [line.split("\t") for line in log.read_text().splitlines()]
    return lines


def _verdicts(record: dict) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in record["requirements"]}


ALL_IMPLEMENTED = dict.fromkeys(("R1", "R2", "R3", "R4"), "implemented")


@pytest.mark.shares_session
class TestBatchSplitProjectCwd:
    def test_the_reference_passes_every_requirement_split_from_the_copy(self, batch):
        record = batch.record("notes", 1, agent="reference")
        assert _verdicts(record) == ALL_IMPLEMENTED, (record["requirements"], batch.output())
        assert record["test_run"]["verdict_mode"] == "split", record["test_run"]
        assert record["test_run"]["verdict_reason"] == ""

    def test_no_file_of_a_hostile_project_runs_in_the_suites_process(self, batch):
        record = batch.record("notes", 1)
        assert record["test_run"]["verdict_mode"] == "split", record["test_run"]
        marks = _marks(batch)
        # the control: the package ran, in the project's process
        assert any(m[0] == "notes" and "e2ebench_host" in m[2] for m in marks), (
            marks,
            batch.output(),
        )
        in_suite = [m for m in marks if "e2ebench_split" in m[2] or "pytest" in m[2].split()]
        assert not in_suite, in_suite

    def test_the_suites_helper_module_wins_over_the_projects(self, batch):
        record = batch.record("notes", 1)
        assert _verdicts(record) == ALL_IMPLEMENTED, (record["requirements"], batch.output())
