"""The task catalog: kind, release date and size of every task, as a table.

``pytest --e2e-agent=NAME --collect-only`` prints it after the collected items, and
``python -m pytest_e2ebench.taskmodel.catalog benchmark_tasks`` prints it as Markdown
(docs/tasks.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from .task import Task, fetch_reference, find_task_dirs, load_task

HEADERS = (
    "task",
    "kind",
    "created",
    "source",
    "requirements",
    "tests",
    "mutants",
    "ref files",
    "ref lines",
)


def rows(tasks: Iterable[Task]) -> list[list[str]]:
    """One row of strings per task, in HEADERS order, plus a totals row."""
    out = []
    totals = [0] * 5
    for task in sorted(tasks, key=lambda t: t.id):
        # a fetched reference's figures when the cache has it (collection never downloads)
        task = fetch_reference(task, download=False)
        size = task.size
        numbers = [
            size["requirements"],
            size["tests"],
            len(task.mutants),
            size["reference_files"],
            size["reference_lines"],
        ]
        totals = [a + b for a, b in zip(totals, numbers, strict=True)]
        source = task.source if task.source_pin else "written here"
        shown = [str(n) for n in numbers]
        if task.remote is not None and task.reference_dir is None:
            shown[1:] = ["-"] * 4  # not fetched yet: a run fetches it
        out.append([task.id, task.kind, task.created.isoformat(), source, *shown])
    out.append([f"{len(out)} tasks", "", "", "", *map(str, totals)])
    return out


def markdown(tasks: Iterable[Task]) -> str:
    """The catalog as a Markdown table."""
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
    lines += ["| " + " | ".join(row) + " |" for row in rows(tasks)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the catalog of the task folders under the given path as Markdown."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "benchmark_tasks")
    sys.stdout.write(markdown(fetch_reference(load_task(d)) for d in find_task_dirs(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
