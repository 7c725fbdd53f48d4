"""The NL2Repo-Bench importer (issue 43) on samples the tests write (no peer data): its dataset
files read through the boundary, the release chosen by the dataset's count from a package
index on 127.0.0.1, the requirements one per upstream test module."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import subprocess

import pytest
from helpers.nl2repo_sample import index, write_task

from pytest_e2ebench.errors import AgentFileError
from pytest_e2ebench.taskmodel.task import fetch_reference, load_task
from pytest_e2ebench.tools.importers import fetch, nl2repo
from pytest_e2ebench.untrusted.archive import manifest_digest

DAY = dt.date(2025, 1, 1)


@pytest.fixture
def local_index(monkeypatch, tmp_path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    with index() as url:
        monkeypatch.setenv("UV_DEFAULT_INDEX", url)
        yield url


def test_the_release_with_the_datasets_count_is_the_reference(tmp_path, local_index):
    write_task(tmp_path / "test_files")
    (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    assert report.error is None, report
    # newest first: 0.2 has five cases, 0.1 the dataset's four
    assert report.tried == ["calc==0.2: 5 test cases in tests", "calc==0.1: 4 test cases in tests"]
    assert (report.pypi, report.found, report.expected, report.agreed) == ("calc==0.1", 4, 4, True)
    task = load_task(tmp_path / "out" / "nl2repo-calc")
    assert task.created == dt.date(2024, 5, 1)  # the sdist's upload
    assert [r.title for r in task.requirements] == [
        "add, checked by tests/test_add.py",
        "sub, checked by tests/test_sub.py",
    ]
    text = (tmp_path / "out" / "nl2repo-calc" / "requirements.md").read_text()
    assert '"Node 1: add() Function - Addition"' in text
    assert "\n#### R9: a heading of the spec" in text  # not a requirement of the task
    report_file = json.loads((tmp_path / "out" / "import-report.json").read_text())
    assert report_file[0]["sha256"] == report.sha256


def test_a_count_no_release_comes_near_is_not_convertible(tmp_path, local_index):
    write_task(tmp_path / "test_files", count=3)  # within 10 % of neither 4 nor 5
    (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    assert report.error == (
        "the test count never matches: the dataset says 3, the closest release calc==0.1 "
        "has 4 (tried: 2 sdists)"
    )
    assert not (tmp_path / "out" / "nl2repo-calc").exists()


def test_hostile_task_folders_are_refused_each_for_itself(tmp_path, local_index):
    root = tmp_path / "test_files"
    write_task(root)
    huge = write_task(root, "huge")
    with open(huge / "start.md", "r+b") as fh:  # 50 MB, sparse
        fh.truncate(50 << 20)
    linked = write_task(root, "linked")
    (tmp_path / "outside.md").write_text("## a host file\n")
    (linked / "start.md").unlink()
    os.symlink(tmp_path / "outside.md", linked / "start.md")
    write_task(root, "badjson", **{"test_files.json": '["tests"'})
    write_task(root, "escape", **{"test_files.json": '["../../etc"]'})
    os.symlink(root / "calc", root / "alias")
    reports = {r.name: r for r in nl2repo.import_all(tmp_path, tmp_path / "out", DAY)}
    assert reports["calc"].error is None
    assert reports["huge"].error == f"start.md: is larger than {nl2repo.MAX_SPEC_BYTES} bytes"
    assert "symbolic link" in reports["linked"].error
    assert reports["badjson"].error.startswith("badjson/test_files.json: not valid JSON")
    assert "is not a relative path inside the dataset" in reports["escape"].error
    assert "symbolic link" in reports["alias"].error
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "import-report.json",
        "nl2repo-calc",
    ]


def test_no_project_on_the_index_is_said(tmp_path, local_index):
    write_task(tmp_path / "test_files", "nosuch", **{"start.md": "# Nothing\n\ntext\n"})
    (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    assert (
        report.error == "no sdist on the package index under any of: Nothing, nosuch, python-nosuch"
    )


def test_packages_the_test_commands_install():
    commands = (
        "pip install -e .",
        "pip install gitpython && pip install loguru 'setuptools>=45'",
        "pip install -r requirements/dev.txt pytest",
        "pip install --no-build-isolation -e .[dev]",
    )
    assert nl2repo.command_requirements(commands) == ["gitpython", "loguru", "setuptools>=45"]


def test_a_modules_subject_finds_the_sections_that_name_it():
    sections = nl2repo.spec_sections(
        "## A\n\n```\n## not a heading\n```\n### open_workbook()\n\nx\n### Other\n\nsee open workbook\n"
    )
    assert [h for h, _ in sections] == ["A", "open_workbook()", "Other"]
    assert nl2repo.subject("tests/test_open_workbook.py") == "open_workbook"
    assert nl2repo.sections_about(sections, "open_workbook") == ["open_workbook()", "Other"]
    assert nl2repo.subject("tests/unit/test.py") == "unit"


def test_fetch_takes_the_pinned_archive_from_a_mirror_path(tmp_path, local_index):
    """``e2ebench fetch nl2repo`` as wired: GitHub's archive of the pinned commit, or the
    same archive from ``--mirror PATH``, checked against the content pin, then imported."""
    repo = tmp_path / "NL2RepoBench"
    write_task(repo / "test_files")
    (repo / "main.py").write_text("print('the peer's runner, not the dataset')\n")

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
        return done.stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "data")
    commit = git("rev-parse", "HEAD")
    archive = tmp_path / "nl2repo.tar.gz"
    git(
        "archive", "--format=tar.gz", f"--prefix=NL2RepoBench-{commit}/", "-o", str(archive), commit
    )
    pinned = fetch.DATASETS["nl2repo"]
    assert pinned.url.startswith("https://github.com/multimodal-art-projection/NL2RepoBench/")
    pin = manifest_digest(fetch.git_manifest(repo / ".git", commit, pinned.keep))
    dataset = dataclasses.replace(pinned, commit=commit, sha256=pin)
    source = fetch.fetch(dataset, tmp_path / "dest", mirror=str(archive))
    assert not (source / "main.py").exists()
    assert fetch.import_fetched(dataset, source, tmp_path / "dest" / "tasks") == 0
    assert load_task(tmp_path / "dest" / "tasks" / "nl2repo-calc").id == "nl2repo-calc"


@pytest.fixture
def long_history(monkeypatch, tmp_path):
    """An index with nine releases of calc, 0.1 (four test cases) to 0.9 (twelve)."""
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    with index(tuple(f"0.{k}" for k in range(1, 10))) as url:
        monkeypatch.setenv("UV_DEFAULT_INDEX", url)
        yield url


def test_the_history_is_bisected_for_the_datasets_count(tmp_path, long_history):
    write_task(tmp_path / "test_files", count=7)
    (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    assert (report.pypi, report.found, report.agreed) == ("calc==0.4", 7, True)
    # four downloads, not the six a walk back from the newest takes
    assert [t.split(":")[0] for t in report.tried] == [
        "calc==0.9",
        "calc==0.5",
        "calc==0.3",
        "calc==0.4",
    ]


@pytest.mark.parametrize(
    ("suite", "listed", "path"),
    [
        ("calc/tests", ["tests"], "calc/tests"),  # moved into the package upstream
        ("test", ["tests"], "test"),  # renamed
        ("tests", ["src/tests/test_add.py", "src/tests/test_sub.py"], "tests"),  # src/ dropped
    ],
)
def test_a_suite_that_moved_upstream_is_found(tmp_path, monkeypatch, suite, listed, path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    write_task(tmp_path / "test_files", **{"test_files.json": json.dumps(listed)})
    with index(suite=suite) as url:
        monkeypatch.setenv("UV_DEFAULT_INDEX", url)
        (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    assert (report.error, report.pypi, report.found) == (None, "calc==0.1", 4)
    assert f"the dataset's {', '.join(listed)} is {path} here" in report.notes
    task = fetch_reference(load_task(tmp_path / "out" / "nl2repo-calc"))
    assert len(task.tests) == 3  # two functions (one parametrised) and a method


def test_the_commands_variables_reach_the_tests_and_their_files_are_named(tmp_path, local_index):
    commands = [
        "echo \"__version__ = '0.0.1'\" > calc/version.py",
        "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_CALC=0.0.1 pip install -e .",
        "set AWS_DEFAULT_REGION=us-east-1",
        "PYTHONPATH=. pytest tests",
    ]
    write_task(tmp_path / "test_files", **{"test_commands.json": json.dumps(commands)})
    (report,) = nl2repo.import_all(tmp_path, tmp_path / "out", DAY)
    task = load_task(tmp_path / "out" / "nl2repo-calc")
    # the build's variable is not the tests'; PYTHONPATH is the harness's own
    assert dict(task.settings.env) == {"AWS_DEFAULT_REGION": "us-east-1"}
    assert any(n.startswith("not kept: field 'tests.env.PYTHONPATH'") for n in report.notes)
    text = (tmp_path / "out" / "nl2repo-calc" / "requirements.md").read_text()
    assert "    echo \"__version__ = '0.0.1'\" > calc/version.py\n" in text


def test_the_sdists_own_test_file_names_count(tmp_path, monkeypatch):
    """tqdm's suite is ``tests/tests_*.py`` with ``python_files = tests_*.py``."""
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "calc"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "tests_add.py").write_text("def test_one():\n    pass\n")
    assert nl2repo.static_tests(root, "tests") == []
    (root / "setup.cfg").write_text("[tool:pytest]\npython_files = tests_*.py\n")
    assert [t.nodeid for t in nl2repo.static_tests(root, "tests")] == [
        "tests/tests_add.py::test_one"
    ]


def test_no_part_of_the_title_alone_is_a_project_name():
    peer = nl2repo.Peer(
        "fastapi-users", "## Introduction and Goals of the FastAPI Users Project\n", 1, (), ()
    )
    assert nl2repo.project_names(peer) == ["FastAPI-Users", "python-fastapi-users"]


def test_the_module_the_examples_import_is_asked_for():
    spec = "## Introduction and Goals of the Python-Paillier Project\n\n```python\n"
    spec += "from phe import paillier\nimport os\nfrom phe.util import x\nimport phe\n```\n"
    peer = nl2repo.Peer("paillier", spec, 1, (), ())
    assert nl2repo.project_names(peer) == ["Python-Paillier", "paillier", "phe"]
    assert nl2repo.spec_module("import os\nimport os\nimport os\n") == []  # the stdlib's


def test_a_suite_that_is_not_python_3_is_refused(tmp_path):
    """boto 2's suite is Python 2: the task would not load."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    print 'x'\n")
    with pytest.raises(AgentFileError, match="tests/test_a.py: is not Python 3"):
        nl2repo.static_tests(tmp_path, "tests")
