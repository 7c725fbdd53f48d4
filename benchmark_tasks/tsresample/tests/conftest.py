"""Shared fixtures: run the CLI in-process and write input files."""

from dataclasses import dataclass

import pytest


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """Call tsresample.cli.main(argv) and capture exit status, stdout and stderr."""

    def run(*argv):
        from tsresample.cli import main  # imported lazily: conftest must not import the package

        code = main([str(arg) for arg in argv])
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
