"""Importers of third-party benchmark formats into task folders (``e2ebench import ...``)."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import shutil
import tomllib
from pathlib import Path

import tomli_w

from ...taskmodel.task import TASK_FILE

REPORT_FILE = "import-report.json"


def write_report(out: Path, reports: list) -> Path:
    """Write the importer's reports (dataclasses) to ``out/import-report.json``."""
    path = out / REPORT_FILE
    path.write_text(
        json.dumps([dataclasses.asdict(r) for r in reports], indent=2) + "\n", encoding="utf-8"
    )
    return path


def fresh_folder(out: Path, task: str) -> Path:
    """``out/task``, emptied: a task written again replaces the earlier import."""
    root = out / task
    if root.exists():
        shutil.rmtree(root)
    return root


def write_task_toml(folder: Path, meta: dict) -> Path:
    """Write ``folder/task.toml`` from ``meta`` (tables as nested dicts, ``created`` a date).

    The TOML library quotes every value, so a peer's title with a backslash, a quote, a newline
    or any Unicode stays one valid string; the text is read back before it is written, so an
    importer never leaves a file the task loader cannot parse.
    """
    text = tomli_w.dumps(meta)
    tomllib.loads(text)
    path = folder / TASK_FILE
    path.write_text(text, encoding="utf-8")
    return path


def add_arguments(
    parser: argparse.ArgumentParser,
    src_help: str,
    created: dt.date | None = None,
    created_help: str = "release date written into each task.toml (default: today)",
) -> None:
    """The command line every importer shares: SRC, OUT and ``--created``."""
    parser.add_argument("src", type=Path, help=src_help)
    parser.add_argument("out", type=Path, help="where to write the task folders")
    parser.add_argument(
        "--created",
        type=dt.date.fromisoformat,
        default=created or dt.date.today(),
        help=created_help,
    )
