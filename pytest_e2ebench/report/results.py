"""results.json: the machine-readable outcome of a benchmark session (schema e2ebench-results/1).

Scripts read these keys; see the "results.json" section of docs/metrics.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..contracts import ReportSection
from ..errors import E2EBenchError
from ..grading.metrics import summarize
from ..grading.stats import METHOD
from ..run.cache import write_json
from ..run.runs import RunKey
from ..untrusted.parse import loads_json

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
    "app",
    "notes",
    "selection",
    "level",
    "projecteval_mode",
    "projecteval",
    "task_meta",
    "dir",
)


def run_key(record: dict) -> str:
    """``agent/task/run-N`` (``agent/task/level-L[-cascade]/run-N``): how results.json names
    one run."""
    return RunKey.of_record(record).name  # a ProjectEval level is a run of its own (#17)


def build(
    records: list[dict],
    refreshed: list[str] | None = None,
    stage_records: list[dict] = (),
    sections: Sequence[ReportSection] = (),
) -> dict:
    """The results document for run records, sorted for stable diffs.

    ``refreshed`` names the runs this session evaluated (all of them when None); the summary
    counts per agent how many of its runs were. ``stage_records`` are the lifecycle stages'
    records (docs/stages.md). ``sections`` add their keys (DevEval's ``stages``, ProjectEval's
    ``projecteval``, a plugin's own): each summarizes the records, or is left out.
    """
    ordered = sorted(records, key=lambda r: (r["task"], r["agent"], r["run"]))
    tasks = [
        {k: rec[k] for k in (*_RUN_KEYS, *rec.get("judge_extra", ())) if k in rec}
        for rec in ordered
    ]
    fresh = sorted(run_key(r) for r in ordered) if refreshed is None else sorted(refreshed)
    summary = summarize(ordered)
    for agent, stats in summary.items():
        stats["refreshed_runs"] = sum(
            1 for r in ordered if r["agent"] == agent and run_key(r) in fresh
        )
    document = {
        "schema": SCHEMA,
        "generator": f"pytest-e2ebench {__version__}",
        "statistics": METHOD,
        "refreshed": fresh,
        "tasks": tasks,
        "summary": summary,
    }
    stages = list(stage_records)
    for section in sections:  # the methods' sections (pytest_e2ebench_report_sections)
        found = section.summarize(ordered, stages)
        if found is not None:
            document[section.key] = found
    return document


SESSIONS_DIR = "sessions"  # DIR/sessions/<UTC start>.json: every session's own results


class ResultsError(E2EBenchError, ValueError):
    """A results file that cannot be used; the message names the file and the fix."""


def load(path: Path) -> dict:
    """A results document, checked; :class:`ResultsError` names the file and what is wrong."""
    try:
        # bounded in depth: a results file from elsewhere of 100,000 "[" raised RecursionError
        document = loads_json(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read ({exc.strerror})") from None
    except ValueError as exc:
        raise ResultsError(f"{path}: not JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise ResultsError(
            f"{path}: schema is {found!r}, not {SCHEMA!r}; pass a results.json written by "
            f"pytest-e2ebench"
        )
    if not isinstance(document.get("tasks"), list) or not all(
        isinstance(r, dict) and {"task", "agent", "run"} <= r.keys() for r in document["tasks"]
    ):
        raise ResultsError(f"{path}: field tasks must be a list of run records (task, agent, run)")
    return document


def out_folder(path: Path) -> Path:
    """The ``--e2e-out`` folder a results file was written into: its own folder, or the one
    above for a session's file (``<out>/sessions/<stamp>.json``)."""
    folder = Path(os.path.abspath(path)).parent
    return folder.parent if folder.name == SESSIONS_DIR else folder


def merge(previous: list[dict], fresh: list[dict]) -> list[dict]:
    """The previous records, each replaced by this session's record of the same run."""
    merged = {run_key(r): r for r in previous}
    merged.update({run_key(r): r for r in fresh})
    return list(merged.values())


def write(path: Path, document: dict) -> None:
    """Write results.json atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, document)
