"""Stage caching: a second session reuses every stage; changed inputs and --e2e-rerun redo them."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CALC_CODE

RUN = Path(".e2ebench/dir-outputs/calc/run-1")
STAGES = ("repo", "venv", "migrated", "eval", "judge")


def written_at(pytester) -> dict[str, float]:
    return {
        s: json.loads((pytester.path / RUN / f"{s}.json").read_text())["written_at"] for s in STAGES
    }


def test_warm_run_reuses_all_stages_and_gives_the_same_metrics(pytester, tasks, results):
    tasks.make()
    tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    args = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    pytester.runpytest(*args).assert_outcomes(passed=3)
    first, metrics = written_at(pytester), results()["tasks"][0]["metrics"]
    pytester.runpytest(*args).assert_outcomes(passed=3)
    assert written_at(pytester) == first
    assert results()["tasks"][0]["metrics"] == metrics


def test_changed_agent_output_rebuilds_from_the_repo_stage_on(pytester, tasks):
    tasks.make()
    out = tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    args = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    pytester.runpytest(*args).assert_outcomes(passed=3)
    first = written_at(pytester)
    (out / "calc" / "sub.py").write_text("def sub(a, b):\n    return 0\n")
    pytester.runpytest(*args).assert_outcomes(passed=2, failed=1)
    second = written_at(pytester)
    assert all(second[s] > first[s] for s in STAGES)


def test_changed_reference_tests_rerun_only_the_later_stages(pytester, tasks):
    root = tasks.make()
    tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    args = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    pytester.runpytest(*args).assert_outcomes(passed=3)
    first = written_at(pytester)
    test_file = root / "tests" / "test_calc.py"
    test_file.write_text(
        test_file.read_text().replace("assert sub(5, 3) == 2", "assert sub(5, 3) == 3")
    )
    pytester.runpytest(*args).assert_outcomes(passed=2, failed=1)
    second = written_at(pytester)
    assert second["repo"] == first["repo"] and second["venv"] == first["venv"]
    assert all(second[s] > first[s] for s in ("migrated", "eval", "judge"))


def test_rerun_ignores_the_cache(pytester, tasks):
    tasks.make()
    tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    args = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    pytester.runpytest(*args).assert_outcomes(passed=3)
    first = written_at(pytester)
    pytester.runpytest(*args, "--e2e-rerun").assert_outcomes(passed=3)
    second = written_at(pytester)
    assert all(second[s] > first[s] for s in STAGES)


def test_half_written_stage_is_rebuilt(pytester, tasks):
    tasks.make()
    tasks.reference(pytester.path / "outputs" / "calc", CALC_CODE)
    args = ("--e2e-agent=dir:outputs", "--e2e-tasks=tasks")
    pytester.runpytest(*args).assert_outcomes(passed=3)
    # Simulate a kill during the venv stage: output half there, manifest gone.
    (pytester.path / RUN / "venv.json").unlink()
    (pytester.path / RUN / "venv" / "bin" / "python").unlink()
    pytester.runpytest(*args).assert_outcomes(passed=3)
    assert (pytester.path / RUN / "venv" / "bin" / "python").exists()
    assert (pytester.path / RUN / "venv.json").exists()


def test_out_option_moves_everything(pytester, tasks, results):
    tasks.make()
    pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-out=elsewhere")
    assert results("elsewhere")["tasks"][0]["agent"] == "nop"
    assert not (pytester.path / ".e2ebench").exists()
