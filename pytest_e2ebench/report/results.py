"""results.json: the machine-readable outcome of a benchmark session (schema e2ebench-results/1).

Scripts read these keys; see the "results.json" section of docs/metrics.md.
"""

from __future__ import annotations

from pathlib import Path

from .. import __version__
from ..cache import write_json
from ..metrics import summarize

SCHEMA = "e2ebench-results/1"
_RUN_KEYS = (
    "task",
    "agent",
    "agent_spec",
    "run",
    "status",
    "error",
    "requirements",
    "metrics",
    "suites",
    "migration",
    "llm_judge",
    "agent_run",
    "install",
    "test_run",
    "containment",
    "intake",
    "web",
    "notes",
    "selection",
    "task_meta",
    "dir",
)


def build(records: list[dict]) -> dict:
    """The results document for the run records of one session, sorted for stable diffs."""
    ordered = sorted(records, key=lambda r: (r["task"], r["agent"], r["run"]))
    tasks = [{k: rec[k] for k in _RUN_KEYS if k in rec} for rec in ordered]
    return {
        "schema": SCHEMA,
        "generator": f"pytest-e2ebench {__version__}",
        "tasks": tasks,
        "summary": summarize(ordered),
    }


def write(path: Path, document: dict) -> None:
    """Write results.json atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, document)
