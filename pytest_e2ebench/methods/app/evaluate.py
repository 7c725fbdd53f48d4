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
    baseline: bool,
    scope: str,
) -> dict:
    """The ``extended`` suite of an app run.

    ``llm_of()`` makes the LLM client, only once the app turned out executable (an app that
    does not start needs no model); ``cases_of(llm)`` gives the (cached) test cases.
    """
    began = time.monotonic()
    app_dir = app_copy(task, repo, eval_dir / "app")
    evidence = eval_dir / "cases"
    evidence.mkdir(parents=True, exist_ok=True)
    llm = None
    asker = judge_asker = Asker(None)  # replaced once a model is needed
    records: list[dict] = []
    sessions = 0

    def open_session(stack: contextlib.ExitStack) -> tuple[BrowserSession, dict]:
        nonlocal sessions
        sessions += 1
        session = stack.enter_context(
            BrowserSession(
                python=python,
                app_dir=app_dir,
                spec=task.app,
                work=eval_dir / f"session-{sessions}",
                sandbox=sandbox,
                timeout=timeout,
                command_limit=task.test_timeout,
            )
        )
        return session, session.start()

    with contextlib.ExitStack() as stack:
        session, web = open_session(stack)
        opened = time.monotonic()
        cases: list[dict] = []
        if web.get("executable"):
            llm = llm_of()
            asker, judge_asker = Asker(llm), Asker(llm)
            cases = cases_of(llm)
        for case in cases:
            if time.monotonic() - opened > timeout - 4 * session.answer_limit:
                stack.close()  # the sandbox run's time limit is near: a fresh one
                session, _ = open_session(stack)
                opened = time.monotonic()
            report = run_case(asker, session, case, max_steps=max_steps, scope=f"{scope}/agent")
            verdict = judge_case(judge_asker, case, report, scope=f"{scope}/judge")
            records.append(_record(case, report, verdict, evidence))
            if report["ended"] == "browser":
                stack.close()
                session, _ = open_session(stack)
                opened = time.monotonic()
    if not web.get("executable"):
        why = "; ".join(web.get("errors") or []) or "it did not start"
        records = [
            {
                "nodeid": f"cases/{req.id}",
                "outcome": "failed",
                "requirements": [req.id],
                "message": f"not tested: the app is not executable ({why})"[:800],
                "duration": 0.0,
            }
            for req in task.requirements
        ]
    counts = {
        v: sum(r.get("app", {}).get("verdict") == v for r in records)
        for v in ("Yes", "No", "Indeterminate")
    }
    summary = {
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
    if baseline:
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
