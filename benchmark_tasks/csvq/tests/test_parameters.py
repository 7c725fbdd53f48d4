"""The tool as its parameter values say it runs (ProjectEval's PV, docs/projecteval.md)."""

import subprocess
import sys

import pytest


@pytest.mark.requirement("R21")
def test_entry_module_and_select_option(tmp_path, pv):
    data = tmp_path / "people.csv"
    data.write_text("name,age\nAnn,31\nBob,5\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", pv("entry_module"), pv("select_option"), "name", str(data)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["name", "Ann", "Bob"]
