"""Does the harness grade imported E2EDev projects as E2EDev's own Behave runner does?

:func:`verify` runs the imported reference apps twice on this machine and compares:

* **the harness**: ``pytest --e2e-agent=reference`` on the imported task folders (or a
  ``results.json`` of such a run), one verdict per requirement and, from the failing scenarios'
  node ids (``tests/r<n>_<case>/...``), one per test case;
* **E2EDev's runner** (``run_behave_test.py``): per test case, ``python -m behave`` on the
  original feature text and step code, with the same substitutions that script makes (the
  ``file://`` path of the app; every literal ``time.sleep(N)`` shortened to 0.5 s except in four
  projects), a test case passing iff behave prints ``1 feature passed``, a requirement iff all
  its test cases pass. Two things differ, so both runners see the same app: the page is the
  reference app served on 127.0.0.1 with its CDN files from the vendor cache (offline here, as
  in the harness), and ``webdriver.Chrome`` is headless Chromium whose pages get the harness's
  seeded ``Math.random``. Each behave run is bounded in time and its browsers are killed by id.

The report lists, per project, both runners' verdicts and every test case on which they
disagree, with each side's reason. E2EDev's step code is peer code: each behave run goes
through the sandbox (:meth:`~pytest_e2ebench.isolation.sandbox.Sandbox.run`, the session's mode),
writing
only its own work folder, with an allow-list of the environment (:data:`BEHAVE_ENV`), never
the harness's.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from pathlib import Path

from ...environment import vendor
from ...environment.venv import create_venv, pinned, python_of
from ...environment.web import browser_binaries
from ...isolation.sandbox import machine_sandbox
from ...probe import PROBE_DIR
from ...untrusted.parse import read_json
from . import REPORT_FILE
from .e2edev import MAX_TESTS_BYTES, TESTS_FILE, find_projects, runner_step_code

RUNNER_TOOLS = ("behave", "selenium", "pytest")  # pytest: e2ebench_web (the served app) needs it
CASE_TIMEOUT = 300  # seconds for one behave run (E2EDev sets none)
REPORT = "verify-report.json"
# the harness's variables a behave run gets (the rest, API keys included, never crosses)
BEHAVE_ENV = ("PATH", "LANG", "LC_ALL", "TZ")
# E2EDev's runner: how its step code names the app's page
FILE_PATH = (
    (re.compile(r'file_path\s*=\s*"[^"]*"'), 'file_path = "{html}"'),
    (re.compile(r"file://[^\"']+"), "file://{html}"),
    (re.compile(r"file_path_placeholder\s*=\s*'[^']*'"), 'file_path = "{html}"'),
)
# features/environment.py of each behave run: webdriver.Chrome as the harness's browser.
ENVIRONMENT = textwrap.dedent(
    '''
    """pytest-e2ebench verify-import: headless, offline Chromium on the served reference app."""
    import json, os, sys, tempfile
    from pathlib import Path

    sys.path.insert(0, {probe!r})
    import e2ebench_web as web
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    APP = Path({app!r})
    VENDOR = Path({vendor!r}) if {vendor!r} else None
    _started = []  # (driver, pids)
    _server = web.AppServer(APP, VENDOR)


    class Chrome(webdriver.Chrome):
        def __init__(self, *args, **kwargs):
            options = webdriver.ChromeOptions()
            options.binary_location = {chromium!r}
            for flag in (*web.CHROMIUM_FLAGS, *(() if {network!r} else (web.OFFLINE_FLAG,))):
                options.add_argument(flag)
            options.add_argument("--user-data-dir=" + tempfile.mkdtemp(prefix="e2ebench-verify-"))
            service = Service({chromedriver!r}, port=web.driver_port())
            super().__init__(options=options, service=service)
            pid = service.process.pid
            _started.append((self, [pid, *web.descendants(pid)]))
            self.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument",
                {{"source": web.SEEDED_RANDOM % web.DEFAULT_SEED}},
            )
            self.set_page_load_timeout(web.PAGE_LOAD_TIMEOUT)

        def get(self, url):
            return super().get(web.map_url(url, _server.url, APP))


    webdriver.Chrome = Chrome


    def _kill():
        for driver, pids in _started:
            try:
                driver.quit()
            except Exception:
                pass
            for pid in pids:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        _started.clear()


    def after_scenario(context, scenario):
        _kill()


    def after_all(context):
        _kill()
        _server.close()
    '''
)


@dataclasses.dataclass
class CaseResult:
    """One test case (a feature) under both runners."""

    project: str
    requirement: str  # R<n>
    key: str  # E2EDev's requirement key
    case: int
    harness: str  # "pass" | "fail" | "missing"
    behave: str  # "pass" | "fail" | "timeout"
    harness_reason: str = ""
    behave_reason: str = ""
    behave_reruns: list[str] = dataclasses.field(default_factory=list)
    explanation: str = ""

    @property
    def agree(self) -> bool:
        return (self.harness == "pass") == (self.behave == "pass")


def explain(case: CaseResult, log: str) -> str:
    """Why the two runners disagree on ``case``, from what each reported."""
    undefined = re.findall(r"@(?:given|when|then|step)\(u?'(.*)'\)", log)
    if case.harness == "missing":
        return "the harness has no verdict: the task or requirement was not run"
    if case.behave == "timeout":
        return "behave did not finish within the time bound; the harness's scenario timeout holds"
    if case.behave != "pass" and undefined and all(u.endswith(":") for u in undefined):
        return (
            f"behave calls {len(undefined)} step(s) undefined whose text ends with ':' "
            f"({undefined[0]!r}) and whose definition has no colon: behave matches them only "
            "with BEHAVE_STRIP_STEPS_WITH_TRAILING_COLON=yes (default no); the harness matches "
            "them as behave does with that setting"
        )
    if "ModuleNotFoundError" in case.behave_reason:
        return "behave's environment lacks a package the step code imports"
    if len(set(case.behave_reruns)) > 1:
        return (
            f"behave's own verdict changes from run to run ({', '.join(case.behave_reruns)}): "
            "the scenario depends on timing"
        )
    if "StepDefinitionNotFoundError" in case.harness_reason:
        return "a step the harness did not match: a conversion defect of the importer"
    return ""


def _browser() -> tuple[str, str]:

    found = browser_binaries()
    return found["E2EBENCH_CHROMIUM"], found["E2EBENCH_CHROMEDRIVER"]


def _behave_reason(stdout: str) -> str:
    """The first failing or undefined step behave printed, with its error."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\.\.\. (failed|undefined|error)", line) or "Traceback" in line:
            tail = [ln.strip() for ln in lines[i : i + 8] if ln.strip()]
            return " | ".join(tail)[:600]
    summary = [ln for ln in lines if "passed" in ln and "failed" in ln]
    return (summary[0] if summary else "\n".join(lines[-3:]))[:300]


