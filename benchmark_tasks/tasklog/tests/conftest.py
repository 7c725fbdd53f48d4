"""Shared fixtures. The package under test is imported lazily inside fixtures."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

TODAY = "2026-03-10"


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    """Path of a (not yet existing) storage file in a fresh directory."""
    directory = tmp_path / "data"
    directory.mkdir()
    return directory / "tasks.json"


@pytest.fixture
def cli(store_file: Path, capsys, monkeypatch):
    """Run ``main`` in-process with ``--file`` and ``--today`` set; return a Result."""
    from tasklog.cli import main

    monkeypatch.delenv("TASKLOG_FILE", raising=False)

    def run(*args: str, today: str | None = TODAY, file: Path | None = None) -> Result:
        argv = ["--file", str(file or store_file)]
        if today is not None:
            argv += ["--today", today]
        capsys.readouterr()
        code = main(argv + list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def read_store(store_file: Path):
    """Load the storage file as JSON."""

    def read() -> dict:
        return json.loads(store_file.read_text(encoding="utf-8"))

    return read
