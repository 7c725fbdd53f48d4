"""The [tests] fields real suites need (issue #20.3): cwd, data, env, plugins, ini, exclude,
python; git-commit references; what an install failure says."""

from __future__ import annotations

import base64
import io
import tarfile

import pytest
from helpers.tasks import CALC_CODE, git

from pytest_e2ebench.errors import InfrastructureError, TaskError
from pytest_e2ebench.taskmodel.task import fetch_reference, load_task
from pytest_e2ebench.taskmodel.testconf import reference_ini

SUITE = {
    "test_env.py": """\
import os
from pathlib import Path

import pytest

from calc import add


@pytest.mark.requirement("R1")
def test_environment_and_cwd():
    assert os.environ["CALC_MODE"] == "strict"
    # cwd = "project": a writable copy of the project, the data on top
    assert Path("pyproject.toml").is_file()
    numbers = Path("resources", "numbers.txt").read_text().split()
    assert add(int(numbers[0]), int(numbers[1])) == 5
    Path("out.txt").write_text("written")


@pytest.mark.requirement("R2")
async def test_async_with_the_plugin():
    from calc import sub

    assert sub(3, 1) == 2


@pytest.mark.requirement("R3")
@pytest.mark.slowish
def test_marker_of_the_reference():
    from calc import mul

    assert mul(2, 3) == 6


@pytest.mark.requirement("R3")
def test_needs_the_network():
    raise AssertionError("an excluded test is neither run nor graded")
""",
}
FORMAT_TOML = """
[tests]
cwd = "project"
data = "data"
plugins = ["pytest-asyncio"]
[tests.env]
CALC_MODE = "strict"
[tests.ini]
asyncio_mode = "auto"
[tests.exclude]
"tests/test_env.py::test_needs_the_network" = "needs the network"
"""


def test_every_field_is_honoured_by_a_real_run(pytester, tasks, results):
    root = tasks.make(tests=SUITE, toml_extra=FORMAT_TOML)
    tasks.write(root / "data" / "resources" / "numbers.txt", "2 3\n")
    with (root / "reference" / "pyproject.toml").open("a") as fh:
        # the reference's own pytest settings: a marker (strict markers would refuse it)
        fh.write('\n[tool.pytest.ini_options]\nmarkers = ["slowish: a marker of its own"]\n')
    task = load_task(root)
    assert task.excluded == (("tests/test_env.py::test_needs_the_network", "needs the network"),)
    assert dict(task.settings.ini)["markers"] == ("slowish: a marker of its own",)
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    run = results()["tasks"][0]
    assert run["metrics"]["passed"] == 3
    assert run["metrics"]["failed"] == 0


@pytest.mark.parametrize(
    "extra, problem",
    [
        ('cwd = "repo"', "field 'tests.cwd' = 'repo' is not a working directory"),
        ('data = "nowhere"', "field 'tests.data' = 'nowhere': no such folder"),
        ('data = "../up"', "field 'tests.data' = '../up' is not a relative path"),
        ("plugins = [1]", "field 'tests.plugins' must be a list of requirement strings"),
        ('plugins = ["./local"]', "field 'tests.plugins'"),
        ('python = "three"', "field 'tests.python' = 'three' must be a Python version"),
        ('env = { PYTHONPATH = "x" }', "field 'tests.env.PYTHONPATH': the harness sets"),
        ('env = { "1A" = "x" }', "field 'tests.env.1A': not a variable name"),
        ('ini = { addopts = "-p evil" }', "field 'tests.ini.addopts' is not a setting"),
        ("ini = { asyncio_mode = 1 }", "field 'tests.ini.asyncio_mode' = 1 must be one string"),
        (
            'exclude = { "tests/test_nothing.py::*" = "gone" }',
            "field 'tests.exclude' names 'tests/test_nothing.py::*', which matches no test",
        ),
        ('exclude = ["x"]', "field 'tests.exclude' must map node-id globs to the reason"),
    ],
)
def test_invalid_fields_name_file_field_and_fix(tasks, extra, problem):
    root = tasks.make(toml_extra=f"\n[tests]\n{extra}\n")
    with pytest.raises(TaskError) as info:
        load_task(root)
    assert f"calc/task.toml: {problem}" in str(info.value)