def behave_env(out: Path, tasks: list[Path]) -> Path:
    """A virtual environment (uv) for E2EDev's runner: behave, Selenium and pytest pinned to
    the harness's, and every package the tasks' step code needs; its interpreter."""

    needs: set[str] = set()
    for task in tasks:
        meta = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
        needs |= set(meta.get("tests", {}).get("requires", []))
    packages = [*pinned(RUNNER_TOOLS), *sorted(needs)]
    venv = out / "behave-venv"
    marker = venv / "e2ebench-packages.txt"
    wanted = "\n".join(packages) + "\n"
    if not (marker.is_file() and marker.read_text() == wanted):
        shutil.rmtree(venv, ignore_errors=True)
        create_venv(venv, out / "logs", packages, stage="verify")
        marker.write_text(wanted)
    return python_of(venv)


def run_behave_case(
    project: Path,
    app: Path,
    vendor_dir: Path | None,
    case: dict,
    work: Path,
    timeout: float = CASE_TIMEOUT,
    python: Path | str = sys.executable,
    network: bool = False,
) -> tuple[str, str]:
    """Run one E2EDev test case with behave as E2EDev's runner does: ("pass"|"fail"|..., why)."""
    chromium, chromedriver = _browser()
    steps_dir = work / "features" / "steps"
    steps_dir.mkdir(parents=True)
    html = str(app / "index.html")
    code = runner_step_code(project.name, case)
    for pattern, replacement in FILE_PATH:
        code = pattern.sub(replacement.format(html=html).replace("\\", "\\\\"), code)
    (work / "features" / "features.feature").write_text(case["test_case"][0], encoding="utf-8")
    (steps_dir / "steps.py").write_text(code, encoding="utf-8")
    (work / "features" / "environment.py").write_text(
        ENVIRONMENT.format(
            probe=str(PROBE_DIR),
            app=str(app),
            vendor=str(vendor_dir or ""),
            chromium=chromium,
            chromedriver=chromedriver,
            network=network,
        ),
        encoding="utf-8",
    )
    done = _sandbox().run(
        [str(python), "-m", "behave", "--no-color", "features"],
        cwd=work,
        env=behave_environment(work),
        timeout=timeout,
        # beside the folder the step code writes, not in it: a link it put at behave.log
        # would otherwise be read (and followed) by the report's explanation
        log=behave_log(work),
        writable=[work],
        readable=[p for p in (Path(python).parent.parent, PROBE_DIR, app, vendor_dir) if p],
        network=network,
    )
    if done.timed_out:
        return "timeout", f"behave did not finish in {timeout:g}s"
    out = done.output
    if "1 feature passed" in out:  # E2EDev's criterion
        return "pass", ""
    return "fail", _behave_reason(out)


