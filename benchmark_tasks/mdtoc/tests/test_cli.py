"""Command-line behaviour, usage errors and the python -m entry point (R17)."""

import subprocess
import sys

import pytest

from mdtoc.cli import main

pytestmark = pytest.mark.requirement("R17")


def _assert_usage_error(result):
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("mdtoc: error: ")
    assert result.err.endswith("\n") and result.err.count("\n") == 1


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["toc", "--help"], ["check-links", "-h"]])
def test_help(cli, args):
    result = cli(*args)
    assert result.code == 0
    assert result.out.startswith("usage: mdtoc")
    assert result.err == ""


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate", "x.md"],
        ["toc"],
        ["check-links"],
        ["stats", "--bogus", "x.md"],
        ["toc", "--max-level", "two", "x.md"],
        ["renumber"],
    ],
)
def test_usage_errors(cli, args):
    _assert_usage_error(cli(*args))


@pytest.mark.parametrize(
    "args",
    [
        ["toc"],
        ["toc", "--inplace"],
        ["toc", "--check"],
        ["renumber"],
        ["renumber", "--check"],
        ["stats"],
    ],
)
def test_missing_file_for_every_command(cli, tmp_path, args):
    missing = str(tmp_path / "missing.md")
    result = cli(*args, missing)
    _assert_usage_error(result)
    assert result.err == f"mdtoc: error: cannot read '{missing}'\n"


def test_directory_and_invalid_utf8_cannot_be_read(cli, tmp_path):
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"# Caf\xe9\n")
    result = cli("stats", str(bad))
    assert result.err == f"mdtoc: error: cannot read '{bad}'\n"
    assert result.code == 2
    result = cli("toc", str(tmp_path))
    assert result.err == f"mdtoc: error: cannot read '{tmp_path}'\n"
    assert result.code == 2


def test_main_returns_status_and_reads_sys_argv(write, monkeypatch, capsys):
    path = write("# Only\n")
    monkeypatch.setattr(sys, "argv", ["mdtoc", "toc", path])
    assert main() == 0
    assert capsys.readouterr().out == "- [Only](#only)\n"


def test_python_dash_m_toc(write):
    path = write("# Guide\n## Install\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mdtoc", "toc", path], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0
    assert proc.stdout == "- [Guide](#guide)\n  - [Install](#install)\n"
    assert proc.stderr == ""


def test_python_dash_m_exit_statuses(write):
    path = write("[x](#nowhere)\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mdtoc", "check-links", path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == f"{path}:1: broken anchor #nowhere\n"
    proc = subprocess.run(
        [sys.executable, "-m", "mdtoc"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("mdtoc: error: ")
