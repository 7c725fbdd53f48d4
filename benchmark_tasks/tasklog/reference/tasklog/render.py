"""Text renderings of tasks: the ``list`` lines, ``stats`` and the exports."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from datetime import date

from .model import Task

CSV_COLUMNS = ("id", "title", "status", "priority", "due", "tags")
TAG_SEPARATOR = ";"


def status_box(task: Task, today: date) -> str:
    """``[x]`` for done, ``[!]`` for overdue and ``[ ]`` for other open tasks."""
    if task.status == "done":
        return "[x]"
    return "[!]" if task.is_overdue(today) else "[ ]"


def format_task_lines(tasks: Sequence[Task], today: date) -> list[str]:
    """One line per task; the id column is as wide as the widest listed id."""
    width = max((len(str(task.id)) for task in tasks), default=1)
    lines = []
    for task in tasks:
        due = task.due.isoformat() if task.due else "-"
        line = f"{task.id:>{width}}  {status_box(task, today)}  {task.priority:<6}  {due:<10}  {task.title}"
        if task.tags:
            line += "  " + " ".join(f"#{tag}" for tag in task.tags)
        lines.append(line)
    return lines


def format_stats(counts: Mapping[str, int]) -> str:
    """``key: value`` lines in the order the counts were produced."""
    return "\n".join(f"{key}: {value}" for key, value in counts.items())


def export_json(tasks: Sequence[Task]) -> str:
    """A JSON array of task objects, indented by two spaces, ending in a newline."""
    return json.dumps([task.to_dict() for task in tasks], indent=2, ensure_ascii=False) + "\n"


def export_csv(tasks: Sequence[Task]) -> str:
    """CSV with a header row; empty ``due`` for undated tasks, tags joined by ``;``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for task in tasks:
        writer.writerow([
            task.id,
            task.title,
            task.status,
            task.priority,
            task.due.isoformat() if task.due else "",
            TAG_SEPARATOR.join(task.tags),
        ])
    return buffer.getvalue()
