"""The HTML report: one self-contained file rendered from results.json with jinja2.

Everything the page shows is inlined (CSS, SVG charts, screenshots as ``data:`` images), so it
opens offline and can be attached to a CI run. The page has no script. Autoescaping is on:
task names, test messages and notes are text the agents' projects influenced.

Screenshots and trajectories are read from the run folders named in the document, only when
they lie inside that folder, without following links and within size limits; a report built
elsewhere (``e2ebench report`` on a copied results.json) simply shows none.
"""

from __future__ import annotations

import base64
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..grading.verdicts import IMPLEMENTED
from ..isolation.intake import read_bytes
from ..run.runs import RunKey
from . import svg
from .table import fmt
from .trajectory import comparisons, files, inside, steps, text_size

# (label, metric key, format) of the overview, in E2EDev's order
OVERVIEW = (
    ("Impl-Rate", "impl_rate", "pct"),
    ("Req.Acc", "req_acc", "pct"),
    ("Pass-Rate", "pass_rate", "pct"),
    ("Balanced", "balanced", "pct"),
    ("Exec", "executability", "pct"),
    ("Line cov", "line_coverage", "pct"),
    ("Branch cov", "branch_coverage", "pct"),
    ("Cost $", "cost_usd", "money"),
    ("Tokens sent", "tokens_sent", "int"),
    ("Tokens generated", "tokens_generated", "int"),
    ("Time s", "duration_s", "secs"),
)
MAX_MESSAGE = 1500  # characters of a failing test's message shown
MAX_FAILING = 20  # failing tests listed per requirement
MAX_SHOTS = 4  # screenshots per run
SHOT_BYTES = 2 << 20
TRAJECTORY_BYTES = 256 << 10
TRAJECTORY_LINES = 40
PNG = b"\x89PNG\r\n\x1a\n"
# characters of trajectories and diffs one page holds; more, and each run has its own page
INLINE_TEXT = 8 << 20


def fmt_ci(ci: list[float] | None, kind: str) -> str:
    """``[low, high]`` in the metric's format, '' without an interval."""
    if not ci:
        return ""
    return f"[{fmt(ci[0], kind)}, {fmt(ci[1], kind)}]"


def overview(summary: dict) -> list[dict]:
    """Per agent: each overview metric's mean, ± std and CI as shown on the page."""
    rows = []
    for agent, stats in summary.items():
        cells = []
        for label, key, kind in OVERVIEW:
            s = stats.get(key) or {}
            std = s.get("std")
            cells.append(
                {
                    "label": label,
                    "key": key,
                    "mean": fmt(s.get("mean"), kind),
                    "std": "" if std is None else "±" + fmt(std, kind).rstrip("%"),
                    "ci": fmt_ci(s.get("ci95"), kind),
                    "n": s.get("n", 0),
                }
            )
        rows.append({"agent": agent, "stats": stats, "cells": cells})
    return rows


def heatmaps(records: list[dict], agents: list[str]) -> list[dict]:
    """Per task: the share of evaluated runs implementing each requirement, per agent that
    ran it (grey where all its runs of the task ended in an error)."""
    tasks: dict[str, dict] = {}
    for rec in records:
        task = tasks.setdefault(rec["task"], {"ids": [], "hits": {}, "agents": set()})
        task["agents"].add(rec["agent"])
        for req in rec.get("requirements") or ():
            if req["id"] not in task["ids"]:
                task["ids"].append(req["id"])
            if rec.get("metrics") is None:
                continue
            hit = task["hits"].setdefault((req["id"], rec["agent"]), [0, 0])
            hit[0] += req["verdict"] == IMPLEMENTED
            hit[1] += 1
    out = []
    for name, task in sorted(tasks.items()):
        cells = {key: done / total for key, (done, total) in task["hits"].items()}
        ran = [a for a in agents if a in task["agents"]]  # only the agents that ran the task
        out.append(
            {
                "task": name,
                "svg": svg.heatmap(task["ids"], ran, cells, f"{name}: requirement × agent"),
            }
        )
    return out


