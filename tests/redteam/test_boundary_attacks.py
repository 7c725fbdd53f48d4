"""Hostile agent files in one graded session: the agent's failure, never a harness error.

Issue 26, class 3: a ``parameters.json`` of 200,000 ``[`` or a ``pyproject.toml`` 5,000
arrays deep raised ``RecursionError`` where only ``ValueError`` was caught; the run became a
harness error, left the mean, and the summary read 100 %* where an honest failure reads
50 %. Here one session grades the bundled ProjectEval console mission ``gradebook`` (hostile
``parameters.json``) and the library task ``calc`` (hostile ``pyproject.toml``) through
``dir:``, one run folder per attack (run 1 is the honest reference): each attack must fail
its requirements with a note naming the file, be counted in the mean, and leave the summary
without the partial mark.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.tasks import CALC_CODE, TaskFactory

from pytest_e2ebench.report.terminal import PARTIAL_MARK

GRADEBOOK = Path(__file__).resolve().parents[2] / "benchmark_tasks" / "gradebook"
PARAMS = "parameters.json"
DEEP = "nested deeper than 64 levels"
# (task, run) -> what a note of the run must say; run 1 of each task is the honest answer
ATTACKS = {
    ("gradebook", 2): f"parameters.json: {DEEP}",
    ("gradebook", 3): f"parameters.json: {DEEP}",
    # intake drops the link before anything parses (a link never reaches the parser)
    ("gradebook", 4): "parameters.json (link to an absolute path (/etc/passwd))",
    ("gradebook", 5): "parameters.json: not valid UTF-8 (byte 0xff at offset 1)",
    ("gradebook", 6): "parameters.json: is larger than 262144 bytes",
    ("calc", 2): f"pyproject.toml: {DEEP}",
    ("calc", 3): f"pyproject.toml: {DEEP}",
    # without its (dropped) pyproject.toml calc is a project without packaging, whose code
    # still passes: not a failure, but a note, and /etc/passwd never read
    ("calc", 4): "pyproject.toml (link to an absolute path (/etc/passwd))",
    ("calc", 5): "pyproject.toml: not valid UTF-8 (byte 0xff at offset 9)",
    ("calc", 6): "pyproject.toml: is larger than 1048576 bytes",
}


def _plant(task: str, run: int, repo: Path) -> None:
    """The attack of ``run`` on a copy of the reference in ``repo``."""
    name = PARAMS if task == "gradebook" else "pyproject.toml"
    target = repo / name
    original = target.read_text()
    if run == 2 and task == "gradebook":
        target.write_text("[" * 200_000)
        (repo / "checklist.json").write_text("[" * 200_000)  # the similarity's reader too
    elif run == 2:
        target.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n" + original)
    elif run == 3 and task == "gradebook":
        target.write_text('{"a": ' * 5000 + "1" + "}" * 5000)
    elif run == 3:
        target.write_text(original + "[" + ".".join(["k"] * 5000) + "]\n")
    elif run == 4:
        target.unlink()
        target.symlink_to("/etc/passwd")
    elif run == 5:
        target.write_bytes(b"# comment\xff\n" if task == "calc" else b'{\xff"entry": 1}')
    elif run == 6:
        padding = "x" * (1100 << 10)
        if task == "gradebook":
            target.write_text(json.dumps({**json.loads(original), "padding": padding}))
        else:
            target.write_text(f"{original}\n# {padding}\n")


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """One session over gradebook and calc, six run folders each: results and output."""
    root = tmp_path_factory.mktemp("boundary")
    factory = TaskFactory(root)
    factory.make()
    shutil.copytree(GRADEBOOK, root / "tasks" / "gradebook")
    for run in range(1, 7):
        for task in ("gradebook", "calc"):
            repo = root / "answers" / task / f"run-{run}"
            if task == "gradebook":
                shutil.copytree(GRADEBOOK / "reference", repo)
            else:
                factory.reference(repo, CALC_CODE)
            if run > 1:
                _plant(task, run, repo)
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


def _run(session: dict, task: str, n: int) -> dict:
    (record,) = [r for r in session["results"]["tasks"] if (r["task"], r["run"]) == (task, n)]
    return record


@pytest.mark.shares_session
class TestBatchBoundaryAttacks:
    """The readers of the one session over every hostile file (one xdist worker runs them all)."""

    @pytest.mark.slow
    @pytest.mark.parametrize("task", ["gradebook", "calc"])
    def test_the_honest_run_passes(self, session, task):
        record = _run(session, task, 1)
        assert record["metrics"]["impl_rate"] == 1.0, record.get("notes")

    @pytest.mark.slow
    @pytest.mark.parametrize(("task", "run"), sorted(ATTACKS))
    def test_each_hostile_file_is_the_agents_failure_naming_the_file(self, session, task, run):
        record = _run(session, task, run)
        assert record["status"] == "ok" and not record.get("error"), record.get("error")
        passes = (task, run) == ("calc", 4)
        assert record["metrics"] is not None and record["metrics"]["impl_rate"] == float(passes)
        verdict = "implemented" if passes else "not_implemented"
        assert {r["verdict"] for r in record["requirements"]} == {verdict}
        text = json.dumps(record)
        assert ATTACKS[task, run] in text, record.get("notes")
        assert "root:x:0:0" not in text  # the link's target was never read

    @pytest.mark.slow
    def test_every_run_counts_in_the_mean_and_the_summary_has_no_partial_mark(self, session):
        summary = session["results"]["summary"]
        (stats,) = summary.values()
        # 12 runs counted: the two honest ones and calc's run 4 (see ATTACKS) pass
        assert stats["impl_rate"]["mean"] == pytest.approx(3 / 12)
        assert (stats["evaluated_runs"], stats["errored_runs"], stats["partial"]) == (12, 0, False)
        # the terminal tables: "<task|overall> <agent> <runs>[*] ...", * when a run errored
        rows = [line.split() for line in session["stdout"].splitlines()]
        rows = [r for r in rows if r[:1] in (["calc"], ["gradebook"], ["overall"]) and len(r) > 2]
        assert ["overall", "dir-answers", "6"] in [r[:3] for r in rows], session["stdout"][-3000:]
        assert not [r for r in rows if PARTIAL_MARK in r[2]], session["stdout"][-3000:]
        assert "ended in an error" not in session["stdout"]
