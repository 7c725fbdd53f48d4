"""The split run's suite process loads no file of the project's, whatever ``sys.path`` holds
(issue 39, ``[tests] cwd = "project"``): ``e2ebench_split.ProjectFirst``, just ahead of the
path finder, passes over the project's folders (its copy the tests run in, its repository)."""

from __future__ import annotations

import importlib
import sys

import pytest

from pytest_e2ebench.evaluation import split
from pytest_e2ebench.probe import PROBE_DIR


@pytest.fixture
def guarded(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(PROBE_DIR))
    module = importlib.import_module("e2ebench_split")
    project, suite = tmp_path / "project", tmp_path / "suite"
    for where, files in {
        project: (
            "json.py",
            "helpers.py",
            "extra.py",
            "conftest.py",
            "test_sneaky.py",
            "pkg/__init__.py",
        ),
        suite: ("helpers.py",),
    }.items():
        for name in files:
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            (where / name).write_text("raise SystemExit('a project file ran here')\n")
    (project / "src" / "lib").mkdir(parents=True)  # a namespace portion of the project's
    monkeypatch.setattr(sys, "path", [str(project), str(suite), *sys.path])
    monkeypatch.chdir(project)
    first = module.ProjectFirst([str(project)], ["pkg", "helpers"], ["helpers"])
    return first, project, suite


def test_a_module_of_the_standard_library_is_this_process_own(guarded):
    first, project, _ = guarded
    spec = first.find_spec("json")
    assert spec is not None and not spec.origin.startswith(str(project))


def test_the_suites_own_helper_wins_over_the_projects(guarded):
    first, _, suite = guarded
    assert first.find_spec("helpers").origin == str(suite / "helpers.py")


@pytest.mark.parametrize("name", ["extra", "test_sneaky", "pkg"])
def test_a_name_only_the_project_holds_is_not_loaded_here(guarded, name):
    first, _, _ = guarded
    with pytest.raises(ModuleNotFoundError):
        first.find_spec(name)  # with the project's process joined: its proxy


def test_a_relative_entry_and_a_namespace_portion_in_the_project_are_passed_over(guarded):
    first, _, _ = guarded
    sys.path.insert(0, ".")
    assert first.inside(".") and first.inside("src/lib")
    with pytest.raises(ModuleNotFoundError):
        first.find_spec("src")


def test_pytests_assertion_rewriter_finds_no_project_file(guarded):
    first, project, _ = guarded
    assert first.local("test_sneaky") is None
    found = first.local("conftest")  # this session's own, past the project's
    assert found is None or not found.origin.startswith(str(project))


def test_the_harness_names_the_copys_modules_and_leaves_out_the_tools(tmp_path):
    for name in ("mypkg/__init__.py", "tool.py", "pytest.py", "e2ebench_wire.py", "json.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    env = split.guard_env([tmp_path])
    assert env[split.NAMES_ENV].split(":") == ["mypkg", "tool"]
    assert env[split.PROJECT_ENV] == str(tmp_path)


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        ("from semver import Version\n\nclass Tagged(Version):\n    pass\n", False),
        ("import semver\n\nclass Tagged(semver.Version, semver.Mixin):\n    pass\n", False),
        ("import helpers\n\nclass Local(helpers.Base):\n    pass\n", False),
        ("from semver import Version\n\nclass Both(Version, dict):\n    pass\n", True),
        (
            "from semver import Version\nimport abc\n\nclass M(Version, metaclass=abc.ABCMeta):\n"
            "    pass\n",
            True,
        ),  # fmt: skip
    ],
)
def test_a_suite_stays_in_one_process_only_for_a_class_it_cannot_carry(tmp_path, body, kept):
    """A test's class on project classes alone runs split (``RemoteType``); one that mixes them
    with a class of the suite's process or names a metaclass keeps the suite in one process."""
    (tmp_path / "helpers.py").write_text("class Base:\n    pass\n")
    (tmp_path / "test_it.py").write_text(body)
    found = split.project_subclass(tmp_path)
    assert bool(found) is kept, found
    if kept:
        assert found.startswith("test_it.py: ")