def cost_scatter(records: list[dict], agents: list[str]) -> dict | None:
    """Balanced score against cost (or agent time when no run has a cost), per (agent, task)."""
    evaluated = [r for r in records if r.get("metrics")]
    x_key = "cost_usd" if any(r["metrics"].get("cost_usd") for r in evaluated) else "duration_s"
    points: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for rec in evaluated:
        x, y = rec["metrics"].get(x_key), rec["metrics"].get("balanced")
        if x is not None and y is not None:
            points.setdefault((rec["agent"], rec["task"]), []).append((x, y))
    if not points:
        return None
    dots = [
        (
            f"{agent} · {task}",
            sum(p[0] for p in ps) / len(ps),
            sum(p[1] for p in ps) / len(ps),
            agents.index(agent),
        )
        for (agent, task), ps in sorted(points.items())
    ]
    x_label = "cost (USD)" if x_key == "cost_usd" else "agent time (s); no run has a cost"
    return {"x_key": x_key, "svg": svg.scatter(dots, x_label, "Balanced", "score against cost")}


def failure_cause(record: dict, requirement: dict) -> str:
    """Why a requirement is not implemented, in a few classes (for the taxonomy chart)."""
    if record.get("metrics") is None:
        return f"run error ({(record.get('error') or {}).get('kind', 'unknown')})"
    if (record.get("containment") or {}).get("tampered"):
        return "tampered"
    causes = Counter()
    for test in requirement.get("failing") or ():
        message = test.get("message") or ""
        if message.startswith(("missing:", "dropped by migration")) or any(
            e in message for e in ("ModuleNotFoundError", "ImportError", "AttributeError")
        ):
            causes["API missing"] += 1
        elif message.startswith("the app has no page") or "did not start" in message:
            causes["app not served"] += 1
        elif message.startswith("not run: the test run exceeded") or "Timeout" in message:
            causes["timeout"] += 1
        elif test.get("outcome") == "error":
            causes["error (collection, setup)"] += 1
        else:
            causes["assertion failed"] += 1
    return causes.most_common(1)[0][0] if causes else "no test passed"


def taxonomy(records: list[dict], agents: list[str]) -> list[dict]:
    """Per agent: counts of not-implemented requirements by cause (LLM judge classes if any)."""
    out = []
    for agent in agents:
        counts: Counter = Counter()
        for rec in records:
            if rec["agent"] != agent:
                continue
            judged = (rec.get("llm_judge") or {}).get("class_counts")
            if judged:
                counts.update({f"judge: {k}": v for k, v in judged.items()})
                continue
            for req in rec.get("requirements") or ():
                if req["verdict"] != IMPLEMENTED:
                    counts[failure_cause(rec, req)] += 1
        if counts:
            items = [(name, float(n), None) for name, n in counts.most_common()]
            chart = svg.bars(items, f"{agent}: failures by cause", max(counts.values()), False)
            out.append({"agent": agent, "total": sum(counts.values()), "svg": chart})
    return out


def screenshots(record: dict) -> list[dict]:
    """Failing scenarios' screenshots as data URIs (PNG only, bounded, inside the run folder)."""
    if not record.get("dir"):
        return []
    run_dir = Path(record["dir"])
    shots = []
    for req in record.get("requirements") or ():
        for test in req.get("failing") or ():
            path = (test.get("properties") or {}).get("screenshot")
            rel = inside(run_dir, path) if isinstance(path, str) else None
            if rel is None or len(shots) >= MAX_SHOTS:
                continue
            data = read_bytes(run_dir, rel, SHOT_BYTES)
            if data and data.startswith(PNG):
                uri = "data:image/png;base64," + base64.b64encode(data).decode()
                shots.append({"nodeid": test["nodeid"], "uri": uri})
    return shots


def trajectory(record: dict) -> list[str]:
    """The first lines of the agent's trajectory file (harness-written, bounded)."""
    path = ((record.get("agent_run") or {}).get("details") or {}).get("trajectory")
    if not isinstance(path, str) or not record.get("dir"):
        return []
    run_dir = Path(record["dir"])
    rel = inside(run_dir, path)
    data = read_bytes(run_dir, rel, TRAJECTORY_BYTES) if rel else None
    if not data:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return [line[:400] for line in lines[:TRAJECTORY_LINES]]


def readable(record: dict, runs_in: Sequence[Path] | None) -> bool:
    """Whether the report may read the run's files: always for a session's own records
    (``runs_in`` None), else only when the record's ``dir`` lies inside one of ``runs_in``.

    A results file from elsewhere (``e2ebench report`` of a file someone published) names its
    own ``dir`` and trajectory: ``"dir": "/"`` with ``"trajectory": "/etc/shadow"`` put the
    first 40 lines of that file into the HTML report written on this machine.
    """
    if runs_in is None:
        return True
    where = record.get("dir")
    if not isinstance(where, str) or not os.path.isabs(where):
        return False
    return any(inside(Path(os.path.abspath(root)), where) is not None for root in runs_in)


