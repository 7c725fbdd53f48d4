"""What gets collected with and without --e2e-agent, ids, markers and selection."""

from __future__ import annotations

import json
from xml.etree import ElementTree

from helpers.tasks import CALC_CODE

CALC_ADD, CALC_SUB = CALC_CODE["add"], CALC_CODE["sub"]

TASK_TESTS_THAT_WOULD_BREAK = "import calc_missing_package\n\ndef test_x():\n    pass\n"


def test_one_item_per_agent_run_and_requirement(pytester, tasks):
    tasks.make()
    result = pytester.runpytest(
        "--e2e-agent=reference,nop", "--e2e-tasks=tasks", "--e2e-runs=2", "--collect-only", "-q"
    )
    result.stdout.fnmatch_lines(
        [
            "tasks/calc/task.toml::calc[[]reference-run-1-R1[]]",
            "tasks/calc/task.toml::calc[[]reference-run-2-R3[]]",
            "tasks/calc/task.toml::calc[[]nop-run-2-R3[]]",
            "12 tests collected*",
        ]
    )


def test_with_agent_only_tasks_are_collected(pytester, tasks):
    tasks.make()
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["3 tests collected*"])
    result.stdout.no_fnmatch_line("*test_own*")


def test_without_agent_the_project_tests_run_and_tasks_stay_out(pytester, tasks):
    tasks.make(tests={"test_calc.py": TASK_TESTS_THAT_WOULD_BREAK})
    tasks.write(pytester.path / "tasks" / "calc" / "tests" / "conftest.py", "raise SystemExit(3)\n")
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_reference_tests_are_never_imported_by_the_outer_pytest(pytester, tasks):
    tasks.make()
    tasks.write(
        pytester.path / "tasks" / "calc" / "tests" / "conftest.py",
        "raise RuntimeError('imported by the outer pytest')\n",
    )
    tasks.write(
        pytester.path / "tasks" / "calc" / "reference" / "test_ref.py",
        "raise RuntimeError('imported by the outer pytest')\n",
    )
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["3 tests collected*"])


def test_task_paths_without_agent_say_how_to_run_them(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("tasks/calc")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: tasks/calc: benchmark tasks run only with an agent, "
            "e.g. pytest --e2e-agent=reference tasks/calc"
        ]
    )


def test_requirement_tags_become_markers(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\naddopts = --strict-markers\n")
    result = pytester.runpytest(
        "--e2e-agent=nop", "--e2e-tasks=tasks", "--collect-only", "-q", "-m", "extra"
    )
    result.stdout.fnmatch_lines(
        ["tasks/calc/task.toml::calc[[]nop-run-1-R2[]]", "1/3 tests collected (2 deselected)*"]
    )
    result = pytester.runpytest(
        "--e2e-agent=nop", "--e2e-tasks=tasks", "--collect-only", "-q", "-m", "core and not extra"
    )
    result.stdout.fnmatch_lines(["*1/3 tests collected*"])


def test_keyword_selection_and_junitxml(pytester, tasks):
    tasks.make()
    result = pytester.runpytest(
        "--e2e-agent=reference,nop",
        "--e2e-tasks=tasks",
        "-k",
        "reference and R3",
        "--junitxml=out.xml",
    )
    result.assert_outcomes(passed=1)
    xml = (pytester.path / "out.xml").read_text()
    assert 'name="calc[reference-run-1-R3]"' in xml
    # the run's record is a JSON property a script can parse
    root = ElementTree.parse(pytester.path / "out.xml").getroot()
    (prop,) = root.iter("property")
    assert prop.get("name") == "e2ebench"
    record = json.loads(prop.get("value"))
    assert (record["task"], record["agent"], record["metrics"]["impl_rate"]) == (
        "calc",
        "reference",
        1.0,
    )


def test_last_failed_reruns_only_missing_requirements(pytester, tasks):
    tasks.make()
    pytester.runpytest("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-p", "cacheprovider")
    result = pytester.runpytest("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "--lf")
    result.assert_outcomes(failed=3)


def test_a_folder_without_task_toml_is_reported_not_skipped_silently(pytester, tasks):
    tasks.make()
    tasks.write(pytester.path / "tasks" / "draft" / "requirements.md", "# draft\n")
    (pytester.path / "tasks" / "__pycache__").mkdir()
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks", "--collect-only")
    result.stdout.fnmatch_lines(
        [
            "*E2EBenchWarning: *tasks/draft: no task.toml, so it is not a benchmark task and is "
            "skipped; add task.toml (see docs/writing-a-task.md) or move the folder out of "
            "--e2e-tasks"
        ]
    )
    result.stdout.no_fnmatch_line("*__pycache__*")


def test_marker_selection_reports_metrics_over_the_selected_requirements(pytester, tasks, results):
    # R3's code is broken: over all requirements 2 of 3 are implemented, over "core" (R1, R2) all
    code = {"add": CALC_ADD, "sub": CALC_SUB, "mul": "def mul(a, b):\n    return 0\n"}
    src = tasks.reference(pytester.path / "src", code)
    (pytester.path / "out" / "calc").parent.mkdir()
    src.rename(pytester.path / "out" / "calc")
    tasks.make()
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks", "-m", "core")
    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "calc*dir-out*1*100.0%*100.0%*100.0%*",
            "metrics are over the requirements selected by -m 'core': 2 of 3 in 1 run(s) *",
        ]
    )
    run = results()["tasks"][0]
    assert run["selection"] == {"requirements": ["R1", "R2"], "of": 3}
    assert [r["id"] for r in run["requirements"]] == ["R1", "R2"]
    assert run["metrics"]["impl_rate"] == 1.0
    assert run["metrics"]["passed"] == 5  # test_add x3 and the two test_sub
    everything = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    everything.assert_outcomes(passed=2, failed=1)
    everything.stdout.no_fnmatch_line("*selected by -m*")
    assert results()["tasks"][0]["metrics"]["impl_rate"] == 2 / 3
    assert "selection" not in results()["tasks"][0]