def behave_log(work: Path) -> Path:
    """Where the harness keeps a behave run's output: beside its work folder."""
    return work.parent / f"{work.name}-behave.log"


def behave_environment(work: Path) -> dict[str, str]:
    """A behave run's environment: :data:`BEHAVE_ENV` of the harness's, a HOME of its own."""
    env = {k: os.environ[k] for k in BEHAVE_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    return {**env, "HOME": str(work), "PYTHONDONTWRITEBYTECODE": "1"}


def _sandbox():
    """The sandbox of this machine's ``auto`` mode, without an address-space limit
    (Chromium reserves far more than it uses)."""

    box = machine_sandbox()
    limits = dataclasses.replace(box.limits, address_space=resource.RLIM_INFINITY)
    return dataclasses.replace(box, limits=limits)


def _harness_cases(results: Path) -> dict[str, dict]:
    """task -> {"requirements": {R<n>: verdict}, "failing": {(R<n>, case): message}}."""
    data = json.loads(results.read_text(encoding="utf-8"))
    out: dict[str, dict] = {}
    for task in data.get("tasks", []):
        if task.get("agent") != "reference":
            continue
        entry = out.setdefault(task["task"], {"requirements": {}, "failing": {}})
        for req in task.get("requirements", []):
            entry["requirements"][req["id"]] = req.get("verdict")
            for fail in req.get("failing", []):
                m = re.match(r"tests/r(\d+)_(\d+)/", fail.get("nodeid", ""))
                if m:
                    key = (f"R{m[1]}", int(m[2]))
                    message = (fail.get("message") or fail.get("outcome") or "").splitlines()
                    entry["failing"].setdefault(key, (message or [""])[0][:400])
    return out


def run_harness(tasks: Path, out: Path, workers: int, select: list[str] | None = None) -> Path:
    """``pytest --e2e-agent=reference`` on the imported tasks; the results.json it wrote."""
    out.mkdir(parents=True, exist_ok=True)
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--e2e-agent=reference",
        f"--e2e-tasks={tasks}",
        f"--e2e-out={out}",
        "-q",
        "--rootdir",
        str(out),
    ]
    if workers > 1:
        args += ["-n", str(workers)]
    if select:
        args += ["-k", " or ".join(select)]
    with (out / "pytest.log").open("w") as log:
        subprocess.run(args, cwd=out, stdout=log, stderr=subprocess.STDOUT, check=False)
    results = out / "results.json"
    if not results.is_file():
        raise RuntimeError(f"the harness wrote no results (see {out / 'pytest.log'})")
    return results


def verify(
    src: Path,
    tasks: Path,
    out: Path,
    *,
    workers: int = 2,
    results: Path | None = None,
    projects: list[str] | None = None,
    timeout: float = CASE_TIMEOUT,
) -> dict:
    """Compare the harness and E2EDev's Behave runner on the imported reference apps.

    ``src`` is the E2EDev data the tasks in ``tasks`` were imported from (``e2ebench import
    e2edev``); ``results`` a results.json of the harness on those tasks (default: run it now);
    ``projects`` limits both runs to these E2EDev project names. Writes and returns
    ``out/verify-report.json``.
    """
    src, tasks, out = src.resolve(), tasks.resolve(), out.resolve()
    reports = json.loads((tasks / REPORT_FILE).read_text(encoding="utf-8"))
    imported = {r["project"]: r for r in reports if r.get("task")}
    wanted = [p for p in find_projects(src) if p.name in imported]
    if projects:
        wanted = [p for p in wanted if p.name in projects]
    out.mkdir(parents=True, exist_ok=True)
    jobs = _cases_of(wanted, imported)
    python = behave_env(out, [tasks / imported[p.name]["task"] for p in wanted])
    runner = _BehaveRunner(tasks, out, _vendored(wanted, imported, tasks, out), python, timeout)

    # E2EDev's runner first, then the harness (each on its own: they would share the CPU)
    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        first = list(pool.map(runner.run, jobs))
    if results is None:
        select = [imported[p.name]["task"] for p in wanted] if projects else None
        results = run_harness(tasks, out / "harness", workers, select)
    harness = _harness_cases(results)
    cases = [
        _compared(job, verdict, why, harness)
        for job, (verdict, why) in zip(jobs, first, strict=True)
    ]
    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        list(
            pool.map(
                runner.settle, [(c, j) for c, j in zip(cases, jobs, strict=True) if not c.agree]
            )
        )
    report = _summarize(wanted, imported, harness, cases)
    (out / REPORT).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def _cases_of(wanted: list[Path], imported: dict) -> list[tuple]:
    """One job per E2EDev test case of the wanted projects: (project, its import record,
    requirement id, E2EDev's key, the case's number, the case)."""
    jobs = []
    for project in wanted:
        meta = imported[project.name]
        data = read_json(project, TESTS_FILE, max_bytes=MAX_TESTS_BYTES)  # peer data, bounded
        requirements = data["finegrained_rewith_test"]
        for rid, key in meta["numbering"].items():
            for number, case in enumerate(requirements[key].get("test_cases") or [], start=1):
                jobs.append((project, meta, rid, key, number, case))
    return jobs


