"""done / reopen, edit and rm (R11-R13)."""

from __future__ import annotations

from datetime import date

import pytest

from tasklog import OpenTaskError, Task, TaskNotFoundError, TaskStore, ValidationError


@pytest.fixture
def two_tasks(store_file) -> TaskStore:
    store = TaskStore(store_file)
    store.add("First", due=date(2026, 3, 1), tags=["home"])
    store.add("Second", priority="high")
    return store


# --------------------------------------------------------------------------- R11


@pytest.mark.requirement("R11")
def test_done_and_reopen(cli, two_tasks, store_file):
    result = cli("done", "1")
    assert (result.code, result.out) == (0, "completed task 1\n")
    assert TaskStore(store_file).get(1).status == "done"
    result = cli("reopen", "1")
    assert (result.code, result.out) == (0, "reopened task 1\n")
    assert TaskStore(store_file).get(1).status == "open"


@pytest.mark.requirement("R11")
def test_done_twice_is_a_noop(cli, two_tasks, store_file):
    cli("done", "2")
    before = store_file.read_bytes()
    result = cli("done", "2")
    assert (result.code, result.out, result.err) == (0, "task 2 is already done\n", "")
    assert store_file.read_bytes() == before


@pytest.mark.requirement("R11")
def test_reopen_open_task_is_a_noop_and_keeps_undo(cli, two_tasks, store_file):
    cli("done", "1")
    before = store_file.read_bytes()
    result = cli("reopen", "2")
    assert (result.code, result.out) == (0, "task 2 is already open\n")
    assert store_file.read_bytes() == before
    assert cli("undo").out == "undid done\n"


@pytest.mark.requirement("R11")
@pytest.mark.parametrize("command", ["done", "reopen"])
def test_status_change_of_unknown_task(cli, two_tasks, command):
    result = cli(command, "3")
    assert result.code == 1
    assert result.out == ""
    assert result.err == "tasklog: error: task 3 not found\n"


@pytest.mark.requirement("R11")
def test_api_status_changes(two_tasks):
    assert two_tasks.mark_done(1) is True
    assert two_tasks.mark_done(1) is False
    assert two_tasks.reopen(1) is True
    assert two_tasks.reopen(1) is False
    with pytest.raises(TaskNotFoundError) as info:
        two_tasks.mark_done(42)
    assert info.value.task_id == 42
    assert str(info.value) == "task 42 not found"


# --------------------------------------------------------------------------- R12


@pytest.mark.requirement("R12")
def test_edit_changes_only_given_fields(cli, two_tasks, store_file):
    result = cli("edit", "1", "--title", "First, renamed", "--priority", "low")
    assert (result.code, result.out) == (0, "updated task 1\n")
    assert TaskStore(store_file).get(1) == Task(1, "First, renamed", "open", "low", date(2026, 3, 1), ("home",))


@pytest.mark.requirement("R12")
def test_edit_due_date_and_clear_it(cli, two_tasks, store_file):
    assert cli("edit", "2", "--due", "2026-07-04").code == 0
    assert TaskStore(store_file).get(2).due == date(2026, 7, 4)
    assert cli("edit", "2", "--no-due").code == 0
    assert TaskStore(store_file).get(2).due is None


@pytest.mark.requirement("R12")
def test_edit_tags(cli, two_tasks, store_file):
    result = cli("edit", "1", "--add-tag", "Work", "--add-tag", "alpha", "--remove-tag", "HOME", "--remove-tag", "absent")
    assert result.code == 0
    assert TaskStore(store_file).get(1).tags == ("alpha", "work")


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["edit", "1"], "tasklog: error: nothing to edit"),
        (["edit", "99"], "tasklog: error: nothing to edit"),
        (["edit", "1", "--title", " "], "tasklog: error: title must not be empty"),
        (["edit", "1", "--due", "2026-04-31"], "tasklog: error: invalid date: '2026-04-31'"),
        (["edit", "1", "--add-tag", "bad tag"], "tasklog: error: invalid tag: 'bad tag'"),
    ],
)
def test_edit_usage_errors(cli, two_tasks, store_file, args, message):
    before = store_file.read_bytes()
    result = cli(*args)
    assert result.code == 2
    assert result.err.strip().splitlines()[-1] == message
    assert store_file.read_bytes() == before


@pytest.mark.requirement("R12")
def test_edit_due_and_no_due_conflict(cli, two_tasks):
    assert cli("edit", "1", "--due", "2026-01-01", "--no-due").code == 2


@pytest.mark.requirement("R12")
def test_edit_unknown_task(cli, two_tasks):
    result = cli("edit", "7", "--title", "x")
    assert (result.code, result.err) == (1, "tasklog: error: task 7 not found\n")


@pytest.mark.requirement("R12")
def test_api_edit(two_tasks):
    updated = two_tasks.edit(2, due=date(2026, 1, 2), add_tags=["B", "a"])
    assert updated == Task(2, "Second", "open", "high", date(2026, 1, 2), ("a", "b"))
    assert two_tasks.get(2) == updated
    assert two_tasks.edit(2, clear_due=True, remove_tags=["a"]).due is None
    with pytest.raises(ValidationError, match="nothing to edit"):
        two_tasks.edit(2)
    with pytest.raises(ValidationError):
        two_tasks.edit(2, due=date(2026, 1, 1), clear_due=True)


# --------------------------------------------------------------------------- R13


@pytest.mark.requirement("R13")
def test_remove_done_task(cli, two_tasks, store_file):
    cli("done", "1")
    result = cli("rm", "1")
    assert (result.code, result.out) == (0, "removed task 1\n")
    assert [t.id for t in TaskStore(store_file).all()] == [2]


@pytest.mark.requirement("R13")
def test_remove_open_task_requires_force(cli, two_tasks, store_file):
    before = store_file.read_bytes()
    result = cli("rm", "2")
    assert result.code == 1
    assert result.out == ""
    assert result.err == "tasklog: error: task 2 is open; use --force to remove it\n"
    assert store_file.read_bytes() == before
    result = cli("rm", "2", "--force")
    assert (result.code, result.out) == (0, "removed task 2\n")
    assert [t.id for t in TaskStore(store_file).all()] == [1]


@pytest.mark.requirement("R13")
def test_remove_unknown_task(cli, two_tasks):
    result = cli("rm", "5", "--force")
    assert (result.code, result.err) == (1, "tasklog: error: task 5 not found\n")


@pytest.mark.requirement("R13")
def test_api_remove(two_tasks):
    with pytest.raises(OpenTaskError) as info:
        two_tasks.remove(1)
    assert info.value.task_id == 1
    assert len(two_tasks.all()) == 2
    removed = two_tasks.remove(1, force=True)
    assert removed.title == "First"
    with pytest.raises(TaskNotFoundError):
        two_tasks.get(1)
    with pytest.raises(TaskNotFoundError):
        two_tasks.remove(1, force=True)
