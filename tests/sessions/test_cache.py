"""Stage caching: a second session reuses every stage; changed inputs and --e2e-rerun redo them.

The five cache tests share one folder (issue 27): one cold session, then each step changes one
thing and runs again, and each test reads its own step: the state the step started from (the
stage manifests' ``written_at`` after the step before it) and what it left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.batch import Batch, batch_folder, run_result
from helpers.tasks import CALC_CODE

from pytest_e2ebench.schema import results_problems

RUN = Path(".e2ebench/dir-outputs/calc/run-1")
STAGES = ("repo", "venv", "migrated", "eval", "judge")
ARGS = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks", "-p", "no:cacheprovider")


def written_at(root: Path) -> dict[str, float]:
    return {s: json.loads((root / RUN / f"{s}.json").read_text())["written_at"] for s in STAGES}


class Step:
    """One session of the chain: its outcome and the stages' ``written_at`` before and after."""

    def __init__(self, batch: Batch, before: dict[str, float], *extra: str) -> None:
        self.before = before
        done = batch.run(*ARGS, *extra)
        self.result = run_result(done)
        self.output = batch.output()
        self.after = written_at(batch.root)
        document = batch.results()
        self.problems = results_problems(document)  # as the results fixture checks
        self.metrics = document["tasks"][0]["metrics"]

    def assert_outcomes(self, **outcomes: int) -> None:
        """pytester's check of the session's outcomes; the session's output if they differ,
        and its results.json valid against the schema."""
        try:
            self.result.assert_outcomes(**outcomes)
        except AssertionError:
            raise AssertionError(f"outcomes are not {outcomes}:\n{self.output}") from None
        assert not self.problems, "results.json does not match its schema:\n" + "\n".join(
            self.problems
        )


@pytest.fixture(scope="module")
def cache_chain(request, tmp_path_factory) -> dict[str, Step]:
    """Cold, warm, --e2e-rerun, a half-written venv stage, changed reference tests, changed
    agent output: one session each in one folder, in that order (every step starts from the
    stages the one before it wrote), read by ``TestBatchCache``."""
    with batch_folder(request, tmp_path_factory, "cache-chain") as root:
        batch = Batch(root)
        task = batch.tasks.make()
        out = batch.tasks.reference(root / "outputs" / "calc", CALC_CODE)
        steps = {"cold": Step(batch, {})}
        steps["warm"] = Step(batch, steps["cold"].after)
        steps["rerun"] = Step(batch, steps["warm"].after, "--e2e-rerun")
        # Simulate a kill during the venv stage: output half there, manifest gone.
        (root / RUN / "venv.json").unlink()
        (root / RUN / "venv" / "bin" / "python").unlink()
        steps["half"] = Step(batch, steps["rerun"].after)
        steps["half"].python = (root / RUN / "venv" / "bin" / "python").exists()
        steps["half"].manifest = (root / RUN / "venv.json").exists()
        test_file = task / "tests" / "test_calc.py"
        test_file.write_text(
            test_file.read_text().replace("assert sub(5, 3) == 2", "assert sub(5, 3) == 3")
        )
        steps["tests"] = Step(batch, steps["half"].after)
        (out / "calc" / "sub.py").write_text("def sub(a, b):\n    return 0\n")
        steps["output"] = Step(batch, steps["tests"].after)
        yield steps


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchCache:
    """The readers of the one chain of sessions (one xdist worker runs it)."""

    def test_warm_run_reuses_all_stages_and_gives_the_same_metrics(self, cache_chain):
        cold, warm = cache_chain["cold"], cache_chain["warm"]
        cold.assert_outcomes(passed=3)
        warm.assert_outcomes(passed=3)
        assert warm.after == warm.before
        assert warm.metrics == cold.metrics

    def test_changed_agent_output_rebuilds_from_the_repo_stage_on(self, cache_chain):
        step = cache_chain["output"]
        step.assert_outcomes(passed=2, failed=1)
        assert all(step.after[s] > step.before[s] for s in STAGES)

    def test_changed_reference_tests_rerun_only_the_later_stages(self, cache_chain):
        step = cache_chain["tests"]
        step.assert_outcomes(passed=2, failed=1)
        first, second = step.before, step.after
        assert second["repo"] == first["repo"] and second["venv"] == first["venv"]
        assert all(second[s] > first[s] for s in ("migrated", "eval", "judge"))

    def test_rerun_ignores_the_cache(self, cache_chain):
        step = cache_chain["rerun"]
        step.assert_outcomes(passed=3)
        assert all(step.after[s] > step.before[s] for s in STAGES)

    def test_half_written_stage_is_rebuilt(self, cache_chain):
        step = cache_chain["half"]
        step.assert_outcomes(passed=3)
        assert step.python
        assert step.manifest


def test_out_option_moves_everything(pytester, tasks, results):
    tasks.make()
    pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-out=elsewhere")
    assert results("elsewhere")["tasks"][0]["agent"] == "nop"
    assert not (pytester.path / ".e2ebench").exists()
