"""List output, filters and sort order (R8-R10)."""

from __future__ import annotations

from datetime import date

import pytest

from tasklog import TaskStore, ValidationError

SAMPLE_LIST = (
    "2  [!]  high    2026-03-01  Pay rent  #bills #home\n"
    "6  [!]  low     2026-03-09  Renew passport  #admin\n"
    "3  [ ]  normal  2026-03-10  Write report\n"
    "7  [ ]  high    2026-04-01  Plan trip  #home\n"
    "8  [ ]  high    -           File taxes  #admin #bills\n"
    "1  [ ]  normal  -           Buy milk  #errands #home\n"
    "4  [ ]  low     -           Call mom\n"
)


@pytest.fixture
def sample(store_file) -> TaskStore:
    """Eight tasks; with today = 2026-03-10, tasks 2 and 6 are overdue and 5 is done."""
    store = TaskStore(store_file)
    store.add("Buy milk", tags=["home", "errands"])
    store.add("Pay rent", due=date(2026, 3, 1), priority="high", tags=["bills", "home"])
    store.add("Write report", due=date(2026, 3, 10))
    store.add("Call mom", priority="low")
    store.add("Old chore", due=date(2026, 2, 1))
    store.add("Renew passport", due=date(2026, 3, 9), priority="low", tags=["admin"])
    store.add("Plan trip", due=date(2026, 4, 1), priority="high", tags=["home"])
    store.add("File taxes", priority="high", tags=["admin", "bills"])
    store.mark_done(5)
    return store


def ids(output: str) -> list[int]:
    return [int(line.split()[0]) for line in output.splitlines()]


# --------------------------------------------------------------------------- R8


@pytest.mark.requirement("R8")
def test_default_list_exact_output(cli, sample):
    result = cli("list")
    assert result.code == 0
    assert result.out == SAMPLE_LIST
    assert result.err == ""


@pytest.mark.requirement("R8")
def test_done_task_line(cli, sample):
    assert cli("list", "--status", "done").out == "5  [x]  normal  2026-02-01  Old chore\n"


@pytest.mark.requirement("R8")
def test_id_column_right_aligned_to_widest_id(cli, store_file):
    store = TaskStore(store_file)
    for n in range(1, 13):
        store.add(f"Task {n}", tags=["x"] if n in (2, 10) else ())
    lines = cli("list", "--sort", "id").out.splitlines()
    assert lines[0] == " 1  [ ]  normal  -           Task 1"
    assert lines[9] == "10  [ ]  normal  -           Task 10  #x"
    assert lines[11] == "12  [ ]  normal  -           Task 12"
    narrow = cli("list", "--tag", "x", "--sort", "id").out
    assert narrow == " 2  [ ]  normal  -           Task 2  #x\n10  [ ]  normal  -           Task 10  #x\n"


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(("today", "box"), [("2026-02-28", "[ ]"), ("2026-03-01", "[ ]"), ("2026-03-02", "[!]")])
def test_overdue_box_depends_on_today(cli, store_file, today, box):
    TaskStore(store_file).add("Pay rent", due=date(2026, 3, 1), priority="high")
    assert cli("list", today=today).out == f"1  {box}  high    2026-03-01  Pay rent\n"


@pytest.mark.requirement("R8")
def test_no_matching_tasks_prints_no_tasks(cli, sample):
    result = cli("list", "--tag", "nonexistent")
    assert (result.code, result.out) == (0, "no tasks\n")


@pytest.mark.requirement("R8")
def test_lines_have_no_trailing_spaces(cli, sample):
    for line in cli("list", "--status", "all").out.splitlines():
        assert line == line.rstrip()


# --------------------------------------------------------------------------- R9


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--status", "open"], [2, 6, 3, 7, 8, 1, 4]),
        (["--status", "done"], [5]),
        (["--tag", "home"], [2, 7, 1]),
        (["--tag", "HOME", "--tag", "bills"], [2]),
        (["--tag", "admin", "--status", "all"], [6, 8]),
        (["--due-before", "2026-03-10"], [2, 6]),
        (["--due-before", "2026-03-10", "--status", "all"], [2, 6, 5]),
        (["--overdue"], [2, 6]),
        (["--overdue", "--status", "all"], [2, 6]),
        (["--overdue", "--tag", "home"], [2]),
    ],
)
def test_list_filters(cli, sample, args, expected):
    result = cli("list", *args)
    assert result.code == 0
    assert ids(result.out) == expected


@pytest.mark.requirement("R9")
def test_overdue_filter_uses_today_option(cli, sample):
    assert ids(cli("list", "--overdue", today="2026-03-11").out) == [2, 6, 3]
    assert cli("list", "--overdue", today="2026-03-01").out == "no tasks\n"


@pytest.mark.requirement("R9")
def test_api_select_filters(sample):
    assert [t.id for t in sample.select(overdue_on=date(2026, 3, 10))] == [2, 6]
    assert [t.id for t in sample.select(status="all", due_before=date(2026, 3, 2))] == [2, 5]
    assert [t.id for t in sample.select(tags=["Bills"])] == [2, 8]
    assert [t.id for t in sample.select(status="done", tags=["home"])] == []


@pytest.mark.requirement("R9")
def test_invalid_status_filter(cli, sample):
    assert cli("list", "--status", "closed").code == 2
    with pytest.raises(ValidationError):
        sample.select(status="closed")


# --------------------------------------------------------------------------- R10


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], [2, 6, 3, 7, 8, 1, 4]),
        (["--sort", "due"], [2, 6, 3, 7, 8, 1, 4]),
        (["--sort", "priority"], [2, 7, 8, 3, 1, 6, 4]),
        (["--sort", "id"], [1, 2, 3, 4, 6, 7, 8]),
        (["--status", "all"], [2, 6, 3, 7, 8, 1, 4, 5]),
        (["--status", "all", "--sort", "priority"], [2, 7, 8, 3, 1, 6, 4, 5]),
        (["--status", "all", "--sort", "id"], [1, 2, 3, 4, 5, 6, 7, 8]),
    ],
)
def test_sort_orders(cli, sample, args, expected):
    assert ids(cli("list", *args).out) == expected


@pytest.mark.requirement("R10")
def test_ties_broken_by_priority_then_id(store_file):
    store = TaskStore(store_file)
    same_day = date(2026, 5, 5)
    store.add("n1", due=same_day)
    store.add("l1", due=same_day, priority="low")
    store.add("h1", due=same_day, priority="high")
    store.add("n2", due=same_day)
    store.add("h2", due=same_day, priority="high")
    assert [t.title for t in store.select()] == ["h1", "h2", "n1", "n2", "l1"]
    assert [t.title for t in store.select(sort="priority")] == ["h1", "h2", "n1", "n2", "l1"]


@pytest.mark.requirement("R10")
def test_priority_sort_uses_due_date_within_priority(store_file):
    store = TaskStore(store_file)
    store.add("no due")
    store.add("late", due=date(2026, 9, 1))
    store.add("early", due=date(2026, 1, 1))
    store.add("urgent, no due", priority="high")
    store.mark_done(3)
    assert [t.title for t in store.select(status="all", sort="priority")] == [
        "urgent, no due", "late", "no due", "early"
    ]
    assert [t.title for t in store.select(status="all", sort="due")] == [
        "late", "urgent, no due", "no due", "early"
    ]


@pytest.mark.requirement("R10")
def test_invalid_sort_key(cli, sample):
    assert cli("list", "--sort", "title").code == 2
    with pytest.raises(ValidationError):
        sample.select(sort="title")
