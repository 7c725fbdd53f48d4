"""Fixtures for the plugin's own tests: throw-away benchmark tasks in a few lines.

The suite leaves little behind in pytest's basetemp: all tests share one uv cache (uv's own,
outside basetemp; it is content-addressed and safe for concurrent use) instead of one per
pytester home, and the folders of a test that passed are removed when it ends (those of a
failed test are kept to look at, like ``tmp_path_retention_policy = "failed"``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.batch import (
    CALC_MUTANT,
    CALC_SESSION_ARGS,
    QUIET_PLUGINS,
    SharedSession,
    batch_folder,
)
from helpers.env import UV_CACHE  # noqa: F401 - set first: pytester later moves HOME
from helpers.tasks import (
    CALC_CODE,
    TaskFactory,
)

from pytest_e2ebench.run.cache import remove
from pytest_e2ebench.schema import results_problems

if QUIET_PLUGINS not in os.environ.get("PYTEST_ADDOPTS", ""):  # for plain subprocess sessions
    os.environ["PYTEST_ADDOPTS"] = f"{os.environ.get('PYTEST_ADDOPTS', '')} {QUIET_PLUGINS}".strip()
_FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="module")
def inprocess_verdicts():
    """Grade in one process (``E2EBENCH_VERDICT_MODE=inprocess``) for the module's sessions:
    the tests of the evidence layers that guard the suites which cannot run split (a split run
    keeps the attack away from pytest altogether, so it leaves no evidence to check)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("E2EBENCH_VERDICT_MODE", "inprocess")
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


@pytest.fixture(autouse=True)
def _tidy(request: pytest.FixtureRequest):
    """Remove what a passing test made under basetemp (pytester's folders, its runs' venvs)."""
    yield
    if request.node.stash.get(_FAILED, False):
        return
    pytester = request.node.funcargs.get("pytester")
    if pytester is not None:
        for path in (pytester.path, getattr(pytester, "_test_tmproot", None)):
            if path is not None:
                try:
                    remove(Path(path))
                except OSError:
                    pass  # best effort: a folder left behind is only disk space


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own, whose sessions leave out the plugins they never use (QUIET_PLUGINS);
    pytester removed the outer session's PYTEST_ADDOPTS before this runs."""
    monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)
    return pytester


@pytest.fixture
def tasks(pytester: pytest.Pytester) -> TaskFactory:
    """Make throw-away benchmark tasks inside the pytester directory."""
    return TaskFactory(pytester.path)


@pytest.fixture
def results(pytester: pytest.Pytester):
    """Read ``<dir>/results.json`` (default: the pytester run's ``.e2ebench``), validated
    against pytest_e2ebench/schema/results.schema.json."""

    def read(out: str | Path = ".e2ebench") -> dict:
        document = json.loads((pytester.path / out / "results.json").read_text())
        # every session of the suite checks its results.json against the checked-in schema
        problems = results_problems(document)
        assert not problems, "results.json does not match its schema:\n" + "\n".join(problems)
        return document

    return read


# --- one benchmark session shared by many tests (docs/testing.md) -----------------------------


# --- one session of the calc task shared by the suite's readers of its outputs --------------


@pytest.fixture(scope="session")
def calc_session(request: pytest.FixtureRequest, tmp_path_factory) -> SharedSession:
    """One session over the calc task: reference, nop and ``dir:out`` (run 1 with R2 broken,
    run 2 correct), two runs each, with the HTML report, coverage reports and JUnit XML.

    Read by the tests of classes marked ``shares_session("calc_session")`` in any file: the
    root conftest's scheduler gives them all to one xdist worker, so the session is run once
    (docs/testing.md).
    """
    with batch_folder(request, tmp_path_factory, "calc-session") as root:
        batch = SharedSession(root)
        batch.tasks.make()
        batch.tasks.reference(batch.variant("calc", 1), CALC_MUTANT)
        batch.tasks.reference(batch.variant("calc", 2), CALC_CODE)
        batch.run(*CALC_SESSION_ARGS)
        problems = results_problems(batch.results())
        assert not problems, "results.json does not match its schema:\n" + "\n".join(problems)
        yield batch
