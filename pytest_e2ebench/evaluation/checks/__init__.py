"""A task's own checks: ``checks/test_*.py`` run with the harness's fixtures (issue #13.1).

A check is task content, written by the task's author and trusted like the task's reference
tests, but unlike them it never runs in the project's environment: it runs in a pytest session
of the harness's own interpreter (plugin autoload off, in a folder the harness owns) with the
fixtures of :mod:`.fixtures` — ``e2e_task``, ``e2e_repo``, ``e2e_venv``, ``e2e_app`` and
``e2e_requirement`` — which hand it data about the project, never the project's code. Its
cases are tagged ``@pytest.mark.requirement("R1")`` like reference tests and count toward
their requirements the same way: a requirement is implemented iff all its reference tests
*and* all its checks pass.

The set of checks is read statically when the task is loaded (:func:`scan_checks`): a check
that did not report (a module that fails to import, a session cut short) counts as an error.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from ...grading.verdicts import base_nodeid, missing_records
from ...isolation import process
from ...isolation.intake import read_regular
from ...taskmodel.task import CHECKS_DIR
from ...taskmodel.testindex import StaticTest
from ...untrusted.parse import loads_json
from .fixtures import CONTEXT_ENV

PLUGIN = "pytest_e2ebench.evaluation.checks.fixtures"
RESULTS_LIMIT = 16 << 20  # bytes of the check session's results file read
INI = "[pytest]\n"  # the session's own ini: no setting of the folder around the output applies


def run_checks(
    task, repo: Path, python: Path, where: Path, *, sandbox: str, timeout: float
) -> dict:
    """Run ``task``'s checks on the project in ``repo`` (environment ``python``) in ``where``.

    Returns ``{"status", "returncode", "duration_s", "tests", "collect_errors"}``; ``tests``
    holds one record per check case (``nodeid``, ``outcome``, ``message``, ``requirements``),
    every statically known check included (those that did not report as errors).
    """
    results = where / "results.json"
    env = _prepare_session(task, repo, python, where, results, sandbox=sandbox, timeout=timeout)
    done = process.run(
        _session_command(where), cwd=where, env=env, timeout=timeout, log=where / "session.log"
    )
    reported = _read_results(results)
    if done.timed_out:
        status = "timeout"
    elif reported is None:
        status = "crashed"
    else:
        status = "completed"
    reported = reported or {"tests": [], "collect_errors": []}
    return {
        "status": status,
        "returncode": done.returncode,
        "duration_s": done.duration_s,
        "tests": joined(task.checks, reported["tests"], reported["collect_errors"], status),
        "collect_errors": reported["collect_errors"],
        **({"output": done.tail(30)} if status != "completed" else {}),
    }


def _prepare_session(
    task, repo: Path, python: Path, where: Path, results: Path, *, sandbox: str, timeout: float
) -> dict[str, str]:
    """Fill ``where`` with the checks, the ini and the fixtures' context; return the session's
    environment (the few variables it needs, plugin autoload off, ``HOME`` in ``where``)."""
    shutil.copytree(
        task.root / CHECKS_DIR, where / CHECKS_DIR, ignore=shutil.ignore_patterns("__pycache__")
    )
    (where / "pytest.ini").write_text(INI, encoding="utf-8")
    context = {
        "task": str(task.root),
        "repo": str(repo),
        "python": str(python),
        "sandbox": sandbox,
        "timeout": timeout,
        "work": str(where / "work"),
        "results": str(results),
    }
    (where / "context.json").write_text(json.dumps(context), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env.update(
        {CONTEXT_ENV: str(where / "context.json")},
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTHONDONTWRITEBYTECODE="1",
        HOME=str(where / "work"),
    )
    (where / "work").mkdir()
    return env


def _session_command(where: Path) -> list[str]:
    """The check session: the harness's interpreter, isolated, with the fixtures' plugin."""
    return [
        sys.executable,
        "-I",
        "-m",
        "pytest",
        "-p",
        PLUGIN,
        "-p",
        "no:cacheprovider",
        "-c",
        str(where / "pytest.ini"),
        "--rootdir",
        str(where),
        "-q",
        "--no-header",
        "-rN",
        "--color=no",
        CHECKS_DIR,
    ]


def _read_results(results: Path) -> dict | None:
    """What the check session reported, or None if it wrote nothing readable."""
    if not results.is_file():
        return None
    try:
        return loads_json(read_regular(results, RESULTS_LIMIT), "the checks' results")
    except (OSError, ValueError):  # the checks run the project: theirs to break
        return None


def joined(
    checks: tuple[StaticTest, ...], ran: list[dict], collect_errors: list[dict], status: str
) -> list[dict]:
    """The records of every known check: what ran, and an error for each one that did not."""
    by_base: dict[str, list[dict]] = {}
    for rec in ran:
        by_base.setdefault(base_nodeid(rec["nodeid"]), []).append(rec)
    errors = {e["nodeid"]: e["message"] for e in collect_errors}
    out: list[dict] = []
    for check in checks:
        mine = by_base.pop(check.nodeid, [])
        out.extend(mine or missing_records(check, errors, status, []))
    for recs in by_base.values():  # cases the static scan could not see: their own tags
        out.extend(r for r in recs if r.get("requirements"))
    return out
