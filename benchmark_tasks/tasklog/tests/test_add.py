"""Adding tasks, field validation and id assignment (R5-R7)."""

from __future__ import annotations

from datetime import date

import pytest

from tasklog import Task, TaskStore, ValidationError


# --------------------------------------------------------------------------- R5


@pytest.mark.requirement("R5")
def test_add_prints_id_and_stores_defaults(cli, read_store):
    result = cli("add", "Water plants")
    assert (result.code, result.out, result.err) == (0, "added task 1\n", "")
    assert read_store()["tasks"][0] == {
        "id": 1, "title": "Water plants", "status": "open", "priority": "normal", "due": None, "tags": []
    }


@pytest.mark.requirement("R5")
def test_add_with_all_options(cli, read_store):
    result = cli("add", "  Pay rent ", "--due", "2026-03-01", "--priority", "high", "--tag", "Home", "--tag", "bills")
    assert result.out == "added task 1\n"
    assert read_store()["tasks"][0] == {
        "id": 1, "title": "Pay rent", "status": "open", "priority": "high", "due": "2026-03-01",
        "tags": ["bills", "home"],
    }


@pytest.mark.requirement("R5")
def test_add_joins_title_words(cli, store_file):
    cli("add", "Buy", "oat", "milk")
    assert TaskStore(store_file).get(1).title == "Buy oat milk"


@pytest.mark.requirement("R5")
def test_api_add_returns_task(store_file):
    store = TaskStore(store_file)
    task = store.add("Pay rent", due=date(2026, 3, 1), priority="high", tags=["Home", "bills", "home"])
    assert task == Task(1, "Pay rent", "open", "high", date(2026, 3, 1), ("bills", "home"))
    assert store.get(1) == task
    low = store.add("Later", priority="low")
    assert (low.id, low.priority, low.due, low.tags, low.status) == (2, "low", None, (), "open")


# --------------------------------------------------------------------------- R6


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("bad", ["2026-3-1", "20260301", "2026-02-30", "2026-13-01", "tomorrow", "2026-03-01x"])
def test_invalid_due_date_rejected(cli, store_file, bad):
    result = cli("add", "X", "--due", bad)
    assert result.code == 2
    assert result.out == ""
    assert result.err.strip().splitlines()[-1] == f"tasklog: error: invalid date: '{bad}'"
    assert not store_file.exists()


@pytest.mark.requirement("R6")
def test_leap_day_is_a_valid_date(cli, store_file):
    assert cli("add", "Leap", "--due", "2028-02-29").code == 0
    assert TaskStore(store_file).get(1).due == date(2028, 2, 29)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("args", [["--today", "2026-3-10", "list"], ["list", "--due-before", "20260310"]])
def test_invalid_dates_in_other_options(cli, args):
    result = cli(*args, today=None)
    assert result.code == 2
    assert "invalid date: '" in result.err


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("bad", ["a b", "_x", "x,y", ""])
def test_invalid_tag_rejected(cli, store_file, bad):
    result = cli("add", "X", "--tag", bad)
    assert result.code == 2
    assert result.err.strip().splitlines()[-1] == f"tasklog: error: invalid tag: {bad!r}"
    assert not store_file.exists()


@pytest.mark.requirement("R6")
@pytest.mark.parametrize("title", ["", "   "])
def test_empty_title_rejected(cli, store_file, title):
    result = cli("add", title)
    assert result.code == 2
    assert result.err.strip().splitlines()[-1] == "tasklog: error: title must not be empty"
    assert not store_file.exists()


@pytest.mark.requirement("R6")
def test_invalid_priority_is_usage_error(cli, store_file):
    assert cli("add", "X", "--priority", "urgent").code == 2
    assert not store_file.exists()


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"title": "  "}, "title must not be empty"),
        ({"title": "ok", "priority": "urgent"}, "invalid priority"),
        ({"title": "ok", "tags": ["Fine", "not ok"]}, "invalid tag: 'not ok'"),
        ({"title": "ok", "tags": ["-x"]}, "invalid tag: '-x'"),
    ],
)
def test_api_validation_errors(store_file, kwargs, fragment):
    store = TaskStore(store_file)
    title = kwargs.pop("title")
    with pytest.raises(ValidationError, match=fragment):
        store.add(title, **kwargs)
    assert store.all() == []
    assert not store_file.exists()


@pytest.mark.requirement("R6")
def test_validation_error_is_value_error():
    assert issubclass(ValidationError, ValueError)


# --------------------------------------------------------------------------- R7


@pytest.mark.requirement("R7")
def test_ids_are_sequential(cli):
    outputs = [cli("add", f"Task {n}").out for n in range(1, 5)]
    assert outputs == [f"added task {n}\n" for n in range(1, 5)]


@pytest.mark.requirement("R7")
def test_id_of_removed_task_is_not_reused(cli, read_store):
    cli("add", "one")
    cli("add", "two")
    assert cli("rm", "2", "--force").code == 0
    assert cli("add", "three").out == "added task 3\n"
    assert read_store()["next_id"] == 4


@pytest.mark.requirement("R7")
def test_id_of_undone_add_is_not_reused(cli):
    cli("add", "one")
    assert cli("undo").code == 0
    assert cli("add", "again").out == "added task 2\n"


@pytest.mark.requirement("R7")
def test_api_next_id_survives_reload(store_file):
    store = TaskStore(store_file)
    for title in ("a", "b", "c"):
        store.add(title)
    store.remove(3, force=True)
    store.remove(2, force=True)
    reloaded = TaskStore(store_file)
    assert reloaded.next_id == 4
    assert reloaded.add("d").id == 4
