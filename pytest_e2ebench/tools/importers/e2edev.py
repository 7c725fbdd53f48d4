"""Convert E2EDev projects into web tasks.

E2EDev (Liu et al., 2025) publishes one folder per project::

    E2ESD_Bench_01/
      prompt.txt                   what the agent is given
      requirment_with_tests.json   (sic) {"summary": {...}, "finegrained_rewith_test":
                                   {"1": {"requirement": {"description": ...},
                                          "test_cases": [{"test_case": ["Feature: ..."],
                                                          "step_code": "from behave ..."}]}}}
      source_projcet/              (sic) the reference app: index.html, script.js, ...

Each becomes a task folder: ``prompt.txt`` verbatim as requirements.md (followed by one
``### R<n>:`` heading per fine-grained requirement, so results are reported per requirement),
the reference app without E2EDev's annotation files, and per test case a folder
``tests/r<n>_<case>/`` holding the feature text with ``@R<n>`` on every scenario and the step
code, rewritten for pytest-bdd: ``behave`` imports become :mod:`e2ebench_behave`, and every
``webdriver.Chrome(...)`` becomes the session's headless Chromium, whose ``get`` maps the
``file://`` paths of the original onto the served app.

The app's CDN libraries and fonts are vendored from npm packages (:mod:`..vendor`); what no
package serves (a live API) is reported. Step code runs as E2EDev's own runner runs it (its
sleeps shortened), and steps no definition matches are listed.

A test case that cannot be converted (Gherkin that does not parse, step code that is not
Python, no scenario) is not dropped: it becomes a scenario that fails with the reason, so its
requirement scores 0, and it is listed in the import report. (E2EDev's own metric script
skips projects it cannot find; we count them.)
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime as dt
import re
import shutil
import sys
from pathlib import Path

from ...environment import sri, vendor
from ...errors import AgentFileError
from ...taskmodel.features import SCENARIO_LINE, parse_feature
from ...untrusted.deadline import TooSlow, time_bound
from ...untrusted.parse import loads_python, read_json, said
from ...untrusted.peer import copy_folder
from ...untrusted.peer import read_text as peer_text
from . import add_arguments as shared_arguments
from . import fresh_folder, write_report, write_task_toml
from .testimports import DISTRIBUTIONS  # import names whose PyPI name differs

TESTS_FILE = "requirment_with_tests.json"  # sic: E2EDev's spelling
SOURCE_DIRS = ("source_projcet", "source_project")  # sic, and the spelling one would expect
PROMPT_FILE = "prompt.txt"
# E2EDev's annotation and analysis files in source_projcet/: not part of the app.
NOT_APP = ("info", "annotation", "requirements.json")
MAX_TESTS_BYTES = 64 << 20
NOT_APP_GLOBS = ("annotation*.json", "web_application_analysis*.json", ".DS_Store", "__MACOSX")
PROVIDED = {"selenium", "behave", "pytest", "pytest_bdd", "e2ebench_behave", "e2ebench_web"}
DROPPED_IMPORTS = ("webdriver_manager",)  # only ever used to build webdriver.Chrome(...)
BROWSERS = {"Chrome", "ChromiumEdge", "Edge", "Firefox", "Safari", "Remote"}
# E2EDev's runner (run_behave_test.py) shortens every literal time.sleep(N) in the step code to
# 0.5 s, except in these projects, whose scenarios wait for timers: graded as its authors grade.
SLEEP = re.compile(r"time\.sleep\s*\(\s*\d+(\.\d+)?\s*\)")
SHORT_SLEEP = "time.sleep(0.5)"
KEEPS_SLEEPS = frozenset({"E2ESD_Bench_27", "E2ESD_Bench_37", "E2ESD_Bench_21", "E2ESD_Bench_05"})
SCENARIO_TIMEOUT = 60  # E2EDev's steps sleep generously


class ConversionError(Exception):
    """A test case that cannot become a runnable scenario."""


# The peer's step patterns are regular expressions matched against the peer's step texts:
# ``(a|aa)+b`` against 44 ``a`` held the importer over 30 s, 60 of them for years.
STEP_CHECK_SECONDS = 2.0


@dataclasses.dataclass
class ProjectReport:
    """What happened to one E2EDev project."""

    project: str
    task: str | None = None
    requirements: int = 0
    cases: int = 0
    converted: int = 0
    failed: list[dict] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    requires: list[str] = dataclasses.field(default_factory=list)
    error: str | None = None
    numbering: dict[str, str] = dataclasses.field(default_factory=dict)  # R<n> -> E2EDev key
    vendored: list[str] = dataclasses.field(default_factory=list)  # "URL -> package@version/file"
    live: list[str] = dataclasses.field(default_factory=list)  # addresses no npm package serves
    not_vendored: list[dict] = dataclasses.field(default_factory=list)  # {"url", "reason"}
    # vendored, but npm's copy fails the page's integrity hash ({"url", "reason"}): served
    # without that pin, which the browser would refuse (issue 47)
    unpinned: list[dict] = dataclasses.field(default_factory=list)
    undefined_steps: list[dict] = dataclasses.field(default_factory=list)  # converted, no match


# ---------------------------------------------------------------------------------------------
# Step code


class _Rewriter(ast.NodeTransformer):
    """behave imports -> e2ebench_behave; ``webdriver.Chrome(...)`` -> the harness's browser."""

    def __init__(self, chrome_names: set[str]):
        self.chrome_names = chrome_names
        self.replaced = 0

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.module and node.module.split(".")[0] in DROPPED_IMPORTS:
            return None
        if node.module == "behave":
            node.module = "e2ebench_behave"
        return node

    def visit_Import(self, node: ast.Import):
        node.names = [a for a in node.names if a.name.split(".")[0] not in DROPPED_IMPORTS]
        for alias in node.names:
            if alias.name == "behave":
                alias.name, alias.asname = "e2ebench_behave", alias.asname or "behave"
        return node if node.names else None

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        is_browser = (
            isinstance(func, ast.Attribute)
            and func.attr in BROWSERS
            and isinstance(func.value, ast.Name | ast.Attribute)
            and ast.unparse(func.value).split(".")[-1] == "webdriver"
        ) or (isinstance(func, ast.Name) and func.id in self.chrome_names)
        if not is_browser:
            return node
        self.replaced += 1
        return ast.copy_location(
            ast.Call(func=ast.Name("_e2ebench_driver", ast.Load()), args=[], keywords=[]), node
        )