def _vendored(wanted: list[Path], imported: dict, tasks: Path, out: Path) -> dict[str, Path | None]:
    """Each project's vendored browser files, materialised under ``out/vendor`` (or None)."""
    vendors: dict[str, Path | None] = {}
    for project in wanted:
        task = tasks / imported[project.name]["task"]
        vendored = vendor.read_manifest(task)
        vendors[project.name] = None
        if vendored:
            vendors[project.name] = out / "vendor" / task.name
            shutil.rmtree(vendors[project.name], ignore_errors=True)
            vendor.materialize(vendored, vendors[project.name])
    return vendors


def _compared(job: tuple, verdict: str, why: str, harness: dict) -> CaseResult:
    """One case's two verdicts side by side: the harness's and E2EDev's runner's."""
    project, meta, rid, key, number, _ = job
    mine = harness.get(meta["task"])
    if mine is None or rid not in mine["requirements"]:
        ours, reason = "missing", "the harness has no result for this requirement"
    elif (rid, number) in mine["failing"]:
        ours, reason = "fail", mine["failing"][(rid, number)]
    else:
        ours, reason = "pass", ""
    return CaseResult(project.name, rid, key, number, ours, verdict, reason, why)


@dataclasses.dataclass
class _BehaveRunner:
    """E2EDev's Behave runner on one case of the imported reference apps."""

    tasks: Path
    out: Path
    vendors: dict[str, Path | None]
    python: Path
    timeout: float

    def __post_init__(self) -> None:
        self.work_root = Path(tempfile.mkdtemp(prefix="e2ebench-behave-", dir=self.out))

    def run(self, job: tuple, attempt: int = 0) -> tuple[str, str]:
        project, imported_as, rid, _, number, case = job
        task = self.tasks / imported_as["task"]
        work = self.work_root / f"{imported_as['task']}-{rid}-{number}" / f"run-{attempt + 1}"
        meta = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
        network = meta.get("tests", {}).get("network") is True  # as the harness runs it
        return run_behave_case(
            project,
            task / "reference",
            self.vendors[project.name],
            case,
            work,
            self.timeout,
            self.python,
            network,
        )

    def settle(self, pair: tuple[CaseResult, tuple]) -> None:
        # two more behave runs tell timing (a verdict that changes) from a real difference
        result, job = pair
        result.behave_reruns = [result.behave, *(self.run(job, n)[0] for n in (1, 2))]
        _, meta, rid, _, number, _ = job
        log = behave_log(self.work_root / f"{meta['task']}-{rid}-{number}" / "run-1")
        result.explanation = explain(result, log.read_text() if log.is_file() else "")
        result.explanation = result.explanation or "unexplained"


