"""Error reporting and entry points (R18-R19)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tasklog.cli import main


# --------------------------------------------------------------------------- R18


@pytest.mark.requirement("R18")
@pytest.mark.parametrize(
    "args",
    [
        ["done", "9"],
        ["reopen", "9"],
        ["edit", "9", "--priority", "low"],
        ["rm", "9"],
        ["rm", "9", "--force"],
    ],
)
def test_unknown_id_is_exit_1(cli, args):
    cli("add", "only task")
    result = cli(*args)
    assert result.code == 1
    assert result.out == ""
    assert result.err == "tasklog: error: task 9 not found\n"


@pytest.mark.requirement("R18")
@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["done"],
        ["done", "abc"],
        ["rm", "1.5"],
        ["add"],
        ["list", "--status", "closed"],
        ["add", "x", "--priority", "urgent"],
        ["list", "--bogus"],
    ],
)
def test_usage_errors_are_exit_2(cli, store_file, args):
    result = cli(*args)
    assert result.code == 2
    assert result.out == ""
    assert result.err.strip() != ""
    assert not store_file.exists()


@pytest.mark.requirement("R18")
def test_error_line_format(cli):
    result = cli("--today", "soon", "list", today=None)
    assert result.code == 2
    assert result.err == "tasklog: error: invalid date: 'soon'\n"


@pytest.mark.requirement("R18")
def test_success_writes_nothing_to_stderr(cli):
    for args in (["add", "a"], ["list"], ["done", "1"], ["stats"], ["export"], ["undo"]):
        result = cli(*args)
        assert result.code == 0
        assert result.err == ""


# --------------------------------------------------------------------------- R19


@pytest.mark.requirement("R19")
def test_help_returns_zero(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage" in out.lower()


@pytest.mark.requirement("R19")
def test_main_returns_instead_of_exiting(capsys):
    assert main([]) == 2
    assert main(["list", "--sort", "nope"]) == 2


def _run_module(args, cwd, env_extra=None):
    env = dict(os.environ)
    env.pop("TASKLOG_FILE", None)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "tasklog", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=30,
    )


@pytest.mark.requirement("R19")
def test_python_dash_m_across_processes(tmp_path):
    store = tmp_path / "tasks.json"
    first = _run_module(["--file", str(store), "add", "Ship", "it", "--due", "2026-03-01"], tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == (0, "added task 1\n", "")
    second = _run_module(["--file", str(store), "--today", "2026-03-05", "list"], tmp_path)
    assert second.returncode == 0
    assert second.stdout == "1  [!]  normal  2026-03-01  Ship it\n"


@pytest.mark.requirement("R19")
def test_python_dash_m_exit_codes(tmp_path):
    store = tmp_path / "env.json"
    missing = _run_module(["done", "4"], tmp_path, {"TASKLOG_FILE": str(store)})
    assert missing.returncode == 1
    assert missing.stderr == "tasklog: error: task 4 not found\n"
    store.write_text("garbage")
    corrupt = _run_module(["stats"], tmp_path, {"TASKLOG_FILE": str(store)})
    assert corrupt.returncode == 3
    assert corrupt.stderr == f"tasklog: error: corrupt storage file: {store}\n"