def convert_steps(code: str) -> tuple[str, set[str]]:
    """behave step code as pytest-bdd step code, and the modules it needs installed."""
    try:  # peer code: a tree too deep for the walks below is refused, never a crash
        tree = loads_python(code, "step code")
    except AgentFileError as exc:
        raise ConversionError(said(exc)) from None
    chrome_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("selenium")
        for alias in node.names
        if alias.name in BROWSERS
    }
    uses_behave = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "behave"
        or isinstance(node, ast.Import)
        and any(a.name == "behave" for a in node.names)
        for node in ast.walk(tree)
    )
    if not uses_behave:
        raise ConversionError("step code does not import behave's step decorators")
    tree = ast.fix_missing_locations(_Rewriter(chrome_names).visit(tree))
    needs = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top not in PROVIDED:
                needs.add(DISTRIBUTIONS.get(top, top))
    header = (
        "# Converted from E2EDev behave step code by pytest-e2ebench: behave's decorators come\n"
        "# from e2ebench_behave, and webdriver.Chrome(...) is the harness's headless Chromium.\n"
        "from e2ebench_behave import driver as _e2ebench_driver  # noqa: F401\n\n"
    )
    return header + ast.unparse(tree) + "\n", needs


def runner_step_code(project: str, case: dict) -> str:
    """A test case's step code as E2EDev's own runner runs it (its sleeps shortened)."""
    code = str(case.get("step_code", ""))
    return code if project in KEEPS_SLEEPS else SLEEP.sub(SHORT_SLEEP, code)