def run_view(record: dict, runs_in: Sequence[Path] | None = None) -> dict:
    """What a run's section shows (its files read only when :func:`readable`)."""
    failing = []
    for req in record.get("requirements") or ():
        if req["verdict"] == IMPLEMENTED:
            continue
        tests = [
            {**t, "message": (t.get("message") or "")[:MAX_MESSAGE]}
            for t in (req.get("failing") or ())[:MAX_FAILING]
        ]
        failing.append({**req, "failing": tests, "cause": failure_cause(record, req)})
    metrics = record.get("metrics") or {}
    readable_files = readable(record, runs_in)
    return {
        "id": _run_id(record),
        "record": record,
        "metrics": [(label, fmt(metrics.get(key), kind)) for label, key, kind in OVERVIEW],
        "failing": failing,
        "screenshots": screenshots(record) if readable_files else [],
        "steps": steps(record) if readable_files else [],
        "files": files(record) if readable_files else [],
        "trajectory": trajectory(record) if readable_files else [],
        "coverage": coverage_links(record) if readable_files else {},
        "page": "",  # the run's own page, when it has one (write_html)
    }


def _run_id(record: dict) -> str:
    """``agent--task--run-N``; a level's (and a cascade's) runs keep theirs apart."""
    try:
        return RunKey.of_record(record).slug
    except (KeyError, ValueError):  # a record from elsewhere (``e2ebench report``): as written
        return f"{record.get('agent')}--{record.get('task')}--run-{record.get('run')}"


def coverage_links(record: dict) -> dict:
    """The run's coverage reports (written next to its test runs), when they exist."""
    extended = (record.get("suites") or {}).get("extended") or {}
    coverage = extended.get("coverage_reports") or {}
    return {k: v for k, v in coverage.items() if isinstance(v, str)}


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("pytest_e2ebench", "report/templates"),
        autoescape=True,
        # records of older files may lack keys: a missing one renders empty
        undefined=jinja2.ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(
    document: dict, runs_in: Sequence[Path] | None = None, runs: list[dict] | None = None
) -> str:
    """The report page of a results document; ``runs_in``: see :func:`readable`; ``runs``:
    the run views when made already (:func:`write_html`: with their own pages)."""
    records = document["tasks"]
    summary = document["summary"]
    agents = list(summary)
    impl = [
        (a, (s.get("impl_rate") or {}).get("mean"), (s.get("impl_rate") or {}).get("ci95"))
        for a, s in summary.items()
    ]
    quarters = sorted({q for s in summary.values() for q in s.get("by_quarter") or {}})
    if runs is None:
        runs = [run_view(r, runs_in) for r in records]
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            document=document,
            generated=_now(),
            agents=agents,
            overview=overview(summary),
            impl_chart=svg.bars(impl, "Impl-Rate per agent with 95% CI"),
            heatmaps=heatmaps(records, agents),
            scatter=cost_scatter(records, agents),
            taxonomy=taxonomy(records, agents),
            quarters=quarters,
            fmt=fmt,
            runs=runs,
            comparisons=comparisons(runs),
            color=svg.color,
        )
    )


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_html(path: Path, document: dict, runs_in: Sequence[Path] | None = None) -> None:
    """Render the report to ``path`` (atomically); ``runs_in``: see :func:`readable`.

    When the runs' trajectories and diffs hold more than ``INLINE_TEXT`` characters, each run
    that has one gets its own page, ``<path stem>.runs/<run id>.html`` beside the report, and
    the report links to it: a session of 100 runs of 300 steps was a 92 MB page Chromium took
    10 s to open (docs/reports.md)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    runs = [run_view(r, runs_in) for r in document["tasks"]]
    if sum(text_size(v) for v in runs) > INLINE_TEXT:
        folder = path.with_name(f"{path.stem}.runs")
        folder.mkdir(exist_ok=True)
        template = _environment().get_template("run.html.j2")
        for view in runs:
            if view["steps"] or view["files"]:
                view["page"] = f"{folder.name}/{view['id']}.html"
                page = template.render(run=view, back=f"../{path.name}", generated=_now())
                _write(path.parent / view["page"], page)
    _write(path, render(document, runs_in, runs))
