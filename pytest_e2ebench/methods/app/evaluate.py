"""One app's evaluation: Executability, then every test case executed and judged.

The result has the shape of a test run (:mod:`pytest_e2ebench.evaluation.runner`), so verdicts,
metrics
and reports work as for other kinds: every case is a test ``cases/F1-2`` tagged with its
feature; a case passes iff JudgeLLM said Yes. An app that is not executable is not tested: each
feature gets one failed entry saying why, and SQ is 0.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from pathlib import Path

from ...isolation.intake import IntakeLimits, copy_tree
from ...run.cache import remove
from ...taskmodel.task import MATERIALS_DIR
from . import app_spec
from .agent import run_case
from .judge import judge_case, llm_score
from .llmcall import Asker
from .session import BrowserSession, save_screenshot


def app_copy(task, repo: Path, where: Path) -> Path:
    """The app as it is run: a copy of the project (writable by it), the task's materials."""
    remove(where)
    copy_tree(repo, where, IntakeLimits())
    if task.materials_dir is not None:
        remove(where / MATERIALS_DIR)
        shutil.copytree(task.materials_dir, where / MATERIALS_DIR)
    return where


class _Sessions:
    """The browser sessions of one app run: each a fresh sandboxed browser on the app, opened
    in turn on one exit stack (a session near its time limit, or a crashed browser, is
    replaced), counted for the summary."""

    def __init__(self, task, python: Path, app_dir: Path, eval_dir: Path, sandbox, timeout):
        self.task, self.python, self.app_dir, self.eval_dir = task, python, app_dir, eval_dir
        self.sandbox, self.timeout = sandbox, timeout
        self.count = 0
        self.opened = 0.0
        self.stack = contextlib.ExitStack()

    def fresh(self) -> tuple[BrowserSession, dict]:
        """Close the current session, if any, and start a new one: (session, what starting
        the app found)."""
        self.stack.close()
        self.count += 1
        session = self.stack.enter_context(
            BrowserSession(
                python=self.python,
                app_dir=self.app_dir,
                spec=app_spec(self.task),
                work=self.eval_dir / f"session-{self.count}",
                sandbox=self.sandbox,
                timeout=self.timeout,
                command_limit=self.task.test_timeout,
            )
        )
        started = session.start()
        self.opened = time.monotonic()  # the session's time counts from the app's start
        return session, started

    def expiring(self, session: BrowserSession) -> bool:
        """The sandbox run's time limit is near: the next case needs a fresh session."""
        return time.monotonic() - self.opened > self.timeout - 4 * session.answer_limit


def evaluate_app(
    task,
    repo: Path,
    python: Path,
    eval_dir: Path,
    *,
    llm_of,
    cases_of,
    sandbox,
    timeout: float,
    max_steps: int,
    context_chars: int,
    baseline: bool,
    scope: str,
    progress=None,
) -> dict:
    """The ``extended`` suite of an app run.

    ``llm_of()`` makes the LLM client, only once the app turned out executable (an app that
    does not start needs no model); ``cases_of(llm)`` gives the (cached) test cases.
    ``progress`` (the run's callback) hears each step: the app started, case i of n played.
    """
    say = progress if progress is not None else lambda info: None
    say({"doing": "starting the app in a browser"})
    began = time.monotonic()
    app_dir = app_copy(task, repo, eval_dir / "app")
    evidence = eval_dir / "cases"
    evidence.mkdir(parents=True, exist_ok=True)
    llm = None
    asker = judge_asker = Asker(None)  # replaced once a model is needed
    cases: list[dict] = []
    sessions = _Sessions(task, python, app_dir, eval_dir, sandbox, timeout)
    with sessions.stack:
        session, web = sessions.fresh()
        if web.get("executable"):
            llm = llm_of()
            asker, judge_asker = Asker(llm), Asker(llm)
            say({"doing": "the app's test cases (written once per task and model)"})
            cases = cases_of(llm)
        play = (asker, judge_asker, (max_steps, context_chars), scope, evidence, say)
        records = _play(sessions, session, cases, *play)
    if not web.get("executable"):
        records = _not_executable(task, web)
    summary = _summary(web, cases, records, sessions.count, asker, judge_asker)
    if baseline:
        say({"doing": "the LLM-score baseline of the app"})
        summary["llm_score"] = llm_score(
            Asker(llm or llm_of()), task, app_dir, bool(web.get("executable")), f"{scope}/baseline"
        )
    return {
        "status": "completed",
        "returncode": 0,
        "duration_s": round(time.monotonic() - began, 3),
        "tests": records,
        "collect_errors": [],
        "web": web,
        "app": summary,
    }


