"""What the SDAgent's stall watch takes for the same tool result twice (issue 42, item 7): the
text with what changes between identical runs masked (agents.sdagent.steady)."""

from __future__ import annotations

import pytest

from pytest_e2ebench.agents.sdagent import steady


@pytest.mark.parametrize(
    "first, second",
    [
        ("no tests ran in 0.03s", "no tests ran in 0.05s"),
        ("===== 2 passed in 1.20s =====", "===== 2 passed in 0.98s ====="),
        ("took 1.2 seconds", "took 3 seconds"),
        ("done (12 ms)", "done (7ms)"),
        ("elapsed 0:00:01.25", "elapsed 0:00:03.50"),
        ("at 2026-12-03T10:11:12.345Z", "at 2026-12-03T10:11:13.001Z"),
        ("log 2026-12-03 10:11:12,345 INFO", "log 2026-12-04 09:00:00,001 INFO"),
        ("<object object at 0x7f3a2b1c0d10>", "<object object at 0x7f3a2b1c9e40>"),
        ("worker pid 4312 ready", "worker pid 4388 ready"),
        ("PID: 99", "PID: 101"),
        (
            "/tmp/pytest-of-u/pytest-7/test_a0/t.py:3: AssertionError",
            "/tmp/pytest-of-u/pytest-8/test_a0/t.py:3: AssertionError",
        ),
        ("wrote /tmp/tmpk3j_x2ab/out.txt", "wrote /tmp/tmpz9q0w1cd/out.txt"),
    ],
)
def test_results_that_differ_in_what_changes_run_to_run_are_the_same(first, second):
    assert first != second and steady(first) == steady(second)


@pytest.mark.parametrize(
    "first, second",
    [
        ("2 passed in 0.03s", "1 passed, 1 failed in 0.03s"),  # the counts are the work
        ("assert 3 == 4", "assert 3 == 5"),
        ("line 42", "line 43"),
        ("Python 3.11", "Python 3.12"),
        ("version 1.2.3", "version 1.2.4"),
        ("10 sessions", "11 sessions"),  # a word, not a unit
        ("src/app.py", "src/api.py"),
    ],
)
def test_results_that_differ_in_the_work_stay_different(first, second):
    assert steady(first) != steady(second)
