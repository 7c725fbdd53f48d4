"""The reporter: gathers run records from item reports, writes results.json, prints the table.

Registered only on the controller (``-n`` workers ship records on their reports' user
properties, which pytest-xdist carries over), and writes through the terminal reporter.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ..contracts import RECORD_PROPERTY as PROPERTY
from ..grading.stats import mean_std
from ..run.progress import Monitor
from ..run.runs import RUN_IN_ID, RunKey
from ..taskmodel.catalog import HEADERS, rows
from . import results
from .coverage import combined, term_lines
from .html import write_html
from .table import fmt, write_table

RESULTS_FILE = "results.json"
# an item id's run: "tasks/calc/task.toml::calc[agent-run-2-R1]" -> (calc, agent, 2)
# (header, metric key, format): rates as percentages, counts plain, None as '-'
COLUMNS = (
    ("impl", "impl_rate", "pct"),
    ("req_acc", "req_acc", "pct"),
    ("pass", "pass_rate", "pct"),
    ("balanced", "balanced", "pct"),
    ("line", "line_coverage", "pct"),
    ("branch", "branch_coverage", "pct"),
    ("tok_in", "tokens_sent", "int"),  # tokens sent to the model
    ("tok_out", "tokens_generated", "int"),  # tokens it generated
    ("cost$", "cost_usd", "money"),
    ("steps", "steps", "int"),
    ("time_s", "duration_s", "secs"),
)
# Shown only when a web task ran: share of runs whose app loads without a breaking error.
EXEC_COLUMN = ("exec", "executability", "pct")
# Shown only when an app task ran: RealDevWorld's SQ (mean case result, 0 if not executable).
SQ_COLUMN = ("SQ", "sq", "pct")
# What the less obvious columns mean, said under the table when they are shown.
LEGEND = {
    "exec": "share of runs whose web app loads without a breaking error",
    "SQ": "RealDevWorld's mean case result (0 when the app does not run)",
}
# Appended to the runs cell of a row whose means leave out runs that ended in an error.
PARTIAL_MARK = "*"


class Reporter:
    """Collects the e2ebench records of a session (controller side)."""

    def __init__(self, config: pytest.Config, settings) -> None:
        self.config = config
        self.settings = settings
        self.out = settings.out
        self.problems: list[str] = []  # shown in the terminal summary
        self.coverage_lines: list[str] = []
        self.records: dict[RunKey, dict] = {}
        self.stage_records: dict[RunKey, dict] = {}
        self.results_path: Path | None = None
        self.session_path: Path | None = None
        self.total_runs = 0  # under -n, from the workers' item ids
        self.planned: set[tuple] = set()  # (task, agent, run) of every run collected
        self.document: dict = {}  # results.json as written, once the session has finished
        self.collected_tasks: dict = {}
        self.monitor = None
        # Under -n runs happen in workers, which cannot print: a thread shows their progress.
        self.distributed = getattr(config.option, "dist", "no") != "no"
        self.html_path: Path | None = None
        self._lines = threading.Lock()  # one progress line at a time (runs' heartbeats)
        # the methods' and plugins' sections of results.json and of the summary
        self.sections = sections_of(config)

    def live_line(self, line: str) -> None:
        """Show a progress line now, from the process of a plain session.

        Written between an item's start and its outcome, past output capturing (as pytest's
        live logging is), so ``pytest`` without ``-s`` shows it. A run's heartbeat calls it
        from its own thread while the main thread waits for the step (a child process): one
        line at a time, under a lock, and flushed, so a pipe (``| tee``) gets it at once too.
        """
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is None:
            return
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        with self._lines:
            if capture is None:
                self._write(tr, line)
                return
            with capture.global_and_fixture_disabled():
                self._write(tr, line)

    @staticmethod
    def _write(tr, line: str) -> None:
        tr.write_line(line)
        tr.flush()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None and self.distributed and not self.config.option.collectonly:
            self.monitor = Monitor(
                self.out / "progress", lambda line: self._write(tr, line), status=self._done_runs
            )
            self.monitor.start()

    def _done_runs(self) -> str:
        """How far a -n session is: runs whose record arrived, of the runs the workers hold."""
        return f"{len(self.records)}/{self.total_runs} runs done" if self.total_runs else ""

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:
        """-n: the controller collects nothing; the runs are counted from a worker's ids."""
        runs = {m.groups() for m in map(RUN_IN_ID.search, ids) if m is not None}
        self.total_runs = max(self.total_runs, len(runs))
        self.planned |= runs

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        ids = (item.nodeid for item in session.items)
        self.planned |= {m.groups() for m in map(RUN_IN_ID.search, ids) if m is not None}
        if self.config.option.collectonly:
            for item in session.items:
                task = getattr(item, "task", None)
                if task is not None:
                    self.collected_tasks[task.id] = task

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name != PROPERTY or not isinstance(value, str | dict):
                continue
            record = json.loads(value) if isinstance(value, str) else value
            key = RunKey.of_record(record)
            if "stage" in record:
                self.stage_records[key] = record
            else:
                self.records[key] = record

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if self.monitor is not None:
            self.monitor.stop()
        if not self.records and not self.stage_records:
            return
        self.results_path = self.out / RESULTS_FILE
        # One rule (issue 31): results.json is this session's runs, whatever the selection, and
        # a copy is kept under sessions/; `e2ebench report A.json B.json` merges sessions.
        fresh = list(self.records.values())
        self.document = results.build(
            fresh,
            [results.run_key(r) for r in fresh],
            list(self.stage_records.values()),
            self.sections,
        )
        self._not_run(session, exitstatus)
        results.write(self.results_path, self.document)
        self.session_path = session_file(self.out / results.SESSIONS_DIR)
        results.write(self.session_path, self.document)
        if self.settings.html is not None:
            self.html_path = self.settings.html
            write_html(self.html_path, self.document)
        self._coverage_files()

    def _not_run(self, session: pytest.Session, exitstatus) -> None:
        """An interrupted session (Ctrl-C, ``-x``, ``--maxfail``, its workers killed) says so in
        results.json, with the runs it collected and never recorded (issue 44): not a session
        that looks whole."""
        recorded = {(key.task, key.agent, str(key.run)) for key in self.records}
        missing = sorted(p for p in self.planned if p not in recorded)
        stopped = exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop)
        if not (stopped or (missing and session.shouldfail)):
            return
        self.document["interrupted"] = True
        self.document["not_run"] = [f"{agent}/{task}/run-{run}" for task, agent, run in missing]

    def _coverage_files(self) -> None:
        """--e2e-cov-xml and --e2e-cov-report=xml,html: all runs' coverage in one file."""
        kinds = self.settings.cov_report
        xml = self.settings.cov_xml or (self.out / "coverage.xml" if "xml" in kinds else None)
        html = self.out / "htmlcov" if "html" in kinds else None
        if xml is None and html is None:
            return

        self.coverage_lines = combined(self.document["tasks"], self.out, xml, html)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.collected_tasks:
            self._catalog(terminalreporter)
        write_sections(terminalreporter, self.sections, self.document, before_summary=True)
        if not self.records:
            if self.results_path is not None:
                terminalreporter.write_line(f"results: {self.results_path}")
            return
        tr = terminalreporter
        write_summary(tr, self.document)
        write_sections(tr, self.sections, self.document, before_summary=False)
        self._selection_line(tr)
        self._judge_lines(tr)
        for problem in self.problems:
            tr.write_line(problem, yellow=True)
        if "term" in self.settings.cov_report:
            tr.write_sep("-", "e2ebench coverage (reference tests)")
            for line in term_lines(self.document["tasks"]):
                tr.write_line(line)
        for line in self.coverage_lines:
            tr.write_line(line)
        if self.html_path is not None:
            tr.write_line(f"html report: {self.html_path}")
        if self.results_path is not None:
            tr.write_line(f"results: {self.results_path}")
        if self.session_path is not None:
            tr.write_line(f"this session's results, kept: {self.session_path}")
        xml = getattr(self.config.option, "xmlpath", None)
        if xml and self.config.get_verbosity() < 0:  # pytest names it itself unless -q
            tr.write_line(f"junit xml: {Path(xml).resolve()}")

    def _catalog(self, tr) -> None:

        tr.write_sep("=", "e2ebench tasks")
        write_table(tr, list(HEADERS), [rows(self.collected_tasks.values())], left=4)

    def _selection_line(self, tr) -> None:
        """-m: say that the metrics are over the requirements it selected."""
        chosen = [r["selection"] for r in self.records.values() if r.get("selection")]
        if not chosen:
            return
        picked = sum(len(s["requirements"]) for s in chosen)
        total = sum(s["of"] for s in chosen)
        tr.write_line(
            f"metrics are over the requirements selected by -m {self.config.option.markexpr!r}: "
            f"{picked} of {total} in {len(chosen)} run(s) (coverage, cost and time are the whole "
            "runs'; see selection in results.json)",
            yellow=True,
        )

    def _judge_lines(self, tr) -> None:
        """LLM judge: failure classes of not-implemented requirements, agreement with tests."""
        by_agent: dict[str, dict] = {}
        for rec in self.records.values():
            judged = rec.get("llm_judge")
            if not judged:
                continue
            agent = by_agent.setdefault(rec["agent"], {"classes": {}, "agreement": [], "kappa": []})
            for cls, n in judged.get("class_counts", {}).items():
                agent["classes"][cls] = agent["classes"].get(cls, 0) + n
            for key in ("agreement", "kappa"):
                if judged.get(key) is not None:
                    agent[key].append(judged[key])
        for agent, data in sorted(by_agent.items()):
            classes = ", ".join(f"{c} {n}" for c, n in sorted(data["classes"].items())) or "none"
            line = f"LLM judge, {agent}: failure classes: {classes}"
            for key in ("agreement", "kappa"):
                stats = mean_std(data[key])
                if stats["mean"] is not None:
                    line += f"; {key} with tests {stats['mean']:.2f}"
            tr.write_line(line)


