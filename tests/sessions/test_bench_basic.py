"""Black-box runs of the benchmark on a throw-away task: verdicts, outcomes, messages."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.batch import SharedSession, batch_folder
from helpers.tasks import CALC_CODE, CALC_TESTS


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Readers of tests/conftest.py's one calc session (reference, nop, ``dir:out`` whose run 1
    has R2 broken): on one xdist worker with every other file's ``TestSharedCalc``."""

    def test_reference_passes_every_requirement(self, calc_session):
        assert set(calc_session.outcomes("reference", 1).values()) == {"passed"}
        assert len(calc_session.outcomes("reference", 1)) == 3
        calc_session.lines().fnmatch_lines(
            ["*e2ebench summary*", "calc*reference*2*100.0%*100.0%*"]
        )
        run = calc_session.record("calc", 1, "reference")
        assert run["metrics"]["impl_rate"] == 1.0
        assert run["metrics"]["passed"] == 7
        assert [r["verdict"] for r in run["requirements"]] == ["implemented"] * 3

    def test_nop_fails_every_requirement_with_the_reason(self, calc_session):
        assert list(calc_session.outcomes("nop", 1).values()) == ["failure"] * 3
        calc_session.lines().fnmatch_lines(
            [
                "*R1 not implemented (nop, run 1): Addition*",
                "*3 of 3 tests did not pass*",
                "*FAILED*tests/test_calc.py::test_add*missing: calc.add*",
            ]
        )
        metrics = calc_session.record("calc", 1, "nop")["metrics"]
        assert metrics["impl_rate"] == 0.0
        assert metrics["failed"] == 7  # 3 parametrized cases + 2 + 2
        assert metrics["line_coverage"] is None  # no code: does not apply
        assert metrics["code_lines"] == 0

    def test_dir_agent_missing_feature_fails_exactly_its_requirement(self, calc_session):
        outcomes = calc_session.outcomes("dir-out", 1)
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        assert outcomes["calc[dir-out-run-1-R2]"] == "failure"
        calc_session.lines().fnmatch_lines(
            [
                "*R2 not implemented (dir-out, run 1): Subtraction*",
                "*FAILED*tests/test_calc.py::test_sub*assert 8 == 2*",
                "FAILED tasks/calc/task.toml::calc[[]dir-out-run-1-R2[]]*",
            ]
        )
        run = calc_session.record("calc", 1)
        assert [r["id"] for r in run["requirements"] if r["verdict"] != "implemented"] == ["R2"]
        assert run["metrics"]["req_acc"] == pytest.approx(2 / 3)
        assert run["metrics"]["pass_rate"] == pytest.approx(5 / 7)


def test_unimportable_test_module_counts_its_tests_as_errors(pytester, tasks, results):
    tasks.make()
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-migrate=none")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*ERROR*tests/test_calc.py::test_add*No module named 'calc'*"])
    # 3 parametrized cases + 2 + 2, counted from the source without importing it
    assert results()["tasks"][0]["metrics"]["errors"] == 7


def test_dir_agent_prefers_run_folders_and_notes_missing_tasks(pytester, tasks, results):
    tasks.make()
    tasks.make("other")
    tasks.reference(pytester.path / "outputs" / "calc" / "run-1", CALC_CODE)
    tasks.reference(pytester.path / "outputs" / "calc" / "run-2", {})
    result = pytester.runpytest(
        "--e2e-agent=dir:outputs", "--e2e-tasks=tasks", "--e2e-runs=2", "--e2e-missing=empty"
    )
    result.assert_outcomes(passed=3, failed=9)
    runs = {(r["task"], r["run"]): r for r in results()["tasks"]}
    assert runs["calc", 1]["metrics"]["impl_rate"] == 1.0
    assert runs["calc", 2]["metrics"]["impl_rate"] == 0.0
    assert "graded as an empty repository" in runs["other", 1]["notes"][0]


# --- one session of dir: variants of the calc task, one run folder each (docs/testing.md) ----

