"""The census store's key and entries (run/census_store.py, issue 27), in-process: every input
of the reference's run changes the key, where the run lives does not, and an entry that is
missing, corrupt or of another shape is a miss, never a crash."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys

import pytest
from helpers.tasks import TaskFactory

from pytest_e2ebench.grading.verdicts import census
from pytest_e2ebench.run import census_store
from pytest_e2ebench.run.plan import STAGE_FORMAT, RunPlan
from pytest_e2ebench.stash import Slots
from pytest_e2ebench.taskmodel.task import load_task

# what the key leaves out: where the run lives, and what only the checks and the judge read
NOT_IN_KEY = {"run_dir", "projecteval.pv_repo", "not_before", "checks", "judge", "judge_model"}
# a method's fields are in the key too (``<slot>.<field>``, a method's stage tables name them)
METHOD_FIELDS = {"apps.app", "apps.model", "projecteval.checklist_raw", "stages.variant_format"}


def changed(plan: RunPlan, name: str) -> RunPlan:
    """``plan`` with its field ``name`` (a core field, or a method's ``<slot>.<field>``) changed."""
    value = other(plan.value(name))
    if "." not in name:
        return dataclasses.replace(plan, **{name: value})
    slot, _, field = name.partition(".")
    return plan.with_slot(slot, {field: value})


@pytest.fixture
def task(tmp_path):
    return load_task(TaskFactory(tmp_path / "a").make())


def plan_of(task, where: str = "/out/reference/calc/run-1") -> RunPlan:
    """A reference run's plan with every field set (as plan_run fills them)."""
    return RunPlan(
        agent="reference",
        run=1,
        run_dir=where,
        requirements=task.requirements_text,
        requires=("pytest==8",),
        python="3.12",
        venv_tools={"python": sys.version, "tools": ("coverage==7",)},
        tests_hash=task.tests_hash,
        reference_hash=task.reference_hash,
        methods=Slots({"projecteval": {"pv_repo": f"{where}/repo"}}),
        migrate="static",
        test_timeout=30.0,
        timeout=600.0,
        planting=1,
    )


def other(value: object) -> object:
    """A value of the same kind as ``value`` that is not equal to it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "-changed"
    if isinstance(value, tuple):
        return (*value, "changed")
    if isinstance(value, dict):
        return {**value, "changed": 1}
    return "changed"  # None


def test_the_key_covers_every_field_of_the_plan_but_where_and_after():
    fields = {f.name for f in dataclasses.fields(RunPlan)} - {"methods"}
    core = {name for name in census_store.key_fields() if "." not in name}
    assert core == fields - NOT_IN_KEY
    assert METHOD_FIELDS <= set(census_store.key_fields())
    assert not NOT_IN_KEY & set(census_store.key_fields())
    for name in ("migrate", "timeout", "test_timeout", "venv_tools", "tests_hash", "planting"):
        assert name in census_store.key_fields()


@pytest.mark.parametrize("name", census_store.key_fields())
def test_changing_an_input_of_the_plan_changes_the_key(task, name):
    plan = plan_of(task)
    assert census_store.census_key(changed(plan, name), task, "bwrap") != census_store.census_key(
        plan, task, "bwrap"
    )


@pytest.mark.parametrize("name", sorted(NOT_IN_KEY))
def test_where_the_run_lives_and_the_judge_do_not_change_the_key(task, name):
    plan = plan_of(task)
    assert census_store.census_key(changed(plan, name), task, "bwrap") == census_store.census_key(
        plan, task, "bwrap"
    )


def test_the_same_task_in_another_folder_has_the_same_key(task, tmp_path):
    copy = tmp_path / "b" / "tasks" / "calc"
    shutil.copytree(task.root, copy)
    moved = load_task(copy)
    assert census_store.census_key(plan_of(moved, "/elsewhere"), moved, "bwrap") == (
        census_store.census_key(plan_of(task), task, "bwrap")
    )


def _changes(task, monkeypatch) -> dict:
    """Each input outside the plan, changed: the task's content, id, its runs' folder part, the
    sandbox mode, the harness's version, code, interpreter and entry format, the stage
    format."""
    tests = task.root / "tests" / "test_calc.py"
    plan = plan_of(task)
    return {
        "task.toml": lambda: (task.root / "task.toml").write_text(
            (task.root / "task.toml").read_text() + "[tests]\ntimeout = 7\n"
        ),
        "a test": lambda: tests.write_text(tests.read_text() + "\n# changed\n"),
        "id": lambda: dataclasses.replace(task, id="calc2"),
        # the folder part a method files the task's runs under (ProjectEval's level and mode)
        "part": lambda: monkeypatch.setattr(census_store, "run_part", lambda task: "level-2"),
        "sandbox": lambda: "sandbox",
        "version": lambda: monkeypatch.setattr(census_store, "__version__", "99"),
        "code": lambda: monkeypatch.setattr(census_store, "harness_digest", lambda: "edited"),
        "interpreter": lambda: monkeypatch.setattr(sys, "executable", "/other/python"),
        "format": lambda: monkeypatch.setattr(census_store, "FORMAT", census_store.FORMAT + 1),
        "stage format": lambda: dataclasses.replace(plan, stage_format=STAGE_FORMAT + 1),
    }


CHANGES = ("task.toml", "a test", "id", "part", "sandbox", "version", "code")
CHANGES += ("interpreter", "format", "stage format")


@pytest.mark.parametrize("change", CHANGES)
def test_changing_an_input_outside_the_plan_changes_the_key(task, monkeypatch, change):
    plan = plan_of(task)
    before = census_store.census_key(plan, task, "bwrap")
    changes = _changes(task, monkeypatch)
    assert set(changes) == set(CHANGES)
    made = changes[change]()
    task_now = made if isinstance(made, type(task)) else task
    plan_now = made if isinstance(made, RunPlan) else plan
    mode = made if isinstance(made, str) else "bwrap"
    assert census_store.census_key(plan_now, task_now, mode) != before


RUN = {
    "status": "completed",
    "tests": [
        {"nodeid": "tests/test_calc.py::test_add[1]", "outcome": "passed", "requirements": ["R1"]},
        {"nodeid": "tests/test_calc.py::test_add[2]", "outcome": "skipped", "requirements": ["R1"]},
        {"nodeid": "tests/test_calc.py::test_sub", "outcome": "passed", "requirements": ["R2"]},
    ],
}


@pytest.fixture
def store(tmp_path, monkeypatch):
    where = tmp_path / "store"
    monkeypatch.setenv(census_store.STORE_ENV, str(where))
    return where


def test_a_kept_census_is_read_back_as_it_was(store):
    drawn = census(RUN)
    census_store.keep("k1", drawn)
    assert census_store.load("k1") == drawn
    assert census_store.load("k2") is None  # another key: a miss


def test_the_store_is_off_without_its_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(census_store.STORE_ENV, "")
    census_store.keep("k1", census(RUN))
    assert census_store.load("k1") is None
    assert not list(tmp_path.iterdir())


def test_without_its_variable_the_store_is_the_users_cache(tmp_path, monkeypatch):
    """Issue 44: kept across a user's sessions (before: off unless the variable was set, so
    each session of a new agent evaluated the reference again)."""
    monkeypatch.delenv(census_store.STORE_ENV, raising=False)
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    assert census_store.store() == tmp_path / "cache" / "census"
    census_store.keep("k1", census(RUN))
    assert census_store.load("k1") == census(RUN)


def _entry(store, text: str | bytes) -> None:
    store.mkdir(exist_ok=True)
    (store / "k1.json").write_bytes(text if isinstance(text, bytes) else text.encode())


def _doc(**census_entry) -> str:
    entry = {"cases": ["t.py::a[1]"], "requirements": ["R1"], "skipped": []}
    return json.dumps({"format": 1, "key": "k1", "census": {"t.py::a": {**entry, **census_entry}}})


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("{", id="not-json"),
        pytest.param(b'{"format": "\xff"}', id="not-utf8"),
        pytest.param("[" * 5000 + "]" * 5000, id="too-deep"),
        pytest.param("[]", id="a-list"),
        pytest.param(_doc().replace('"key": "k1"', '"key": "k2"'), id="another-key"),
        pytest.param(_doc().replace('"format": 1', '"format": 0'), id="another-format"),
        pytest.param(_doc()[:-1] + ', "more": 1}', id="an-extra-field"),
        pytest.param(_doc(cases=[]), id="no-cases"),
        pytest.param(_doc(cases=["t.py::b"]), id="a-case-of-another-test"),
        pytest.param(_doc(skipped=["t.py::a[2]"]), id="a-skip-that-is-no-case"),
        pytest.param(_doc(requirements="R1"), id="a-string-for-a-list"),
        pytest.param(_doc(requirements=[1]), id="a-number-in-a-list"),
        pytest.param(_doc(extra=[]), id="an-extra-entry-field"),
    ],
)
def test_a_corrupt_or_malformed_entry_is_a_miss(store, text):
    _entry(store, text)
    assert census_store.load("k1") is None


def test_a_well_formed_entry_is_read(store):
    _entry(store, _doc())
    assert census_store.load("k1") == {
        "t.py::a": {"cases": ["t.py::a[1]"], "requirements": ["R1"], "skipped": []}
    }


def test_an_entry_behind_a_link_or_too_large_is_a_miss(store, monkeypatch):
    _entry(store, _doc())
    (store / "k2.json").symlink_to(store / "k1.json")
    assert census_store.load("k2") is None
    monkeypatch.setattr(census_store, "MAX_BYTES", 10)
    assert census_store.load("k1") is None


def test_a_corrupt_entry_is_replaced_and_a_valid_one_stays_unless_rerun(store):
    _entry(store, "{")
    drawn = census(RUN)
    census_store.keep("k1", drawn)
    assert census_store.load("k1") == drawn
    fewer = census({**RUN, "tests": RUN["tests"][:1]})
    census_store.keep("k1", fewer)  # the first census kept stands
    assert census_store.load("k1") == drawn
    census_store.keep("k1", fewer, replace=True)  # --e2e-rerun's replaces it
    assert census_store.load("k1") == fewer


def test_a_store_that_cannot_be_written_is_left_alone(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(census_store.STORE_ENV, str(blocked / "store"))
    census_store.keep("k1", census(RUN))  # no exception: the next session evaluates again
    assert census_store.load("k1") is None


def test_only_evaluations_whose_census_is_the_plans_share_it():
    # an app's census is the cases a model wrote: a session without a model read another
    # session's cases from the store and graded an unstartable app "not collected" instead of
    # "not executable" (tests/sessions/test_app.py, under xdist with the suite's store)
    from pytest_e2ebench.methods.app.style import AppCases
    from pytest_e2ebench.run.evaluation import TestSuite, WebScenarios

    assert TestSuite.shares_census and WebScenarios.shares_census
    assert not AppCases.shares_census