def test_reference_pytest_settings_are_read_as_data(tmp_path):
    (tmp_path / "setup.cfg").write_text(
        "[tool:pytest]\nmarkers =\n    net: needs the network\n    gpu: a GPU\n"
        "filterwarnings =\n    error\n    ignore::mypkg.OwnWarning\n    ignore::DeprecationWarning\n"
        "addopts = -p evil\nxfail_strict = true\n"
    )
    ini, source = reference_ini(tmp_path)
    assert source == "setup.cfg"
    assert ini == {
        "markers": ("net: needs the network", "gpu: a GPU"),
        # a warning category of the reference's own package is dropped; addopts is not honoured
        "filterwarnings": ("error", "ignore::DeprecationWarning"),
        "xfail_strict": ("true",),
    }
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n")
    assert reference_ini(tmp_path) == ({"asyncio_mode": ("auto",)}, "pytest.ini")


GIT_TOML = """id = "calc"
title = "x"
kind = "library"
created = 2020-07-06

[source]
git = "{url}"
commit = "{commit}"
"""


def test_git_commit_reference_from_a_local_repository(tasks, monkeypatch, tmp_path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    upstream = tasks.make("upstream")  # a project with its tests, made a git repository
    (upstream / "reference" / "tests").mkdir()
    for test in (upstream / "tests").iterdir():
        test.rename(upstream / "reference" / "tests" / test.name)
    repo = upstream / "reference"
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    commit = git(repo, "rev-parse", "HEAD")
    (repo / "calc" / "add.py").write_text("def add(a, b):\n    return 0\n")
    git(repo, "commit", "-qam", "v2: broken")
    root = tasks.make(toml=GIT_TOML.format(url=repo, commit=commit))
    import shutil

    shutil.rmtree(root / "reference")
    shutil.rmtree(root / "tests")
    task = fetch_reference(load_task(root))
    assert task.source == f"{repo}@{commit}"
    assert "return a + b" in (task.reference_dir / "calc" / "add.py").read_text()  # v1
    assert not (task.reference_dir / ".git").exists()
    assert len(task.tests) == 5

    bad = GIT_TOML.format(url=repo, commit="abc")
    (root / "task.toml").write_text(bad)
    with pytest.raises(TaskError, match="field 'source.commit' = 'abc' must be the full commit"):
        load_task(root)
    (root / "task.toml").write_text(GIT_TOML.format(url=tmp_path / "nowhere", commit="0" * 40))
    with pytest.raises(InfrastructureError, match="could not fetch commit 0{40} of .*reachable"):
        fetch_reference(load_task(root))


def test_an_unsatisfiable_plugin_pin_is_not_called_an_unreachable_index(pytester, tasks):
    tasks.make(toml_extra='\n[tests]\nplugins = ["pytest-asyncio==0.0.1"]\n')
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(["*no versions satisfy these requirements together*"])
    result.stdout.no_fnmatch_line("*does not answer*")


def test_a_project_install_failure_says_what_failed(pytester, tasks, results):
    tasks.make()
    where = tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    pyproject = where / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace("[project]\n", '[project]\nrequires-python = ">=3.99"\n')
    )
    result = pytester.runpytest("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*note: the project failed to install: the built wheel did not install*depends on Python>=3.99*"
        ]
    )


def test_materials_of_a_library_task_are_handed_to_the_agent(pytester, tasks):
    root = tasks.make()
    tasks.write(root / "materials" / "rates.csv", "currency,rate\nEUR,1.1\n")
    assert load_task(root).materials_dir == root / "materials"
    src = tasks.reference(pytester.path / "src", CALC_CODE)
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        tar.add(src, arcname=".")
    write = f"echo {base64.b64encode(packed.getvalue()).decode()} | base64 -d | tar -xz"
    # the command builds the project only if the materials are in its workspace
    agent = f"--e2e-agent=cmd:grep -q EUR materials/rates.csv && {write}"
    result = pytester.runpytest(agent, "--e2e-tasks=tasks")
    result.assert_outcomes(passed=3)