def sections_of(config: pytest.Config | None) -> list:
    """The report sections of every plugin (``pytest_e2ebench_report_sections``), in order."""
    found = config.hook.pytest_e2ebench_report_sections(config=config) if config else []
    return [section for sections in found for section in sections]


def write_sections(tr, sections, document: dict, before_summary: bool) -> None:
    """The terminal lines of the sections the document holds, above or below the run table."""
    for section in sections:
        if section.before_summary == before_summary and section.write and section.key in document:
            section.write(tr, document)


def columns_for(records: list[dict]) -> tuple:
    """The table's columns: ``exec`` only when a web or app task ran, ``SQ`` when an app did."""
    if any((r.get("metrics") or {}).get("executability") is not None for r in records):
        at = [c[1] for c in COLUMNS].index("balanced") + 1
        extra = (EXEC_COLUMN,)
        if any((r.get("metrics") or {}).get("sq") is not None for r in records):
            extra = (EXEC_COLUMN, SQ_COLUMN)
        return (*COLUMNS[:at], *extra, *COLUMNS[at:])
    return COLUMNS


def write_summary(tr, document: dict) -> None:
    """The summary table of a results document, its error lines and the leakage lines.

    ``tr`` is pytest's terminal reporter or anything with ``write_sep`` and ``write_line``.
    """
    records = document["tasks"]
    summary = document["summary"]
    tr.write_sep("=", "e2ebench summary")
    columns = columns_for(records)
    headers = ["task", "agent", "runs", *(c[0] for c in columns)]
    write_table(tr, headers, [task_rows(records, columns), overall_rows(summary, columns)], 2)
    legend = [f"{c[0]}: {LEGEND[c[0]]}" for c in columns if c[0] in LEGEND]
    if legend:
        tr.write_line("; ".join(legend))
    errored = [r for r in records if r.get("metrics") is None]
    if errored:
        kinds = sorted({(r.get("error") or {}).get("kind", "unknown") for r in errored})
        tr.write_line(
            f"{len(errored)} run(s) ended in an error ({', '.join(kinds)}; see error in "
            f"results.json); rows marked {PARTIAL_MARK} average over fewer runs:",
            yellow=True,
        )
        for agent, stats in summary.items():
            if stats.get("errored_runs"):
                total = stats["evaluated_runs"] + stats["errored_runs"]
                tr.write_line(
                    f"  {agent}: means over {stats['evaluated_runs']} of {total} task runs "
                    f"({stats['errored_runs']} errored)",
                    yellow=True,
                )
    for agent, stats in summary.items():
        if len(stats.get("pass_at_k") or {}) > 1:
            ks = ", ".join(f"pass@{k} {100 * v:.1f}%" for k, v in stats["pass_at_k"].items())
            best = stats["best_of_n"]
            tr.write_line(
                f"{agent}: {ks}; best of {best['runs']} {100 * best['impl_rate']:.1f}% (impl)"
            )
        quarters = stats.get("by_quarter") or {}
        # a leakage check (docs/metrics.md): asked for with -v, not every session's business
        if len(quarters) > 1 and getattr(tr, "verbosity", 0) > 0:
            parts = [
                f"{q} {fmt(v['impl_rate']['mean'], 'pct')} ({v['tasks']} tasks)"
                for q, v in quarters.items()
            ]
            tr.write_line(f"{agent}: impl by task quarter: {', '.join(parts)}")
    if document.get("interrupted"):
        never = document.get("not_run") or []
        tr.write_line(
            f"interrupted: {len(never)} run(s) never ran (not_run in results.json); the same "
            "command resumes them, keeping every finished run and stage"
        )
    refreshed = document.get("refreshed")
    if refreshed is not None and len(refreshed) < len(records):
        tr.write_line(
            f"partial session: {len(refreshed)} of {len(records)} runs refreshed, the others "
            f"keep their last record (see refreshed in results.json)"
        )


