"""tasklog: a command-line to-do manager that keeps its tasks in a JSON file."""

from .store import (
    ImportResult,
    NothingToUndoError,
    OpenTaskError,
    StorageError,
    Task,
    TaskNotFoundError,
    TaskStore,
    TasklogError,
    ValidationError,
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
__version__ = "1.0.0"
