"""Shared fixtures: run the CLI in-process and write Markdown files."""

from dataclasses import dataclass

import pytest


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """Call mdtoc.cli.main(argv) and capture exit status, stdout and stderr."""

    def run(*argv):
        from mdtoc.cli import main  # imported lazily: conftest must not import mdtoc at top

        code = main(list(argv))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def write(tmp_path):
    """Write text to a file below tmp_path and return its path as a string."""

    def write(text, name="doc.md"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return str(path)

    return write


@pytest.fixture
def read():
    """Return a function giving the exact content of a file (no newline translation)."""

    def read(path):
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()

    return read
