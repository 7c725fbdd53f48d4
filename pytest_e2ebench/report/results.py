"""results.json: the machine-readable outcome of a benchmark session (schema e2ebench-results/1).

Scripts read these keys; see the "results.json" section of docs/metrics.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..errors import E2EBenchError
from ..grading.metrics import mean_std, summarize
from ..grading.stats import METHOD
from ..run.cache import write_json
from ..run.runs import RunKey

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
    records: list[dict], refreshed: list[str] | None = None, stage_records: list[dict] = ()
) -> dict:
    """The results document for run records, sorted for stable diffs.

    ``refreshed`` names the runs this session evaluated (all of them when None); the summary
    counts per agent how many of its runs were. ``stage_records`` are the lifecycle stages'
    records (docs/stages.md): they make the ``stages`` section, present only when a stage
    besides implement was graded.
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
    if stage_records:
        document["stages"] = stage_section(stage_records, ordered)
    if any("projecteval" in r for r in ordered):
        from ..methods.projecteval.passk import summarize_passk

        # ProjectEval's averaged Pass@K and the unbiased estimator, labelled apart (#17)
        document["projecteval"] = {"pass_at_k": summarize_passk(ordered)}
    return document


def stage_section(stage_records: list[dict], records: list[dict]) -> dict:
    """``stages``: every stage record, and per stage and agent the mean (± std) of each metric.

    The implement stage's summary adds DevEval's implementation score: the mean pass rate of
    the reference tests weighted by the reference's lines of code (as issue 16 states it).
    """
    ordered = sorted(stage_records, key=lambda r: (r["stage"], r["task"], r["agent"], r["run"]))
    summary: dict[str, dict[str, dict]] = {}
    for stage in dict.fromkeys(r["stage"] for r in ordered):
        for agent in dict.fromkeys(r["agent"] for r in ordered if r["stage"] == stage):
            mine = [r for r in ordered if r["stage"] == stage and r["agent"] == agent]
            graded = [r["metrics"] for r in mine if r.get("metrics")]
            keys = dict.fromkeys(k for m in graded for k in m)
            stats = {k: mean_std(m.get(k) for m in graded) for k in keys}
            if stage in ("acceptance-tests", "unit-tests"):
                # DevBench reports coverage over all repositories and over the valid ones
                # (whose tests pass on the reference).
                valid = [m for m in graded if m.get("oracle_pass") == 1.0]
                stats["statement_coverage_valid"] = mean_std(
                    m.get("statement_coverage") for m in valid
                )
                stats["statement_coverage_all"] = mean_std(
                    m.get("statement_coverage") or 0.0 for m in graded
                )
            summary.setdefault(stage, {})[agent] = {
                "runs": len(mine),
                "errored_runs": len(mine) - len(graded),
                **stats,
            }
    for agent in dict.fromkeys(r["agent"] for r in records):
        weighted = [
            (r["metrics"]["pass_rate"], r["task_meta"].get("reference_lines") or 0)
            for r in records
            if r["agent"] == agent and (r.get("metrics") or {}).get("pass_rate") is not None
        ]
        total = sum(w for _, w in weighted)
        summary.setdefault("implement", {})[agent] = {
            "runs": len([r for r in records if r["agent"] == agent]),
            "loc_weighted_pass_rate": {
                "mean": sum(p * w for p, w in weighted) / total if total else None,
                "std": None,
            },
        }
    runs = [{k: v for k, v in r.items() if k != "schema"} for r in ordered]
    return {"runs": runs, "summary": summary}


class ResultsError(E2EBenchError, ValueError):
    """A results file that cannot be used; the message names the file and the fix."""


def load(path: Path) -> dict:
    """A results document, checked; :class:`ResultsError` names the file and what is wrong."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
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


def merge(previous: list[dict], fresh: list[dict]) -> list[dict]:
    """The previous records, each replaced by this session's record of the same run."""
    merged = {run_key(r): r for r in previous}
    merged.update({run_key(r): r for r in fresh})
    return list(merged.values())


def write(path: Path, document: dict) -> None:
    """Write results.json atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, document)