NO_PACKAGING, BAD_VERSION, MISSING_DEPENDENCY, HANGING, COV_OPTIONS, BAD_OPTION = 1, 2, 3, 4, 5, 6
OWN_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def variants(batch: SharedSession) -> None:
    """The calc task and one ``dir:out`` run per variant."""
    batch.tasks.make(toml_extra="[tests]\ntimeout = 1\n")
    package = batch.variant("calc", NO_PACKAGING) / "calc"  # modules, no pyproject.toml
    for module, text in CALC_CODE.items():
        batch.tasks.write(package / f"{module}.py", text)
    imports = "".join(f"from .{module} import {module}\n" for module in CALC_CODE)
    batch.tasks.write(package / "__init__.py", imports)
    where = batch.tasks.reference(batch.variant("calc", BAD_VERSION), CALC_CODE)
    (where / "pyproject.toml").write_text("[project]\nname = 'calc'\nversion = 'not a version!'\n")
    where = batch.tasks.reference(batch.variant("calc", MISSING_DEPENDENCY), CALC_CODE)
    pyproject = where / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[project]\n", '[project]\ndependencies = ["e2ebench-no-such-package-4f1c"]\n'
        )
    )
    slow = dict(CALC_CODE, mul="import time\n\ndef mul(a, b):\n    time.sleep(60)\n")
    batch.tasks.reference(batch.variant("calc", HANGING), slow)
    # own tests whose ini asks for pytest-cov (as very many projects do), and an unknown option
    for variant, addopts in ((COV_OPTIONS, "--cov=calc --cov-report=term-missing --no-cov-on-fail"),
                             (BAD_OPTION, "--e2e-no-such-option")):  # fmt: skip
        where = batch.tasks.reference(batch.variant("calc", variant), CALC_CODE)
        batch.tasks.write(where / "tests" / "test_own.py", OWN_TEST)
        batch.tasks.write(where / "pytest.ini", f"[pytest]\naddopts = {addopts}\n")


@pytest.fixture(scope="module")
def calc_variants(request, tmp_path_factory) -> SharedSession:
    """One session over the calc variants above (four runs of ``dir:out``), read by
    ``TestBatchCalcVariants``: each test asserts on its own run."""
    with batch_folder(request, tmp_path_factory, "calc-variants") as root:
        batch = SharedSession(root)
        variants(batch)
        batch.run(
            "--e2e-agent=dir:out",
            "--e2e-tasks=tasks",
            "--e2e-runs=6",
        )
        yield batch


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchCalcVariants:
    """dir: submissions of the calc task that each need only their own run (one session)."""

    def test_project_without_packaging_is_put_on_the_path(self, calc_variants):
        assert set(calc_variants.outcomes("dir-out", NO_PACKAGING).values()) == {"passed"}
        run = calc_variants.record("calc", NO_PACKAGING)
        assert run["install"] == {"method": "path", "ok": True}

    @pytest.mark.parametrize("variant", [BAD_VERSION, MISSING_DEPENDENCY])
    def test_project_that_fails_to_install_is_the_agents_failure(self, calc_variants, variant):
        outcomes = calc_variants.outcomes("dir-out", variant)
        assert list(outcomes.values()) == ["failure"] * 3, outcomes
        assert "note: the project failed to install" in calc_variants.failures("dir-out", variant)
        assert calc_variants.record("calc", variant)["install"]["ok"] is False

    def test_a_dependency_the_index_does_not_have_is_the_agents_failure(self, calc_variants):
        run = calc_variants.record("calc", MISSING_DEPENDENCY)
        assert run["status"] == "ok"
        log = Path(run["dir"]) / "logs" / "dependencies.log"
        assert "e2ebench-no-such-package-4f1c" in log.read_text()

    def test_own_tests_run_with_pytest_cov_options_in_their_ini(self, calc_variants):
        """Issue 48: the harness measures coverage itself; ``--cov`` in ``addopts`` stopped the
        project's own suite with a usage error, recorded as no tests and no note."""
        run = calc_variants.record("calc", COV_OPTIONS)
        assert run["suites"]["original"]["total"] == 1, run["suites"]
        assert run["suites"]["original"]["pass_rate"] == 1.0
        assert not any("own tests did not start" in n for n in run["notes"]), run["notes"]

    def test_own_tests_that_cannot_start_say_why(self, calc_variants):
        run = calc_variants.record("calc", BAD_OPTION)
        said = [n for n in run["notes"] if "own tests did not start" in n]
        assert said and "exit status 4" in said[0] and "e2e-no-such-option" in said[0], said

    def test_a_hanging_test_is_cut_by_the_per_test_timeout(self, calc_variants):
        outcomes = calc_variants.outcomes("dir-out", HANGING)
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        assert outcomes["calc[dir-out-run-4-R3]"] == "failure"
        assert re.search(r"TestMul::test_mul.*Timeout", calc_variants.failures("dir-out", HANGING))


def test_the_whole_run_timeout_kills_the_test_process(pytester, tasks, results):
    code = dict(CALC_CODE, add="import time\n\ndef add(a, b):\n    time.sleep(600)\n")
    tasks.make()
    tasks.reference(pytester.path / "outputs" / "calc", code)
    result = pytester.runpytest("--e2e-agent=dir:outputs", "--e2e-tasks=tasks", "--e2e-timeout=4")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*not run: the test run exceeded its time limit*"])
    run = results()["tasks"][0]
    assert run["test_run"]["status"] == "timeout"
    assert run["metrics"]["passed"] == 0


