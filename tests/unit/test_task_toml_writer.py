"""task.toml written by the importers through one TOML writer (importers.write_task_toml).

A peer dataset is hostile input: a title with a backslash, a quote, a newline or a control
character used to produce an invalid task.toml (E2EDev's, written with f-strings). Here the
writer on its own, then two importers end to end on such titles, read back by the task loader.
"""

from __future__ import annotations

import datetime as dt
import json
import tomllib

import pytest

from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.importers import write_task_toml

HOSTILE = {
    "backslash": "C:\\new\\table and \\u0041 escapes",
    "quotes": 'The "best" app\'s \'"""\' title',
    "newlines": "first line\nsecond line\r\nthird = 3\n[tests]",
    "unicode": "Übersicht — 計算機 🧮 \u200b zero-width",
    "control": "bell\x07 tab\t nul-free \x1f end",
    "toml-looking": 'x"\ntimeout = 1\n[app]\nlaunch = "evil',
}


@pytest.mark.parametrize("title", HOSTILE.values(), ids=list(HOSTILE))
def test_a_hostile_title_round_trips(tmp_path, title):
    meta = {
        "id": "t",
        "title": title,
        "kind": "library",
        "created": dt.date(2025, 1, 2),
        "tests": {"path": "tests", "requires": [title], "requirements": {"R1": ["tests/*"]}},
    }
    path = write_task_toml(tmp_path, meta)
    assert tomllib.loads(path.read_text(encoding="utf-8")) == meta


def test_e2edev_import_keeps_a_hostile_overview_as_the_title(tmp_path):
    """importers/e2edev.py wrote ``title = "{title}"``: a backslash made the file invalid."""
    from helpers.e2edev_sample import write_sample

    from pytest_e2ebench.tools.importers.e2edev import import_all

    src = write_sample(tmp_path / "src")
    data_file = src / "Counter_01" / "requirment_with_tests.json"
    data = json.loads(data_file.read_text())
    data["summary"]["overview"] = 'A "C:\\counter" app \u00e9. It counts.'
    data_file.write_text(json.dumps(data))
    reports = import_all(src, tmp_path / "tasks", dt.date(2025, 1, 2), vendoring=False)
    [done] = [r for r in reports if r.task and "counter" in r.task.lower()]
    task = load_task(tmp_path / "tasks" / done.task)
    assert task.title == 'A "C:\\counter" app \u00e9.'


def test_realdevbench_import_of_hostile_labels(tmp_path):
    from pytest_e2ebench.cli import main

    labels = [HOSTILE["backslash"], HOSTILE["quotes"], HOSTILE["unicode"]]
    src = tmp_path / "RealDevBench"
    src.mkdir()
    lines = [
        json.dumps({"label": label, "scenario": "Display", "features": ["Grid: show cards."]})
        for label in labels
    ]
    (src / "test_dataset.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "tasks"
    assert main(["import", "realdevbench", str(src), str(out), "--created", "2025-08-01"]) == 0
    titles = sorted(load_task(folder).title for folder in out.iterdir() if folder.is_dir())
    assert titles == sorted(labels)
