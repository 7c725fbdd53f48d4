"""The tool as its parameter values say it runs (ProjectEval's PV, docs/projecteval.md)."""

import subprocess
import sys

import pytest


@pytest.mark.requirement("R20")
def test_entry_module_and_add_command(tmp_path, pv):
    store = tmp_path / "tasks.json"

    def run(*args):
        command = [sys.executable, "-m", pv("entry_module"), "--file", str(store), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    added = run(pv("add_command"), "Buy", "milk")
    assert added.returncode == 0, added.stderr
    listed = run("list")
    assert listed.returncode == 0, listed.stderr
    assert "Buy milk" in listed.stdout
