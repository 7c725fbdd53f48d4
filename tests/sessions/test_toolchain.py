"""Toolchain tasks in a session (issue 43): the bundled C++ (make, googletest, lcov) and
JavaScript (Node's runner) tasks, graded for the reference and the empty project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.batch import Batch, batch_folder

from pytest_e2ebench.schema import results_problems
from pytest_e2ebench.taskmodel.task import load_task

DATA = Path(__file__).parent.parent / "data" / "toolchain"
TASKS = ("rpn-cpp", "roman-js")
pytestmark = pytest.mark.skipif(
    not Path("/usr/include/gtest/gtest.h").is_file()
    or not all(shutil.which(t) for t in ("g++", "make", "lcov", "node")),
    reason="needs g++, make, googletest, lcov and Node.js (.ci/run installs them)",
)


@pytest.fixture(scope="module")
def session(request, tmp_path_factory) -> Batch:
    with batch_folder(request, tmp_path_factory, "toolchain-session") as root:
        batch = Batch(root)
        for name in TASKS:
            shutil.copytree(DATA / name, root / "tasks" / name)
        batch.run("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-p", "no:cacheprovider")
        yield batch


@pytest.mark.shares_session
class TestBatchToolchain:
    """The readers of the one session (one xdist worker runs it)."""

    def test_the_reference_passes_every_requirement_with_coverage(self, session):
        assert not results_problems(session.results()), session.output()
        for task in TASKS:
            record = session.record(task, 1, "reference")
            assert [r["verdict"] for r in record["requirements"]] == ["implemented"] * len(
                load_task(DATA / task).requirements
            ), session.output()
            metrics = record["metrics"]
            assert metrics["impl_rate"] == 1.0 and metrics["pass_rate"] == 1.0
            # lcov's figures in the same metrics as coverage.py's
            assert 0.5 < metrics["line_coverage"] <= 1.0 and metrics["branch_coverage"] > 0
            assert metrics["code_lines"] > 0
            assert record["containment"]["tampered"] is False

    def test_the_empty_project_scores_nothing(self, session):
        for task in TASKS:
            record = session.record(task, 1, "nop")
            assert record["metrics"]["impl_rate"] == 0.0 and record["metrics"]["passed"] == 0
            assert record["metrics"]["line_coverage"] is None


def test_a_toolchain_task_says_what_is_wrong_with_its_table(tmp_path):
    root = tmp_path / "bad"
    shutil.copytree(DATA / "rpn-cpp", root)
    toml = (root / "task.toml").read_text()
    toml = toml.replace('id = "rpn-cpp"', 'id = "bad"').replace('format = "gtest"', 'format = "x"')
    (root / "task.toml").write_text(toml.replace('"unit::Eval.BadToken"', '"elsewhere::T"'))
    with pytest.raises(Exception) as caught:
        load_task(root)
    text = str(caught.value)
    assert "toolchain.suites[0].format = 'x': use one of gtest, node, tap, jest, exit" in text
    assert "toolchain.requirements.R2 names 'elsewhere::T'" in text
