"""Every harness step that reads agent output is bounded (issue 40, item 5): a hostile project
per step, each ending within its (lowered) bound as the agent's failure, with a note naming
the step and the bound in the run's record. The static migration's are in
``test_migrate_bounded.py``; the child itself in ``test_untrusted_child.py``.

Before: the test index recursed once per class of a chain (RecursionError in the harness) and
visited a lattice of classes in exponential time; the code similarity masked and compared
every file of the project in the harness's process (60 of 256 KB: 42 s of masking, hours of
CodeBLEU); coverage's report child had a bound but its timeout left coverage unknown (out of
the mean, not 0), and a data file naming one long path ended the run with ENAMETOOLONG.
"""

from __future__ import annotations

import time
from pathlib import Path

from coverage import CoverageData

from pytest_e2ebench.evaluation import runner
from pytest_e2ebench.grading.metrics import suite_metrics
from pytest_e2ebench.isolation.intake import MAX_SOURCE_BYTES
from pytest_e2ebench.methods.projecteval import similarity
from pytest_e2ebench.run import record
from pytest_e2ebench.taskmodel import testindex
from pytest_e2ebench.taskmodel.task import load_task

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmark_tasks" / "gradebook"  # a ProjectEval task


def _one_line_functions(size: int) -> str:
    lines = "".join(f"def f{i}(a, b): return a + b\n" for i in range(size // 28 + 1))
    return lines[:size].rsplit("\n", 1)[0] + "\n"


# -- the test index ------------------------------------------------------------------------


def test_a_lattice_of_test_classes_is_indexed_at_once(tmp_path):
    """40 classes, each with two bases of the ones before: 2^28 paths the old walk took."""
    lines = ["class TestA0:\n    def test_x(self): pass\n", "class TestA1(TestA0):\n    pass\n"]
    lines += [f"class TestA{i}(TestA{i - 1}, TestA{i - 2}):\n    pass\n" for i in range(2, 40)]
    (tmp_path / "test_lattice.py").write_text("".join(lines))
    start = time.monotonic()
    assert testindex.defines_tests(tmp_path, Path("test_lattice.py"))
    tests = testindex.module_tests(testindex.parse_python(tmp_path, "test_lattice.py"), "t.py")
    assert len(tests) == 40 and time.monotonic() - start < 2


def test_the_index_of_a_projects_own_tests_stops_at_its_bound(tmp_path, monkeypatch):
    """A chain of 4,000 ``Test`` classes (137 KB): 76 s of scanning here, RecursionError in the
    harness before. Over the bound every test-named module counts, and the record says why."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_real.py").write_text("def test_one():\n    assert True\n")
    chain = "class Test0:\n    pass\n" + "".join(
        f"class Test{i}(Test{i - 1}):\n    pass\n" for i in range(1, 4000)
    )
    (repo / "tests" / "test_chain.py").write_text(chain)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "test_utils.py").write_text("HELPER = 1\n")  # code, within the bound
    monkeypatch.setattr(testindex, "INDEX_SECONDS", 2.0)
    start = time.monotonic()
    found, note = runner.own_tests(repo)
    assert time.monotonic() - start < 10
    assert sorted(p.relative_to(repo).as_posix() for p in found) == [
        "pkg/test_utils.py",
        "tests/test_chain.py",
        "tests/test_real.py",
    ]
    assert note == (
        "the index of the project's own tests stopped, over its time bound (2 s): every "
        "test-named module of the project counts as one"
    )
    notes = record._run_notes({}, {}, {"status": "completed"}, [], {}, {"over_bound": note})
    assert note in notes


def test_within_the_bound_the_childs_index_is_the_harness(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "test_real.py").write_text("def test_one():\n    assert True\n" * 600)  # 19 KB
    (repo / "test_none.py").write_text("HELPER = 1\n")
    assert not testindex._small(repo, [Path("test_real.py"), Path("test_none.py")])
    found, note = runner.own_tests(repo)
    assert [p.name for p in found] == ["test_real.py"] and note is None


# -- ProjectEval's code similarity ---------------------------------------------------------


def test_the_code_similarity_of_a_huge_project_stops_at_its_bound(tmp_path, monkeypatch):
    """60 modules of 256 KB of one-line functions: masking them alone took 42 s of the
    harness's process (CodeBLEU, where installed, 8 s a pair)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    body = _one_line_functions(similarity.MAX_FILE_BYTES - 64)
    for m in range(similarity.MAX_FILES):
        (repo / f"m{m}.py").write_text(body)
    monkeypatch.setattr(similarity, "CODE_SECONDS", 2.0)
    task = load_task(GRADEBOOK)
    start = time.monotonic()
    found = similarity.indicators(task.slots["projecteval"], task.reference_dir, repo)
    assert time.monotonic() - start < 15
    note = found["similarity_notes"]["skeleton"]
    assert note == (
        "the skeleton similarity of the project stopped, over its time bound (2 s): the "
        "indicator counts 0"
    )
    assert found["similarity"]["skeleton"] == 0.0
    code = found["similarity_notes"]["code"]  # unmasked: slow only where CodeBLEU is installed
    assert "install" in code or "over its time bound" in code
    assert note in similarity.over_bound(found["similarity_notes"])  # the run's notes
    extras = {"projecteval": found, "notes": similarity.over_bound(found["similarity_notes"])}
    assert note in record.attach_extras({"notes": []}, extras)["notes"]


def test_a_small_project_is_compared_in_the_harness(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "gradebook.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    value, note = similarity.bounded_code_similarity(GRADEBOOK / "reference", repo, masked=True)
    assert (value is None and "install" in note) or (0.0 <= value <= 1.0 and note is None)


# -- coverage's report ---------------------------------------------------------------------


def _covered(tmp_path, repo: Path, files: dict[str, list[int]]) -> Path:
    data = tmp_path / "suite-coverage"
    data.mkdir()
    written = CoverageData(basename=str(data / "data.1"))
    written.add_lines(files)
    written.write()
    return data


def test_coverage_of_a_project_its_report_cannot_finish_is_0_with_a_note(tmp_path, monkeypatch):
    """A module of 2 MB of one-line functions (coverage.py's JSON report of it: 25 s here, 65 s
    on the loaded machine) under a report bound of 2 s: coverage 0 and the note, where it was
    unknown before."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "huge.py").write_text(_one_line_functions(MAX_SOURCE_BYTES - 64))
    data = _covered(tmp_path, repo, {str(repo / "pkg" / "huge.py"): [1, 2]})
    monkeypatch.setattr(runner, "COVERAGE_TIMEOUT", 1.0)  # x 2 for the JSON report alone
    start = time.monotonic()
    found = runner.coverage_totals(tmp_path / "where", repo, [data])
    assert time.monotonic() - start < 10
    note = (
        "coverage's report of the project stopped, over its time bound (2 s): line and branch "
        "coverage count 0"
    )
    assert found == {"error": note, "over_bound": note}
    metrics = suite_metrics([{"nodeid": "t::a", "outcome": "passed"}], found)
    assert (metrics["line_coverage"], metrics["branch_coverage"]) == (0.0, 0.0)
    assert metrics["coverage_note"] == note
    notes = record._run_notes({}, {}, {"status": "completed", "coverage": found}, [], {})
    assert note in notes


def test_a_measured_name_longer_than_a_path_is_no_error(tmp_path):
    """A data file the project wrote names a file under 3,000 folders: the alias search stat'ed
    it and its ENAMETOOLONG ended the run as a harness error."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "small.py").write_text("def twice(x):\n    return 2 * x\n")
    forged = "/x" + "/ab" * 3000 + "/pkg/small.py"
    data = _covered(tmp_path, repo, {str(repo / "pkg" / "small.py"): [1, 2], forged: [1]})
    found = runner.coverage_totals(tmp_path / "where", repo, [data])
    assert (found["statements"], found["covered_lines"]) == (2, 2)
    assert runner.copy_prefixes([forged], repo, tmp_path / "where" / runner.COVERAGE_SOURCE) == []