def test_infrastructure_failure_is_an_error_not_a_failure(pytester, tasks, results, monkeypatch):
    tasks.make()
    # An empty uv cache and no index: the test tools cannot be installed.
    monkeypatch.setenv("UV_CACHE_DIR", str(pytester.path / "empty-uv-cache"))
    monkeypatch.setenv("UV_OFFLINE", "1")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*infrastructure error (not the agent's fault): [[]venv[]]*"])
    run = results()["tasks"][0]
    assert run["status"] == "error"
    assert run["metrics"] is None
    assert run["error"]["kind"] == "infrastructure"
    assert results()["summary"]["reference"]["errored_runs"] == 1


def test_a_per_test_timeout_for_quick_tests_does_not_cut_a_run(pytester, tasks, results):
    # pytest-timeout's `timeout` (the project's own ini has one) covers item setup, where a
    # whole run happens; the run has its own limits, so the benchmark's items are exempt
    tasks.make()
    pytester.makeini("[pytest]\ntimeout = 1\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)
    assert results()["tasks"][0]["metrics"]["impl_rate"] == 1.0


DYNAMIC_TESTS = (
    CALC_TESTS
    + """

CASES = [(1, 1), (2, 2), (3, 3), (4, 4)]


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("index", range(len(CASES) - 1))
def test_add_chain(index):
    a, b = CASES[index]
    assert add(a, b) == a + b
"""
)


def suite_size(run: dict) -> int:
    s = run["suites"]["extended"]
    return s["passed"] + s["failed"] + s["errors"] + s["skipped"]


def test_every_agent_is_counted_on_the_tests_of_the_reference_run(pytester, tasks, results):
    """A parametrization the static scan cannot count (range(len(X) - 1)) still counts 3 cases
    for an agent whose tests cannot even be collected (issue 12.7)."""
    tasks.make(tests={"test_calc.py": DYNAMIC_TESTS})
    pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks").assert_outcomes(failed=3)
    assert suite_size(results()["tasks"][0]) == 10  # the reference's run was made for it
    both = pytester.runpytest_subprocess(
        "--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-n", "2"
    )
    both.assert_outcomes(passed=3, failed=3)
    sizes = {r["agent"]: suite_size(r) for r in results()["tasks"]}
    assert sizes == {"reference": 10, "nop": 10}  # 7 tests + 3 cases, not 7 + 1


RUNTIME_ONLY_TESTS = (
    CALC_TESTS
    + """

import calc
from base_checks import SharedChecks


@pytest.mark.requirement("R3")
class TestInherited(SharedChecks):  # its test comes from another module: only a run sees it
    pass


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("op", calc.OPS)  # as many cases as the project says
def test_ops(op):
    assert callable(getattr(calc, op))
"""
)
SHARED_CHECKS = """\
class SharedChecks:
    def test_shared(self):
        from calc import mul

        assert mul(2, 3) == 6
"""


def test_the_denominator_is_the_reference_runs_for_every_agent(pytester, tasks, results):
    """Tests only a run reveals count for every agent, with the reference's tags; cases an
    agent's project adds to a parametrization do not count (issue 20.2)."""
    root = tasks.make(tests={"test_calc.py": RUNTIME_ONLY_TESTS, "base_checks.py": SHARED_CHECKS})
    init = root / "reference" / "calc" / "__init__.py"
    init.write_text(init.read_text() + 'OPS = ["add", "sub"]\n')
    agent = pytester.path / "out" / "calc"
    shutil.copytree(root / "reference", agent)
    init = agent / "calc" / "__init__.py"
    init.write_text(init.read_text().replace('OPS = ["add", "sub"]', 'OPS = ["add", "sub", "mul"]'))
    pytester.runpytest_subprocess(
        "--e2e-agent=reference,nop,dir:out", "--e2e-tasks=tasks", "-n", "2"
    )
    runs = {r["agent"]: r for r in results()["tasks"]}
    sizes = {agent: suite_size(run) for agent, run in runs.items()}
    # 7 static cases + test_shared + test_ops[add], test_ops[sub]
    assert sizes == {"reference": 10, "nop": 10, "dir-out": 10}
    assert runs["dir-out"]["suites"]["extended"]["passed"] == 10
    r3 = next(r for r in runs["nop"]["requirements"] if r["id"] == "R3")
    assert r3["verdict"] == "not_implemented"
