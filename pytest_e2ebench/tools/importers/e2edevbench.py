"""Convert E2EDevBench's PyPI projects (a ``datasets/*.json`` file) into library tasks.

E2EDevBench (arXiv:2510.14509) lists, per project, the PyPI release (``pypi_info``), the
GitHub commit (``commit_sha``), the requirements document (``SRS_document``), structured
requirements with the tests that check each one (``structured_requirements``,
``test_traceability``) and the tests' results in its own run (``test_cases``). The data is the
user's copy: ``e2ebench import e2edevbench DATASET.json OUT`` reads it and writes, per project:

* ``requirements.md``: the SRS verbatim, then one ``### R<n>`` per structured requirement that
  names at least one test, and a last one for the reference suite as a whole;
* ``task.toml``: the reference, ``[source] pypi`` + ``sha256`` when the sdist ships the tests
  the dataset names (the sdist is downloaded from the package index to check), else
  ``[source] git`` + ``commit`` (the repository at the pinned commit; fetching it needs the git
  host); ``[tests.requirements]`` from the tracing; ``[tests] plugins`` the tests need.

Nothing of the project is committed here: the reference is fetched by a run's first stage
(``fetch_reference``; loading a task never touches the network).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import re
import sys
from pathlib import Path

from ...environment.requirements import parse_requirement
from ...environment.source import VERSION, SourceError, fetch_sdist, sdist_of
from ...taskmodel.testconf import required_python
from ...untrusted.parse import read_json, read_toml
from ...untrusted.peer import read_text as peer_text
from . import add_arguments as shared_arguments
from . import fresh_folder, testimports, write_report, write_task_toml

# fixtures and marks in the tests' code -> the pytest plugin that provides them
MAX_DATASET_BYTES = 64 << 20  # one datasets/*.json file of E2EDevBench
PLUGINS = (
    (re.compile(r"pytest\.mark\.asyncio|^\s*async def test", re.MULTILINE), "pytest-asyncio"),
    (re.compile(r"\bbenchmark\b\s*[,)]|\bbenchmark\("), "pytest-benchmark"),
    (re.compile(r"\bmocker\b\s*[,)]|\bmocker\."), "pytest-mock"),
)


@dataclasses.dataclass
class ProjectReport:
    """What happened to one E2EDevBench project."""

    project: str
    task: str | None = None
    reference: str = ""  # "sdist" | "commit"
    error: str | None = None
    requirements: int = 0
    python: str | None = None  # the Python version the project requires, if not the harness's
    test_requires: list[str] = dataclasses.field(default_factory=list)  # from its test extras
    scm_version: str | None = None  # the release's version, for a build that reads it from git
    notes: list[str] = dataclasses.field(default_factory=list)


def task_id(name: str) -> str:
    """A task id from a project name: lower case, ``[a-z0-9_-]``."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return f"e2edevbench-{slug or 'project'}"


def _test_id(raw: str) -> str:
    """A node id of the dataset without its parameters (a glob of every case)."""
    return raw.split("[", 1)[0].strip()


def python_of(root: Path) -> str | None:
    """The Python version the sdist's ``Requires-Python`` (PKG-INFO) asks for, when the
    harness's does not satisfy it."""
    from email.parser import HeaderParser

    try:  # the sdist is peer data: bounded, no link, UTF-8
        meta = HeaderParser().parsestr(peer_text(root, "PKG-INFO") or "")
    except ValueError:
        return None
    requires = meta.get("Requires-Python")
    harness = f"{sys.version_info.major}.{sys.version_info.minor}"
    return required_python(requires, harness) if requires else None


# test extras and requirement files a project declares its test dependencies in
TEST_EXTRAS = ("test", "tests", "testing", "dev")
TEST_FILES = (
    "requirements-test.txt",
    "requirements_test.txt",
    "test-requirements.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "tests/requirements.txt",
)
# the harness brings these (pinned) or they change how tests run: never declared
NOT_DECLARED = frozenset(
    {"pytest", "coverage", "pytest-timeout", "pytest-cov", "pytest-xdist", "pytest-randomly"}
    | {"pytest-sugar", "pytest-json-report", "pytest-html", "pytest-rerunfailures", "tox"}
)


