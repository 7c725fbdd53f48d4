"""Importer layout rules found against the peers' real data (issue 30, round 10): DevEval's
tests that find their data through ``__file__``, E2EDevBench's git-versioned builds and the
modules a project's stub packages imply. Synthetic data only; pure logic, in-process."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers.deveval_sample import FILES

from pytest_e2ebench.environment.source import SourceError, fetch_commit
from pytest_e2ebench.tools.importers import deveval, e2edevbench

OWN_PATH_TEST = (
    "import os\nimport unittest\n\n"
    "ROOT = os.path.dirname(os.path.dirname(__file__))\n\n\n"
    "class TestData(unittest.TestCase):\n    def test_reads(self):\n"
    "        with open(os.path.join(ROOT, 'data_file', 'words.txt')) as f:\n"
    "            self.assertEqual(f.read(), 'a b a')\n"
)


def _repo(root: Path, unit_test: str) -> Path:
    repo = root / "src" / "wordstat"
    files = dict(FILES)
    config = json.loads(files["repo_config.json"])
    config["required_files"] = ["data_file"]
    files["repo_config.json"] = json.dumps(config)
    files["data_file/words.txt"] = "a b a"
    files["unit_tests/test_data.py"] = unit_test
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo


def test_deveval_data_lands_where_a_file_relative_path_finds_it(tmp_path):
    """hone's tests read ``dirname(dirname(__file__))/data_file``: the repository root in
    DevEval's layout, the suite's root (``tests/``) in the imported one."""
    _repo(tmp_path, OWN_PATH_TEST)
    (report,) = deveval.import_all(tmp_path / "src", tmp_path / "out", dt.date(2024, 1, 1))
    task = tmp_path / "out" / "deveval-wordstat"
    assert report.error is None
    assert "required files also at the suite's root" in " ".join(report.notes)
    test = task / "tests" / "unit" / "test_data.py"
    found = Path(os.path.dirname(os.path.dirname(test))) / "data_file" / "words.txt"
    assert found.read_text() == "a b a"
    assert (task / "data" / "data_file" / "words.txt").read_text() == "a b a"


def test_deveval_data_stays_in_data_when_no_test_uses_its_own_path(tmp_path):
    _repo(tmp_path, "def test_nothing():\n    assert True\n")
    deveval.import_all(tmp_path / "src", tmp_path / "out", dt.date(2024, 1, 1))
    task = tmp_path / "out" / "deveval-wordstat"
    assert (task / "data" / "data_file" / "words.txt").is_file()
    assert not (task / "tests" / "data_file").exists()


@pytest.mark.parametrize(
    "requires, version, expected",
    [
        (["hatchling", "hatch-vcs"], "1.0.1", "1.0.1"),
        (["setuptools>=64", "setuptools_scm>=8"], "0.9.0", "0.9.0"),
        (["setuptools>=42", "wheel"], "0.2.2", None),  # a static version: none given
        (["hatch-vcs"], "1.0\nName: other", None),  # not a version: never written
    ],
)
def test_scm_version_only_for_builds_that_read_git(tmp_path, requires, version, expected):
    (tmp_path / "pyproject.toml").write_text(f"[build-system]\nrequires = {json.dumps(requires)}\n")
    assert e2edevbench.scm_version(tmp_path, version) == expected


def test_stub_package_implies_the_module_it_types(tmp_path):
    """pandas-pyarrow imports pytz and declares only types-pytz (pandas brought pytz)."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["pandas>=2", "requests"]\n'
        '[dependency-groups]\ndev = ["pytest", "hypothesis", "types-pytz", "types-requests"]\n'
    )
    found = e2edevbench.declared_test_requirements(tmp_path)
    assert found == ["hypothesis", "pytz"]  # requests is declared: not added twice


def test_a_requirement_nested_past_packagings_recursion_is_left_out(tmp_path):
    """packaging recurses on a marker's parentheses: a peer's requirements file of one line
    of 5,000 levels raised RecursionError out of the importer."""
    deep = "a; " + "(" * 5000 + "os_name == 'posix'" + ")" * 5000
    (tmp_path / "requirements-test.txt").write_text(f"{deep}\nhypothesis\n")
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "p"\ndependencies = ["{deep}"]\n')
    assert e2edevbench.declared_test_requirements(tmp_path) == ["hypothesis"]


def _commit(repo: Path) -> str:
    run = {"cwd": repo, "check": True, "capture_output": True, "text": True}
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], **run, env=env)
    (repo / "pyproject.toml").write_text('[build-system]\nrequires = ["hatch-vcs"]\n')
    subprocess.run(["git", "add", "."], **run, env=env)
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", *who, "commit", "-qm", "one"], **run, env=env)
    return subprocess.run(["git", "rev-parse", "HEAD"], **run, env=env).stdout.strip()


def test_checkout_gets_the_version_setuptools_scm_falls_back_to(tmp_path, monkeypatch):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    (tmp_path / "repo").mkdir()
    commit = _commit(tmp_path / "repo")
    plain = fetch_commit(str(tmp_path / "repo"), commit)
    given = fetch_commit(str(tmp_path / "repo"), commit, "1.0.1")
    assert not (plain / "PKG-INFO").exists() and not (given / ".git").exists()
    assert "Version: 1.0.1\n" in (given / "PKG-INFO").read_text()
    with pytest.raises(SourceError, match="is not a version"):
        fetch_commit(str(tmp_path / "repo"), commit, "1.0\nName: other")
