"""A session builds a project's wheel once per content (issue 27): read from the shared calc
session, whose reference runs and ``dir:out`` run 2 are the same project byte for byte."""

from __future__ import annotations

import pytest

REUSED = "reused calc-0.1-py3-none-any.whl, built earlier from identical content"


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Readers of tests/conftest.py's calc session (reference x2, nop x2, ``dir:out`` x2)."""

    def test_identical_projects_build_one_wheel_and_keep_their_verdicts(self, calc_session):
        out = calc_session.root / ".e2ebench"
        same = [("reference", 1), ("reference", 2), ("dir-out", 2)]
        logs = {
            key: (out / key[0] / "calc" / f"run-{key[1]}" / "logs" / "build-wheel.log")
            for key in same
        }
        reused = sorted(key for key, log in logs.items() if log.read_text().startswith(REUSED))
        # the session (no -n) runs one run after another: at most the first of the three
        # builds (none when an earlier test of the suite run built the same project: the root
        # conftest's store is shared by the suite run's sessions)
        assert len(reused) >= 2, {key: log.read_text()[:200] for key, log in logs.items()}
        verdicts = {
            key: [r["verdict"] for r in calc_session.record("calc", key[1], key[0])["requirements"]]
            for key in same
        }
        assert set(map(tuple, verdicts.values())) == {("implemented",) * 3}, verdicts
