"""Exception hierarchy shared by the store and the command-line interface."""

from __future__ import annotations

import os


class TasklogError(Exception):
    """Base class of every error raised by tasklog."""


class ValidationError(TasklogError, ValueError):
    """A field value (title, date, priority, tag, ...) or argument combination is invalid."""


class TaskNotFoundError(TasklogError, LookupError):
    """No task with the requested id exists."""

    def __init__(self, task_id: int) -> None:
        super().__init__(f"task {task_id} not found")
        self.task_id = task_id


class OpenTaskError(TasklogError):
    """Removal of an open task was refused because ``force`` was not given."""

    def __init__(self, task_id: int) -> None:
        super().__init__(f"task {task_id} is open; use --force to remove it")
        self.task_id = task_id


class NothingToUndoError(TasklogError):
    """``undo`` was requested but no mutating command is recorded."""

    def __init__(self) -> None:
        super().__init__("nothing to undo")


class StorageError(TasklogError):
    """The storage file exists but cannot be read or does not follow the format."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(f"corrupt storage file: {os.fspath(path)}")
        self.path = os.fspath(path)
