"""Shared by the tests (moved from test_verdict_split.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.isolation.sandbox import resolve_mode


def graded(where: Path, tasks: dict, variants: dict, write, task_folder) -> dict:
    """One split benchmark session in ``where`` over ``tasks`` (each with the variants it
    leaves out: no folder, --e2e-missing=skip) and ``variants`` (run number: name), the
    projects made by ``write(run_folder, task, variant)`` and the tasks' folders by
    ``task_folder(task, folder)``: the runs by (task, variant), and the session's folder."""
    if resolve_mode("auto")[0] != "bwrap":
        pytest.skip("needs bubblewrap (apt-get install bubblewrap)")
    for task, left_out in tasks.items():
        for n, variant in variants.items():
            if variant not in left_out:
                write(where / "out" / task / f"run-{n}", task, variant)
        task_folder(task, where / "tasks" / task)
    args = ["--e2e-agent=dir:out", "--e2e-tasks=tasks", f"--e2e-runs={len(variants)}", "-n", "2"]
    args.append("--e2e-missing=skip")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "--e2e-out=results"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "E2EBENCH_VERDICT_MODE": "split"},
    )
    results = where / "results" / "results.json"
    assert results.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    runs = json.loads(results.read_text())["tasks"]
    return {"runs": {(r["task"], variants[r["run"]]): r for r in runs}, "where": where}
