"""hypothesis's ``@given`` under the probe's suite check (issue 30): the wrapper pytest sees is
compiled by hypothesis from a string (``<string>``) and then given the test's file name. It is
the tool's code, not a change to the suite; the same move made by project code is not."""

from __future__ import annotations

import pytest
from helpers.honeypot import probe_run

pytest.importorskip("hypothesis")

TESTS = """\
from hypothesis import example, given, settings
from hypothesis import strategies as st

from project import add


@settings(max_examples=5)
@given(st.integers(), st.integers())
def test_commutes(a, b):
    assert add(a, b) == add(b, a)


@settings(max_examples=5, deadline=None)
@given(a=st.integers())
@example(a=0)
def test_zero(a):
    assert add(a, 0) == a


class TestIt:
    @settings(max_examples=5)
    @given(st.integers())
    def test_self(self, a):
        assert add(a, -a) == 0
"""
HONEST = "def add(a, b):\n    return a + b\n"
# the project gives a test's wrapper its own code (as a tool would): seen, whatever calls it
SWAPPING = (
    HONEST
    + """
import sys

_TRIED = []


def add(a, b):
    # once: give the test's wrapper other code (refused by Python here, seen all the same)
    module = sys.modules.get("test_it")
    if module is not None and not _TRIED:
        _TRIED.append(1)
        fn = module.test_commutes
        try:
            fn.__code__ = fn.__code__.replace(co_name="other")
        except ValueError:
            pass
    return a + b
"""
)


def _run(pytester, monkeypatch, project: str) -> dict:
    """The probe's records of the suite above on ``project``, pytest run as the harness does."""
    return probe_run(pytester, monkeypatch, project, TESTS)


def test_given_wrappers_are_no_change_to_the_suite(pytester, monkeypatch):
    found = _run(pytester, monkeypatch, HONEST)
    assert found["changed"] == []
    assert found["outcomes"] == dict.fromkeys(["test_commutes", "test_zero", "test_self"], "passed")


def test_the_project_setting_a_wrappers_code_is_seen(pytester, monkeypatch):
    found = _run(pytester, monkeypatch, SWAPPING)
    swapped = [c for c in found["changed"] if "set __code__ of function" in c]
    assert swapped and swapped[0].endswith(".test_commutes"), found
