"""Record the bundled tasks' decoy entries into this folder (tests/tasks/test_planting_recogniser.py
and tests/tasks/test_planting_reference.py read them): the real stage,
:func:`pytest_e2ebench.evaluation.planting.values.recorded`, each reference run in the sandbox.
``python tests/data/planting/record.py [TASK ...]`` from the checkout.

``--direct`` runs the recording copies in a plain pytest process of this interpreter with the
reference on ``PYTHONPATH`` instead (no sandbox, no environment built: minutes less per task on
a loaded machine; the reference is the harness's own code). Tests that need what the task
installs (a command) or its test settings then fail and record nothing; the rest record what
the stage would."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_e2ebench.environment.source import cache_root
from pytest_e2ebench.evaluation.planting import twins, values
from pytest_e2ebench.isolation.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.taskmodel.task import load_task

HERE = Path(__file__).resolve().parent
TASKS = HERE.parents[2] / "benchmark_tasks"


def direct(task) -> list[dict]:
    """The entries, the recording copies run in a plain pytest process (see the docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tests = task.copy_tests(work / "tests")
        plan = twins.write_recorders(tests, random.Random(values.run_key(task)))
        (work / "home").mkdir()
        source = task.reference_dir
        source = source / "src" if (source / "src").is_dir() else source
        env = {**os.environ, "HOME": str(work / "home"), "PYTHONPATH": str(source)}
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "e2e_record",
        ]
        subprocess.run([*command, "tests"], cwd=work, env=env, capture_output=True, timeout=900)
        records = work / "home" / twins.RECORD_FILE
        text = records.read_text() if records.is_file() else ""
        return twins.entries(plan, text, task.copy_tests(work / "clean"))


def main(names: list[str]) -> None:
    """Record each named task (default: every bundled task with Python tests)."""
    fast = "--direct" in names
    names = [n for n in names if n != "--direct"]
    roots = [TASKS / n for n in names] if names else sorted(TASKS.glob("*/"))
    shared = cache_root() / "planting-shared"  # the references' environments, kept
    for root in roots:
        task = load_task(root)
        if task.kind == "web":
            continue
        if fast:
            found = direct(task)
        else:
            sandbox = Sandbox(mode=resolve_mode("auto")[0])
            found = values.recorded(task, shared, sandbox, timeout=900)
        (HERE / f"{task.id}.json").write_text(json.dumps(found, indent=1) + "\n")
        print(task.id, len(found), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