STEP_DECORATORS = {"given", "when", "then", "step", "Given", "When", "Then", "Step"}


def step_patterns(code: str) -> list[tuple[str, str]]:
    """``(matcher, pattern)`` of every behave step the code defines, in order (none when the
    code cannot be parsed within bounds)."""
    try:
        tree = loads_python(code, "step code")
    except AgentFileError:
        return []
    found: list[tuple[int, str, str]] = []
    matchers: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        arg = node.args[0]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name == "use_step_matcher":
            matchers.append((node.lineno, arg.value))
        elif name in STEP_DECORATORS:
            found.append((node.lineno, name, arg.value))
    out = []
    for line, _, pattern in sorted(found):
        kind = next((m for at, m in reversed(sorted(matchers)) if at < line), "parse")
        out.append((kind, pattern))
    return out


def undefined_steps(feature: Path, code: str) -> list[str]:
    """Steps of ``feature`` that no step definition of ``code`` matches (as behave matches,
    a trailing colon aside); steps with outline placeholders are not checked."""
    from pytest_bdd import parsers
    from pytest_bdd.parser import FeatureParser

    def matcher(kind: str, pattern: str):
        try:
            if kind == "re":
                return parsers.re(pattern if pattern.endswith("$") else pattern + "$")
            return parsers.cfparse(pattern) if kind == "cfparse" else parsers.parse(pattern)
        except (ValueError, re.error):
            return None

    defined = [m for m in (matcher(*p) for p in step_patterns(code)) if m is not None]
    parsed = FeatureParser(str(feature.parent), feature.name).parse()
    steps = list(parsed.background.steps) if parsed.background else []
    for template in parsed.scenarios.values():
        steps += template.steps
    missing: list[str] = []
    try:
        with time_bound(STEP_CHECK_SECONDS) as bounded:
            for step in steps if bounded else ():  # unbounded: not checked (a report only)
                text = step.name
                if "<" in text or text in missing:
                    continue
                candidates = (text, text[:-1]) if text.endswith(":") else (text,)
                if not any(d.is_matching(c) for d in defined for c in candidates):
                    missing.append(text)
    except TooSlow:
        raise ConversionError(
            f"its step patterns take over {STEP_CHECK_SECONDS:g} s to match its steps "
            "(a regular expression that backtracks)"
        ) from None
    return missing


def tag_scenarios(feature: str, requirement: str) -> str:
    """The feature text with ``@<requirement>`` on the line above every scenario."""
    return SCENARIO_LINE.sub(lambda m: f"{m[1]}@{requirement}\n{m[0]}", feature)


def _placeholder(requirement: str, case: int, reason: str) -> tuple[str, str]:
    feature = (
        f"Feature: E2EDev test case {case} of {requirement} (not converted)\n\n"
        f"  @{requirement}\n"
        f"  Scenario: test case {case} could not be converted\n"
        "    Given this test case could not be converted\n"
    )
    steps = (
        "import pytest\nfrom pytest_bdd import given\n\n\n"
        '@given("this test case could not be converted")\n'
        "def _():\n"
        f"    pytest.fail({('E2EDev test case not converted: ' + reason)!r}, pytrace=False)\n"
    )
    return feature, steps


# ---------------------------------------------------------------------------------------------
# Projects


def find_projects(src: Path) -> list[Path]:
    """E2EDev project folders at or under ``src`` (those holding the tests file), sorted."""
    if (src / TESTS_FILE).is_file():
        return [src]
    return sorted(p.parent for p in src.rglob(TESTS_FILE))


