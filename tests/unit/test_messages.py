"""The command-line tools' messages name the user's mistake, without tracebacks or temp folders."""

from __future__ import annotations

import pytest

from pytest_e2ebench.cli import main as e2ebench
from pytest_e2ebench.tools import selfcheck


def test_selfcheck_of_a_missing_folder_names_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        selfcheck.main([str(tmp_path / "nowhere")])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(
        f"error: {tmp_path / 'nowhere'}: no such folder; name a task folder or a folder of tasks"
    )
    assert "e2ebench-selfcheck-" not in err


def test_selfcheck_of_an_invalid_task_prints_its_problems_without_a_traceback(tmp_path, capsys):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "task.toml").write_text("id = 3\n")
    assert selfcheck.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"invalid benchmark task {tmp_path / 'x'}:\n  - x/task.toml: field 'id'")
    assert "Traceback" not in err


def test_e2edev_import_says_when_its_source_folder_is_missing(tmp_path, capsys):
    assert (
        e2ebench(
            ["import", "e2edev", "--no-gate", str(tmp_path / "nowhere"), str(tmp_path / "out")]
        )
        == 1
    )
    assert capsys.readouterr().err == (
        f"e2ebench: {tmp_path / 'nowhere'}: no such folder; give the folder of an E2EDev "
        "checkout (its projects hold requirment_with_tests.json)\n"
    )
