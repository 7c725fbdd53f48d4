"""results.json against its JSON Schema (pytest_e2ebench/schema/results.schema.json).

Stored documents of real sessions (tests/data/results/: reference, nop and a ``dir:`` agent on a
ProjectEval-shaped CLI task, a web task, a DevEval setup stage, a ProjectEval level) must keep
validating: a change of the schema that rejects them breaks files users already have. Error
records and stage error records are built here by the harness's own functions. Every session
of the suite also validates its results.json (the ``results`` fixture of tests/conftest.py).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pytest_e2ebench.agents.builtin import NopAgent
from pytest_e2ebench.errors import InfrastructureError, RunFailed
from pytest_e2ebench.plugin import builtin_report_sections
from pytest_e2ebench.report import results
from pytest_e2ebench.run.record import error_record, error_stage_record
from pytest_e2ebench.schema import RESULTS_SCHEMA, results_problems, results_schema
from pytest_e2ebench.taskmodel.task import load_task

ROOT = Path(__file__).resolve().parents[2]
STORED = sorted((Path(__file__).parents[1] / "data" / "results").glob("*.json"))


def _stored(name: str) -> dict:
    return json.loads((Path(__file__).parents[1] / "data" / "results" / name).read_text())


def test_the_schema_is_a_valid_draft_2020_12_schema():
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(results_schema())
    assert RESULTS_SCHEMA.is_file()


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_results_validate(path: Path):
    assert results_problems(json.loads(path.read_text())) == []


def test_the_stored_documents_cover_the_record_kinds():
    """What the stored files are kept for: each kind of record is among them."""
    documents = [json.loads(p.read_text()) for p in STORED]
    runs = [r for d in documents for r in d["tasks"]]
    assert {r["agent_spec"].split(":")[0] for r in runs} >= {"reference", "nop", "dir"}
    assert {r["task_meta"]["kind"] for r in runs} >= {"cli", "web"}
    assert any(r.get("level") for r in runs) and any("projecteval" in r for r in runs)
    assert any(d.get("stages") for d in documents)


@pytest.fixture(scope="module")
def error_document(tmp_path_factory) -> dict:
    """A results document of the harness's own builders: an ok run, an infrastructure error,
    a harness error and a stage that errored."""
    task = load_task(ROOT / "benchmark_tasks" / "tipcalc")
    agent, where = NopAgent(), tmp_path_factory.mktemp("run")
    infra = InfrastructureError("venv", "uv could not build the environment")
    failed = RunFailed("judge", KeyError("x"), str(where / "error.txt"))
    ok = _stored("tipcalc-reference-nop-dir.json")["tasks"]
    records = [
        *ok,
        error_record(task, agent, 2, where, infra),
        error_record(task, agent, 3, where, failed),
    ]
    stage = error_stage_record(task, agent, 1, "setup", where, OSError("disk full"))
    sections = builtin_report_sections()  # DevEval's stages section is a built-in plugin's
    return json.loads(json.dumps(results.build(records, stage_records=[stage], sections=sections)))


def test_error_and_stage_error_records_validate(error_document):
    statuses = [(r["agent"], r["run"], r["status"]) for r in error_document["tasks"]]
    assert statuses[2:4] == [("nop", 2, "error"), ("nop", 3, "error")]  # BROKEN's indices
    kinds = [r["error"]["kind"] for r in error_document["tasks"] if r["status"] == "error"]
    assert kinds == ["infrastructure", "harness"]
    assert error_document["stages"]["runs"][0]["status"] == "error"
    assert results_problems(error_document) == []


def _set(document: dict, path: str, value) -> dict:
    changed = copy.deepcopy(document)
    *parents, last = path.split("/")
    node = changed
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is KeyError:
        del node[last]
    else:
        node[int(last) if isinstance(node, list) else last] = value
    return changed


BROKEN = {
    "a rate above 1": ("tasks/0/metrics/impl_rate", 1.5, "tasks/0/metrics"),
    "an unknown verdict": ("tasks/0/requirements/0/verdict", "maybe", "tasks/0/requirements/0"),
    "an ok run without metrics": ("tasks/0/metrics", None, "tasks/0/metrics"),
    "an error run with metrics": ("tasks/2/metrics", {"impl_rate": 0.0}, "tasks/2"),
    "an error run without its error": ("tasks/3/error", KeyError, "tasks/3"),
    "a run index of 0": ("tasks/0/run", 0, "tasks/0/run"),
    "another schema name": ("schema", "e2ebench-results/2", "schema"),
    "a key of no version": ("extra_key", 1, "(document)"),
    "a count as text": ("tasks/0/metrics/passed", "7", "tasks/0/metrics"),
    "a stage error without a message": ("stages/runs/0/error/message", KeyError, "stages"),
}


@pytest.mark.parametrize("path, value, where", BROKEN.values(), ids=list(BROKEN))
def test_the_schema_rejects(error_document, path, value, where):
    problems = results_problems(_set(error_document, path, value))
    assert problems and all(p.startswith(where) for p in problems), problems