def task_id(project: Path) -> str:
    """A task id from a project folder name: lower case, ``[a-z0-9_-]``."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", project.name.lower()).strip("-_")
    return slug if slug and slug[0].isalnum() else f"e2edev-{slug}"


def _title(description: str) -> str:
    first = re.split(r"(?<=[.!?])\s", " ".join(description.split()), maxsplit=1)[0]
    return first if len(first) <= 90 else first[:87].rstrip() + "..."


def _copy_app(project: Path, source: Path, dest: Path) -> None:
    """Copy the app (peer data: no link followed, a link out of the dataset refused with an
    AgentFileError); the dataset's own notes at its top are left out."""
    copy_folder(project, source.relative_to(project).as_posix(), dest, ignore=NOT_APP_GLOBS)
    for name in NOT_APP:
        left = dest / name
        if left.is_dir() and not left.is_symlink():
            shutil.rmtree(left)
        elif left.exists() or left.is_symlink():
            left.unlink()


def _vendor(dest: Path, report: ProjectReport, vendoring: bool) -> bool:
    """Serve the app's CDN files from npm packages (``vendor.json``); does it need the network?

    What no package serves (an API, an image host) or cannot be had is reported. The task keeps
    the network (``tests.network = true``) for a live API and for a library not vendored; an
    image or a sound from a host no package stands for does not load offline, and its
    scenarios still run offline (waiting for such a host where there is no internet stalls
    every page load).
    """
    if not vendoring:
        vendored: list = []
        live = list(
            dict.fromkeys(
                u for t in vendor.app_texts(dest / "reference") for u in vendor.loaded_urls(t)
            )
        )
        failed: list[dict] = []
    else:
        vendored, live, failed = vendor.vendor_app(dest / "reference")
    if vendored:
        vendor.write_manifest(dest, vendored)
        report.unpinned = sri.failures(dest / "reference", vendored)
    report.vendored = [f"{v.url} -> {v.entry}" for v in vendored]
    report.live = live
    report.not_vendored = failed
    called = vendor.app_calls(dest / "reference")
    calls = [u for u in live if u in called]
    media = [u for u in live if u not in called]  # images, audio: no package serves them
    network = bool(calls or failed or (media and not vendoring))
    if calls:
        report.warnings.append(
            f"the app needs a live API ({', '.join(calls[:3])}): its scenarios run with network "
            "access (tests.network = true) and fail offline"
        )
    if failed or (media and not vendoring):
        example = failed[0]["url"] if failed else media[0]
        report.warnings.append(
            f"the app loads {len(failed) or len(media)} library address(es) not vendored (e.g. "
            f"{example}): its scenarios run with network access (tests.network = true)"
        )
    elif media:
        report.warnings.append(
            f"the app loads {len(media)} file(s) from hosts no npm package stands for (e.g. "
            f"{media[0]}): offline they do not load"
            + ("" if network else "; its scenarios still run offline")
        )
    return network


def import_project(
    project: Path, out: Path, created: dt.date, vendoring: bool = True
) -> ProjectReport:
    """Write the task for one E2EDev project under ``out``; what happened, as a report."""
    report = ProjectReport(project=project.name)
    try:
        data, requirements, prompt_text = _read_project(project)
        source = _app_folder(project, report)
        if prompt_text is None:
            raise ConversionError(f"no {PROMPT_FILE}: there is nothing to give the agent")
    except ConversionError as exc:
        report.error = str(exc)
        return report
    report.task = tid = task_id(project)
    dest = fresh_folder(out, tid)
    tests = dest / "tests"
    tests.mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    try:
        _copy_app(project, source, dest / "reference")
    except AgentFileError as exc:  # hostile: this project only
        shutil.rmtree(dest)
        report.task, report.error = None, str(exc)
        return report
    headings = _write_cases(project, requirements, tests, report)
    text = prompt_text.strip("\n")
    (dest / "requirements.md").write_text(
        f"{text}\n\n## Requirement ids\n\n"
        "The requirements above, numbered as the results report them:\n\n"
        + "\n\n".join(headings)
        + "\n",
        encoding="utf-8",
    )
    network = _vendor(dest, report, vendoring)
    if report.requires:
        report.warnings.append(
            f"the step code needs {', '.join(report.requires)} (installed unpinned into the "
            "test environment)"
        )
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else {}
    title = _title(str(summary.get("overview") or project.name))
    meta = {"id": tid, "title": title, "kind": "web", "language": "javascript"}
    tests_table = {
        "path": "tests",
        "timeout": SCENARIO_TIMEOUT,
        "network": bool(network),
        "requires": list(report.requires),
    }
    source_text = f"E2EDev {project.name} (imported by pytest-e2ebench)"
    write_task_toml(dest, {**meta, "created": created, "source": source_text, "tests": tests_table})
    return report


