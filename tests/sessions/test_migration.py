"""Test migration onto the agent's own API, its enforcement, and the three suites."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest
from helpers.batch import SharedSession, batch_folder
from helpers.migration import renamed_project
from helpers.tasks import CALC_CODE, CALC_TESTS

from pytest_e2ebench.migrate.static import similarity


def test_without_migration_the_renamed_project_fails(pytester, tasks, results):
    tasks.make()
    renamed_project(tasks, pytester.path / "out" / "calc")
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks", "--e2e-migrate=none")
    result.assert_outcomes(failed=3)
    assert results()["tasks"][0]["metrics"]["impl_rate"] < 1.0


def test_module_attribute_access_is_migrated(pytester, tasks, results):
    tests = {
        "test_attr.py": textwrap.dedent("""
        import pytest
        import calc
        import calc.add as add_module

        @pytest.mark.requirement("R1")
        def test_add():
            assert calc.add(1, 2) == 3

        @pytest.mark.requirement("R2")
        def test_sub():
            assert calc.sub(3, 1) == 2

        @pytest.mark.requirement("R3")
        def test_mul():
            assert calc.mul(2, 2) == 4 and add_module is not None
        """)
    }
    tasks.make(tests=tests)
    renamed_project(tasks, pytester.path / "out" / "calc")
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)


MEDDLER = """
import pytest

def pytest_e2ebench_migrate_modes(config):
    return ["meddle"]

@pytest.hookimpl(tryfirst=True)
def pytest_e2ebench_migrate_tests(config, task, repo, out, mode):
    if mode != "meddle":
        return None
    import os, shutil
    os.chmod(repo / "calc", 0o755)  # get around the read-only protection
    (repo / "calc" / "add.py").write_text("def add(a, b):\\n    return 42\\n")
    shutil.copytree(task.tests_dir, out)
    return {"migrator": "meddle"}
"""


def test_a_migrator_that_changes_the_project_is_rejected(pytester, tasks, results):
    tasks.make()
    pytester.makeconftest(MEDDLER)
    result = pytester.runpytest(
        "--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-migrate=meddle"
    )
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*infrastructure error*[[]migrate[]] the 'meddle' migration changed the generated "
            "project, which it must not touch: calc/add.py*"
        ]
    )
    assert results()["tasks"][0]["error"]["stage"] == "migrate"


WEAKENER = """
import pytest

def pytest_e2ebench_migrate_modes(config):
    return ["weak"]

@pytest.hookimpl(tryfirst=True)
def pytest_e2ebench_migrate_tests(config, task, repo, out, mode):
    if mode != "weak":
        return None
    import shutil
    shutil.copytree(task.tests_dir, out)
    test = out / "test_calc.py"
    text = test.read_text().replace("    assert sub(3, 5) == -2", "    pass")
    test.write_text(text.replace("def test_mul_zero(self):\\n        assert mul(0, 4) == 0\\n", ""))
    return {"migrator": "weak"}
"""


def test_weakened_and_dropped_tests_count_as_failed(pytester, tasks, results):
    tasks.make()
    pytester.makeconftest(WEAKENER)
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-migrate=weak")
    result.assert_outcomes(passed=1, failed=2)
    run = results()["tasks"][0]
    assert run["migration"]["weakened"] == [
        "tests/test_calc.py::TestMul::test_mul_zero",
        "tests/test_calc.py::test_sub_negative",
    ]
    failing = {t["nodeid"]: t["message"] for r in run["requirements"] for t in r["failing"]}
    assert failing["tests/test_calc.py::test_sub_negative"].startswith("weakened by migration")
    assert failing["tests/test_calc.py::TestMul::test_mul_zero"] == "dropped by migration"


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """A reader of tests/conftest.py's one calc session (the reference has no tests of its
    own): on one xdist worker with every other ``TestSharedCalc``."""

    def test_project_without_own_tests_has_no_original_suite(self, calc_session):
        assert calc_session.outcomes("reference", 1)["calc[reference-run-1-R1]"] == "passed"
        suites = calc_session.record("calc", 1, "reference")["suites"]
        assert suites["original"] is None
        assert suites["all"] == suites["extended"]


@pytest.mark.parametrize(
    "a, b, at_least",
    [
        ("add", "add_numbers", 0.6),
        ("parse", "parse_version", 0.6),
        ("Version", "SemVer", 0.0),
        ("sub", "subtract", 0.6),
    ],
)
def test_similarity(a, b, at_least):
    assert similarity(a, b) >= at_least
    assert similarity("add", "mul") < 0.6
    assert json.dumps(similarity(a, a)) == "1.0"


DYNAMIC_INIT = """\
from typing import TYPE_CHECKING

