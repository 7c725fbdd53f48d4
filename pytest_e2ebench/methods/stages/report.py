"""DevEval's report section (docs/stages.md): results.json's ``stages`` and the terminal's
``e2ebench stages`` table, added through ``pytest_e2ebench_report_sections`` like a plugin's."""

from __future__ import annotations

from ...contracts import ReportSection
from ...grading.metrics import mean_std
from ...report.table import fmt, write_table


def summarize_stages(records: list[dict], stage_records: list[dict]) -> dict | None:
    """The ``stages`` section, present only when a stage besides implement was graded."""
    return stage_section(stage_records, records) if stage_records else None


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


def write_stages(tr, document: dict) -> None:
    """Per (stage, agent): results.json's stage summary, one metric column each."""
    summary = document.get("stages", {}).get("summary", {})
    if not summary:
        return
    rows = []
    for stage, agents in summary.items():
        for agent, stats in agents.items():
            cells = [
                f"{key} {fmt(value['mean'], 'pct')}"
                for key, value in stats.items()
                if isinstance(value, dict) and value.get("mean") is not None
            ]
            rows.append([stage, agent, str(stats["runs"]), "  ".join(cells) or "-"])
    tr.write_sep("=", "e2ebench stages")
    write_table(tr, ["stage", "agent", "runs", "metrics (mean over runs)"], [rows], left=4)


# above the run table, as the stage table has always been
# results.json's "stages": each lifecycle stage's record (run/record.py's stage_record)
STAGE_RUN_SCHEMA = {
    "type": "object",
    "required": ["task", "agent", "run", "stage", "status", "metrics", "notes", "dir"],
    "properties": {
        "task": {"type": "string", "minLength": 1},
        "agent": {"type": "string", "minLength": 1},
        "run": {"type": "integer", "minimum": 1},
        "stage": {"enum": ["design", "setup", "acceptance-tests", "unit-tests"]},
        "status": {"enum": ["ok", "error"]},
        "error": {
            "type": "object",
            "required": ["type", "message"],
            "properties": {"type": {"type": "string"}, "message": {"type": "string"}},
        },
        "items": {"type": "object"},
        "metrics": {"type": ["object", "null"]},
        "notes": {"type": "array", "items": {"type": "string"}},
        "dir": {"type": "string"},
    },
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "error"}}},
            "then": {"required": ["error"], "properties": {"metrics": {"type": "null"}}},
        }
    ],
}
SCHEMA = {
    "type": "object",
    "required": ["runs", "summary"],
    "properties": {
        "runs": {"type": "array", "items": STAGE_RUN_SCHEMA},
        "summary": {"type": "object"},
    },
}
SECTION = ReportSection(
    "stages", summarize_stages, write_stages, before_summary=True, schema=SCHEMA
)