def _play(sessions, session, cases, asker, judge_asker, limits, scope, evidence, say):
    """Each case played in the browser and judged: their records (``limits``: the actions per
    case and the characters of conversation the model takes; ``say``: the run's progress,
    told which case of how many is played)."""
    max_steps, budget = limits
    records = []
    for n, case in enumerate(cases, 1):
        say({"doing": f"playing the app's case {n} of {len(cases)} in a browser"})
        if sessions.expiring(session):
            session, _ = sessions.fresh()
        report = run_case(
            asker, session, case, max_steps=max_steps, scope=f"{scope}/agent", budget=budget
        )
        verdict = judge_case(judge_asker, case, report, scope=f"{scope}/judge")
        records.append(_record(case, report, verdict, evidence))
        if report["ended"] == "browser":
            session, _ = sessions.fresh()
    return records


def _not_executable(task, web: dict) -> list[dict]:
    """An app that does not start: every feature failed, saying why (no case was played)."""
    why = "; ".join(web.get("errors") or []) or "it did not start"
    return [
        {
            "nodeid": f"cases/{req.id}",
            "outcome": "failed",
            "requirements": [req.id],
            "message": f"not tested: the app is not executable ({why})"[:800],
            "duration": 0.0,
        }
        for req in task.requirements
    ]


def _summary(web, cases, records, sessions: int, asker, judge_asker) -> dict:
    """The record's ``app``: executability, the case verdicts' counts, SQ, the LLM costs."""
    counts = {
        v: sum(r.get("app", {}).get("verdict") == v for r in records)
        for v in ("Yes", "No", "Indeterminate")
    }
    return {
        "executable": bool(web.get("executable")),
        "cases": len(cases),
        "yes": counts["Yes"],
        "no": counts["No"],
        "indeterminate": counts["Indeterminate"],
        # RealDevWorld's SQ: the mean case result, 0 for an app that does not run
        "sq": (counts["Yes"] / len(cases)) if cases and web.get("executable") else 0.0,
        "sessions": sessions,
        "agent_llm": asker.totals(),
        "judge_llm": judge_asker.totals(),
        "case_seconds": [r["duration"] for r in records if "app" in r],
        # per case: what validation compares with ground truth (app/validate.py)
        "verdicts": [
            {"id": c["id"], "feature": c["feature"], "verdict": r["app"]["verdict"]}
            for c, r in zip(cases, records, strict=False)
            if "app" in r
        ],
    }


def _record(case: dict, report: dict, verdict: dict, evidence: Path) -> dict:
    """The test entry of one case, its evidence (trace, final screenshot) kept on disk."""
    shot = save_screenshot(report["observation"].get("screenshot"), evidence / f"{case['id']}.jpg")
    kept = {
        "case": case,
        "report": {k: v for k, v in report.items() if k != "observation"},
        "final_page": report["observation"].get("tree"),
        "judgement": verdict,
    }
    trace = evidence / f"{case['id']}.json"
    trace.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    properties = {"trace": str(trace), **({"screenshot": shot} if shot else {})}
    return {
        "nodeid": f"cases/{case['id']}",
        "outcome": "passed" if verdict["verdict"] == "Yes" else "failed",
        "requirements": [case["feature"]],
        "message": (
            f"{verdict['verdict']}: {verdict['reason']} (agent: {report['result']} after "
            f"{report['steps']} actions, {report['ended']}; {report['evidence'][:200]})"
        )[:800],
        "duration": report["duration_s"],
        "properties": properties,
        "app": {
            "verdict": verdict["verdict"],
            "result": report["result"],
            "ended": report["ended"],
            "steps": report["steps"],
        },
    }
