"""Importers of third-party benchmark formats into task folders (``e2ebench import ...``)."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser, src_help: str) -> None:
    """The command line every importer shares: SRC, OUT and --created."""
    parser.add_argument("src", type=Path, help=src_help)
    parser.add_argument("out", type=Path, help="where to write the task folders")
    parser.add_argument(
        "--created",
        type=dt.date.fromisoformat,
        default=dt.date.today(),
        help="release date written into each task.toml (default: today)",
    )
