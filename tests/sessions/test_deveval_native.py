"""``e2ebench import deveval`` on DevEval-shaped C++, Java and JavaScript repositories (issue
43), built from the bundled rpn-cpp task: the C++ one becomes a toolchain task whose reference
passes and whose empty project scores nothing; Java and the Karma repository are listed as not
imported, saying why."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from pytest_e2ebench.grading.verdicts import PASSING, effective_tests
from pytest_e2ebench.isolation.sandbox import machine_sandbox
from pytest_e2ebench.methods.toolchain import written
from pytest_e2ebench.methods.toolchain.runner import run_suites
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.importers.deveval import import_all

RPN = Path(__file__).parent.parent / "data" / "toolchain" / "rpn-cpp"
CLASS = "# UML\n\n```\nclassDiagram\n    class Stack {\n        +push(double)\n    }\n```\n"
SEQUENCE = "```mermaid\nsequenceDiagram\n    main->>Stack: push\n```\n"
CONFIG = {
    "language": "cpp",
    "PRD": "PRD.md",
    "UML_class": "UML_class.md",
    "UML_sequence": "UML_sequence.md",
    "architecture_design": "architecture_design.md",
    "unit_tests": "unit_tests",
    "acceptance_tests": "acceptance_tests",
    "required_files": ["expected_outputs/*", "inputs/*", "makefile_test"],
    "unit_test_script": "make -f makefile_test run_tests; ./run_tests",
    "acceptance_test_script": "chmod +x acceptance_tests/test.sh;./acceptance_tests/test.sh",
    "coarse_unit_test_prompt": {"unit_tests/test_rpn.cpp": "Write gtest tests of Stack."},
    "coarse_acceptance_test_prompt": {},
}


def _cpp_repo(root: Path) -> Path:
    """The rpn task as DevEval publishes a C++ repository."""
    repo = root / "cpp" / "rpn"
    shutil.copytree(RPN / "reference", repo)
    shutil.copytree(RPN / "tests", repo, dirs_exist_ok=True)
    (repo / "PRD.md").write_text((RPN / "requirements.md").read_text().split("### R1")[0])
    (repo / "UML_class.md").write_text(CLASS)
    (repo / "UML_sequence.md").write_text(SEQUENCE)
    (repo / "architecture_design.md").write_text("```\nrpn/\n  src/rpn.cpp\n```\n")
    (repo / "repo_config.json").write_text(json.dumps(CONFIG))
    return repo


def _others(root: Path) -> None:
    java = root / "java" / "cache"
    (java / "gradle" / "wrapper").mkdir(parents=True)
    (java / "repo_config.json").write_text('{"language": "java"}')
    url = "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.2-bin.zip\n"
    (java / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(url)
    karma = root / "javascript" / "listen-now-frontend"
    karma.mkdir(parents=True)
    (karma / "repo_config.json").write_text('{"language": "javascript"}')


@pytest.mark.skipif(
    not Path("/usr/include/gtest/gtest.h").is_file() or shutil.which("lcov") is None,
    reason="needs g++, make, googletest and lcov (.ci/run installs them)",
)
def test_deveval_cpp_repositories_become_toolchain_tasks(tmp_path):
    data = tmp_path / "benchmark_data"
    _cpp_repo(data)
    _others(data)
    reports = {r.repo: r for r in import_all(data, tmp_path / "out", dt.date(2024, 3, 13))}
    assert "downloads Gradle 8.2 from services.gradle.org" in reports["cache"].error
    assert "Karma on PhantomJS" in reports["listen-now-frontend"].error
    assert reports["rpn"].error is None, reports["rpn"]
    task = load_task(tmp_path / "out" / "deveval-rpn")
    assert task.kind == "toolchain" and task.language == "cpp"
    unit, acceptance = task.slots["toolchain"].suites
    assert (unit.build, unit.run, unit.format) == (
        "make -f makefile_test run_tests",
        "./run_tests",
        "gtest",
    )
    assert acceptance.run == "bash acceptance_tests/test.sh" and acceptance.programs == ("rpn",)
    assert dict(task.slots["toolchain"].requirements)["R2"] == (
        "unit::Stack.PushPop",
        "unit::Stack.PopEmptyThrows",
        "unit::Eval.Arithmetic",
        "unit::Eval.BadToken",
    )
    # the fence without a language ("```" then "classDiagram") keeps the diagram's first line
    assert (task.root / "design" / "class.mmd").read_text().startswith("classDiagram")
    assert (task.root / "materials" / "makefile_test").is_file()
    assert not (task.reference_dir / "unit_tests").exists()
    for repo, expected in ((task.reference_dir, True), (tmp_path / "empty", False)):
        repo.mkdir(exist_ok=True)
        extended = run_suites(task, repo, tmp_path / f"eval-{expected}", machine_sandbox(), 120)
        tests = effective_tests(task, extended)
        assert len(tests) == 5 and extended["tamper_evidence"] == []
        assert {t["outcome"] in PASSING for t in tests} == {expected}, tests
    # DevEval's unit-test stage (it has prompts for it; none for acceptance tests): the
    # reference's own tests pass the oracle with coverage, an empty answer does not
    assert task.slots["toolchain"].stage_suite("acceptance-tests") is None
    suite, folder, prompt = task.slots["toolchain"].stage_suite("unit-tests")
    assert (suite.name, folder, prompt) == ("unit", "unit_tests", "Write gtest tests of Stack.")
    answer = tmp_path / "answer"
    shutil.copytree(task.tests_dir / "unit_tests", answer / "unit_tests")
    graded = written.grade(task, "unit-tests", answer, tmp_path / "w1", machine_sandbox(), 120)
    assert graded["items"]["oracle"] == {"passed": True, "message": ""}, graded
    assert graded["tests"] == 4 and graded["metrics"]["statement_coverage"] > 0.5
    graded = written.grade(task, "unit-tests", tmp_path / "empty", tmp_path / "w2", None, 120)
    assert graded["items"]["oracle"]["passed"] is False
    assert graded["metrics"]["oracle_pass"] == 0.0
