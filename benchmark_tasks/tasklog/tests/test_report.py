"""Statistics and export (R14-R15)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date

import pytest

from tasklog import TaskStore


@pytest.fixture
def mixed(store_file) -> TaskStore:
    store = TaskStore(store_file)
    store.add("Pay rent, March", due=date(2026, 3, 1), priority="high", tags=["home", "bills"])
    store.add("Read book")
    store.add("Due today", due=date(2026, 3, 10), priority="low")
    store.add("Finished", due=date(2026, 1, 1), priority="high")
    store.add("Say \"hi\"", priority="low", tags=["social"])
    store.mark_done(4)
    return store


# --------------------------------------------------------------------------- R14


@pytest.mark.requirement("R14")
def test_stats_output(cli, mixed):
    result = cli("stats")
    assert result.code == 0
    assert result.out == "total: 5\nopen: 4\ndone: 1\noverdue: 1\nhigh: 1\nnormal: 1\nlow: 2\n"


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(("today", "overdue"), [("2026-03-01", 0), ("2026-03-10", 1), ("2026-03-11", 2)])
def test_stats_overdue_depends_on_today(cli, mixed, today, overdue):
    assert f"\noverdue: {overdue}\n" in cli("stats", today=today).out


@pytest.mark.requirement("R14")
def test_stats_api(mixed):
    counts = mixed.stats(date(2026, 3, 11))
    assert list(counts) == ["total", "open", "done", "overdue", "high", "normal", "low"]
    assert counts == {"total": 5, "open": 4, "done": 1, "overdue": 2, "high": 1, "normal": 1, "low": 2}


@pytest.mark.requirement("R14")
def test_stats_after_everything_done(cli, store_file):
    store = TaskStore(store_file)
    store.add("a", priority="high", due=date(2020, 1, 1))
    store.mark_done(1)
    assert cli("stats").out == "total: 1\nopen: 0\ndone: 1\noverdue: 0\nhigh: 0\nnormal: 0\nlow: 0\n"


# --------------------------------------------------------------------------- R15


@pytest.mark.requirement("R15")
def test_export_json_exact(cli, mixed):
    result = cli("export", "--format", "json")
    assert result.code == 0
    expected = [t.to_dict() for t in mixed.all()]
    assert result.out == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    data = json.loads(result.out)
    assert data[0] == {
        "id": 1, "title": "Pay rent, March", "status": "open", "priority": "high",
        "due": "2026-03-01", "tags": ["bills", "home"],
    }
    assert [item["id"] for item in data] == [1, 2, 3, 4, 5]
    assert data[3]["status"] == "done"


@pytest.mark.requirement("R15")
def test_export_default_format_is_json(cli, mixed):
    assert cli("export").out == cli("export", "--format", "json").out


@pytest.mark.requirement("R15")
def test_export_csv_exact(cli, mixed):
    result = cli("export", "--format", "csv")
    assert result.code == 0
    assert result.out == (
        "id,title,status,priority,due,tags\n"
        '1,"Pay rent, March",open,high,2026-03-01,bills;home\n'
        "2,Read book,open,normal,,\n"
        "3,Due today,open,low,2026-03-10,\n"
        "4,Finished,done,high,2026-01-01,\n"
        '5,"Say ""hi""",open,low,,social\n'
    )
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert rows[4]["title"] == 'Say "hi"'


@pytest.mark.requirement("R15")
def test_export_csv_empty_store(cli):
    assert cli("export", "--format", "csv").out == "id,title,status,priority,due,tags\n"


@pytest.mark.requirement("R15")
def test_export_invalid_format(cli, mixed):
    assert cli("export", "--format", "xml").code == 2


@pytest.mark.requirement("R15")
def test_task_to_dict_key_order(mixed):
    assert list(mixed.get(1).to_dict()) == ["id", "title", "status", "priority", "due", "tags"]
