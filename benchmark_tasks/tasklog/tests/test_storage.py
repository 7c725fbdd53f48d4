"""Storage location, file format, atomic writes and corrupt files (R1-R4)."""

from __future__ import annotations

import json
import os
from datetime import date

import pytest

from tasklog import StorageError, Task, TaskStore
from tasklog.cli import main


# --------------------------------------------------------------------------- R1


@pytest.mark.requirement("R1")
def test_file_option_wins_over_environment(tmp_path, monkeypatch, capsys):
    env_file = tmp_path / "env.json"
    opt_file = tmp_path / "opt.json"
    monkeypatch.setenv("TASKLOG_FILE", str(env_file))
    assert main(["--file", str(opt_file), "add", "T"]) == 0
    assert opt_file.exists()
    assert not env_file.exists()


@pytest.mark.requirement("R1")
def test_environment_variable_used_without_file_option(tmp_path, monkeypatch, capsys):
    env_file = tmp_path / "env.json"
    monkeypatch.setenv("TASKLOG_FILE", str(env_file))
    monkeypatch.chdir(tmp_path)
    assert main(["add", "From env"]) == 0
    assert env_file.exists()
    assert not (tmp_path / "tasklog.json").exists()
    assert json.loads(env_file.read_text())["tasks"][0]["title"] == "From env"


@pytest.mark.requirement("R1")
def test_default_file_in_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TASKLOG_FILE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["add", "Default"]) == 0
    assert (tmp_path / "tasklog.json").exists()
    capsys.readouterr()
    assert main(["--today", "2026-03-10", "list"]) == 0
    assert "Default" in capsys.readouterr().out


@pytest.mark.requirement("R1")
def test_empty_environment_variable_falls_back_to_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TASKLOG_FILE", "")
    monkeypatch.chdir(tmp_path)
    assert main(["add", "X"]) == 0
    assert (tmp_path / "tasklog.json").exists()


# --------------------------------------------------------------------------- R2


@pytest.mark.requirement("R2")
def test_list_on_missing_file_does_not_create_it(cli, store_file):
    result = cli("list")
    assert result.code == 0
    assert result.out == "no tasks\n"
    assert not store_file.exists()


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["stats"], "total: 0\nopen: 0\ndone: 0\noverdue: 0\nhigh: 0\nnormal: 0\nlow: 0\n"),
        (["export"], "[]\n"),
    ],
)
def test_read_only_commands_on_missing_file(cli, store_file, args, expected):
    result = cli(*args)
    assert (result.code, result.out) == (0, expected)
    assert not store_file.exists()


@pytest.mark.requirement("R2")
def test_failed_command_does_not_create_file(cli, store_file):
    result = cli("done", "1")
    assert result.code == 1
    assert not store_file.exists()


@pytest.mark.requirement("R2")
def test_file_contents_after_first_add(cli, read_store):
    assert cli("add", "Buy", "milk", "--tag", "Home").code == 0
    data = read_store()
    assert data["version"] == 1
    assert data["next_id"] == 2
    assert data["tasks"] == [
        {"id": 1, "title": "Buy milk", "status": "open", "priority": "normal", "due": None, "tags": ["home"]}
    ]


@pytest.mark.requirement("R2")
def test_handwritten_file_without_undo_key_is_read(cli, store_file):
    store_file.write_text(json.dumps({
        "version": 1,
        "next_id": 6,
        "tasks": [
            {"id": 5, "title": "Imported by hand", "status": "open", "priority": "high",
             "due": "2026-04-01", "tags": ["x"]},
        ],
    }))
    result = cli("list")
    assert result.code == 0
    assert result.out == "5  [ ]  high    2026-04-01  Imported by hand  #x\n"
    assert cli("add", "Next").out == "added task 6\n"


@pytest.mark.requirement("R2")
def test_second_store_instance_sees_changes(store_file):
    first = TaskStore(store_file)
    assert first.all() == []
    assert first.next_id == 1
    first.add("Alpha", due=date(2026, 5, 1))
    second = TaskStore(store_file)
    assert second.all() == [Task(1, "Alpha", "open", "normal", date(2026, 5, 1), ())]
    assert second.next_id == 2


