"""The planting's seed (issue 48): the same planted tests in identical sessions."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_e2ebench.evaluation.planting import values


def test_the_planting_seed_is_the_machines_not_the_sessions(tmp_path, monkeypatch):
    """Issue 48: planted tests run the project too, so a seed drawn per session moved the
    coverage of identical sessions (ordered-set's line 323, a honeypot's failure message). The
    seed is one per task and run on a machine, from a key of its own store."""
    task = SimpleNamespace(id="calc", tests_hash="abc")
    monkeypatch.setenv(values.STORE_ENV, str(tmp_path / "one"))
    first = [values.seed(task, run) for run in (1, 2)]
    assert first == [values.seed(task, run) for run in (1, 2)] and first[0] != first[1]
    assert (tmp_path / "one" / values.SEED_KEY).stat().st_mode & 0o077 == 0
    monkeypatch.setenv(values.STORE_ENV, str(tmp_path / "two"))  # another machine
    assert values.seed(task, 1) != first[0]
