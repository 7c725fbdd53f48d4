"""Shared fixtures: run the CLI in-process and write layer files."""

from dataclasses import dataclass

import pytest


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """Call cfgmerge.cli.main(argv, environ) and capture exit status, stdout and stderr."""

    def run(*argv, env=None):
        from cfgmerge.cli import main  # imported lazily: conftest must not import cfgmerge

        code = main(list(argv), environ={} if env is None else dict(env))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def write(tmp_path):
    """Write text (or bytes) to a file in tmp_path and return its path as a string."""

    def write(name, content):
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
        return str(path)

    return write
