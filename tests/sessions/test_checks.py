"""A task's own checks (checks/test_*.py) with the harness's fixtures (issue #13.1)."""

from __future__ import annotations

import shutil

import pytest

CHECKS = """
import pytest


@pytest.mark.requirement("R1")
def test_readme_documents_add(e2e_repo, e2e_task):
    assert e2e_task.id == "calc"
    text = e2e_repo.read_text("README.md")
    assert text is not None, "no README.md"
    assert "add" in text


@pytest.mark.requirement("R1", "R2")
def test_module_of_each_requirement_imports(e2e_venv, e2e_requirement):
    name = {"R1": "add", "R2": "sub"}[e2e_requirement.id]
    result = e2e_venv.run(["python", "-c", f"from calc import {name}; print({name}(5, 3))"])
    assert result.returncode == 0, result.output
    assert result.output.strip() in ("8", "2")


@pytest.mark.requirement("R3")
def test_commands_cannot_touch_the_project(e2e_venv, e2e_repo):
    result = e2e_venv.run(["python", "-c", "open('written.txt', 'w').write('x')"])
    assert result.returncode == 0, result.output
    assert not e2e_repo.exists("written.txt")
    assert "calc/mul.py" in e2e_repo.files()
"""


def make_task(tasks, pytester):
    root = tasks.make()
    tasks.write(root / "reference" / "README.md", "calc: add(a, b) and sub(a, b)\n")
    tasks.write(root / "checks" / "test_contract.py", CHECKS)
    # an agent's output: the reference without its README (R1's check fails, its tests pass)
    shutil.copytree(root / "reference", pytester.path / "out" / "calc")
    (pytester.path / "out" / "calc" / "README.md").unlink()
    return root


def test_checks_count_toward_requirements_under_xdist_and_lf(pytester, tasks, results):
    make_task(tasks, pytester)
    args = ("--e2e-agent=reference,dir:out", "--e2e-tasks=tasks", "-p", "no:randomly")
    first = pytester.runpytest_subprocess(*args, "-n", "2", "-v")
    first.assert_outcomes(passed=5, failed=1)
    first.stdout.fnmatch_lines(
        [
            "*calc[[]dir-out-run-1-R1[]]*",
            "*R1 not implemented*",
            "*1 of 5 tests did not pass*",
            "*FAILED*checks/test_contract.py::test_readme_documents_add*no README.md*",
        ]
    )
    runs = {run["agent"]: run for run in results()["tasks"]}
    r1 = runs["dir-out"]["requirements"][0]
    assert (r1["id"], r1["verdict"], r1["tests"], r1["passed"]) == ("R1", "not_implemented", 5, 4)
    reference = {r["id"]: (r["tests"], r["passed"]) for r in runs["reference"]["requirements"]}
    # R1: three cases of a test and two checks; R2 and R3: two tests and one check each
    assert reference == {"R1": (5, 5), "R2": (3, 3), "R3": (3, 3)}

    again = pytester.runpytest_subprocess(*args, "--lf", "-n", "2", "-v")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["*checks/test_contract.py::test_readme_documents_add*"])
    serial = pytester.runpytest_subprocess(*args, "--lf", "-p", "no:xdist")
    serial.assert_outcomes(failed=1)


def test_a_check_that_does_not_report_is_an_error(pytester, tasks, results):
    root = tasks.make()
    tasks.write(
        root / "checks" / "test_broken.py",
        'import pytest\nimport no_such_module\n\n\n@pytest.mark.requirement("R2")\n'
        "def test_x(e2e_repo):\n    pass\n",
    )
    result = pytester.runpytest_subprocess("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*ERROR*checks/test_broken.py::test_x*could not be collected*no_such_module*"]
    )


def test_an_untagged_check_is_a_task_error(pytester, tasks):
    root = tasks.make()
    tasks.write(root / "checks" / "test_x.py", "def test_x(e2e_repo):\n    pass\n")
    result = pytester.runpytest_subprocess("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(
        ["*calc/checks/test_x.py::test_x (line 1): no requirement tag; add*"]
    )
    assert result.ret != 0


APP_CHECK = """
import pytest


@pytest.mark.requirement("R1")
def test_the_page_shows_its_greet_button(e2e_app):
    assert e2e_app.executable, e2e_app.start
    page = e2e_app.observe()
    assert "Greet" in page["tree"], page["tree"]
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_check_drives_the_served_app_in_a_browser(pytester, tasks, results):
    from helpers.web import make_web_task

    root = make_web_task(tasks)
    tasks.write(root / "checks" / "test_page.py", APP_CHECK)
    result = pytester.runpytest_subprocess("--e2e-agent=reference,nop", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=2)
    runs = {run["agent"]: run for run in results()["tasks"]}
    assert [r["verdict"] for r in runs["reference"]["requirements"]] == ["implemented"] * 2
    failing = runs["nop"]["requirements"][0]["failing"]
    check = next(f for f in failing if f["nodeid"].startswith("checks/"))
    assert "first page" in check["message"] or "executable" in check["message"], check