@pytest.mark.requirement("R2")
def test_store_constructor_does_not_create_file(store_file):
    store = TaskStore(store_file)
    store.select(status="all")
    store.stats(date(2026, 1, 1))
    assert not store_file.exists()
    assert store.path == store_file


# --------------------------------------------------------------------------- R3


@pytest.mark.requirement("R3")
def test_no_temporary_files_left_behind(cli, store_file):
    cli("add", "One")
    cli("add", "Two", "--due", "2026-03-01")
    cli("done", "1")
    cli("edit", "2", "--priority", "high")
    cli("rm", "1")
    cli("rm", "2")  # refused: open
    cli("undo")
    cli("done", "99")  # fails
    assert sorted(os.listdir(store_file.parent)) == [store_file.name]


@pytest.mark.requirement("R3")
def test_file_is_replaced_not_rewritten_in_place(cli, store_file, tmp_path):
    cli("add", "Original")
    before = store_file.read_bytes()
    link = tmp_path / "hardlink.json"
    os.link(store_file, link)
    assert cli("add", "Second").code == 0
    assert link.read_bytes() == before
    assert store_file.read_bytes() != before
    assert len(json.loads(store_file.read_text())["tasks"]) == 2


@pytest.mark.requirement("R3")
def test_api_writes_are_atomic_and_complete(store_file, tmp_path):
    store = TaskStore(store_file)
    store.add("A")
    link = tmp_path / "snapshot.json"
    os.link(store_file, link)
    snapshot = link.read_text()
    store.add("B", tags=["t"])
    store.mark_done(1)
    assert link.read_text() == snapshot
    assert [t["title"] for t in json.loads(store_file.read_text())["tasks"]] == ["A", "B"]
    assert os.listdir(store_file.parent) == [store_file.name]


# --------------------------------------------------------------------------- R4

GOOD_TASK = {"id": 1, "title": "A", "status": "open", "priority": "normal", "due": None, "tags": []}

CORRUPT_CONTENTS = [
    "",
    "this is not json",
    "[]",
    json.dumps({"version": 2, "next_id": 2, "tasks": [GOOD_TASK]}),
    json.dumps({"version": 1, "next_id": 2}),
    json.dumps({"version": 1, "next_id": 2, "tasks": [{**GOOD_TASK, "status": "closed"}]}),
    json.dumps({"version": 1, "next_id": 2, "tasks": [{**GOOD_TASK, "due": "2026-02-30"}]}),
    json.dumps({"version": 1, "next_id": 2, "tasks": [{k: v for k, v in GOOD_TASK.items() if k != "title"}]}),
    json.dumps({"version": 1, "next_id": 3, "tasks": [GOOD_TASK, {**GOOD_TASK, "title": "B"}]}),
    json.dumps({"version": 1, "next_id": 1, "tasks": [GOOD_TASK]}),
    json.dumps({"version": 1, "next_id": 2, "tasks": [GOOD_TASK], "undo": "oops"}),
]


@pytest.mark.requirement("R4")
@pytest.mark.parametrize("content", CORRUPT_CONTENTS)
def test_corrupt_file_exit_code_and_message(cli, store_file, content):
    store_file.write_text(content)
    result = cli("list")
    assert result.code == 3
    assert result.out == ""
    assert result.err.strip().splitlines()[-1] == f"tasklog: error: corrupt storage file: {store_file}"
    assert store_file.read_text() == content


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "args",
    [["add", "New"], ["done", "1"], ["stats"], ["export", "--format", "csv"], ["undo"], ["rm", "1", "--force"]],
)
def test_every_command_rejects_corrupt_file(cli, store_file, args):
    content = '{"version": 1, "next_id": 2, "tasks": [{"id": 1}]}'
    store_file.write_text(content)
    result = cli(*args)
    assert result.code == 3
    assert "corrupt storage file" in result.err
    assert store_file.read_text() == content


@pytest.mark.requirement("R4")
def test_store_constructor_raises_storage_error(store_file):
    store_file.write_text("{broken")
    with pytest.raises(StorageError) as info:
        TaskStore(store_file)
    assert str(info.value) == f"corrupt storage file: {store_file}"
    assert info.value.path == str(store_file)
