"""Test migration onto the agent's own API, its enforcement, and the three suites."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import CALC_CODE
from pytest_e2ebench.migrate.static import similarity

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


def test_static_migration_maps_renamed_package_and_functions(pytester, tasks, results):
    tasks.make()
    renamed_project(tasks, pytester.path / "out" / "calc")
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)
    run = results()["tasks"][0]
    assert run["metrics"]["impl_rate"] == 1.0
    mapped = run["migration"]["mapped"]
    assert mapped["calc.add"]["name"] == "add_numbers"
    assert mapped["calc.sub"]["name"] == "subtract"
    assert mapped["calc.mul"] == {"module": "calculator", "name": "mul", "how": "package renamed"}
    assert run["migration"]["packages"] == {"calc": "calculator"}
    migrated = (pytester.path / ".e2ebench/dir-out/calc/run-1/migrated/test_calc.py").read_text()
    assert "import add_numbers as add" in migrated


def test_without_migration_the_renamed_project_fails(pytester, tasks, results):
    tasks.make()
    renamed_project(tasks, pytester.path / "out" / "calc")
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks", "--e2e-migrate=none")
    result.assert_outcomes(failed=3)
    assert results()["tasks"][0]["metrics"]["impl_rate"] < 1.0


def test_missing_name_fails_only_the_tests_that_use_it(pytester, tasks, results):
    tasks.make()
    code = {"add": CALC_CODE["add"], "mul": CALC_CODE["mul"]}  # no subtraction at all
    tasks.reference(pytester.path / "out" / "calc", code)
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*FAILED*tests/test_calc.py::test_sub*missing: calc.sub*"])
    run = results()["tasks"][0]
    assert run["migration"]["missing"] == ["calc.sub"]
    assert "missing after migration: calc.sub" in run["notes"]


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


def test_original_extended_and_all_suites(pytester, tasks, results):
    tasks.make()
    out = tasks.reference(
        pytester.path / "out" / "calc",
        dict(
            CALC_CODE,
            mul="def mul(a, b):\n    if a < 0:\n        return -mul(-a, b)\n    return a * b\n",
        ),
    )
    tasks.write(
        out / "tests" / "test_own.py",
        "from calc import add, mul\n\n"
        "def test_add():\n    assert add(2, 2) == 4\n\n"
        "def test_mul_negative():\n    assert mul(-2, 3) == -6\n\n"
        "def test_wrong():\n    assert add(1, 1) == 3\n",
    )
    pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks").assert_outcomes(passed=3)
    suites = results()["tasks"][0]["suites"]
    assert (suites["original"]["passed"], suites["original"]["failed"]) == (2, 1)
    assert (suites["extended"]["passed"], suites["extended"]["failed"]) == (7, 0)
    assert (suites["all"]["passed"], suites["all"]["failed"]) == (9, 1)
    # the own tests reach the negative branch of mul, the reference tests do not
    assert suites["extended"]["covered_lines"] < suites["all"]["covered_lines"]
    assert suites["original"]["covered_lines"] < suites["all"]["covered_lines"]
    assert results()["tasks"][0]["metrics"]["passed"] == 7  # verdicts and metrics use 'extended'


def test_project_without_own_tests_has_no_original_suite(pytester, tasks, results):
    tasks.make()
    pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks").assert_outcomes(passed=3)
    suites = results()["tasks"][0]["suites"]
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
