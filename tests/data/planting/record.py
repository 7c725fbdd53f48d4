"""Record the bundled tasks' decoy entries into this folder (tests/unit/test_planting_recogniser.py
and tests/tasks/test_planting_reference.py read them): the real stage,
:func:`pytest_e2ebench.planting.values.recorded`, each reference run in the sandbox.
``python tests/data/planting/record.py [TASK ...]`` from the checkout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_e2ebench.planting import values
from pytest_e2ebench.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.source import cache_root
from pytest_e2ebench.task import load_task

HERE = Path(__file__).resolve().parent
TASKS = HERE.parents[2] / "benchmark_tasks"


def main(names: list[str]) -> None:
    """Record each named task (default: every bundled task with Python tests)."""
    roots = [TASKS / n for n in names] if names else sorted(TASKS.glob("*/"))
    shared = cache_root() / "planting-shared"  # the references' environments, kept
    for root in roots:
        task = load_task(root)
        if task.kind == "web":
            continue
        sandbox = Sandbox(mode=resolve_mode("auto")[0])
        found = values.recorded(task, shared, sandbox, timeout=900)
        (HERE / f"{task.id}.json").write_text(json.dumps(found, indent=1) + "\n")
        print(task.id, len(found), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
