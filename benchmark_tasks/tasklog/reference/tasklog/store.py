"""Persistent task storage: a JSON file with one level of undo.

The storage file is a JSON object::

    {"version": 1, "next_id": 4, "tasks": [...], "undo": null}

``undo`` is either ``null`` or ``{"command": "<name>", "tasks": [...]}`` holding the
task list as it was before the last mutating command.  Every mutating method of
:class:`TaskStore` saves the file immediately, through an atomic rename.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from .errors import (
    NothingToUndoError,
    OpenTaskError,
    StorageError,
    TasklogError,
    TaskNotFoundError,
    ValidationError,
)
from .model import (
    PRIORITIES,
    PRIORITY_RANK,
    Task,
    check_priority,
    normalize_tags,
    normalize_title,
)

__all__ = [
    "ImportResult",
    "NothingToUndoError",
    "OpenTaskError",
    "StorageError",
    "Task",
    "TaskNotFoundError",
    "TaskStore",
    "TasklogError",
    "ValidationError",
]

FORMAT_VERSION = 1
STATUS_FILTERS = ("open", "done", "all")


def _due_key(task: Task) -> tuple[bool, date]:
    """Tasks with a due date first, earliest first; undated tasks last."""
    return (task.due is None, task.due or date.min)


def _sort_by_due(task: Task) -> tuple[Any, ...]:
    return (task.status != "open", *_due_key(task), PRIORITY_RANK[task.priority], task.id)


def _sort_by_priority(task: Task) -> tuple[Any, ...]:
    return (task.status != "open", PRIORITY_RANK[task.priority], *_due_key(task), task.id)


def _sort_by_id(task: Task) -> int:
    return task.id


SORT_KEYS: dict[str, Callable[[Task], Any]] = {
    "due": _sort_by_due,
    "priority": _sort_by_priority,
    "id": _sort_by_id,
}


@dataclass(frozen=True)
class ImportResult:
    """Outcome of :meth:`TaskStore.import_tasks`."""

    imported: int
    skipped: int
    renumbered: int


def _decode_tasks(value: Any) -> dict[int, Task]:
    """Decode a JSON list of task objects into a mapping keyed by id."""
    if not isinstance(value, list):
        raise ValidationError("tasks must be a list")
    tasks: dict[int, Task] = {}
    for item in value:
        task = Task.from_dict(item)
        if task.id in tasks:
            raise ValidationError(f"duplicate task id {task.id}")
        tasks[task.id] = task
    return tasks


def _parse_import_record(record: Any, position: int) -> tuple[int | None, Task]:
    """Validate one import record, filling in defaults for the optional fields.

    Returns the id the record asked for (or ``None``) and the task it describes;
    the task's own id is a placeholder until the store assigns the real one.
    """
    if not isinstance(record, dict):
        raise ValidationError(f"record {position}: not a JSON object")
    requested = record.get("id")
    data = {"status": "open", "priority": "normal", "due": None, "tags": [], **record}
    data["id"] = 1 if requested is None else requested
    try:
        return requested, Task.from_dict(data)
    except ValidationError as exc:
        raise ValidationError(f"record {position}: {exc}") from None


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path`` and rename it over ``path``."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


class TaskStore:
    """A collection of tasks kept in a JSON file.

    Creating a store reads the file if it exists (a missing file is an empty
    store and is not created until the first change).  Each mutating method
    writes the file before returning and records the previous task list so that
    :meth:`undo` can restore it.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._tasks: dict[int, Task] = {}
        self._next_id = 1
        self._undo: tuple[str, list[Task]] | None = None
        self._load()

    # ----------------------------------------------------------------- persistence

    def _load(self) -> None:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError):
            raise StorageError(self.path) from None
        try:
            self._decode(json.loads(raw))
        except (json.JSONDecodeError, ValidationError):
            raise StorageError(self.path) from None

    def _decode(self, data: Any) -> None:
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            raise ValidationError("unsupported storage header")
        tasks = _decode_tasks(data.get("tasks"))
        next_id = data.get("next_id")
        if isinstance(next_id, bool) or not isinstance(next_id, int):
            raise ValidationError("next_id must be an integer")
        if next_id <= max(tasks, default=0):
            raise ValidationError("next_id must exceed every task id")
        undo = data.get("undo")
        if undo is None:
            slot = None
        elif isinstance(undo, dict) and isinstance(undo.get("command"), str):
            slot = (undo["command"], list(_decode_tasks(undo.get("tasks")).values()))
        else:
            raise ValidationError("malformed undo record")
        self._tasks, self._next_id, self._undo = tasks, next_id, slot

    def _save(self) -> None:
        undo = None
        if self._undo is not None:
            command, tasks = self._undo
            undo = {"command": command, "tasks": [task.to_dict() for task in tasks]}
        payload = {
            "version": FORMAT_VERSION,
            "next_id": self._next_id,
            "tasks": [task.to_dict() for task in self.all()],
            "undo": undo,
        }
        _atomic_write(self.path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")

    def _commit(self, command: str, before: list[Task]) -> None:
        """Remember ``before`` as the undo state of ``command`` and save."""
        self._undo = (command, before)
        self._save()

    # ----------------------------------------------------------------- queries

    @property
    def next_id(self) -> int:
        """The id the next added task will receive."""
        return self._next_id

    @property
    def undo_command(self) -> str | None:
        """Name of the command :meth:`undo` would revert, or ``None``."""
        return self._undo[0] if self._undo else None

    def all(self) -> list[Task]:
        """Every task, ordered by id."""
        return [self._tasks[task_id] for task_id in sorted(self._tasks)]

    def get(self, task_id: int) -> Task:
        """Return the task with ``task_id`` or raise :class:`TaskNotFoundError`."""
        try:
            return self._tasks[task_id]
        except KeyError:
            raise TaskNotFoundError(task_id) from None

    def select(
        self,
        *,
        status: str = "open",
        tags: Iterable[str] = (),
        due_before: date | None = None,
        overdue_on: date | None = None,
        sort: str = "due",
    ) -> list[Task]:
        """Return the tasks matching every given filter, in ``sort`` order."""
        if status not in STATUS_FILTERS:
            raise ValidationError(f"invalid status: {status!r}")
        if sort not in SORT_KEYS:
            raise ValidationError(f"invalid sort: {sort!r}")
        wanted = set(normalize_tags(tags))
        chosen = [
            task
            for task in self._tasks.values()
            if (status == "all" or task.status == status)
            and wanted.issubset(task.tags)
            and (due_before is None or (task.due is not None and task.due < due_before))
            and (overdue_on is None or task.is_overdue(overdue_on))
        ]
        return sorted(chosen, key=SORT_KEYS[sort])

    def stats(self, today: date) -> dict[str, int]:
        """Counts by status, overdue tasks, and open tasks per priority."""
        open_tasks = [task for task in self._tasks.values() if task.status == "open"]
        counts = {
            "total": len(self._tasks),
            "open": len(open_tasks),
            "done": len(self._tasks) - len(open_tasks),
            "overdue": sum(task.is_overdue(today) for task in open_tasks),
        }
        for priority in PRIORITIES:
            counts[priority] = sum(task.priority == priority for task in open_tasks)
        return counts

    # ----------------------------------------------------------------- mutations

    def add(
        self,
        title: str,
        *,
        due: date | None = None,
        priority: str = "normal",
        tags: Iterable[str] = (),
    ) -> Task:
        """Create an open task with the next id and return it."""
        task = Task(
            id=self._next_id,
            title=normalize_title(title),
            priority=check_priority(priority),
            due=due,
            tags=normalize_tags(tags),
        )
        before = self.all()
        self._tasks[task.id] = task
        self._next_id += 1
        self._commit("add", before)
        return task

    def mark_done(self, task_id: int) -> bool:
        """Mark a task done; return ``False`` (and change nothing) if it already is."""
        return self._set_status(task_id, "done", "done")

    def reopen(self, task_id: int) -> bool:
        """Mark a task open again; return ``False`` (and change nothing) if it is open."""
        return self._set_status(task_id, "open", "reopen")

    def _set_status(self, task_id: int, status: str, command: str) -> bool:
        task = self.get(task_id)
        if task.status == status:
            return False
        before = self.all()
        self._tasks[task_id] = replace(task, status=status)
        self._commit(command, before)
        return True

    def edit(
        self,
        task_id: int,
        *,
        title: str | None = None,
        due: date | None = None,
        clear_due: bool = False,
        priority: str | None = None,
        add_tags: Iterable[str] = (),
        remove_tags: Iterable[str] = (),
    ) -> Task:
        """Change the given fields of a task and return the updated task."""
        add_tags, remove_tags = normalize_tags(add_tags), normalize_tags(remove_tags)
        if due is not None and clear_due:
            raise ValidationError("cannot set and clear the due date at once")
        if title is None and due is None and not clear_due and priority is None \
                and not add_tags and not remove_tags:
            raise ValidationError("nothing to edit")
        task = self.get(task_id)
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = normalize_title(title)
        if priority is not None:
            changes["priority"] = check_priority(priority)
        if due is not None or clear_due:
            changes["due"] = due
        if add_tags or remove_tags:
            changes["tags"] = tuple(sorted((set(task.tags) | set(add_tags)) - set(remove_tags)))
        before = self.all()
        updated = replace(task, **changes)
        self._tasks[task_id] = updated
        self._commit("edit", before)
        return updated

    def remove(self, task_id: int, *, force: bool = False) -> Task:
        """Delete a task; open tasks are only removed with ``force=True``."""
        task = self.get(task_id)
        if task.status == "open" and not force:
            raise OpenTaskError(task_id)
        before = self.all()
        del self._tasks[task_id]
        self._commit("rm", before)
        return task

    def import_tasks(self, records: Any) -> ImportResult:
        """Merge a list of task objects (the JSON export format) into the store.

        The whole list is validated first; one bad record rejects the import.
        A record whose title and due date equal those of an existing task is
        skipped.  Otherwise it keeps its ``id`` if that id has never been issued
        (``id >= next_id``) and gets the next id if not.
        """
        if not isinstance(records, list):
            raise ValidationError("import data must be a JSON array")
        parsed = [_parse_import_record(record, pos) for pos, record in enumerate(records, 1)]
        before = self.all()
        imported = skipped = renumbered = 0
        for requested, task in parsed:
            if any(t.title == task.title and t.due == task.due for t in self._tasks.values()):
                skipped += 1
                continue
            if requested is not None and requested >= self._next_id:
                new_id = requested
            else:
                new_id = self._next_id
                renumbered += requested is not None
            self._tasks[new_id] = replace(task, id=new_id)
            self._next_id = new_id + 1
            imported += 1
        self._commit("import", before)
        return ImportResult(imported, skipped, renumbered)

    def undo(self) -> str:
        """Restore the task list saved by the last mutating command.

        Returns that command's name.  ``next_id`` is not rolled back, so ids
        handed out by the undone command are never issued again.
        """
        if self._undo is None:
            raise NothingToUndoError()
        command, tasks = self._undo
        self._tasks = {task.id: task for task in tasks}
        self._undo = None
        self._save()
        return command