# What a "dev" group holds besides test tools: documentation, linters, type checkers, release
# and shell tools. Never imported by a test, and they can make the group uninstallable
# (pydongo's mkdocs-material and its pinned pymdown-extensions conflict today).
NOT_TEST_TOOLS = re.compile(
    r"(mkdocs.*|sphinx.*|myst-parser|pymdown-extensions|furo|mypy|ruff|black|isort|flake8.*"
    r"|pylint|pre-commit|types-.*|.*-stubs|ipdb|ipython|jupyter.*|twine|build|bump.*"
    r"|commitizen|tox|nox)"
)


def declared_test_requirements(root: Path) -> list[str]:
    """Index requirements the sdist declares for its tests (its test extras, or a
    requirements file for tests), read as data; what the harness brings is left out."""
    from packaging.requirements import InvalidRequirement
    from packaging.utils import canonicalize_name

    texts: list[str] = []
    try:
        project = read_toml(root, "pyproject.toml") or {}  # peer data, bounded
        texts += declared_groups(project)
    except (ValueError, AttributeError):
        pass
    for name in TEST_FILES:
        try:
            lines = (peer_text(root, name) or "").splitlines()
        except ValueError:
            continue
        texts += [ln.split("#", 1)[0].strip() for ln in lines if not ln.startswith(("-", "#"))]
    out: dict[str, str] = {}
    stubs: set[str] = set()
    for text in texts:
        try:
            req = parse_requirement(text)
        except InvalidRequirement:
            continue
        name = canonicalize_name(req.name)
        if name.startswith("types-"):
            stubs.add(name.removeprefix("types-"))
        if req.url or req.marker or name in NOT_DECLARED or NOT_TEST_TOOLS.fullmatch(name):
            continue
        out.setdefault(name, str(req))
    # A stub package (types-pytz) says the project imports that module; when no requirement
    # declares it, the project had it from another one's dependencies (pandas brought pytz
    # until pandas 3), which today's versions no longer bring: it is declared here.
    declared = {canonicalize_name(n) for n in declared_names(root)} | set(out)
    for name in sorted(stubs - declared):
        if re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name):
            out[name] = name
    return list(out.values())


def declared_names(root: Path) -> list[str]:
    """The names of the runtime dependencies the release's pyproject declares."""
    from packaging.requirements import InvalidRequirement

    try:
        project = (read_toml(root, "pyproject.toml") or {}).get("project", {})
    except (ValueError, AttributeError):
        return []
    names = []
    for text in project.get("dependencies", []) if isinstance(project, dict) else []:
        try:
            names.append(parse_requirement(text).name)
        except (InvalidRequirement, TypeError):
            continue
    return names


# build back ends that take the version from git; without .git they read PKG-INFO's
SCM_BUILDS = re.compile(r"^(setuptools[-_]scm|hatch[-_]vcs)\b", re.IGNORECASE)


def scm_version(root: Path, version: str) -> str | None:
    """``version`` when the release (its pyproject.toml) builds with setuptools-scm or
    hatch-vcs, which read the version from git: a checkout of the commit (no ``.git``)
    needs it given (``[source] version``, docs/tasks.md)."""
    try:
        system = (read_toml(root, "pyproject.toml") or {}).get("build-system", {})
    except (ValueError, AttributeError):
        return None
    requires = system.get("requires", []) if isinstance(system, dict) else []

    scm = any(isinstance(r, str) and SCM_BUILDS.match(r.strip()) for r in requires)
    if scm and VERSION.fullmatch(version):
        return version
    return None


