"""Does the harness grade imported ProjectEval projects as ProjectEval's own judge does?

``e2ebench verify-import projecteval SRC TASKS`` runs both on ProjectEval's canonical answers
with its canonical parameter values and compares them per test:

* **ProjectEval's judge** (``controller.JudgeController.evaluate`` from the repository at
  SRC, its code unchanged), driven as its ``run_judge.py`` drives it (the same install list
  per project type, Django's default initiation) with the canonical answers, parameters and
  each console project's one program as its start file, in the sandbox, in a virtual
  environment of its requirements.txt (:data:`PEER_PACKAGES`). Its log line ``Function
  <project>_<index> passed.`` is a test's verdict; a test it never reaches fails.
* **the harness**: ``pytest --e2e-agent=reference`` on the imported tasks, ``--runs`` times
  (default 3), one verdict per requirement (one ProjectEval test each; the import report's
  ``numbering`` pairs them).

ProjectEval's judge is written for Windows. Three adaptations let it run here, applied from
outside its code by a module loaded before it (:data:`LINUX`), each named in the report:
:data:`ADAPTATIONS`. ProjectEval's data and code are peer material: they run in the sandbox.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from ...environment.venv import create_venv, pinned, python_of
from ...environment.web import browser_binaries, web_requirements
from ...isolation.sandbox import Sandbox, resolve_mode
from ...taskmodel.testconf import interpreter_home
from ...untrusted.parse import read_json
from ...untrusted.peer import copy_file, copy_folder
from . import REPORT_FILE
from .e2edev_verify import run_harness
from .projecteval import ANSWERS, PEER_INSTALLS, data_dir, start_file

REPORT = "verify-report.json"
JUDGE_TIMEOUT = 3600  # seconds for the judge on one batch of projects
# ProjectEval's requirements.txt, judge and test packages (the API clients its llm.py imports
# at the top included; the objective indicators and torch left out: the judge needs none).
# opencv-python-headless: the same release as its opencv-python pin, without the GUI
# libraries this machine has not (its utils.py imports cv2 at the top).
PEER_PACKAGES = (
    "levenshtein~=0.26.1",
    "scikit-image~=0.24.0",
    "opencv-python-headless~=4.10.0.84",
    "func-timeout>=4.3.5",
    "openai",
    "google-genai",
    "ollama",
    "django~=5.1.1",
    "markdown~=3.7",
    "matplotlib~=3.9.2",
    "pyperclip~=1.9.0",
    "qrcode~=7.4.2",
    "openpyxl~=3.1.5",
    "pandas~=2.2.3",
    "scikit-learn",  # openjudge.py imports sklearn.utils.estimator_checks at the top
    "statsmodels",  # project 17's canonical answer
    "pip",  # its judge runs `pip install <requirements>` before each project
)
PEER_FILES = ("*.py", "config.ini")
ADAPTATIONS = (
    "server stop: ProjectEval's BasePythonManager.stop sends signal.CTRL_BREAK_EVENT, which "
    "exists on Windows only (AttributeError here, and the site keeps port 8000); replaced by "
    "killing the server's process tree by pid",
    "site start: WebsiteJudge.preprocess visits http://localhost:8000/ right after starting "
    "runserver, before it listens (every website project would score 0); DjangoServer.start is "
    "followed by a wait (at most 60 s) until port 8000 accepts connections",
    "browser: webdriver.ChromeOptions/ChromeService get this machine's Chromium and "
    "chromedriver (Selenium Manager would download Chrome, and there is no internet here); "
    "ProjectEval's own options (headless, no sandbox, ...) are kept",
)
# The adaptations, loaded before ProjectEval's modules (written into its working copy).
LINUX = '''"""pytest-e2ebench verify-import: ProjectEval's judge on Linux (see ADAPTATIONS)."""
import os
import signal
import socket
import time

from selenium import webdriver

CHROMIUM = {chromium!r}
CHROMEDRIVER = {chromedriver!r}


class ChromeOptions(webdriver.ChromeOptions):
    def __init__(self):
        super().__init__()
        self.binary_location = CHROMIUM


class ChromeService(webdriver.ChromeService):
    def __init__(self, *args, **kwargs):
        super().__init__(CHROMEDRIVER)


webdriver.ChromeOptions = ChromeOptions
webdriver.ChromeService = ChromeService

import openjudge  # noqa: E402  (after the browser's location is set)


