"""Shared fixtures: run the CLI in-process and write input files."""

import io
import sys
from dataclasses import dataclass

import pytest

PEOPLE = (
    "name,age,city\n"
    "Ann,31,Oslo\n"
    "Bob,5,Rome\n"
    "Cy,45,Oslo\n"
    "Dee,,Paris\n"
    "Eve,9,Rome\n"
)


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys, monkeypatch):
    """Call csvq.cli.main(argv) and capture exit status, stdout and stderr."""

    def run(*argv, stdin=None):
        from csvq.cli import main  # imported lazily: conftest must not import csvq at top

        monkeypatch.setattr(sys, "stdin", io.StringIO("" if stdin is None else stdin))
        code = main(list(argv))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def write(tmp_path):
    """Write text to a file in tmp_path and return its path as a string."""

    def write(text, name="data.csv"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8", newline="")
        return str(path)

    return write


@pytest.fixture
def people(write):
    """Path of a small CSV file with columns name, age, city."""
    return write(PEOPLE, "people.csv")
