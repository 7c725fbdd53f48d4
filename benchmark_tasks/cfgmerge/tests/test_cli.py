"""Command-line syntax, usage errors and the python -m entry point (R20)."""

import os
import subprocess
import sys

import pytest

from cfgmerge.cli import main

pytestmark = pytest.mark.requirement("R20")


@pytest.fixture
def conf(write):
    return write("conf.toml", '[db]\nhost = "h"\nport = 5432\n')


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate", "x.json"],
        ["dump"],
        ["get", "db.port"],
        ["dump", "--bogus", "CONF"],
        ["dump", "--format", "yaml", "CONF"],
        ["validate", "CONF"],
        ["diff", "CONF"],
        ["diff", "CONF", "CONF", "CONF"],
        ["diff", "--format", "json", "CONF", "CONF"],
        ["get", "--format", "json", "db", "CONF"],
    ],
)
def test_usage_errors(cli, conf, argv):
    result = cli(*[conf if arg == "CONF" else arg for arg in argv])
    assert result.code == 2
    assert result.out == ""
    assert result.err != ""


@pytest.mark.parametrize("argv", [["--help"], ["dump", "--help"], ["diff", "-h"]])
def test_help(cli, argv):
    result = cli(*argv)
    assert result.code == 0
    assert "usage" in result.out.lower()
    assert result.err == ""


def test_options_before_and_after_positionals(cli, conf):
    env = {"SVC__DB__PORT": "1"}
    first = cli("get", "--env-prefix", "SVC", "db.port", conf, env=env)
    second = cli("get", "db.port", conf, "--env-prefix=SVC", env=env)
    assert (first.code, first.out) == (0, "1\n")
    assert (second.code, second.out) == (0, "1\n")


def test_main_uses_os_environ_by_default(conf, monkeypatch, capsys):
    monkeypatch.setenv("APP__DB__HOST", "from-os")
    assert main(["get", "db.host", conf]) == 0
    assert capsys.readouterr().out == "from-os\n"


def test_python_m_uses_process_environment(conf):
    env = dict(os.environ, APP__DB__PORT="7777")
    proc = subprocess.run(
        [sys.executable, "-m", "cfgmerge", "get", "db.port", conf],
        capture_output=True,
        text=True,
        env=env,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "7777\n", "")


def test_python_m_exit_status_for_missing_file(tmp_path):
    missing = str(tmp_path / "missing.json")
    proc = subprocess.run(
        [sys.executable, "-m", "cfgmerge", "dump", missing],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr == f"cfgmerge: error: {missing}: cannot read file\n"
