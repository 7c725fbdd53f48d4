"""NL2Repo-Bench's import through a benchmark session (issue 43): the task written from a tiny
dataset and a package index on 127.0.0.1 (tests/nl2repo_sample.py) has a reference that
builds from its pinned sdist and passes every upstream test, graded per test module; the empty
project passes none."""

from __future__ import annotations

from helpers.nl2repo_sample import index, write_task

from pytest_e2ebench.cli import main


def test_imported_task_reference_passes(pytester, results, capsys, monkeypatch):
    monkeypatch.setenv("E2EBENCH_CACHE", str(pytester.path / "cache"))
    write_task(pytester.path / "nl2repo" / "test_files")
    write_task(pytester.path / "nl2repo" / "test_files", "broken", **{"test_files.json": "{"})
    with index() as url:
        monkeypatch.setenv("UV_DEFAULT_INDEX", url)
        assert main(["import", "nl2repo", "--no-gate", "nl2repo", "tasks"]) == 0
    # the run needs no index for the reference (the import left it in the cache); the build's
    # setuptools comes from the machine's usual index
    monkeypatch.delenv("UV_DEFAULT_INDEX")
    out = capsys.readouterr().out
    assert "NOT IMPORTED broken: broken/test_files.json: not valid JSON" in out
    assert (
        "nl2repo-calc: imported (calc==0.1, 4 test cases found statically, the dataset's "
        "count 4: agreed; 2 requirements)"
    ) in out
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2)
    (task,) = results()["tasks"]
    assert task["metrics"]["passed"] == 4
    assert task["suites"]["extended"]["total"] == 4
    # the empty project passes nothing of the upstream suite
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-out=nop")
    result.assert_outcomes(failed=2)
    (task,) = results("nop")["tasks"]
    assert (task["metrics"]["passed"], task["suites"]["extended"]["total"]) == (0, 4)