def _tree(pid):
    found, todo = [], [pid]
    while todo:
        here = todo.pop()
        found.append(here)
        try:
            with open(f"/proc/{{here}}/task/{{here}}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def stop(self):
    if self.process and self.process.poll() is None:
        for pid in reversed(_tree(self.process.pid)):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.process.wait()
    self.stdout_file.close()
    self.stderr_file.close()


openjudge.BasePythonManager.stop = stop
_start = openjudge.WebsiteJudge.DjangoServer.start


def start(self):
    _start(self)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and self.process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", 8000), 1).close()
            return
        except OSError:
            time.sleep(0.2)


openjudge.WebsiteJudge.DjangoServer.start = start
'''
# The driver: run_judge.py's evaluation of one answer set, on the canonical one.
DRIVER = '''"""pytest-e2ebench verify-import: ProjectEval's judge on its canonical answers."""
import json
import sys

import e2ebench_pe_linux  # noqa: F401  (the adaptations, before the judge is used)
from controller import JudgeController
from llm import LLMTest

projects = json.loads(sys.argv[1])
start_files = json.loads(sys.argv[2])
tester = JudgeController(
    question_path="data/project_eval_project.json",
    answer_path="data/project_eval_answer.json",
    model_class=LLMTest,
    parameter_file_path="data/project_eval_parameter.json",
    llm="canonical",
)
initiate, requirements = {{}}, {{}}
for pid in projects:  # as run_judge.py sets them
    if pid not in [str(n) for n in range(16, 20)]:
        initiate[pid] = [[]]
        requirements[pid] = {website}
    else:
        initiate[pid] = []
        requirements[pid] = {console}
score, table = tester.evaluate(
    initiate, requirements, project_id_list=projects, start_file_list=start_files
)
print("E2EBENCH-SCORE", json.dumps(score))
'''
VERDICT = re.compile(r"Function (\d+_\d+) (passed|failed)\.(.*)$")
STARTING = re.compile(r" - (\d+_\d+) starting\.$")


def peer_env(out: Path) -> Path:
    """A virtual environment (uv, with pip) of ProjectEval's judge packages; its interpreter.
    Selenium is the harness's, so both sides drive Chromium with the same client."""

    packages = [*PEER_PACKAGES, *(r for r in web_requirements() if r.startswith("selenium"))]
    venv = out / "peer-venv"
    marker = venv / "e2ebench-packages.txt"
    wanted = "\n".join(packages) + "\n"
    if not (marker.is_file() and marker.read_text() == wanted):
        shutil.rmtree(venv, ignore_errors=True)
        create_venv(venv, out / "logs", [*packages, *pinned(("pip",))], stage="verify", seed=True)
        marker.write_text(wanted)
    return python_of(venv)


def start_files(data: Path, projects: list[str]) -> dict[str, str]:
    """Each console project's program (ProjectEval's judge asks a model; its canonical answers
    have one Python file each)."""
    answers = read_json(data, ANSWERS, max_bytes=256 << 20) or {}
    found = {}
    for pid in projects:
        program = start_file(answers.get(pid) or [])
        if program is not None and int(pid) in range(16, 20):
            found[pid] = program
    return found


def judge_copy(src: Path, work: Path) -> Path:
    """A writable copy of ProjectEval's judge code and data, with the adaptations and driver."""

    repo = data_dir(src)
    if repo is None:
        raise FileNotFoundError(f"no ProjectEval data in {src} or {src / 'data'}")
    root = repo.parent if repo.name == "data" else repo
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for pattern in PEER_FILES:
        for path in sorted(root.glob(pattern)):
            copy_file(root, path.name, work / path.name, 1 << 20)
    copy_folder(root, "data", work / "data")
    return work


def run_peer(src: Path, out: Path, projects: list[str], python: Path) -> dict[str, dict]:
    """ProjectEval's judge on its canonical answers for ``projects``, in the sandbox:
    ``<project>_<index>`` -> {"verdict": "pass"|"fail", "reason": its log lines}."""
    import dataclasses
    import resource

    work = judge_copy(src, out / "peer")
    browser = browser_binaries()
    (work / "e2ebench_pe_linux.py").write_text(
        LINUX.format(
            chromium=browser["E2EBENCH_CHROMIUM"], chromedriver=browser["E2EBENCH_CHROMEDRIVER"]
        ),
        encoding="utf-8",
    )

    (work / "e2ebench_pe_judge.py").write_text(
        DRIVER.format(
            website=list(PEER_INSTALLS["website"]), console=list(PEER_INSTALLS["console"])
        ),
        encoding="utf-8",
    )
    venv = python.parent.parent
    sandbox = Sandbox(mode=resolve_mode("auto")[0])
    # Chromium reserves far more address space than it uses; many projects take CPU time
    limits = dataclasses.replace(
        sandbox.limits, address_space=resource.RLIM_INFINITY, cpu_s=4 * JUDGE_TIMEOUT
    )
    log = out / f"peer-{'-'.join(projects)}.log"
    sandbox = dataclasses.replace(sandbox, limits=limits)
    done = sandbox.run(
        [
            str(python),
            "e2ebench_pe_judge.py",
            json.dumps(projects),
            json.dumps(start_files(work / "data", projects)),
        ],
        cwd=work,
        env={
            "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
            "HOME": str(work),
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "Agg",
        },
        timeout=JUDGE_TIMEOUT,
        log=log,
        writable=[work],
        readable=[venv, *interpreter_home(venv)],
    )
    # the judge's output (sandboxed, bounded by the sandbox's output limit), as text
    return peer_verdicts(done.output)


PROJECT = re.compile(r"Evaluating project id (\d+)$")


def peer_verdicts(text: str) -> dict[str, dict]:
    """``<project>_<index>`` -> verdict and reason, from the judge's log; a project's warnings
    outside any test (its preprocessing failed) under ``<project>``."""
    found: dict[str, dict] = {}
    reasons: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        started = STARTING.search(line) or PROJECT.search(line)
        if started:
            current = started[1]
            reasons[current] = []
            continue
        verdict = VERDICT.search(line)
        if verdict:
            test = verdict[1]
            why = [*reasons.get(test, []), verdict[3].strip()]
            found[test] = {
                "verdict": "pass" if verdict[2] == "passed" else "fail",
                "reason": " | ".join(w for w in why if w)[:600],
            }
            current = None
        elif current is not None and (" - WARNING - " in line or " - CRITICAL - " in line):
            reasons[current].append(line.split(" - ", 3)[-1].strip()[:300])
    for pid, why in reasons.items():
        if "_" not in pid and why:
            found[pid] = {"verdict": "project", "reason": " | ".join(why)[:600]}
    return found


def run_harness_runs(tasks: Path, selected: list[str], out: Path, runs: int) -> list[dict]:
    """``runs`` separate reference sessions on the ``selected`` task folders: per session,
    task -> R<n> -> "pass" | "fail" (and ``<task>`` -> its run's error, if any)."""

    chosen = out / "tasks"
    shutil.rmtree(chosen, ignore_errors=True)
    for name in selected:
        shutil.copytree(tasks / name, chosen / name)
    sessions = []
    for number in range(1, runs + 1):
        folder = out / f"harness-{number}"
        shutil.rmtree(folder, ignore_errors=True)
        results = run_harness(chosen, folder, 1)
        sessions.append(harness_verdicts(json.loads(results.read_text(encoding="utf-8"))))
    return sessions


def harness_verdicts(results: dict) -> dict[str, dict[str, str]]:
    """task -> R<n> -> "pass" | "fail", from a reference session's results.json."""
    found: dict[str, dict[str, str]] = {}
    for task in results.get("tasks", []):
        if task.get("agent") != "reference":
            continue
        verdicts = found.setdefault(task["task"], {})
        for req in task.get("requirements", []):
            verdicts[req["id"]] = "pass" if req.get("verdict") == "implemented" else "fail"
    return found


# What ProjectEval's judge logged for a failing test -> why it failed there (and not in the
# harness, which waits for the page to settle and bounds a test by the task's timeout).
PEER_FAILURES = (
    (
        "Timeout Error",
        "ProjectEval's judge gives each test 3 s (func_timeout); on this "
        "loaded machine the test took longer",
    ),
    (
        "\\",
        "the test (or its canonical value) names a Windows path (backslashes, "
        "%USERPROFILE%): the file is not found on Linux",
    ),
    (
        "No such file or directory",
        "the file this test reads is written by the program in an earlier test of the "
        "project, which failed under ProjectEval's judge (its tests share one folder)",
    ),
    (
        "partially initialized module",
        "ProjectEval's 3 s bound (func_timeout) stopped an earlier test while the program, run "
        "in the judge's own process, was importing its libraries: the half-imported module "
        "breaks this test's run",
    ),
    (
        # 12_8's own message: the claim its earlier tests (12_5-12_7) submit is not there
        "maybe you didn't submit",
        "the test looks for what earlier tests of its project made (a submitted claim); those "
        "failed under ProjectEval's judge, so there is nothing to find",
    ),
    (
        "no such element",
        "ProjectEval's judge did not find what the page shows after the "
        "test's action: it reads the page right after acting; the harness waits for the page to "
        "settle and finds it in every run",
    ),
    (
        "Assertion Error",
        "ProjectEval's judge read the page right after the test's action and "
        "found it not yet updated (or a previous test of its session failed the same way); the "
        "harness waits for the page to settle and passes in every run",
    ),
)


def explain(test: str, peer: dict, harness_runs: list[str], notes: dict[str, str]) -> str:
    """Why the two disagree on ``test``: a known fact (``notes``, from docs/projecteval.md),
    or what the verdicts and ProjectEval's log show."""
    pid, reason = test.split("_")[0], peer.get("reason", "")
    if test in notes or pid in notes:
        return notes.get(test) or notes[pid]
    if len(set(harness_runs)) > 1:
        return f"the harness's verdict changes between runs ({', '.join(harness_runs)})"
    if peer.get("verdict") == "missing" and "timed out after 10 seconds" in reason:
        return (
            "ProjectEval's judge gives each of Django's initiation commands 10 s (its "
            "BasePythonManager.initiate_command and the superuser's manage.py shell); on a "
            "loaded machine one took longer and the project's tests never ran"
        )
    if peer.get("verdict") == "missing":
        return "ProjectEval's judge never ran this test: " + reason
    if harness_runs and harness_runs[0] == "pass":
        for marker, why in PEER_FAILURES:
            if marker in reason:
                return why
    return "unexplained"


def compare(
    numbering: dict[str, dict[str, str]],
    peer: dict[str, dict],
    sessions: list[dict[str, dict[str, str]]],
    notes: dict[str, str],
) -> dict:
    """Per test: both sides' verdicts, agreement, and every disagreement with its reason.

    ``numbering``: task -> R<n> -> ``<project>_<index>``; ``sessions``: the harness's runs.
    """
    rows = []
    for task, pairs in sorted(numbering.items()):
        for rid, test in pairs.items():
            runs = [s.get(task, {}).get(rid, "missing") for s in sessions]
            theirs = peer.get(test) or {
                "verdict": "missing",
                "reason": (peer.get(test.split("_")[0]) or {}).get("reason", "no verdict logged"),
            }
            row = {
                "test": test,
                "task": task,
                "requirement": rid,
                "harness": runs,
                "peer": theirs["verdict"],
                "peer_reason": theirs.get("reason", ""),
                "stable": len(set(runs)) == 1,
            }
            row["agree"] = row["stable"] and (runs[0] == "pass") == (theirs["verdict"] == "pass")
            if not row["agree"]:
                row["explanation"] = explain(test, theirs, runs, notes)
            rows.append(row)
    peer_pass = [r for r in rows if r["peer"] == "pass"]
    return {
        "schema": "e2ebench-verify-projecteval/1",
        "adaptations": list(ADAPTATIONS),
        "tests": len(rows),
        "peer_passed": len(peer_pass),
        "harness_passed": [
            sum(r["harness"][i] == "pass" for r in rows) for i in range(len(sessions))
        ],
        "harness_passed_of_peer_passed": sum(
            all(v == "pass" for v in r["harness"]) for r in peer_pass
        ),
        "agree": sum(r["agree"] for r in rows),
        "unstable": sum(not r["stable"] for r in rows),
        "unexplained": sum(r.get("explanation") == "unexplained" for r in rows),
        "rows": rows,
    }


def print_report(report: dict, out=None) -> None:
    """The figures, then every disagreement with both sides' reasons and the explanation."""
    out = out or sys.stdout
    for row in report["rows"]:
        if row["agree"]:
            continue
        print(
            f"{row['test']} ({row['task']} {row['requirement']}): harness "
            f"{'/'.join(row['harness'])}, ProjectEval {row['peer']}",
            file=out,
        )
        if row["peer_reason"]:
            print(f"    ProjectEval: {row['peer_reason'][:300]}", file=out)
        print(f"    why: {row['explanation']}", file=out)
    for line in report["adaptations"]:
        print(f"adaptation: {line}", file=out)
    peer = report["peer_passed"]
    both = report["harness_passed_of_peer_passed"]
    share = f"{both / peer:.1%}" if peer else "-"
    print(
        f"tests: {report['tests']}; ProjectEval's judge passes {peer}; the harness passes "
        f"{', '.join(map(str, report['harness_passed']))} (per run), {both} of ProjectEval's "
        f"{peer} in every run ({share}); agree {report['agree']}/{report['tests']}; verdict "
        f"changes across runs: {report['unstable']}; unexplained: {report['unexplained']}",
        file=out,
    )


# Disagreements whose cause is known (docs/projecteval.md, "Checked against ProjectEval's
# judge"): by test (<project>_<index>) or by project.
KNOWN = {
    "19": "ProjectEval's judge runs none of project 19's tests: its MatplotlibManager keeps "
    "BasePythonManager's constructor, which takes no start_file, and BatchJudge.preprocess "
    "passes one (TypeError: preprocessing fails, the project scores 0)",
}


def verify(
    src: Path,
    tasks: Path,
    out: Path,
    *,
    projects: list[str] | None = None,
    runs: int = 3,
    batch: int = 4,
    results: list[Path] | None = None,
) -> dict:
    """Run ProjectEval's judge and ``runs`` harness sessions on the imported projects (all, or
    ``projects``, in batches of ``batch`` projects for the judge); compare; write and return
    ``out/verify-report.json``. ``results``: results.json files of reference sessions already
    run on these tasks, taken instead of running the harness."""
    src, tasks, out = src.resolve(), tasks.resolve(), out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    imported = [r for r in json.loads((tasks / REPORT_FILE).read_text()) if r.get("task")]
    if projects:
        imported = [r for r in imported if r["project"] in projects]
    numbering = {r["task"]: r["numbering"] for r in imported}
    python = peer_env(out)
    pids = [r["project"] for r in imported]
    peer: dict[str, dict] = {}
    for start in range(0, len(pids), max(1, batch)):
        peer.update(run_peer(src, out, pids[start : start + batch], python))
    if results:
        sessions = [harness_verdicts(json.loads(Path(r).read_text())) for r in results]
    else:
        sessions = run_harness_runs(tasks, [r["task"] for r in imported], out, runs)
    report = compare(numbering, peer, sessions, KNOWN)
    (out / REPORT).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench verify-import projecteval``."""
    parser.add_argument("src", type=Path, help="ProjectEval's repository (its code and data)")
    parser.add_argument(
        "tasks", type=Path, help="the task folders `e2ebench import projecteval` wrote"
    )
    parser.add_argument(
        "--out", type=Path, default=Path(".e2ebench-verify"), help="where runs and report go"
    )
    parser.add_argument(
        "--project", action="append", dest="projects", help="only this project id (repeat)"
    )
    parser.add_argument("--runs", type=int, default=3, help="harness reference runs (default 3)")
    parser.add_argument(
        "--batch", type=int, default=4, help="projects per run of ProjectEval's judge"
    )
    parser.add_argument(
        "--results",
        type=Path,
        action="append",
        help="a results.json of a reference session on TASKS, instead of running one (repeat)",
    )


def run(args: argparse.Namespace) -> int:
    """Verify, print the report; exit status 1 when a disagreement is unexplained or a
    verdict of the harness changes between runs."""
    problem = None
    if data_dir(args.src) is None or not (args.src / "controller.py").is_file():
        problem = (
            f"{args.src}: not ProjectEval's repository (expected controller.py and "
            "data/project_eval_project.json)"
        )
    elif not (args.tasks / REPORT_FILE).is_file():
        problem = (
            f"{args.tasks / REPORT_FILE} missing; import first "
            f"(e2ebench import projecteval {args.src} {args.tasks})"
        )
    if problem:
        print(f"e2ebench verify-import: {problem}", file=sys.stderr)
        return 2
    report = verify(
        args.src,
        args.tasks,
        args.out,
        projects=args.projects,
        runs=args.runs,
        batch=args.batch,
        results=args.results,
    )
    print_report(report)
    print(f"report: {args.out / REPORT}")
    return 1 if report["unexplained"] or report["unstable"] else 0
