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
from ..schema import results_problems
from ..untrusted.parse import loads_json

SCHEMA = "e2ebench-results/1"
# a run record's own bookkeeping, never in results.json; every other key of it is (the harness's,
# a judge's, a method's: run/record.py is the one builder of records)
RECORD_ONLY = frozenset({"schema", "judge_extra"})


def run_key(record: dict) -> str:
    """``agent/task/run-N`` (``agent/task/<part>/run-N``, a method's part: ProjectEval's
    ``level-L[-cascade]``): how results.json names one run."""
    return RunKey.of_record(record).name


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
    tasks = [{k: v for k, v in rec.items() if k not in RECORD_ONLY} for rec in ordered]
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
    """A results document, checked against its schema; :class:`ResultsError` names the file and
    what is wrong."""
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
    problems = results_problems(document)  # the core's schema and every method's part
    if problems:
        shown = "\n  ".join(problems[:10]) + (
            f"\n  ... {len(problems) - 10} more" * (len(problems) > 10)
        )
        raise ResultsError(
            f"{path}: does not match the results.json schema (pytest_e2ebench/schema; a "
            f"method's section needs its plugin installed):\n  {shown}"
        )
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