def declared_groups(project: dict) -> list[str]:
    """Requirements of the test group a pyproject declares, wherever the project's tool puts
    it: ``[project.optional-dependencies]``, PEP 735 ``[dependency-groups]`` (uv, PDM) or
    Poetry's ``[tool.poetry.group.<name>.dependencies]`` / ``[tool.poetry.dev-dependencies]``.
    Of each table, the first of TEST_EXTRAS it has ("dev" only when there is no test group).
    Poetry's constraints (``^4.3``) are not PEP 440: its names are taken without a version.
    """
    poetry = project.get("tool", {}).get("poetry", {})
    groups = {
        g: d.get("dependencies") if isinstance(d, dict) else None
        for g, d in poetry.get("group", {}).items()
    }
    # Poetry 1.2+ reads both the old dev table and the dev group (mimicker declares both)
    old, new = poetry.get("dev-dependencies"), groups.get("dev")
    groups["dev"] = {
        **(old if isinstance(old, dict) else {}),
        **(new if isinstance(new, dict) else {}),
    }
    tables = (
        project.get("project", {}).get("optional-dependencies", {}),
        project.get("dependency-groups", {}),
        {g: list(d) for g, d in groups.items() if isinstance(d, dict)},  # Poetry: name -> spec
    )
    texts: list[str] = []
    for table in tables:
        name = next((n for n in TEST_EXTRAS if n in table), None)
        # strings only: a PEP 735 {include-group = ...} entry names a group, not a package
        group = table.get(name) if isinstance(table, dict) else None
        if isinstance(group, list):  # a string here would be iterated as its letters
            texts += [t for t in group if isinstance(t, str) and t != "python"]
    return texts


def _reference(entry: dict, files: list[str], offline: bool, report: ProjectReport) -> dict:
    """The ``[source]`` table: the sdist when it holds the tests, else the pinned commit."""

    info = entry.get("pypi_info") or {}
    name, version = info.get("name"), info.get("version")
    commit, url = entry.get("commit_sha"), entry.get("url")
    commit = commit.strip() if isinstance(commit, str) else ""
    why = "no PyPI release in the dataset"
    if isinstance(name, str) and isinstance(version, str) and not offline:
        try:
            found = sdist_of(name, version)
            sha = found["hashes"]["sha256"]
            root = fetch_sdist(f"{name}=={version}", sha)
            missing = [f for f in files if not (root / f).is_file()]
            # what the release declares holds for the commit it was built from, tests or not
            report.python = python_of(root)
            report.test_requires = declared_test_requirements(root)
            # what its tests ran with: the newest releases before the sdist's upload
            uploaded = _created({"created_at": found.get("upload-time")}, None)
            add_undeclared(root, files, report, uploaded or _created(entry, None))
            report.scm_version = scm_version(root, version)
            if not missing:
                report.reference = "sdist"
                return {"pypi": f"{name}=={version}", "sha256": sha}
            why = f"the sdist {name}=={version} ships no {missing[0]}"
        except (SourceError, KeyError, TypeError) as exc:
            why = f"the sdist {name}=={version} could not be used ({exc})"
    elif offline:
        why = "--offline: the sdist was not checked"
    if not re.fullmatch(r"[0-9a-f]{40}", commit) or not isinstance(url, str):
        raise ValueError(f"{why}, and the dataset pins no commit (commit_sha, url)")
    report.reference = "commit"
    report.notes.append(
        f"{why}: the reference is commit {commit[:12]} of {url} (fetched when the task is "
        "loaded; needs the git host)"
    )
    if report.scm_version:
        report.notes.append(
            f"builds its version from git: the checkout is given version {report.scm_version}"
        )
        return {"git": url, "commit": commit, "version": report.scm_version}
    return {"git": url, "commit": commit}


def add_undeclared(root: Path, files: list[str], report: ProjectReport, before) -> None:
    """Add to the test requirements what the release's tests import and nobody declares
    (emptylog's loguru and full_match): without them every test fails on the reference."""
    declared = [*declared_names(root), *report.test_requires, *(p for _, p in PLUGINS)]
    names = [_bare(t) for t in declared]
    found = testimports.undeclared(root, files, names, before)
    if found:
        report.test_requires += found
        report.notes.append(
            f"its tests import what the release does not declare: {', '.join(found)} "
            "(the newest release before it), installed for its tests ([tests] requires)"
        )


