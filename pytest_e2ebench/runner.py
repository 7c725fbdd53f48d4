"""Run a task's reference tests against a generated project, in a subprocess.

The tests are copied into a folder the harness owns (``eval/``) and run there with the task
environment's interpreter, under ``coverage run --branch``, with pytest's plugin autoload off,
a harness-written ini file, a per-test timeout (pytest-timeout) and a whole-run timeout that
kills the process group. Per-test outcomes come from the probe plugin's JSON lines, never from
parsing stdout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

from . import process
from .cache import write_json
from .errors import InfrastructureError
from .probe import PROBE_DIR, PROBE_PLUGIN
from .task import Task
from .workspace import coverage_omit

COVERAGE_TIMEOUT = 300.0
_MISSING_TOOL = re.compile(r"No module named '?(pytest|coverage|pytest_timeout|e2ebench_probe)\b")
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def _write_configs(eval_dir: Path, repo: Path) -> tuple[Path, Path]:
    ini = eval_dir / "pytest.ini"
    ini.write_text(
        textwrap.dedent(
            """\
            [pytest]
            markers =
                requirement(*ids): requirements this test checks
            """
        )
    )
    rc = eval_dir / "coveragerc"
    omit = "\n".join(f"    {p}" for p in coverage_omit(repo))
    rc.write_text(
        "[run]\n"
        "branch = True\n"
        f"source =\n    {repo}\n"
        f"omit =\n{omit}\n"
        "parallel = True\n"
        # Tests of command-line tools start subprocesses: measure those too (coverage >= 7.10).
        "patch = subprocess\n"
        f"data_file = {eval_dir / 'coverage' / 'data'}\n"
    )
    return ini, rc


def _env(venv_python: Path, eval_dir: Path, probe_out: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
    env["PATH"] = f"{venv_python.parent}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.update(
        PYTHONPATH=str(PROBE_DIR),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        E2EBENCH_PROBE_OUT=str(probe_out),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        PYTHONIOENCODING="utf-8",
        HOME=str(eval_dir / "home"),
        TZ="UTC",
        VIRTUAL_ENV=str(venv_python.parent.parent),
    )
    env.setdefault("LANG", "C.UTF-8")
    return env


def read_probe(path: Path) -> dict:
    """Parse the probe's JSON lines into tests, collection errors and the exit status."""
    tests: list[dict] = []
    collect_errors: list[dict] = []
    exitstatus = None
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut short by a kill
            kind = rec.pop("kind", None)
            if kind == "test":
                tests.append(rec)
            elif kind == "collect_error":
                collect_errors.append(rec)
            elif kind == "end":
                exitstatus = rec.get("exitstatus")
    return {"tests": tests, "collect_errors": collect_errors, "exitstatus": exitstatus}


def _coverage_totals(venv_python: Path, eval_dir: Path, rc: Path, env: dict) -> dict | None:
    cov_dir = eval_dir / "coverage"
    if not any(cov_dir.glob("data*")):
        return None
    base = [str(venv_python), "-m", "coverage"]
    combine = process.run(
        [*base, "combine", f"--rcfile={rc}"],
        cwd=eval_dir,
        env=env,
        timeout=COVERAGE_TIMEOUT,
        log=eval_dir / "coverage-combine.log",
    )
    out = eval_dir / "coverage.json"
    report = process.run(
        [*base, "json", f"--rcfile={rc}", "-o", str(out), "--ignore-errors"],
        cwd=eval_dir,
        env=env,
        timeout=COVERAGE_TIMEOUT,
        log=eval_dir / "coverage-json.log",
    )
    if combine.returncode not in (0, 1) or not out.exists():
        # 'No data to report' (nothing of the project was imported) is not an error.
        if "No data" in report.output or "No data" in combine.output:
            return None
        raise InfrastructureError("coverage", f"coverage report failed:\n{report.tail()}")
    totals = json.loads(out.read_text())["totals"]
    return {
        "statements": totals.get("num_statements", 0),
        "covered_lines": totals.get("covered_lines", 0),
        "branches": totals.get("num_branches", 0),
        "covered_branches": totals.get("covered_branches", 0),
    }


def run_tests(task: Task, venv_python: Path, repo: Path, eval_dir: Path, timeout: float) -> dict:
    """Run the reference tests of ``task`` against ``repo`` and return what happened.

    The result is JSON-able: ``status`` (completed | timeout | crashed), ``tests``,
    ``collect_errors``, ``coverage`` (totals or None), ``duration_s`` and ``returncode``.
    """
    tests_copy = eval_dir / "tests"
    if task.tests_dir.is_dir():
        shutil.copytree(task.tests_dir, tests_copy, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        tests_copy.mkdir()
        shutil.copy2(task.tests_dir, tests_copy / task.tests_dir.name)
    (eval_dir / "home").mkdir(exist_ok=True)
    ini, rc = _write_configs(eval_dir, repo)
    probe_out = eval_dir / "probe.jsonl"
    env = _env(venv_python, eval_dir, probe_out)
    args = [
        str(venv_python),
        "-m",
        "coverage",
        "run",
        f"--rcfile={rc}",
        "-m",
        "pytest",
        "-c",
        str(ini),
        "--rootdir",
        str(eval_dir),
        "-p",
        PROBE_PLUGIN,
        "-p",
        "pytest_timeout",
        "-p",
        "no:cacheprovider",
        f"--timeout={task.test_timeout:g}",
        "--timeout-method=signal",
        "-q",
        "--no-header",
        "-rN",
        "--color=no",
        "tests",
    ]
    done = process.run(args, cwd=eval_dir, env=env, timeout=timeout, log=eval_dir / "pytest.log")
    probe = read_probe(probe_out)
    if done.timed_out:
        status = "timeout"
    elif probe["exitstatus"] is None:
        status = "crashed"
    else:
        status = "completed"
    if status == "crashed" and not probe["tests"] and _MISSING_TOOL.search(done.output):
        # The environment lacks the tools: not the agent's doing.
        raise InfrastructureError("tests", f"the test run could not start:\n{done.tail()}")
    result = {
        "status": status,
        "returncode": done.returncode,
        "duration_s": round(done.duration_s, 3),
        "coverage": _coverage_totals(venv_python, eval_dir, rc, env),
        **probe,
        "python": sys.version.split()[0],
    }
    write_json(eval_dir / "results.json", result)
    return result