def _read_project(project: Path) -> tuple[dict, dict, str | None]:
    """The project's test file, its requirements and its prompt (None when it has none);
    ConversionError when the test file cannot be read."""
    try:
        # peer data: bounded, no link, depth-checked (AgentFileError is a ValueError)
        data = read_json(project, TESTS_FILE, max_bytes=MAX_TESTS_BYTES)
        requirements = data["finegrained_rewith_test"]
        if not isinstance(requirements, dict) or not requirements:
            raise ValueError("'finegrained_rewith_test' is empty or not an object")
        prompt_text = peer_text(project, PROMPT_FILE)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConversionError(f"{TESTS_FILE}: cannot be read ({exc})") from None
    return data, requirements, prompt_text


def _app_folder(project: Path, report: ProjectReport) -> Path:
    """The folder holding the reference app's index.html; ConversionError if none."""
    source = next((project / d for d in SOURCE_DIRS if (project / d).is_dir()), None)
    if source is not None and not (source / "index.html").is_file():
        # some projects keep the app one folder down (source_projcet/<author>/index.html)
        inner = [d for d in source.iterdir() if (d / "index.html").is_file()]
        if len(inner) == 1:
            report.warnings.append(f"the app is in {source.name}/{inner[0].name}/")
            source = inner[0]
    if source is None or not (source / "index.html").is_file():
        raise ConversionError(f"no {SOURCE_DIRS[0]}/index.html: there is no reference app to serve")
    return source


def _write_cases(project: Path, requirements: dict, tests: Path, report) -> list[str]:
    """One folder per test case (its feature and step code, or a failing placeholder with
    the reason); the requirement headings of requirements.md."""
    headings = []
    needs: set[str] = set()
    ordered = sorted(
        requirements.items(),
        key=lambda kv: (not kv[0].isdigit(), int(kv[0]) if kv[0].isdigit() else 0, kv[0]),
    )
    for number, (key, entry) in enumerate(ordered, start=1):
        rid = f"R{number}"
        report.numbering[rid] = key
        description = str(((entry or {}).get("requirement") or {}).get("description", "")).strip()
        headings.append(f"### {rid}: {_title(description) or f'Requirement {key}'}")
        cases = (entry or {}).get("test_cases") or [None]
        for case_no, case in enumerate(cases, start=1):
            report.cases += 1
            folder = tests / f"r{number}_{case_no}"
            folder.mkdir()
            (folder / "__init__.py").write_text("")
            try:
                needs |= _write_case(project, case, folder, (rid, case_no), report)
                report.converted += 1
            except ConversionError as exc:
                reason = str(exc)
                report.failed.append({"requirement": rid, "case": case_no, "reason": reason})
                feature, steps = _placeholder(rid, case_no, reason)
                (folder / "case.feature").write_text(feature, encoding="utf-8")
                (folder / "conftest.py").write_text(steps, encoding="utf-8")
    report.requirements = len(ordered)
    report.requires = sorted(needs)
    return headings


