"""``e2ebench report`` and ``e2ebench compare``: reports from results.json files, no rerun.

``report`` merges the run records of one or more results files (several sessions, several
agents; a run found twice keeps the record of the file named last), prints the summary table
and optionally writes the merged results and the HTML report. ``compare`` pairs two agents on
the tasks both ran: per-task deltas of a metric, a paired bootstrap CI of the mean delta and an
exact sign test on the requirement verdicts.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TextIO

from ..grading import stats
from ..grading.verdicts import IMPLEMENTED
from ..proxy import atif
from . import results
from .html import write_html
from .results import ResultsError
from .table import fmt
from .terminal import RESULTS_FILE, write_summary

COMPARE_METRICS = ("impl_rate", "req_acc", "pass_rate", "test_acc", "balanced")


class Lines:
    """The two methods of pytest's terminal reporter that the summary uses, on a stream."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = min(shutil.get_terminal_size().columns, 120)

    def write_sep(self, sep: str, title: str) -> None:
        """A ``==== title ====`` line."""
        side = max(3, (self.width - len(title) - 2) // 2)
        self.stream.write(f"{sep * side} {title} {sep * side}\n")

    def write_line(self, line: str, **_markup) -> None:
        """One line (colors are for terminals; this writes plain text)."""
        self.stream.write(line + "\n")


def _load_all(paths: list[Path]) -> tuple[list[dict], list[str]]:
    """The merged run records of the files, and the runs their last sessions refreshed."""
    records: list[dict] = []
    refreshed: set[str] = set()
    for path in paths:
        document = results.load(path)
        records = results.merge(records, document["tasks"])
        refreshed.update(k for k in document.get("refreshed") or () if isinstance(k, str))
    keys = {results.run_key(r) for r in records}
    return records, sorted(refreshed & keys)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``e2ebench report``."""
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS.json")
    parser.add_argument("--html", type=Path, metavar="PATH", help="write the HTML report here")
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="write the merged results.json here"
    )


def report(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the summary of the results files; write the merged JSON and HTML when asked."""
    out = out or sys.stdout
    records, refreshed = _load_all(args.results)
    if not records:
        out.write("no run records in " + ", ".join(map(str, args.results)) + "\n")
        return 1
    # Nothing is rerun: "refreshed" keeps what the files' own sessions refreshed.
    # the methods' sections (ProjectEval's Pass@K ...): the command names them, as the
    # reporter does through pytest_e2ebench_report_sections
    sections = args.sections() if getattr(args, "sections", None) else []
    document = results.build(records, refreshed, sections=sections)
    write_summary(Lines(out), document)
    if args.json is not None:
        results.write(args.json, document)
        out.write(f"results: {args.json}\n")
    if args.html is not None:
        # the runs' files only from the out folders of the files given (a file from elsewhere
        # names its own run folders)
        write_html(args.html, document, runs_in=[results.out_folder(p) for p in args.results])
        out.write(f"html report: {args.html}\n")
    return 0


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``e2ebench compare``."""
    parser.add_argument("a", type=Path, metavar="A.json")
    parser.add_argument("b", type=Path, metavar="B.json")
    parser.add_argument("--agent-a", help="agent of A.json to compare (needed if it has several)")
    parser.add_argument("--agent-b", help="agent of B.json to compare (needed if it has several)")
    parser.add_argument(
        "--metric",
        default="impl_rate",
        choices=COMPARE_METRICS,
        help="per-task metric of the deltas (default impl_rate)",
    )


def _pick(records: list[dict], agent: str | None, path: Path, flag: str) -> tuple[str, list]:
    agents = sorted({r["agent"] for r in records})
    if agent is None:
        if len(agents) != 1:
            raise ResultsError(
                f"{path}: holds agents {', '.join(agents) or 'none'}; choose one with {flag}"
            )
        agent = agents[0]
    elif agent not in agents:
        raise ResultsError(f"{path}: no agent {agent!r} (it has {', '.join(agents)}); fix {flag}")
    return agent, [r for r in records if r["agent"] == agent]


def _per_task(records: list[dict], metric: str) -> dict[str, float]:
    by_task: dict[str, list] = {}
    for rec in records:
        if rec.get("metrics") is not None:
            by_task.setdefault(rec["task"], []).append(rec["metrics"].get(metric))
    return {t: m for t, vs in by_task.items() if (m := stats.mean_std(vs)["mean"]) is not None}


def _verdict_shares(records: list[dict]) -> dict[tuple[str, str], float]:
    hits: dict[tuple[str, str], list[bool]] = {}
    for rec in records:
        if rec.get("metrics") is None:
            continue
        for req in rec.get("requirements") or ():
            hits.setdefault((rec["task"], req["id"]), []).append(req["verdict"] == IMPLEMENTED)
    return {key: sum(v) / len(v) for key, v in hits.items()}


def paired(a: list[dict], b: list[dict], metric: str) -> dict:
    """The paired comparison of two agents' run records on the tasks both ran."""
    task_a, task_b = _per_task(a, metric), _per_task(b, metric)
    common = sorted(task_a.keys() & task_b.keys())
    deltas = {t: task_b[t] - task_a[t] for t in common}
    shares_a, shares_b = _verdict_shares(a), _verdict_shares(b)
    pairs = shares_a.keys() & shares_b.keys()
    b_better = sum(1 for k in pairs if shares_b[k] > shares_a[k])
    a_better = sum(1 for k in pairs if shares_b[k] < shares_a[k])
    return {
        "metric": metric,
        "tasks": {t: {"a": task_a[t], "b": task_b[t], "delta": deltas[t]} for t in common},
        "only_a": sorted(task_a.keys() - task_b.keys()),
        "only_b": sorted(task_b.keys() - task_a.keys()),
        "mean_delta": stats.mean_std(deltas.values())["mean"],
        "ci95": stats.bootstrap_ci(list(deltas.values())),
        "requirements": {
            "pairs": len(pairs),
            "b_better": b_better,
            "a_better": a_better,
            "ties": len(pairs) - a_better - b_better,
            "sign_test_p": stats.sign_test(b_better, a_better),
        },
    }


def compare(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the paired comparison of agent B against agent A."""
    out = out or sys.stdout
    name_a, recs_a = _pick(_load_all([args.a])[0], args.agent_a, args.a, "--agent-a")
    name_b, recs_b = _pick(_load_all([args.b])[0], args.agent_b, args.b, "--agent-b")
    result = paired(recs_a, recs_b, args.metric)
    if not result["tasks"]:
        out.write(f"{name_a} ({args.a}) and {name_b} ({args.b}) share no evaluated task\n")
        return 1
    lines = Lines(out)
    lines.write_sep("=", f"e2ebench compare: B={name_b} against A={name_a} ({args.metric})")
    width = max(len("task"), *(len(t) for t in result["tasks"]))
    lines.write_line(f"{'task'.ljust(width)}  {'A':>7}  {'B':>7}  {'B-A':>7}")
    for task, row in result["tasks"].items():
        delta = f"{100 * row['delta']:+.1f}"
        lines.write_line(
            f"{task.ljust(width)}  {fmt(row['a'], 'pct'):>7}  {fmt(row['b'], 'pct'):>7}  {delta:>7}"
        )
    ci = result["ci95"]
    ci_text = "n/a (one task)" if ci is None else f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"
    lines.write_line(
        f"mean delta over {len(result['tasks'])} tasks: {100 * result['mean_delta']:+.1f} "
        f"points; paired bootstrap 95% CI {ci_text}"
    )
    req = result["requirements"]
    lines.write_line(
        f"requirements: B better on {req['b_better']}, A better on {req['a_better']}, "
        f"{req['ties']} ties of {req['pairs']}; sign test p = {req['sign_test_p']:.4g}"
    )
    for side, tasks in (("A", result["only_a"]), ("B", result["only_b"])):
        if tasks:
            lines.write_line(f"only in {side} (not compared): {', '.join(tasks)}")
    return 0


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """``e2ebench export atif``: the trajectories of runs made before (issue 42)."""
    parser.add_argument("source", type=Path, help="a results.json, or a run's folder")
    parser.add_argument("out", type=Path, help="where to write <agent>/<task>/run-<n>.atif.json")


def export_atif(args: argparse.Namespace) -> int:
    """Write each proxied run's ATIF trajectory; 1 when none of ``source``'s runs has one."""
    runs = _proxied_runs(args.source)
    for (agent, task, run), proxy in runs:
        where = args.out / agent / task / f"run-{run}.atif.json"
        where.parent.mkdir(parents=True, exist_ok=True)
        spec = proxy.get("agent_spec") or {}
        summary = proxy["summary"]
        name, version = spec.get("name", agent), spec.get("version", "")
        atif.write(Path(summary["log"]), where, name, version, spec.get("model", ""), summary)
        print(f"{where}")
    if not runs:
        print(f"e2ebench export atif: no run with a metering proxy's log in {args.source}")
        return 1
    return 0


def _proxied_runs(source: Path) -> list[tuple[tuple, dict]]:
    """((agent, task, run), {"summary", "agent_spec"}) of each run whose proxy log exists."""
    if source.is_dir() and (source / "agent" / "proxy.jsonl").is_file():
        log = source / "agent" / "proxy.jsonl"
        return [((source.parent.parent.name, source.parent.name, source.name.removeprefix("run-")),
                 {"summary": {"log": str(log)}, "agent_spec": {}})]  # fmt: skip
    if source.is_dir():  # a session's folder: its results.json
        source = source / RESULTS_FILE
        if not source.is_file():
            return []
    found = []
    for record in results.load(source).get("tasks", []):
        details = (record.get("agent_run") or {}).get("details") or {}
        proxy = details.get("proxy")
        if isinstance(proxy, dict) and Path(str(proxy.get("log", ""))).is_file():
            key = (record["agent"], record["task"], record["run"])
            found.append((key, {"summary": proxy, "agent_spec": details.get("agent_spec") or {}}))
    return found