try:
    from ._speedups import add  # an optional accelerator that is absent
except ImportError:
    from .add import add

if TYPE_CHECKING:
    from ._sub import sub
else:

    def __getattr__(name):  # a lazily exported name: no static index sees it
        if name == "sub":
            from ._sub import sub

            return sub
        raise AttributeError(name)

globals()["mul"] = __import__("calc.mul", fromlist=["mul"]).mul
"""
DYNAMIC_TESTS = """\
import pytest
import calc
from calc import add, sub, mul
from calc.test_utils import close

TIMES = calc.mul  # used at module level: a placeholder here would fail the whole module


@pytest.mark.requirement("R1")
def test_add():
    assert close(add(1, 2), 3)


@pytest.mark.requirement("R2")
def test_sub():
    assert sub(3, 1) == 2 and calc.sub(5, 5) == 0


@pytest.mark.requirement("R3")
def test_mul():
    assert mul(2, 3) == TIMES(3, 2) == 6
"""


@pytest.mark.parametrize("migrate", ["static", "none"])
def test_reference_with_dynamic_exports_scores_as_unmigrated(pytester, tasks, results, migrate):
    """Names bound under if/try, by ``__getattr__`` or ``globals()``, and a package module
    named like a test (``calc/test_utils.py``) keep the reference whole (issue 20.1)."""
    code = {"add": CALC_CODE["add"], "_sub": CALC_CODE["sub"], "mul": CALC_CODE["mul"]}
    root = tasks.make(tests={"test_calc.py": DYNAMIC_TESTS}, code=code)
    tasks.write(root / "reference" / "calc" / "__init__.py", DYNAMIC_INIT)
    tasks.write(
        root / "reference" / "calc" / "test_utils.py",
        "def close(a, b):\n    return abs(a - b) < 1e-9\n",
    )
    result = pytester.runpytest(
        "--e2e-agent=reference", "--e2e-tasks=tasks", f"--e2e-migrate={migrate}"
    )
    result.assert_outcomes(passed=3)
    run = results()["tasks"][0]
    assert run["metrics"]["passed"] == 3 and run["metrics"]["failed"] == 0
    if migrate == "static":
        assert run["migration"]["changed"] == {}  # the reference's tests ran as written
        assert run["migration"]["missing"] == []
        assert not any("migration" in note for note in run["notes"])


def test_index_sees_conditional_and_star_exports(tmp_path):
    from pytest_e2ebench.migrate.index import index_project

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "try:\n    import fast as _f\nexcept ImportError:\n    _f = None\n"
        "if _f:\n    from ._a import thing\nelse:\n    class thing: ...\n"
        "from ._b import *\nfrom . import sub\nx, (y, *z) = 1, (2, 3)\n"
        "if x:\n    from os.path import join as pjoin\n"
    )
    (pkg / "lazy.py").write_text("def __getattr__(name):\n    return name\n")
    (pkg / "reexport.py").write_text("from collections import *\n")
    (pkg / "_a.py").write_text("def thing(a): ...\n")
    (pkg / "_b.py").write_text("def helper(a, b): ...\ndef _private(): ...\n")
    (pkg / "sub.py").write_text("VALUE = 1\n")
    (pkg / "test_utils.py").write_text("def close(a, b): ...\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pkg.py").write_text("def test_x(): ...\n")
    (tmp_path / "test_root.py").write_text("def test_y(): ...\n")
    index = index_project(tmp_path)
    assert index.packages == ["pkg"]  # root-level and tests/ test modules are not modules
    assert index.lookup("pkg", "thing").module == "pkg._a"
    assert index.lookup("pkg", "helper").kind == "function"
    assert index.lookup("pkg", "_private") is None  # import * skips private names
    assert index.lookup("pkg", "sub").kind == "module"
    assert {n for n in ("x", "y", "z") if index.lookup("pkg", n)} == {"x", "y", "z"}
    assert index.lookup("pkg.test_utils", "close").kind == "function"
    assert index.lookup("pkg", "pjoin").module == "os.path"  # a third-party name exists
    assert index.is_dynamic("pkg.lazy") and index.is_dynamic("pkg.reexport")
    assert not index.is_dynamic("pkg")


@pytest.mark.parametrize(
    "name",
    [
        "os import sep; __import__('gc'); from operator",  # a folder's name that is code
        "operator",  # the standard library's: the finder never maps it, the suite's is found
        "e2ebench_probe",  # the probe's, a test tool's
        "class",  # a keyword: no import statement can name it
        "helpers",  # the suite's own module (beside its tests)
    ],
)
def test_a_package_the_tests_cannot_import_from_the_project_is_no_target(tmp_path, name):
    from pytest_e2ebench.migrate import static
    from pytest_e2ebench.migrate.index import index_project

    for root, package in ((tmp_path / "ref", "calc"), (tmp_path / "gen", name)):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    indexes = (index_project(tmp_path / "ref"), index_project(tmp_path / "gen"))
    mapper = static.Mapper(*indexes)
    if name == "helpers":  # what migrate() adds: the names the suite's folder provides
        mapper = static.Mapper(*indexes, static.TOOL_NAMES | {"helpers"})
    migrated, _changes = static.rewrite("from calc import add\n", mapper)
    assert mapper.packages == {"calc": None}
    imported = {n.module for n in ast.walk(ast.parse(migrated)) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"calc", "e2ebench_probe"} and name not in migrated.replace(
        "from e2ebench_probe import missing", ""
    ), migrated


def test_star_imports_in_a_circle_or_deeper_than_the_recursion_limit_are_indexed(tmp_path):
    from pytest_e2ebench.migrate.index import index_project

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.m0 import *\n")
    depth = 1500  # past Python's recursion limit (1000): one frame per module, before
    for n in range(depth):
        (pkg / f"m{n}.py").write_text(f"from pkg.m{n + 1} import *\n")
    (pkg / f"m{depth}.py").write_text("from pkg import *\n\ndef deep(): ...\n")  # the circle
    index = index_project(tmp_path)
    assert index.lookup("pkg", "deep").module == f"pkg.m{depth}"
    assert index.lookup("pkg", "absent") is None
    assert not index.is_dynamic("pkg")
    (pkg / "lazy.py").write_text("def __getattr__(name):\n    return name\n")
    (pkg / f"m{depth}.py").write_text("from pkg import *\nfrom pkg.lazy import *\n")
    assert index_project(tmp_path).is_dynamic("pkg")


def test_a_changed_test_module_is_reported_and_untouched_ones_stay_byte_identical(
    pytester, tasks, results
):
    tests = {
        "test_calc.py": CALC_TESTS,
        "test_other.py": "# keep me\nimport pytest\n\n\n@pytest.mark.requirement('R1')\n"
        "def test_nothing_imported():\n    assert True  # a comment\n",
    }
    tasks.make(tests=tests)
    renamed_project(tasks, pytester.path / "out" / "calc")
    pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    run = results()["tasks"][0]
    changed = run["migration"]["changed"]
    assert set(changed) == {"test_calc.py"}
    assert "calc.add" in changed["test_calc.py"]
    migrated = pytester.path / ".e2ebench/dir-out/calc/run-1/migrated"
    assert (migrated / "test_other.py").read_text() == tests["test_other.py"]


# --- dir: answers of the calc task that each need only their own run: one session -----------

RENAMED_RUN, MISSING_RUN, OWN_TESTS_RUN = 1, 2, 3
OWN_TESTS = (
    "from calc import add, mul\n\n"
    "def test_add():\n    assert add(2, 2) == 4\n\n"
    "def test_mul_negative():\n    assert mul(-2, 3) == -6\n\n"
    "def test_wrong():\n    assert add(1, 1) == 3\n"
)


@pytest.fixture(scope="module")
def migrated(request, tmp_path_factory) -> SharedSession:
    """One session of ``dir:out`` on the calc task: the renamed project, one without
    subtraction, one with tests of its own (read by ``TestBatchMigration``)."""
    with batch_folder(request, tmp_path_factory, "migration") as root:
        batch = SharedSession(root)
        batch.tasks.make()
        renamed_project(batch.tasks, batch.variant("calc", RENAMED_RUN))
        code = {"add": CALC_CODE["add"], "mul": CALC_CODE["mul"]}  # no subtraction at all
        batch.tasks.reference(batch.variant("calc", MISSING_RUN), code)
        negative = "def mul(a, b):\n    if a < 0:\n        return -mul(-a, b)\n    return a * b\n"
        out = batch.tasks.reference(
            batch.variant("calc", OWN_TESTS_RUN), dict(CALC_CODE, mul=negative)
        )
        batch.tasks.write(out / "tests" / "test_own.py", OWN_TESTS)
        batch.run(
            "--e2e-agent=dir:out",
            "--e2e-tasks=tasks",
            "--e2e-runs=3",
        )
        yield batch


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchMigration:
    """The readers of the one migration session (one xdist worker builds it)."""

    def test_static_migration_maps_renamed_package_and_functions(self, migrated):
        assert set(migrated.outcomes("dir-out", RENAMED_RUN).values()) == {"passed"}
        run = migrated.record("calc", RENAMED_RUN)
        assert run["metrics"]["impl_rate"] == 1.0
        mapped = run["migration"]["mapped"]
        assert mapped["calc.add"]["name"] == "add_numbers"
        assert mapped["calc.sub"]["name"] == "subtract"
        package = {"module": "calculator", "name": "mul", "how": "package renamed"}
        assert mapped["calc.mul"] == package
        assert run["migration"]["packages"] == {"calc": "calculator"}
        migrated_test = Path(run["dir"]) / "migrated" / "test_calc.py"
        assert "import add_numbers as add" in migrated_test.read_text()

    def test_missing_name_fails_only_the_tests_that_use_it(self, migrated):
        outcomes = migrated.outcomes("dir-out", MISSING_RUN)
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        assert outcomes[f"calc[dir-out-run-{MISSING_RUN}-R2]"] == "failure"
        failures = migrated.failures("dir-out", MISSING_RUN)
        assert re.search(r"tests/test_calc.py::test_sub.*missing: calc.sub", failures)
        run = migrated.record("calc", MISSING_RUN)
        assert run["migration"]["missing"] == ["calc.sub"]
        assert "missing after migration: calc.sub" in run["notes"]

    def test_original_extended_and_all_suites(self, migrated):
        assert set(migrated.outcomes("dir-out", OWN_TESTS_RUN).values()) == {"passed"}
        run = migrated.record("calc", OWN_TESTS_RUN)
        suites = run["suites"]
        assert (suites["original"]["passed"], suites["original"]["failed"]) == (2, 1)
        assert (suites["extended"]["passed"], suites["extended"]["failed"]) == (7, 0)
        assert (suites["all"]["passed"], suites["all"]["failed"]) == (9, 1)
        # the own tests reach the negative branch of mul, the reference tests do not
        assert suites["extended"]["covered_lines"] < suites["all"]["covered_lines"]
        assert suites["original"]["covered_lines"] < suites["all"]["covered_lines"]
        assert run["metrics"]["passed"] == 7  # verdicts and metrics use 'extended'
