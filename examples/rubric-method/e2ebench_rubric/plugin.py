"""The rubric method's plugin module, named by the ``pytest_e2ebench.methods`` entry point.

What the harness reads of it without a pytest session (module attributes):

* ``TASK_SECTIONS``: the ``[rubric]`` table of task.toml, parsed into the task's ``rubric`` slot
  (``task.slots["rubric"]``) when the task loads; a bad table is the task's error, naming the
  file, the field and the fix.
* ``STAGE_INPUTS``: the stage table ``rubric`` and the plan fields its cache key is made of
  (``rubric.weights``: this method's slot of the run's plan). Changing a weight changes that key
  only, so only this stage runs again.

What it does in a session (pytest hooks, the module is registered as the plugin
``e2ebench-rubric``): it puts the weights into the run's plan
(``pytest_e2ebench_plan_fields``), scores the run in its stage and adds ``rubric_score`` to the
run's metrics and a ``rubric`` key to its record (``pytest_e2ebench_run_extras``), gives a run
that ended in an error its ``rubric`` key too (``pytest_e2ebench_error_extras``), and adds the
``rubric`` section to results.json with the JSON Schema of its parts
(``pytest_e2ebench_report_sections``).
"""

from __future__ import annotations

import re

import pytest

from pytest_e2ebench.contracts import ReportSection
from pytest_e2ebench.taskmodel.sections import SectionSource, TaskSection

NAME = "rubric"  # the task's slot, the plan's slot, the record's key and results.json's section
DEFAULT_WEIGHT = 1.0
_ID = re.compile(r"^[A-Z]+[0-9]+$")  # R1, F2: the requirement ids of requirements.md


def parse_rubric(source: SectionSource) -> dict[str, float] | None:
    """The ``[rubric]`` table's weights (requirement id -> weight), None without the table."""
    table = source.meta.get(NAME)
    if table is None:
        return None
    where = f"{source.where}: [{NAME}]"
    if not isinstance(table, dict) or set(table) - {"weights"}:
        source.problems.append(
            f"{where} must be a table with one field, weights; write "
            "[rubric] weights = { R1 = 2.0, R2 = 1.0 }"
        )
        return None
    weights = table.get("weights", {})
    if not isinstance(weights, dict):
        source.problems.append(f"{where} field 'weights' must be a table, e.g. {{ R1 = 2.0 }}")
        return None
    found = {}
    for rid, weight in weights.items():
        number = isinstance(weight, int | float) and not isinstance(weight, bool)
        if not _ID.match(rid) or not number or weight < 0:
            source.problems.append(
                f"{where} field 'weights.{rid}' = {weight!r}: a weight is a number >= 0 for a "
                "requirement id of requirements.md (R1, R2, ...); fix or remove it"
            )
            continue
        found[rid] = float(weight)
    return found


TASK_SECTIONS = (TaskSection(NAME, parse_rubric),)
STAGE_INPUTS = {NAME: (f"{NAME}.weights",)}


def score(requirements: list[dict], weights: dict[str, float]) -> float | None:
    """The weighted share of implemented requirements (None when they weigh nothing)."""
    total = sum(weights.get(r["id"], DEFAULT_WEIGHT) for r in requirements)
    done = sum(
        weights.get(r["id"], DEFAULT_WEIGHT)
        for r in requirements
        if r.get("verdict") == "implemented"
    )
    return done / total if total else None


def pytest_e2ebench_plan_fields(ctx) -> dict | None:
    """The run's plan holds the task's weights in this method's slot (its stage's key)."""
    weights = ctx.task.slots.get(NAME)
    if weights is None:
        return None
    return {NAME: {"weights": dict(sorted(weights.items()))}}


def pytest_e2ebench_run_extras(steps, repo, repo_hash, migration, record) -> dict | None:
    """The run's rubric score, from the stage ``rubric`` (cached: keyed on the weights and the
    run's verdicts)."""
    weights = steps.ctx.task.slots.get(NAME)
    if weights is None:
        return None
    verdicts = [(r["id"], r["verdict"]) for r in record["requirements"]]
    stage = steps.stage(NAME, verdicts=verdicts)
    found = stage.load()
    if found is None:
        stage.reset()
        found = stage.commit({"score": score(record["requirements"], weights)})
    part = {"score": found["score"], "weights": dict(sorted(weights.items()))}
    return {"metrics": {"rubric_score": found["score"]}, NAME: part}


def pytest_e2ebench_error_extras(task) -> dict | None:
    """A run that ended in an error has no score, but says the weights it was to be scored by."""
    weights = task.slots.get(NAME)
    if weights is None:
        return None
    return {NAME: {"score": None, "weights": dict(sorted(weights.items()))}}


def summarize(records: list[dict], stage_records: list[dict]) -> dict | None:
    """results.json's ``rubric``: the mean rubric score of each agent's scored runs."""
    scores: dict[str, list[float]] = {}
    for record in records:
        found = (record.get(NAME) or {}).get("score")
        if found is not None:
            scores.setdefault(record["agent"], []).append(found)
    if not scores:
        return None
    return {
        "agents": {
            agent: {"mean": sum(values) / len(values), "runs": len(values)}
            for agent, values in sorted(scores.items())
        }
    }


def write(tr, document: dict) -> None:
    """The terminal's lines: each agent's mean rubric score."""
    tr.write_sep("-", "rubric")
    for agent, found in document[NAME]["agents"].items():
        tr.write_line(f"{agent}: rubric score {found['mean']:.3f} over {found['runs']} run(s)")


_SCORE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
SCHEMA = {
    "type": "object",
    "required": ["agents"],
    "properties": {
        "agents": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["mean", "runs"],
                "properties": {"mean": _SCORE, "runs": {"type": "integer", "minimum": 1}},
                "additionalProperties": False,
            },
        }
    },
    "additionalProperties": False,
}
RUN_SCHEMA = {
    NAME: {
        "type": "object",
        "required": ["score", "weights"],
        "properties": {
            "score": _SCORE,
            "weights": {"type": "object", "additionalProperties": {"type": "number"}},
        },
        "additionalProperties": False,
    }
}
SECTION = ReportSection(NAME, summarize, write, schema=SCHEMA, run_schema=RUN_SCHEMA)


@pytest.hookimpl
def pytest_e2ebench_report_sections(config) -> list:
    """results.json's ``rubric`` and its terminal lines."""
    return [SECTION]
