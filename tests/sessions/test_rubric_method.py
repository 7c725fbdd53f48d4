"""An outside method does what the built-in ones do (issue 41, item 1): examples/rubric-method,
installed as a package (``uv pip install --target``, its own pyproject.toml and entry point of
the ``pytest_e2ebench.methods`` group), runs on the bundled task tipcalc with no change to
pytest_e2ebench: a ``[rubric]`` table in task.toml, a stage keyed on it, the metric
``rubric_score`` per run, a ``rubric`` section in results.json that validates against the
schema composed of the core's part and every installed method's."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench import methods
from pytest_e2ebench.environment.venv import uv_binary
from pytest_e2ebench.schema import results_problems

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rubric-method"
TASK = ROOT / "benchmark_tasks" / "tipcalc"  # 4 requirements, R1-R4
# the harness under test (a worktree's copy, when PYTHONPATH names it), as the suite started
INHERITED = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
RUBRIC = "\n[rubric]\nweights = {{ R1 = 2.0, R2 = {r2} }}\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The example installed as a package into a folder of its own (its wheel built by its
    own build backend, its entry points in its .dist-info)."""
    target = tmp_path_factory.mktemp("rubric-site")
    subprocess.run(
        [uv_binary(), "pip", "install", "--quiet", "--no-deps", "--python", sys.executable]
        + ["--target", str(target), str(EXAMPLE)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    points = next(target.glob("e2ebench_rubric-*.dist-info")) / "entry_points.txt"
    assert "[pytest_e2ebench.methods]\nrubric = e2ebench_rubric.plugin" in points.read_text()
    return target


def _plugin(site: Path):
    """The installed plugin module, loaded from its file (this process registers nothing)."""
    spec = importlib.util.spec_from_file_location(
        "rubric_under_test", site / "e2ebench_rubric" / "plugin.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _environ(site: Path | None) -> dict:
    """This process's environment with the installed example first on the path (or not)."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*([str(site)] if site else []), *INHERITED]),
    }


def _stages(out: Path) -> dict[str, tuple]:
    """Every stage manifest of every run under ``out``: (its key, when it was written)."""
    found = {}
    for manifest in out.glob("*/tipcalc/run-1/*.json"):
        doc = json.loads(manifest.read_text())
        if isinstance(doc, dict) and {"key", "written_at"} <= doc.keys():
            found[str(manifest.relative_to(out))] = (doc["key"], doc["written_at"])
    return found


def _session(pytester, site, out: str):
    result = pytester.runpytest_subprocess(
        "--e2e-agent=reference,nop",
        "--e2e-tasks=tasks",
        f"--e2e-out={out}",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=4, failed=4)  # the reference implements R1-R4, nop none
    return json.loads((pytester.path / out / "results.json").read_text())


def test_the_rubric_score_is_the_weighted_share_of_implemented_requirements(site):
    plugin = _plugin(site)
    requirements = [
        {"id": "R1", "verdict": "implemented"},
        {"id": "R2", "verdict": "not_implemented"},
        {"id": "R3", "verdict": "inconclusive"},
    ]
    assert plugin.score(requirements, {"R1": 2.0, "R2": 1.0}) == pytest.approx(2 / 4)
    assert plugin.score(requirements, {}) == pytest.approx(1 / 3)  # default weight 1.0
    assert plugin.score(requirements, {"R1": 0.0, "R2": 0.0, "R3": 0.0}) is None


def test_an_installed_method_runs_on_a_bundled_task(pytester, site, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", _environ(site)["PYTHONPATH"])
    monkeypatch.setenv("E2EBENCH_CENSUS_STORE", "")  # every census from this session's runs
    task = pytester.path / "tasks" / "tipcalc"
    shutil.copytree(TASK, task)
    toml = task / "task.toml"
    original = toml.read_text()
    toml.write_text(original + RUBRIC.format(r2="1.0"))

    document = _session(pytester, site, ".e2ebench")
    runs = {r["agent"]: r for r in document["tasks"]}
    assert runs["reference"]["metrics"]["rubric_score"] == 1.0
    assert runs["nop"]["metrics"]["rubric_score"] == 0.0
    weights = {"R1": 2.0, "R2": 1.0}
    assert runs["reference"]["rubric"] == {"score": 1.0, "weights": weights}
    assert document["rubric"] == {
        "agents": {"nop": {"mean": 0.0, "runs": 1}, "reference": {"mean": 1.0, "runs": 1}}
    }
    # valid against the core's schema with the installed method's part (as e2ebench report
    # composes it where the method is installed) ...
    sections = [*methods.report_sections(), _plugin(site).SECTION]
    assert results_problems(document, sections) == []
    results = str(pytester.path / ".e2ebench" / "results.json")
    merged = pytester.path / "merged.json"
    report = [sys.executable, "-m", "pytest_e2ebench.cli", "report", results]
    shown = subprocess.run(
        [*report, "--json", str(merged)], env=_environ(site), capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(merged.read_text())["rubric"] == document["rubric"]  # rebuilt by it
    # ... and refused by the schema of a harness without it: the section is the method's
    bare = subprocess.run(report, env=_environ(None), capture_output=True, text=True)
    assert bare.returncode != 0
    assert "'rubric' was unexpected" in bare.stderr + bare.stdout

    # a weight changed: only the rubric's stage of each run runs again
    before = _stages(pytester.path / ".e2ebench")
    assert {"nop/tipcalc/run-1/rubric.json", "reference/tipcalc/run-1/rubric.json"} <= set(before)
    assert len(before) >= 8  # the agent's output, venv, migration, test run, judge ... each
    toml.write_text(original + RUBRIC.format(r2="3.0"))
    document = _session(pytester, site, ".e2ebench")
    after = _stages(pytester.path / ".e2ebench")
    assert set(after) == set(before)
    rerun = sorted(name for name in before if before[name] != after[name])
    assert rerun == ["nop/tipcalc/run-1/rubric.json", "reference/tipcalc/run-1/rubric.json"]
    assert {r["agent"]: r["rubric"]["weights"]["R2"] for r in document["tasks"]} == {
        "nop": 3.0,
        "reference": 3.0,
    }