def import_project(entry: dict, out: Path, created: dt.date, offline: bool) -> ProjectReport:
    """Write the task of one dataset entry under ``out``; what happened, as a report."""
    name = str(entry.get("repo_name") or entry.get("idx") or "project")
    report = ProjectReport(project=name)
    try:
        cases, srs, files, tests_path = _entry_parts(entry)
        sections, mapping = _requirements(entry, cases, tests_path, report)
        code = "\n".join(str(c.get("test_implementation", "")) for c in cases.values() if c)
        plugins = [plugin for pattern, plugin in PLUGINS if pattern.search(code)]
        source = _reference(entry, [*files, *_support_files(entry)], offline, report)
    except ValueError as exc:
        report.error = str(exc)
        return report
    task = task_id(name)
    root = fresh_folder(out, task)
    root.mkdir(parents=True)
    (root / "requirements.md").write_text(
        srs.rstrip() + "\n\n## Requirements\n\n" + "\n".join(sections), encoding="utf-8"
    )
    tests = {
        "path": tests_path,
        "timeout": 60,
        # E2EDevBench runs the suite from the repository root, and suites write there
        # (sagkit's test_jobs.txt): a writable copy of the project, not the suite folder
        "cwd": "project",
        # and with the repository root on PYTHONPATH: cstructpy's tests import src.cstructpy
        "rootdir_on_path": True,
        # tests that build paths from their own file (sagkit's dirname(__file__)/../../x)
        # find the repository root above them, and write there
        **({"rootdir_writable": True} if "__file__" in code else {}),
        "plugins": plugins_of(plugins, report.test_requires),
        "requires": non_plugins(report.test_requires),
        **({"python": report.python} if report.python else {}),
        "requirements": dict(mapping),
    }
    title = str(entry.get("description") or name)[:120]
    meta = {"id": task, "title": title, "kind": "library", "language": "python"}
    write_task_toml(root, {**meta, "created": created, "source": source, "tests": tests})
    report.task, report.requirements = task, len(sections)
    _add_notes(report, plugins)
    if "__file__" in code:
        report.notes.append(
            "its tests build paths from their own file: they run in tests/ of the run's "
            "writable copy of the project ([tests] rootdir_writable)"
        )
    return report


def _entry_parts(entry: dict) -> tuple[dict, str, list[str], str]:
    """The entry's test cases, SRS, test modules and the folder holding them; ValueError
    when the entry cannot become a task."""
    cases = entry.get("test_cases") or {}
    srs = entry.get("SRS_document")
    if not isinstance(cases, dict) or not cases:
        raise ValueError("no test_cases in the dataset")
    if not isinstance(srs, str) or not srs.strip():
        raise ValueError("no SRS_document in the dataset")
    files = sorted({_test_id(k).split("::", 1)[0] for k in cases})
    # the folder holding every test module
    common = Path(os.path.commonpath([str(Path(f).parent) for f in files])).parts
    tests_path = "/".join(common) or "."
    if tests_path == ".":
        raise ValueError("the tests are not in a folder of their own (test modules at the root)")
    return cases, srs, files, tests_path


def _support_files(entry: dict) -> list[str]:
    """What the suite needs besides its modules: conftest.py and the like in its folders."""
    return [
        str(item.get("file"))
        for item in entry.get("structure") or []
        if isinstance(item, dict)
        and isinstance(item.get("file"), str)
        and Path(item["file"]).name == "conftest.py"
    ]