def _write_case(project: Path, case, folder: Path, where: tuple, report) -> set[str]:
    """One test case's ``case.feature`` and ``conftest.py`` (its step code, converted); the
    modules the step code needs. ConversionError when it cannot be converted."""
    rid, case_no = where
    if not isinstance(case, dict):
        raise ConversionError("the requirement has no test case")
    texts = case.get("test_case")
    texts = [texts] if isinstance(texts, str) else texts
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ConversionError("'test_case' holds no feature text")
    feature = tag_scenarios("\n\n".join(texts), rid)
    steps, more = convert_steps(runner_step_code(project.name, case))
    (folder / "case.feature").write_text(feature, encoding="utf-8")
    scenarios, problems = parse_feature(folder / "case.feature")
    if problems:
        raise ConversionError("; ".join(problems))
    (folder / "conftest.py").write_text(steps, encoding="utf-8")
    for text in undefined_steps(folder / "case.feature", str(case["step_code"])):
        report.undefined_steps.append(
            {
                "requirement": rid,
                "case": case_no,
                "step": text,
                "reason": "no step definition of its step code matches this text "
                "(behave reports it undefined too): the scenario fails",
            }
        )
    return more


def import_all(
    src: Path, out: Path, created: dt.date, vendoring: bool = True
) -> list[ProjectReport]:
    """Import every project under ``src`` into ``out``; the reports, also in import-report.json."""
    out.mkdir(parents=True, exist_ok=True)
    reports = [import_project(p, out, created, vendoring) for p in find_projects(src)]
    write_report(out, reports)
    return reports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import e2edev``."""
    shared_arguments(parser, "an E2EDev project folder, or a folder of them")
    parser.add_argument(
        "--no-vendor",
        dest="vendor",
        action="store_false",
        help="do not fetch the apps' CDN libraries and fonts from npm into the vendor cache "
        "(such apps then need tests.network = true, and fail offline)",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what happened; exit status 1 when nothing could be imported."""
    if not args.src.is_dir():
        print(
            f"e2ebench: {args.src}: no such folder; give the folder of an E2EDev checkout "
            f"(its projects hold {TESTS_FILE})",
            file=sys.stderr,
        )
        return 1
    projects = find_projects(args.src)
    if not projects:
        print(f"e2ebench: no E2EDev projects ({TESTS_FILE}) under {args.src}", file=sys.stderr)
        return 1
    reports = import_all(args.src, args.out, args.created, getattr(args, "vendor", True))
    for r in reports:
        if r.error:
            print(f"NOT IMPORTED {r.project}: {r.error}")
            continue
        state = "ok" if not r.failed else f"{len(r.failed)} case(s) NOT CONVERTED"
        if r.unpinned:  # named: its pages are not served as written (issue 47)
            state += f"; {len(r.unpinned)} pinned library file(s) served UNPINNED"
        print(
            f"{r.task}: {r.requirements} requirements, {r.converted}/{r.cases} test cases "
            f"converted ({state})"
        )
        for f in r.failed:
            print(f"  {f['requirement']} case {f['case']}: {f['reason']} (scores 0)")
        for u in r.undefined_steps:
            print(f"  {u['requirement']} case {u['case']}: step {u['step']!r}: {u['reason']}")
        if r.vendored:
            print(f"  {len(r.vendored)} CDN file(s) served from npm packages (vendor.json)")
        for f in r.not_vendored:
            print(f"  not vendored: {f['reason']}")
        for f in r.unpinned:
            print(f"  unpinned: {f['reason']}")
        for w in r.warnings:
            print(f"  note: {w}")
    done = sum(not r.error for r in reports)
    print(f"imported {done} of {len(reports)} projects ({len(reports) - done} not imported)")
    print(f"report: {args.out / 'import-report.json'}")
    return 0 if any(not r.error for r in reports) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m pytest_e2ebench.tools.importers.e2edev SRC OUT``."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_e2ebench.tools.importers.e2edev", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
