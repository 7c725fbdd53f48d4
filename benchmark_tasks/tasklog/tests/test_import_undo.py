"""Import/merge and undo (R16-R17)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from tasklog import ImportResult, NothingToUndoError, Task, TaskStore, ValidationError


@pytest.fixture
def write_json(tmp_path):
    def write(data, name="import.json"):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    return write


@pytest.fixture
def ab_store(store_file) -> TaskStore:
    store = TaskStore(store_file)
    store.add("A")
    store.add("B")
    return store


# --------------------------------------------------------------------------- R16


@pytest.mark.requirement("R16")
def test_import_merge_example(cli, ab_store, write_json, store_file):
    source = write_json([{"id": 1, "title": "A"}, {"id": 2, "title": "C"}, {"id": 7, "title": "D"}, {"title": "E"}])
    result = cli("import", str(source))
    assert (result.code, result.out, result.err) == (0, "imported: 3, skipped: 1, renumbered: 1\n", "")
    store = TaskStore(store_file)
    assert [(t.id, t.title) for t in store.all()] == [(1, "A"), (2, "B"), (3, "C"), (7, "D"), (8, "E")]
    assert cli("add", "F").out == "added task 9\n"


@pytest.mark.requirement("R16")
def test_import_fills_defaults_and_keeps_fields(ab_store, write_json, cli, store_file):
    source = write_json([
        {"title": "Plain"},
        {"id": 50, "title": "Full", "status": "done", "priority": "high", "due": "2026-06-30",
         "tags": ["Work", "x"], "extra": "ignored"},
    ])
    assert cli("import", str(source)).code == 0
    store = TaskStore(store_file)
    assert store.get(3) == Task(3, "Plain", "open", "normal", None, ())
    assert store.get(50) == Task(50, "Full", "done", "high", date(2026, 6, 30), ("work", "x"))


@pytest.mark.requirement("R16")
def test_duplicates_compare_title_and_due(store_file):
    store = TaskStore(store_file)
    store.add("Dentist", due=date(2026, 5, 1))
    result = store.import_tasks([
        {"title": "Dentist", "due": "2026-05-01", "priority": "high"},
        {"title": "Dentist", "due": "2026-06-01"},
        {"title": "Dentist"},
        {"title": "Dentist"},
        {"title": "dentist", "due": "2026-05-01"},
    ])
    assert result == ImportResult(imported=3, skipped=2, renumbered=0)
    assert [(t.id, t.title, t.due) for t in store.all()] == [
        (1, "Dentist", date(2026, 5, 1)),
        (2, "Dentist", date(2026, 6, 1)),
        (3, "Dentist", None),
        (4, "dentist", date(2026, 5, 1)),
    ]


@pytest.mark.requirement("R16")
def test_ids_of_removed_tasks_are_renumbered(store_file):
    store = TaskStore(store_file)
    for title in ("a", "b", "c"):
        store.add(title)
    store.remove(3, force=True)
    result = store.import_tasks([{"id": 3, "title": "new c"}, {"id": 9, "title": "d"}, {"id": 9, "title": "e"}])
    assert result == ImportResult(imported=3, skipped=0, renumbered=2)
    assert [(t.id, t.title) for t in store.all()] == [(1, "a"), (2, "b"), (4, "new c"), (9, "d"), (10, "e")]
    assert store.next_id == 11


@pytest.mark.requirement("R16")
def test_export_then_import_roundtrip(cli, tmp_path, store_file):
    cli("add", "One", "--due", "2026-02-02", "--tag", "t")
    cli("add", "Two", "--priority", "low")
    cli("done", "2")
    exported = cli("export").out
    source = tmp_path / "export.json"
    source.write_text(exported)
    other = tmp_path / "other.json"
    result = cli("import", str(source), file=other)
    assert result.out == "imported: 2, skipped: 0, renumbered: 0\n"
    assert TaskStore(other).all() == TaskStore(store_file).all()
    assert cli("import", str(source), file=other).out == "imported: 0, skipped: 2, renumbered: 0\n"


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"title": "not a list"}),
        json.dumps([{"title": "ok"}, {"priority": "high"}]),
        json.dumps([{"title": "ok"}, {"title": "bad", "due": "2026-02-30"}]),
        json.dumps([{"title": "ok"}, {"title": "bad", "id": 0}]),
        json.dumps([{"title": "ok"}, {"title": "bad", "status": "later"}]),
        json.dumps([{"title": "ok"}, "just a string"]),
    ],
)
def test_invalid_import_file_changes_nothing(cli, ab_store, write_json, store_file, content):
    source = write_json(content)
    before = store_file.read_bytes()
    result = cli("import", str(source))
    assert result.code == 3
    assert result.out == ""
    assert result.err.startswith(f"tasklog: error: invalid import file: {source}")
    assert store_file.read_bytes() == before


@pytest.mark.requirement("R16")
def test_missing_import_file(cli, ab_store, tmp_path):
    missing = tmp_path / "nope.json"
    result = cli("import", str(missing))
    assert result.code == 1
    assert result.err == f"tasklog: error: file not found: {missing}\n"


@pytest.mark.requirement("R16")
def test_api_import_rejects_invalid_records(ab_store):
    with pytest.raises(ValidationError):
        ab_store.import_tasks([{"title": "fine"}, {"title": ""}])
    assert [t.title for t in ab_store.all()] == ["A", "B"]
    assert ab_store.next_id == 3


# --------------------------------------------------------------------------- R17


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["add", "C"], "add"),
        (["done", "1"], "done"),
        (["edit", "2", "--title", "Bee", "--add-tag", "x"], "edit"),
        (["rm", "2", "--force"], "rm"),
    ],
)
def test_undo_restores_previous_tasks(cli, ab_store, store_file, args, name):
    before = TaskStore(store_file).all()
    assert cli(*args).code == 0
    result = cli("undo")
    assert (result.code, result.out) == (0, f"undid {name}\n")
    assert TaskStore(store_file).all() == before


@pytest.mark.requirement("R17")
def test_undo_reopen_and_import(cli, ab_store, store_file, write_json):
    cli("done", "1")
    cli("reopen", "1")
    assert cli("undo").out == "undid reopen\n"
    assert TaskStore(store_file).get(1).status == "done"
    source = write_json([{"title": "X"}, {"id": 20, "title": "Y"}])
    cli("import", str(source))
    assert cli("undo").out == "undid import\n"
    store = TaskStore(store_file)
    assert [t.title for t in store.all()] == ["A", "B"]
    assert store.next_id == 21


@pytest.mark.requirement("R17")
def test_only_one_level_of_undo(cli, ab_store, store_file):
    cli("add", "C")
    cli("add", "D")
    assert cli("undo").out == "undid add\n"
    assert [t.title for t in TaskStore(store_file).all()] == ["A", "B", "C"]
    result = cli("undo")
    assert (result.code, result.out, result.err) == (1, "", "tasklog: error: nothing to undo\n")
    assert [t.title for t in TaskStore(store_file).all()] == ["A", "B", "C"]


@pytest.mark.requirement("R17")
def test_undo_on_new_store(cli, store_file):
    result = cli("undo")
    assert (result.code, result.err) == (1, "tasklog: error: nothing to undo\n")
    assert not store_file.exists()


@pytest.mark.requirement("R17")
def test_failed_and_read_only_commands_keep_undo_slot(cli, ab_store):
    cli("done", "2")
    cli("list")
    cli("stats")
    cli("export")
    cli("done", "9")
    cli("rm", "1")
    cli("edit", "1")
    assert cli("undo").out == "undid done\n"


@pytest.mark.requirement("R17")
def test_api_undo(store_file):
    store = TaskStore(store_file)
    assert store.undo_command is None
    with pytest.raises(NothingToUndoError, match="nothing to undo"):
        store.undo()
    store.add("x")
    store.edit(1, priority="high")
    assert store.undo_command == "edit"
    assert TaskStore(store_file).undo_command == "edit"
    assert store.undo() == "edit"
    assert store.get(1).priority == "normal"
    assert store.undo_command is None
    assert TaskStore(store_file).get(1).priority == "normal"
