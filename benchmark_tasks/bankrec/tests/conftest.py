"""Shared fixtures: write input files and run the CLI in-process."""

from dataclasses import dataclass

import pytest


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def write(tmp_path):
    """Write text to a file in tmp_path (exactly as given) and return its path as a string."""

    def write(text, name):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8", newline="")
        return str(path)

    return write


@pytest.fixture
def cli(capsys):
    """Call bankrec.cli.main(argv) and capture the exit status, stdout and stderr."""

    def run(*argv):
        from bankrec.cli import main  # imported lazily: conftest must not import the package

        code = main([str(arg) for arg in argv])
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run
