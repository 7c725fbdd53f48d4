"""Hostile agent files in one graded session: the agent's failure, never a harness error.

Issue 26, class 3: a ``parameters.json`` of 200,000 ``[`` or a ``pyproject.toml`` 5,000
arrays deep raised ``RecursionError`` where only ``ValueError`` was caught; the run became a
harness error, left the mean, and the summary read 100 %* where an honest failure reads
50 %. Here one session grades the bundled ProjectEval console mission ``gradebook`` through
``dir:`` with one run folder per attack (run 1 is the honest reference) and each attack must
fail its requirements with a note naming the file, be counted in the mean, and leave the
summary without the partial mark.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.report.terminal import PARTIAL_MARK

GRADEBOOK = Path(__file__).resolve().parents[1] / "benchmark_tasks" / "gradebook"
PARAMS = "parameters.json"
LINK = "is or lies behind a symbolic link"
# run number -> (what the agent wrote besides the reference, what a note must say)
ATTACKS = {
    2: "parameters.json: nested deeper than 64 levels",
    3: "pyproject.toml: nested deeper than 64 levels",
    4: f"parameters.json: {LINK}",
    5: "parameters.json: not valid UTF-8 (byte 0xff at offset 1)",
    6: "parameters.json: is larger than",
}


def _plant(run: int, repo: Path) -> None:
    """The attack of ``run`` on a copy of the reference in ``repo``."""
    params = repo / PARAMS
    if run == 2:
        params.write_text("[" * 200_000)
        (repo / "checklist.json").write_text("[" * 200_000)  # the similarity's reader too
    elif run == 3:
        (repo / "pyproject.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    elif run == 4:
        params.unlink()
        params.symlink_to("/etc/passwd")
    elif run == 5:
        params.write_bytes(b'{\xff"entry": "gradebook.py"}')
    elif run == 6:
        cpv = json.loads(params.read_text())
        params.write_text(json.dumps({**cpv, "padding": "x" * (300 << 10)}))


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """One session over the six run folders: its results.json and terminal output."""
    root = tmp_path_factory.mktemp("boundary")
    shutil.copytree(GRADEBOOK, root / "tasks" / "gradebook")
    for run in range(1, 7):
        repo = root / "answers" / "gradebook" / f"run-{run}"
        shutil.copytree(GRADEBOOK / "reference", repo)
        _plant(run, repo)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            f"--e2e-agent=dir:{root / 'answers'}",
            "--e2e-tasks=tasks",
            "--e2e-runs=6",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTEST_ADDOPTS": ""},
    )
    results = json.loads((root / ".e2ebench" / "results.json").read_text())
    return {"results": results, "stdout": done.stdout, "root": root}


def _run(session: dict, n: int) -> dict:
    (record,) = [r for r in session["results"]["tasks"] if r["run"] == n]
    return record


@pytest.mark.slow
def test_the_honest_run_passes(session):
    record = _run(session, 1)
    assert record["metrics"]["impl_rate"] == 1.0, record.get("notes")


@pytest.mark.slow
@pytest.mark.parametrize("run", sorted(ATTACKS))
def test_each_hostile_file_is_the_agents_failure_naming_the_file(session, run):
    record = _run(session, run)
    assert record["status"] == "ok" and not record.get("error"), record.get("error")
    assert record["metrics"] is not None and record["metrics"]["impl_rate"] == 0.0
    assert {r["verdict"] for r in record["requirements"]} == {"not_implemented"}
    text = json.dumps(record)
    assert ATTACKS[run] in text, record.get("notes")
    assert "root:x:0:0" not in text  # the link's target was never read


@pytest.mark.slow
def test_every_run_counts_in_the_mean_and_the_summary_has_no_partial_mark(session):
    summary = session["results"]["summary"]
    (stats,) = summary.values()
    assert stats["impl_rate"]["mean"] == pytest.approx(1 / 6)
    assert not stats.get("errored_runs") and not stats.get("partial")
    lines = [line for line in session["stdout"].splitlines() if "dir:" in line]
    assert lines and not any(PARTIAL_MARK in line for line in lines), session["stdout"][-3000:]
    assert "ended in an error" not in session["stdout"]
