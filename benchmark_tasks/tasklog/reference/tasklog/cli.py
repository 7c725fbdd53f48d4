"""The ``tasklog`` command line: argument parsing and one handler per command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

from .errors import (
    NothingToUndoError,
    OpenTaskError,
    StorageError,
    TasklogError,
    TaskNotFoundError,
    ValidationError,
)
from .model import PRIORITIES, normalize_tags, normalize_title, parse_date
from .render import export_csv, export_json, format_stats, format_task_lines
from .store import STATUS_FILTERS, SORT_KEYS, TaskStore

PROG = "tasklog"
ENV_VAR = "TASKLOG_FILE"
DEFAULT_FILE = "tasklog.json"

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_USAGE = 2
EXIT_CORRUPT = 3

_EXIT_CODES: tuple[tuple[type[TasklogError], int], ...] = (
    (ValidationError, EXIT_USAGE),
    (StorageError, EXIT_CORRUPT),
    (TaskNotFoundError, EXIT_NOT_FOUND),
    (OpenTaskError, EXIT_NOT_FOUND),
    (NothingToUndoError, EXIT_NOT_FOUND),
)


class CommandError(TasklogError):
    """A failure detected by the command line itself, with its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def exit_code_for(error: TasklogError) -> int:
    """Map an exception to the documented process exit code."""
    if isinstance(error, CommandError):
        return error.exit_code
    for error_type, code in _EXIT_CODES:
        if isinstance(error, error_type):
            return code
    return EXIT_NOT_FOUND


def resolve_storage_path(option: str | None) -> Path:
    """``--file`` wins over ``$TASKLOG_FILE``, which wins over ``./tasklog.json``."""
    return Path(option or os.environ.get(ENV_VAR) or DEFAULT_FILE)


def _optional_date(text: str | None) -> date | None:
    return None if text is None else parse_date(text)


# --------------------------------------------------------------------------- handlers


def cmd_add(args: argparse.Namespace, store_path: Path, today: date) -> None:
    title = normalize_title(" ".join(args.title))
    due = _optional_date(args.due)
    tags = normalize_tags(args.tag or ())
    task = TaskStore(store_path).add(title, due=due, priority=args.priority, tags=tags)
    print(f"added task {task.id}")


def cmd_list(args: argparse.Namespace, store_path: Path, today: date) -> None:
    due_before = _optional_date(args.due_before)
    tags = normalize_tags(args.tag or ())
    tasks = TaskStore(store_path).select(
        status=args.status,
        tags=tags,
        due_before=due_before,
        overdue_on=today if args.overdue else None,
        sort=args.sort,
    )
    lines = format_task_lines(tasks, today)
    print("\n".join(lines) if lines else "no tasks")


def cmd_done(args: argparse.Namespace, store_path: Path, today: date) -> None:
    if TaskStore(store_path).mark_done(args.id):
        print(f"completed task {args.id}")
    else:
        print(f"task {args.id} is already done")


def cmd_reopen(args: argparse.Namespace, store_path: Path, today: date) -> None:
    if TaskStore(store_path).reopen(args.id):
        print(f"reopened task {args.id}")
    else:
        print(f"task {args.id} is already open")


def cmd_edit(args: argparse.Namespace, store_path: Path, today: date) -> None:
    TaskStore(store_path).edit(
        args.id,
        title=args.title,
        due=_optional_date(args.due),
        clear_due=args.no_due,
        priority=args.priority,
        add_tags=args.add_tag or (),
        remove_tags=args.remove_tag or (),
    )
    print(f"updated task {args.id}")


def cmd_rm(args: argparse.Namespace, store_path: Path, today: date) -> None:
    TaskStore(store_path).remove(args.id, force=args.force)
    print(f"removed task {args.id}")


def cmd_stats(args: argparse.Namespace, store_path: Path, today: date) -> None:
    print(format_stats(TaskStore(store_path).stats(today)))


def cmd_export(args: argparse.Namespace, store_path: Path, today: date) -> None:
    tasks = TaskStore(store_path).all()
    render = export_csv if args.format == "csv" else export_json
    sys.stdout.write(render(tasks))


def cmd_import(args: argparse.Namespace, store_path: Path, today: date) -> None:
    invalid = f"invalid import file: {args.source}"
    try:
        records = json.loads(Path(args.source).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommandError(f"file not found: {args.source}", EXIT_NOT_FOUND) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise CommandError(invalid, EXIT_CORRUPT) from None
    store = TaskStore(store_path)
    try:
        result = store.import_tasks(records)
    except ValidationError as exc:
        raise CommandError(f"{invalid}: {exc}", EXIT_CORRUPT) from None
    print(f"imported: {result.imported}, skipped: {result.skipped}, renumbered: {result.renumbered}")


def cmd_undo(args: argparse.Namespace, store_path: Path, today: date) -> None:
    print(f"undid {TaskStore(store_path).undo()}")


Handler = Callable[[argparse.Namespace, Path, date], None]


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser with one sub-command per operation."""
    parser = argparse.ArgumentParser(prog=PROG, description="Keep a to-do list in a JSON file.")
    parser.add_argument("--file", metavar="PATH", help=f"storage file (default ${ENV_VAR} or ./{DEFAULT_FILE})")
    parser.add_argument("--today", metavar="YYYY-MM-DD", help="the date used for overdue checks")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    add = command("add", cmd_add, "add a new open task")
    add.add_argument("title", nargs="+", help="task title (words are joined by spaces)")
    add.add_argument("--due", metavar="YYYY-MM-DD")
    add.add_argument("--priority", choices=PRIORITIES, default="normal")
    add.add_argument("--tag", action="append", metavar="TAG")

    lst = command("list", cmd_list, "show tasks")
    lst.add_argument("--status", choices=STATUS_FILTERS, default="open")
    lst.add_argument("--tag", action="append", metavar="TAG")
    lst.add_argument("--due-before", metavar="YYYY-MM-DD")
    lst.add_argument("--overdue", action="store_true")
    lst.add_argument("--sort", choices=tuple(SORT_KEYS), default="due")

    for name, handler, help_text in (
        ("done", cmd_done, "mark a task done"),
        ("reopen", cmd_reopen, "mark a done task open again"),
    ):
        command(name, handler, help_text).add_argument("id", type=int)

    edit = command("edit", cmd_edit, "change fields of a task")
    edit.add_argument("id", type=int)
    edit.add_argument("--title")
    due_group = edit.add_mutually_exclusive_group()
    due_group.add_argument("--due", metavar="YYYY-MM-DD")
    due_group.add_argument("--no-due", action="store_true")
    edit.add_argument("--priority", choices=PRIORITIES)
    edit.add_argument("--add-tag", action="append", metavar="TAG")
    edit.add_argument("--remove-tag", action="append", metavar="TAG")

    rm = command("rm", cmd_rm, "remove a task")
    rm.add_argument("id", type=int)
    rm.add_argument("--force", action="store_true", help="also remove open tasks")

    command("stats", cmd_stats, "show task counts")

    export = command("export", cmd_export, "print all tasks as JSON or CSV")
    export.add_argument("--format", choices=("json", "csv"), default="json")

    imp = command("import", cmd_import, "merge tasks from a JSON file")
    imp.add_argument("source", metavar="FILE")

    command("undo", cmd_undo, "revert the last mutating command")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports usage errors and --help this way
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        today = date.today() if args.today is None else parse_date(args.today)
        args.handler(args, resolve_storage_path(args.file), today)
    except TasklogError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exit_code_for(exc)
    return EXIT_OK
