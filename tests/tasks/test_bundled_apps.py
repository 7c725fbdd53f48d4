"""The bundled app tasks (benchmark_apps/): valid, executable, and judged as a tester would.

The LLM roles are played by the scripted tester with the plans in ``app_plans.py``: it acts
on what the sandboxed browser shows, so a reference passes only if it works, and a mutant
fails only what its mutation broke.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.app_plans import BUNDLED
from helpers.llm import ini

from pytest_e2ebench.taskmodel.mutants import materialize
from pytest_e2ebench.taskmodel.task import find_task_dirs, load_task
from pytest_e2ebench.tools.testing.scripted_app import app_judge_script
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM

ROOT = Path(__file__).resolve().parents[2] / "benchmark_apps"
APPS = [load_task(d) for d in find_task_dirs(ROOT)]


def test_there_are_bundled_apps_of_each_scenario_with_a_csv_material():
    assert {t.slots["app"].scenario for t in APPS} == {"display", "analysis", "data", "game"}
    assert all(t.kind == "app" and t.requirements and t.mutants for t in APPS)
    materials = [t for t in APPS if t.materials_dir is not None]
    assert [p.suffix for t in materials for p in t.materials_dir.iterdir()] == [".csv"]
    for task in APPS:  # every feature has a scripted case
        marker = task.requirements_text.splitlines()[0]
        assert {c["feature"] for c in BUNDLED[marker]} == {r.id for r in task.requirements}


# Every bundled app's reference and mutants are checks of the apps, not of the harness: the
# default run checks one (the one with a CSV material), --selfcheck the others too (issue 27).
REPRESENTATIVE = "salesboard"
PARTS = [
    pytest.param(True, id=REPRESENTATIVE),
    pytest.param(False, id="the-others", marks=pytest.mark.selfcheck),
]


def _part(representative: bool) -> list:
    """The bundled apps of one part: the representative alone, or the others."""
    return [t for t in APPS if (t.id == REPRESENTATIVE) == representative]


@pytest.fixture(params=PARTS)
def part(request, pytester) -> list:
    """The apps a test checks, copied to the pytester folder's tasks/."""
    chosen = _part(request.param)
    for task in chosen:
        shutil.copytree(task.root, pytester.path / "tasks" / task.root.name)
    return chosen


@pytest.fixture
def bench(pytester, part):
    ini(pytester, e2ebench_app_cases="4-6")
    with ScriptedLLM() as llm:
        llm.push(*[app_judge_script(BUNDLED)] * 2000)
        yield llm


def _run(pytester, llm, *args):
    return pytester.runpytest_subprocess(
        f"--e2e-llm-base-url={llm.base_url}", "-p", "no:cacheprovider", "-n", "2", *args
    )


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_bundled_reference_is_executable_and_passes_every_feature(
    pytester, part, bench, results
):
    result = _run(pytester, bench, "--e2e-agent=reference")
    result.assert_outcomes(passed=sum(len(t.requirements) for t in part))
    assert {r["task"] for r in results()["tasks"]} == {t.id for t in part}
    for record in results()["tasks"]:
        assert record["metrics"]["executability"] == 1.0, record["task"]
        assert record["metrics"]["sq"] == 1.0, record["task"]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_bundled_mutant_loses_exactly_the_features_it_declares(
    pytester, part, bench, results
):
    out = pytester.path / "mutants"
    listing = materialize(part, out)
    _run(pytester, bench, f"--e2e-agent=dir:{out}", "--e2e-runs=2")
    declared = {(task, m["run"]): sorted(m["fails"]) for task, ms in listing.items() for m in ms}
    lost = {
        (r["task"], r["run"]): sorted(
            q["id"] for q in r["requirements"] if q["verdict"] != "implemented"
        )
        for r in results()["tasks"]
    }
    assert lost == declared, json.dumps({f"{k[0]}/{k[1]}": v for k, v in lost.items()})
