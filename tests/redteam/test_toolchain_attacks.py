"""Toolchain tasks (issue 43): a project that forges its test report, disarms the assertions,
ends its test process early or rewrites the task's files does not score.

Each attack is the bundled task's reference with the attack added (so an honest project's
verdicts would be all passed), run through the toolchain runner in the session's sandbox; the
verdicts are drawn as a session draws them (``effective_tests`` over the task's tests).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_e2ebench.grading.verdicts import PASSING, effective_tests
from pytest_e2ebench.isolation.sandbox import machine_sandbox
from pytest_e2ebench.methods.toolchain.runner import run_suites
from pytest_e2ebench.taskmodel.task import load_task

DATA = Path(__file__).parent.parent / "data" / "toolchain"
needs_gtest = pytest.mark.skipif(
    not Path("/usr/include/gtest/gtest.h").is_file() or shutil.which("g++") is None,
    reason="needs g++ and googletest (apt-get install g++ make libgtest-dev lcov)",
)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (apt nodejs)")

# Writes an all-passing gtest report where $GTEST_OUTPUT says, before main, and exits 0.
FORGE_XML = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
__attribute__((constructor)) static void forge() {
    const char* out = std::getenv("GTEST_OUTPUT");
    if (out == nullptr || std::strncmp(out, "xml:", 4) != 0) return;
    FILE* f = std::fopen(out + 4, "w");
    std::fputs("<testsuites><testsuite name=\"Stack\"><testcase name=\"PushPop\"/>"
               "<testcase name=\"PopEmptyThrows\"/></testsuite><testsuite name=\"Eval\">"
               "<testcase name=\"Arithmetic\"/><testcase name=\"BadToken\"/></testsuite>"
               "</testsuites>", f);
    std::fclose(f);
    _exit(0);
}
"""
# Disarms gtest's assertions for every file that includes the project's header.
DISARM_GTEST = """
#undef EXPECT_EQ
#define EXPECT_EQ(a, b) (void)0
#undef EXPECT_DOUBLE_EQ
#define EXPECT_DOUBLE_EQ(a, b) (void)0
#undef EXPECT_THROW
#define EXPECT_THROW(a, b) (void)0
#undef EXPECT_TRUE
#define EXPECT_TRUE(a) (void)0
"""
WRONG_EVAL = "double eval(const std::string& expression) { return 0; }\n"


def _verdicts(task, repo: Path, tmp_path: Path) -> tuple[dict, dict[str, bool]]:
    """The run's record and, per requirement, whether every test of it passed."""
    extended = run_suites(task, repo, tmp_path / "eval", machine_sandbox(), 120)
    tests = effective_tests(task, extended)
    implemented = {
        r.id: all(t["outcome"] in PASSING for t in tests if r.id in t["requirements"])
        for r in task.requirements
    }
    return extended, implemented


def _variant(task, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(task.reference_dir, repo)
    return repo


@needs_gtest
def test_an_honest_cpp_project_passes_and_a_forged_report_scores_nothing(tmp_path):
    task = load_task(DATA / "rpn-cpp")
    repo = _variant(task, tmp_path)
    honest, implemented = _verdicts(task, repo, tmp_path / "honest")
    assert honest["tamper_evidence"] == []
    assert implemented == {"R1": True, "R2": True, "R3": True}
    assert honest["coverage"]["covered_lines"] > 0
    # the forger: a correct Stack, a wrong eval, and a report that says everything passed
    source = (repo / "src" / "rpn.cpp").read_text()
    body = source[: source.index("double eval(")] + WRONG_EVAL + FORGE_XML
    (repo / "src" / "rpn.cpp").write_text(body)
    forged, implemented = _verdicts(task, repo, tmp_path / "forged")
    assert any("canary" in e for e in forged["tamper_evidence"]), forged["tamper_evidence"]
    assert implemented["R1"] is False and implemented["R2"] is False


@needs_gtest
def test_disarmed_gtest_assertions_are_caught_by_the_canary(tmp_path):
    task = load_task(DATA / "rpn-cpp")
    repo = _variant(task, tmp_path)
    source = (repo / "src" / "rpn.cpp").read_text()
    (repo / "src" / "rpn.cpp").write_text(source[: source.index("double eval(")] + WRONG_EVAL)
    header = repo / "include" / "rpn.h"
    header.write_text(header.read_text() + DISARM_GTEST)
    extended, implemented = _verdicts(task, repo, tmp_path)
    assert (
        "unit: the report says the harness's canary test passed (it must fail)"
        in (extended["tamper_evidence"])
    )
    assert not any(implemented[r] for r in ("R1", "R2"))


@needs_gtest
def test_the_project_cannot_rewrite_the_tasks_expected_outputs(tmp_path):
    """The acceptance script runs the project's makefile, which tries to make the expected
    output match its wrong program: the task's files are bound read-only."""
    task = load_task(DATA / "rpn-cpp")
    repo = _variant(task, tmp_path)
    main = repo / "src" / "main.cpp"
    main.write_text(main.read_text().replace("eval(line)", "eval(line) + 1"))
    makefile = repo / "makefile"
    makefile.write_text(
        makefile.read_text()
        + "\t-printf '15\\n3.5\\n-4\\n' > expected_outputs/1.txt\n"
        + "\t-rm -f expected_outputs/1.txt acceptance_tests/test.sh\n"
    )
    extended, implemented = _verdicts(task, repo, tmp_path)
    assert implemented["R3"] is False
    work = tmp_path / "eval" / "acceptance" / "work"
    assert (work / "expected_outputs" / "1.txt").read_text() == "14\n2.5\n-5\n"
    assert implemented["R1"] is True  # the unit suite, in its own copy, is untouched


@needs_node
def test_a_js_project_that_disarms_assert_or_exits_early_scores_nothing(tmp_path):
    task = load_task(DATA / "roman-js")
    repo = _variant(task, tmp_path)
    honest, implemented = _verdicts(task, repo, tmp_path / "honest")
    assert honest["tamper_evidence"] == [] and all(implemented.values())
    assert honest["coverage"]["statements"] > 0
    roman = repo / "src" / "roman.js"
    wrong = "module.exports = { toRoman: () => 'I', fromRoman: () => 1 };\n"
    roman.write_text(wrong + "const a = require('node:assert'); a.strictEqual = () => {};\n")
    disarmed, implemented = _verdicts(task, repo, tmp_path / "disarmed")
    assert any("canary" in e for e in disarmed["tamper_evidence"]), disarmed
    assert not any(implemented.values())
    roman.write_text(wrong + "process.exit(0);\n")
    exited, implemented = _verdicts(task, repo, tmp_path / "exited")
    assert not any(implemented.values())
    # Node's runner takes the file that exited 0 for one passing test: the canary is missing
    assert exited["tamper_evidence"] == [
        "unit: the report lacks the harness's canary test (it must fail)"
    ]
