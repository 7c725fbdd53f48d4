"""ProjectEval's report section (#17): results.json's ``projecteval`` (Pass@K) and the
terminal's similarity per run and Pass@K per agent, added through
``pytest_e2ebench_report_sections`` like a plugin's."""

from __future__ import annotations

from ...contracts import ReportSection
from ...report.table import write_table
from .passk import summarize_passk

INDICATORS = ("checklist", "skeleton", "code", "parameters")


def _cell(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def write_projecteval(tr, document: dict) -> None:
    """Write the ``e2ebench projecteval`` section (indicators are never part of pass rates)."""
    rows = []
    notes: dict[str, set[str]] = {}  # an install hint -> the indicators it leaves empty
    for record in document.get("tasks", []):
        found = record.get("projecteval")
        if not found:
            continue
        similarity = found.get("similarity") or {}
        for name, note in (found.get("similarity_notes") or {}).items():
            if "install" in note:
                notes.setdefault(note, set()).add(name)
        rows.append(
            [
                record["task"],
                record["agent"],
                str(record.get("level") or "-")
                + ("-cascade" if record.get("projecteval_mode") == "cascade" else ""),
                str(record["run"]),
                *(_cell(similarity.get(name)) for name in INDICATORS),
            ]
        )
    if not rows:
        return
    tr.write_sep("=", "e2ebench projecteval (similarity, not part of the pass rates)")
    write_table(tr, ["task", "agent", "level", "run", *INDICATORS], [rows], left=2)
    for note, names in sorted(notes.items()):
        # the other indicators were computed: name only the ones this note leaves out
        tr.write_line(f"similarity {', '.join(sorted(names))} not computed: {note}", yellow=True)
    for record in document.get("tasks", []):
        line = cascade_line(record)
        if line:
            tr.write_line(line, red=" ended at " in line)
    for key, stats in (document.get("projecteval") or {}).get("pass_at_k", {}).items():
        averaged = stats.get("projecteval_pass_at_rounds_averaged")
        unbiased = stats.get("pass_at_k_unbiased_requirements") or {}
        estimator = ", ".join(f"pass@{k} {v:.3f}" for k, v in unbiased.items() if v is not None)
        tr.write_line(
            f"{key}: ProjectEval Pass@{stats['runs']} (averaged over rounds) "
            f"{_cell(averaged)}; unbiased per requirement: {estimator or '-'}"
        )


def cascade_line(record: dict) -> str | None:
    """One line per cascade run: each step's score, and where the cascade ended if it did."""
    found = (record.get("projecteval") or {}).get("cascade")
    if not found:
        return None
    parts = []
    for step in found["steps"]:
        if step["step"] == "code":
            acc = step.get("test_acc")
            score = "not run" if step["status"] == "not run" else f"tests {_percent(acc)}"
        else:
            score = f"similarity {_cell(step.get('similarity'))}"
        parts.append(f"{step['step']} {score}")
    where = f"{record['agent']}/{record['task']}/level-{record.get('level')}/run-{record['run']}"
    text = f"cascade {where}: " + " -> ".join(parts)
    if found.get("ended"):
        text += f"; ended at {found['ended'].removeprefix('the cascade ended at ')}"
    return text


def _percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def summarize_projecteval(records: list[dict], stage_records: list[dict]) -> dict | None:
    """ProjectEval's averaged Pass@K and the unbiased estimator, labelled apart (#17); None
    when no run was of a ProjectEval task."""
    if not any("projecteval" in r for r in records):
        return None
    return {"pass_at_k": summarize_passk(records)}


# results.json's "projecteval" (Pass@K) and the keys ProjectEval adds to a run's entry
SCHEMA = {
    "type": "object",
    "required": ["pass_at_k"],
    "properties": {"pass_at_k": {"type": "object"}},
}
RUN_SCHEMA = {
    "level": {"enum": [1, 2, 3, None]},
    "projecteval_mode": {"const": "cascade"},
    "projecteval": {"type": "object"},
}
SECTION = ReportSection(
    "projecteval", summarize_projecteval, write_projecteval, schema=SCHEMA, run_schema=RUN_SCHEMA
)