def _requirements(entry: dict, cases: dict, tests_path: str, report: ProjectReport):
    """The ``### R<n>`` sections of requirements.md and their tests (``[tests.requirements]``):
    one per structured requirement that traces to a test, and the whole suite last."""

    def local(nodeid: str) -> str:  # the harness names the tests folder tests/
        return f"tests/{nodeid[len(tests_path) + 1 :]}"

    structured = entry.get("structured_requirements") or []
    known = {_test_id(k) for k in cases}
    sections, mapping = [], {}
    for req in structured if isinstance(structured, list) else []:
        if not isinstance(req, dict):
            continue
        traced = [
            _test_id(t["id"])
            for t in req.get("test_traceability") or []
            if isinstance(t, dict) and isinstance(t.get("id"), str) and _test_id(t["id"]) in known
        ]
        if not traced:
            continue
        rid = f"R{len(sections) + 1}"
        text = " ".join(str(req.get("requirement_description", "")).split())
        title = f"{req.get('requirement_id', rid)}: {text[:80]}".strip()
        sections.append(f"### {rid}: {title}\n\n{text}\n")
        mapping[rid] = sorted({local(t) for t in traced})
    untraced = len(structured) - len(sections) if isinstance(structured, list) else 0
    if untraced:
        report.notes.append(f"{untraced} structured requirements name no test: left out")
    whole = f"R{len(sections) + 1}"
    sections.append(
        f"### {whole}: The reference test suite\n\nEvery test of the project's own suite passes.\n"
    )
    mapping[whole] = ["tests/*"]
    return sections, mapping


def _add_notes(report: ProjectReport, plugins: list[str]) -> None:
    if plugins:
        report.notes.append(f"pytest plugins the tests use: {', '.join(plugins)}")
    if report.test_requires:
        report.notes.append(f"test dependencies it declares: {', '.join(report.test_requires)}")
    if report.python:
        report.notes.append(f"requires Python {report.python} (the harness runs {sys.version[:4]})")


def _bare(text: str) -> str:
    """A requirement's name as written, without its version, extras or marker."""
    return re.split(r"[<>=!~\[; ]", text, maxsplit=1)[0]


def _is_plugin(text: str) -> bool:
    return _bare(text).lower().startswith(("pytest-", "pytest_"))


def plugins_of(found: list[str], declared: list[str]) -> list[str]:
    """pytest plugins: those the tests' code uses, and those the project declares for tests."""
    names = {_bare(t).lower().replace("_", "-") for t in declared}
    # by name only: a plugin pinned for an older pytest would not install beside the harness's
    bare = [_bare(t) for t in declared if _is_plugin(t)]
    return [*(p for p in found if p not in names), *bare]


def non_plugins(declared: list[str]) -> list[str]:
    return [t for t in declared if not _is_plugin(t)]


def _created(entry: dict, default: dt.date) -> dt.date:
    try:
        return dt.date.fromisoformat(str(entry.get("created_at", ""))[:10])
    except ValueError:
        return default


def import_all(src: Path, out: Path, created: dt.date, offline: bool = False) -> list:
    """Import every project of the dataset ``src`` (one ``datasets/*.json`` file, or the
    ``datasets`` folder: every ``*.json`` in it); also written to import-report.json."""
    files = sorted(src.glob("*.json")) if src.is_dir() else [src]
    if not files:
        raise ValueError(f"{src}: no datasets/*.json file of E2EDevBench in this folder")
    out.mkdir(parents=True, exist_ok=True)
    reports = []
    for path in files:
        data = read_json(path.parent, path.name, max_bytes=MAX_DATASET_BYTES)
        if not isinstance(data, list):
            raise ValueError(f"{path}: not a list of projects (an E2EDevBench datasets/*.json)")
        reports += [
            import_project(e, out, _created(e, created), offline)
            for e in data
            if isinstance(e, dict)
        ]
    write_report(out, reports)
    return reports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import e2edevbench``."""
    shared_arguments(
        parser,
        "an E2EDevBench dataset file (datasets/pypi-*-dataset-final.json) or that folder",
        None,
        "release date when a project has no created_at (default: today)",
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="do not download sdists to check them: every reference is the pinned commit",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what happened; exit status 1 when nothing could be imported."""
    try:
        reports = import_all(args.src, args.out, args.created, args.offline)
    except (OSError, ValueError) as exc:
        print(f"e2ebench: {exc}", file=sys.stderr)
        return 1
    for r in reports:
        if r.error:
            print(f"NOT IMPORTED {r.project}: {r.error}")
            continue
        print(f"{r.task}: imported ({r.requirements} requirements, reference: {r.reference})")
        for note in r.notes:
            print(f"  note: {note}")
    print(f"report: {args.out / 'import-report.json'}")
    return 0 if any(not r.error for r in reports) else 1