def task_rows(records: list[dict], columns: tuple) -> list[list[str]]:
    """Per (task, agent): the mean over runs of each column."""
    by_task: dict[tuple[str, str], list[dict]] = {}
    for rec in sorted(records, key=lambda r: (r["task"], r["agent"], r["run"])):
        by_task.setdefault((rec["task"], rec["agent"]), []).append(rec)
    rows = []
    for (task, agent), recs in by_task.items():
        metrics = [r["metrics"] for r in recs if r.get("metrics")]
        runs = str(len(recs))
        if len(metrics) < len(recs):
            runs = f"{len(metrics)}/{len(recs)}{PARTIAL_MARK}"
        cells = [task, agent, runs]
        for _, key, kind in columns:
            stats = mean_std(m[key] for m in metrics)
            cells.append(fmt(stats["mean"], kind) if metrics else "error")
        rows.append(cells)
    return rows


def overall_rows(summary: dict, columns: tuple) -> list[list[str]]:
    """Per agent: results.json's summary (mean, and ± std over several runs)."""
    rows = []
    for agent, stats in summary.items():
        mark = PARTIAL_MARK if stats.get("errored_runs") else ""
        cells = ["overall", agent, f"{stats['runs']}{mark}"]
        for _, key, kind in columns:
            s = stats.get(key, {"mean": None, "std": None})
            cells.append(fmt(s["mean"], kind, s["std"] if stats["runs"] > 1 else None))
        rows.append(cells)
    return rows


def session_file(folder: Path) -> Path:
    """A new file name in ``folder`` for this session's results: its UTC time, made unique.

    Names sort in the order the sessions began: a second session in the same second gets
    ``<stamp>_002.json``, which sorts after ``<stamp>.json`` ('_' after '.'; zero-padded)."""
    import time

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    folder.mkdir(parents=True, exist_ok=True)
    path, n = folder / f"{stamp}.json", 1
    while path.exists():
        n += 1
        path = folder / f"{stamp}_{n:03d}.json"
    return path
