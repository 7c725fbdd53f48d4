"""Peer importers through the task format (issue #20.5) and verify-import (#20.6), on samples
the tests write themselves (no peer data is committed)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.deveval_sample import FILES
from helpers.tasks import CALC_CODE, git

from pytest_e2ebench.cli import main
from pytest_e2ebench.taskmodel.task import fetch_reference, load_task
from pytest_e2ebench.tools.verify import compare, junit_verdicts


def _deveval_repo(root: Path) -> Path:
    """A DevEval repository whose tests need the four things the task format now carries."""
    repo = root / "corpus"
    files = dict(FILES)
    config = json.loads(files["repo_config.json"])
    config["required_files"] = ["requirements.txt", "resources"]
    files["repo_config.json"] = json.dumps(config)
    files["requirements.txt"] = "os\ncollections\nsix\n"  # standard-library names, one package
    files["resources/words.txt"] = "a b a\n"
    del files["acceptance_tests/test_acceptance.py"]
    # named *_test.py; opens a data file from the repository root; imports a runtime dependency
    files["acceptance_tests/acceptance_test.py"] = (
        "import unittest\n\nimport six\n\nfrom wordstat import WordStat\n\n\n"
        "class TestAcceptance(unittest.TestCase):\n    def test_counts_the_file(self):\n"
        "        with open('resources/words.txt') as fh:\n"
        "            self.assertEqual(WordStat(fh.read()).count('a'), 2)\n"
        "        self.assertTrue(six.PY3)\n"
    )
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo


def test_deveval_import_carries_cwd_data_and_dependencies(pytester, results, capsys):
    repo = _deveval_repo(pytester.path / "deveval")
    assert main(["import", "deveval", "--no-gate", str(repo.parent), "tasks"]) == 0
    assert "deveval-corpus: imported" in capsys.readouterr().out
    task = load_task(pytester.path / "tasks" / "deveval-corpus")
    assert task.settings.cwd == "project"
    assert (task.settings.data / "resources" / "words.txt").is_file()
    assert not (task.settings.data / "requirements.txt").exists()
    assert task.test_requires == ("six",)
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2)
    assert results()["tasks"][0]["metrics"]["passed"] == 3


def _dataset(tmp: Path, url: str, commit: str) -> Path:
    cases = {
        "tests/test_calc.py::test_add[1-2-3]": {"result": "passed", "test_implementation": ""},
        "tests/test_calc.py::test_sub": {"result": "passed", "test_implementation": ""},
        "tests/test_calc.py::TestMul::test_mul": {"result": "passed"},
    }
    entry = {
        "repo_name": "owner_calc",
        "url": url,
        "commit_sha": commit,
        "created_at": "2024-03-22T15:42:41+00:00",
        "description": "A calculator",
        "pypi_info": {"name": "calc", "version": "0.1"},
        "SRS_document": "# SRS\n\nA calculator library.\n",
        "test_cases": cases,
        "structured_requirements": [
            {
                "requirement_id": "FR-ADD",
                "requirement_description": "Add two numbers.",
                "test_traceability": [{"id": "tests/test_calc.py::test_add"}],
            },
            {
                "requirement_id": "FR-NONE",
                "requirement_description": "Traced to nothing.",
                "test_traceability": [{"id": "README"}],
            },
        ],
    }
    path = tmp / "dataset.json"
    path.write_text(json.dumps([entry, {"repo_name": "empty", "test_cases": {}}]))
    return path


@pytest.mark.slow
def test_e2edevbench_import_commit_reference_and_verify(pytester, tasks, capsys):
    from helpers.tasks import CALC_TESTS

    upstream = tasks.reference(pytester.path / "upstream", CALC_CODE)
    # the project's own tests know nothing of requirements: the dataset's tracing maps them
    untagged = "\n".join(ln for ln in CALC_TESTS.splitlines() if "requirement" not in ln)
    tasks.write(upstream / "tests" / "test_calc.py", untagged + "\n")
    git(upstream, "init", "-q")
    git(upstream, "add", ".")
    git(upstream, "commit", "-qm", "v1")
    commit = git(upstream, "rev-parse", "HEAD")
    dataset = _dataset(pytester.path, str(upstream), commit)
    assert main(["import", "e2edevbench", "--no-gate", str(dataset), "imported", "--offline"]) == 0
    out = capsys.readouterr().out
    assert "e2edevbench-owner_calc: imported (2 requirements, reference: commit)" in out
    assert "1 structured requirements name no test: left out" in out
    assert "NOT IMPORTED empty: no test_cases in the dataset" in out
    task = fetch_reference(load_task(pytester.path / "imported" / "e2edevbench-owner_calc"))
    assert task.created.isoformat() == "2024-03-22"
    assert [r.title for r in task.requirements] == [
        "FR-ADD: Add two numbers.",
        "The reference test suite",
    ]
    assert {t.nodeid for t in task.tests_for("R1")} == {"tests/test_calc.py::test_add"}
    assert main(["verify-import", "pytest", str(pytester.path / "imported")]) == 0
    out = capsys.readouterr().out
    assert "e2edevbench-owner_calc: 7/7 tests agree (passed: harness 7, plain pytest 7)" in out
    assert "overall: 7/7 tests agree (100.0 %)" in out


def test_junit_report_becomes_harness_node_ids(tmp_path):
    (tmp_path / "src" / "tests").mkdir(parents=True)
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / "src" / "tests" / name).write_text("")
    xml = ET.fromstring(
        "<testsuites><testsuite>"
        '<testcase classname="src.tests.test_a" name="test_x[1]"/>'
        '<testcase classname="src.tests.test_a.TestK" name="test_y"><failure/></testcase>'
        '<testcase classname="" name="src.tests.test_b"><error/></testcase>'
        '<testcase classname="src.tests.test_a" name="test_w">'
        '<skipped type="pytest.xfail" message="known"/></testcase>'
        "</testsuite></testsuites>"
    )
    peer = junit_verdicts(xml, tmp_path, Path("src/tests"))
    assert peer == {
        "tests/test_a.py::test_x[1]": "passed",
        "tests/test_a.py::TestK::test_y": "failed",
        "tests/test_b.py": "error",
        "tests/test_a.py::test_w": "xfailed",
    }
    harness = {
        "tests/test_a.py::test_x[1]": "passed",
        "tests/test_a.py::TestK::test_y": "passed",
        "tests/test_b.py::test_z": "error",
        "tests/test_a.py::test_w": "xfailed",
    }
    agree, count, lines = compare(harness, peer)
    assert (agree, count) == (3, 4)
    assert lines == ["tests/test_a.py::TestK::test_y: harness passed, pytest failed"]


def test_a_suite_of_one_module_keeps_its_name(tmp_path):
    """fuzzywuzzy's suite is ``test_fuzzywuzzy.py`` at the sdist's root: the harness names its
    tests ``tests/test_fuzzywuzzy.py::...`` (they were compared as ``tests/.::...``)."""
    (tmp_path / "test_fuzz.py").write_text("")
    xml = ET.fromstring(
        '<testsuites><testsuite><testcase classname="test_fuzz.RatioTest" name="testEqual"/>'
        "</testsuite></testsuites>"
    )
    peer = junit_verdicts(xml, tmp_path, Path("test_fuzz.py"))
    assert peer == {"tests/test_fuzz.py::RatioTest::testEqual": "passed"}
