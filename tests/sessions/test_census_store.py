"""The census store (run/census_store.py, issue 27) through real sessions: a session grading
other agents on a task another session's reference run has censused reads that census instead
of evaluating the reference again, its verdicts are the ones that session drew, and the
reference agent's own run is still evaluated."""

from __future__ import annotations

import json
import os

import pytest
from helpers.batch import CALC_MUTANT, Batch, batch_folder

from pytest_e2ebench.run import census_store

# what differs between two sessions of the same runs: the time they took
WITHOUT_TIMES = ("duration_s",)


def comparable(record: dict) -> tuple:
    """A run's verdicts and metrics, its duration left out."""
    metrics = {k: v for k, v in record["metrics"].items() if k not in WITHOUT_TIMES}
    return record["requirements"], metrics


def written_at(run_dir, stage: str) -> float:
    """When a run's stage manifest was written (the stage cache's own stamp)."""
    return json.loads((run_dir / f"{stage}.json").read_text())["written_at"]


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Read with the suite's calc session (its reference's run kept the census in the suite's
    store): the root conftest's scheduler runs it on that session's worker."""

    def test_a_warm_store_gives_the_verdicts_of_the_evaluated_reference(
        self, calc_session, request, tmp_path_factory
    ):
        if not os.environ.get(census_store.STORE_ENV):
            pytest.skip("the suite runs with the census store off (E2EBENCH_CENSUS_STORE=)")
        with batch_folder(request, tmp_path_factory, "census-warm") as root:
            warm = Batch(root)
            warm.tasks.make()  # the calc session's task, in another folder
            warm.tasks.reference(warm.variant("calc", 1), CALC_MUTANT)
            warm.run("--e2e-agent=nop,dir:out,reference", "--e2e-tasks=tasks", "--e2e-runs=1")
            runs = root / ".e2ebench"
            reference = runs / "reference" / "calc" / "run-1"
            # nop and dir:out (graded first) had their census before the reference's run began:
            # from the store, not from an evaluation of the reference
            for agent in ("nop", "dir-out"):
                judged = written_at(runs / agent / "calc" / "run-1", "judge")
                assert judged < written_at(reference, "repo"), warm.output()
            # the reference agent's own run was evaluated in this session all the same
            assert (reference / "eval" / "extended" / "pytest.log").is_file(), warm.output()
            for agent in ("nop", "dir-out", "reference"):
                got = comparable(warm.record("calc", 1, agent))
                assert got == comparable(calc_session.record("calc", 1, agent)), agent