def _summarize(wanted, imported, harness, cases: list[CaseResult]) -> dict:
    projects = []
    for project in wanted:
        meta = imported[project.name]
        mine = [c for c in cases if c.project == project.name]
        reqs = {}
        for c in mine:
            entry = reqs.setdefault(c.requirement, {"harness": True, "behave": True})
            entry["harness"] &= c.harness == "pass"
            entry["behave"] &= c.behave == "pass"
        verdicts = harness.get(meta["task"], {}).get("requirements", {})
        for rid, entry in reqs.items():
            entry["harness"] = verdicts.get(rid) == "implemented"
        projects.append(
            {
                "project": project.name,
                "task": meta["task"],
                "requirements": len(reqs),
                "harness_passed": sum(e["harness"] for e in reqs.values()),
                "behave_passed": sum(e["behave"] for e in reqs.values()),
                "cases": len(mine),
                "agree": sum(c.agree for c in mine),
                "disagreements": [dataclasses.asdict(c) for c in mine if not c.agree],
                "requirement_verdicts": reqs,
            }
        )
    both = sum(
        1
        for p in projects
        for e in p["requirement_verdicts"].values()
        if e["harness"] and e["behave"]
    )
    behave_passed = sum(p["behave_passed"] for p in projects)
    return {
        "schema": "e2ebench-verify-e2edev/1",
        "requirements": sum(p["requirements"] for p in projects),
        "harness_passed": sum(p["harness_passed"] for p in projects),
        "behave_passed": behave_passed,
        "harness_passed_of_behave_passed": both,
        "fidelity": both / behave_passed if behave_passed else None,
        "cases": sum(p["cases"] for p in projects),
        "cases_agree": sum(p["agree"] for p in projects),
        "unexplained": sum(
            d["explanation"] == "unexplained" for p in projects for d in p["disagreements"]
        ),
        "projects": projects,
    }


def print_report(report: dict, out=None) -> None:
    """The report as text: per project both runners' verdicts and every disagreement."""
    out = out or sys.stdout
    for p in report["projects"]:
        print(
            f"{p['task']}: harness {p['harness_passed']}/{p['requirements']}, behave "
            f"{p['behave_passed']}/{p['requirements']} requirements; test cases agree "
            f"{p['agree']}/{p['cases']}",
            file=out,
        )
        for d in p["disagreements"]:
            print(
                f"  {d['requirement']} (E2EDev {d['key']}) case {d['case']}: harness "
                f"{d['harness']}, behave {d['behave']}",
                file=out,
            )
            for side in ("harness", "behave"):
                if d[f"{side}_reason"]:
                    print(f"    {side}: {d[f'{side}_reason'][:300]}", file=out)
            print(f"    why: {d['explanation']}", file=out)
    fidelity = report["fidelity"]
    print(
        f"requirements: harness {report['harness_passed']}/{report['requirements']}, behave "
        f"{report['behave_passed']}/{report['requirements']}; the harness passes "
        f"{report['harness_passed_of_behave_passed']} of the {report['behave_passed']} behave "
        f"passes ({'-' if fidelity is None else f'{fidelity:.1%}'}); test cases agree "
        f"{report['cases_agree']}/{report['cases']}, {report['unexplained']} disagreement(s) "
        "unexplained",
        file=out,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench verify-import e2edev``."""
    parser.add_argument("src", type=Path, help="the E2EDev data the tasks were imported from")
    parser.add_argument("tasks", type=Path, help="the task folders `e2ebench import e2edev` wrote")
    parser.add_argument(
        "--out", type=Path, default=Path(".e2ebench-verify"), help="where runs and report go"
    )
    parser.add_argument("-n", "--workers", type=int, default=2, help="parallel runs (default 2)")
    parser.add_argument(
        "--results", type=Path, help="a results.json of the harness on TASKS (else run it now)"
    )
    parser.add_argument(
        "--project", action="append", dest="projects", help="only this E2EDev project (repeat)"
    )
    parser.add_argument(
        "--timeout", type=float, default=CASE_TIMEOUT, help="seconds per behave run"
    )


def run(args: argparse.Namespace) -> int:
    """Verify, print the report; exit status 1 when a disagreement is unexplained."""
    try:
        import behave  # noqa: F401
    except ImportError:
        print(
            "e2ebench verify-import: behave is not installed; "
            "pip install 'pytest-e2ebench[e2edev]'",
            file=sys.stderr,
        )
        return 2
    for path, what in ((args.src, TESTS_FILE), (args.tasks, REPORT_FILE)):
        if not path.is_dir():
            print(
                f"e2ebench verify-import: {path}: no such folder (expected {what})", file=sys.stderr
            )
            return 2
    if not (args.tasks / REPORT_FILE).is_file():
        print(
            f"e2ebench verify-import: {args.tasks / REPORT_FILE} missing; import first "
            f"(e2ebench import e2edev {args.src} {args.tasks})",
            file=sys.stderr,
        )
        return 2
    report = verify(
        args.src,
        args.tasks,
        args.out,
        workers=args.workers,
        results=args.results,
        projects=args.projects,
        timeout=args.timeout,
    )
    print_report(report)
    print(f"report: {args.out / REPORT}")
    return 1 if report["unexplained"] else 0
