"""Load and validate a benchmark task folder (see docs/writing-a-task.md).

Every problem names the file, the field and the fix; all problems of a task are reported
together in one :class:`~pytest_e2ebench.errors.TaskError`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
import shutil
import tomllib
from pathlib import Path

from ..environment.web import ENTRY_PAGE
from ..environment.workspace import code_size, suffixes_for
from ..errors import E2EBenchError, TaskError
from ..run.cache import file_hash, tree_hash
from ..stash import Slots
from .features import scan_features
from .mutants import Mutant, parse_mutants
from .reference import REFERENCE_DIR, RemoteReference, describe_reference
from .sections import (
    SectionSource,
    parse_sections,
    refetched,
    section_kinds,
    sections,
    string_lists,
)
from .testconf import TestSettings, parse_settings
from .testindex import Naming, StaticTest, apply_mapping, scan_tests

KINDS = ("library", "cli", "data", "web", "app")
TASK_FILE = "task.toml"
REQUIREMENTS_FILE = "requirements.md"
MATERIALS_DIR = "materials"  # supplementary materials handed to the agent (app tasks)
FEATURE_PREFIX = "F"  # an app task's requirements are features: F1, F2, ...
DEFAULT_TEST_TIMEOUT = 30.0
CHECKS_DIR = "checks"  # a task's own checks (checks/test_*.py, run with the harness's fixtures)

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HEADING = r"^###\s+(?P<id>{p}\d+)\s*:\s*(?P<title>\S.*?)\s*$"
_LOOSE_HEADING = r"^###\s+{p}\d+\b"
_TAGS = re.compile(r"^tags\s*:\s*(?P<tags>.*)$", re.IGNORECASE)
_TAG = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class Requirement:
    """One ``### R<n>: Title`` section of requirements.md."""

    id: str
    title: str
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Task:
    """A validated benchmark task."""

    id: str
    title: str
    kind: str
    language: str
    created: dt.date
    source: str
    root: Path
    requirements: tuple[Requirement, ...]
    tests: tuple[StaticTest, ...]
    tests_dir: Path | None  # a folder of tests, or a single test module
    test_timeout: float
    reference_dir: Path | None  # None: an app task without a reference app
    source_pin: str | None = None  # "name==version" for a PyPI-sourced reference
    # [source]: a reference fetched by the run (fetch_reference); until then reference_dir,
    # tests_dir and the tests are None and empty
    remote: RemoteReference | None = None
    test_requires: tuple[str, ...] = ()
    mutants: tuple[Mutant, ...] = ()
    network: bool = False  # web tasks: the app may load resources from the internet (a CDN)
    # [tests.requirements]: requirement id -> node-id globs (for tests only a run reveals)
    requirement_map: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the task's own checks (checks/test_*.py, run with the harness's fixtures: issue #13.1)
    checks: tuple[StaticTest, ...] = ()
    # how the reference tests run: cwd, data, env, plugins, pytest settings, exclusions
    settings: TestSettings = TestSettings()
    excluded: tuple[tuple[str, str], ...] = ()  # (node id, reason): tests not run nor graded
    browser: bool = False  # [tests] browser: the pytest tests drive Chromium themselves
    # the methods' data, one slot per task section (taskmodel.sections): the apps' launch
    # contract under "app", ProjectEval's table, level and mode under "projecteval", ...
    slots: Slots = Slots()

    @property
    def materials_dir(self) -> Path | None:
        """Supplementary materials (images, CSV, PDF, data) handed to the agent."""
        found = self.root / MATERIALS_DIR
        return found if found.is_dir() and not found.is_symlink() else None

    @property
    def requirements_file(self) -> Path:
        """requirements.md: the only file an agent may see."""
        return self.root / REQUIREMENTS_FILE

    @property
    def requirements_text(self) -> str:
        """The requirements document, as given to agents (at its level, for ProjectEval)."""
        text = self.requirements_file.read_text(encoding="utf-8")
        for section in sections():  # a method's own document (ProjectEval's levels)
            if section.brief is not None and section.name in self.slots:
                text = section.brief(self, text)
        return text

    def tests_for(self, requirement_id: str) -> list[StaticTest]:
        """The reference tests tagged with ``requirement_id``."""
        return [t for t in self.tests if requirement_id in t.requirements]

    @functools.cached_property
    def tests_hash(self) -> str:
        """Content hash of the reference tests (part of the test-run cache key)."""
        if self.tests_dir is None:  # a fetched reference's, not fetched yet
            return ""
        if self.tests_dir.is_dir():
            return tree_hash(self.tests_dir)
        return file_hash(self.tests_dir) if self.tests_dir.exists() else ""

    @functools.cached_property
    def reference_hash(self) -> str:
        """Content hash of the reference implementation (oracle output, migration key)."""
        return tree_hash(self.reference_dir) if self.reference_dir is not None else ""

    def copy_tests(self, dest: Path) -> Path:
        """Copy the reference tests (a folder, or one module) into the new folder ``dest``."""
        if self.tests_dir.is_dir():
            shutil.copytree(self.tests_dir, dest, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dest.mkdir(parents=True)
            shutil.copy2(self.tests_dir, dest / self.tests_dir.name)
        return dest

    @functools.cached_property
    def size(self) -> dict[str, int]:
        """Size figures: requirements, tests, and the reference's code files and lines.

        Code is counted as for generated projects (tests, conftest.py and setup.py excluded),
        so the figures of written and PyPI-sourced references compare.
        """
        code = (
            code_size(self.reference_dir, suffixes_for(self.kind))
            if self.reference_dir is not None
            else {"code_files": 0, "code_lines": 0}
        )
        return {
            "requirements": len(self.requirements),
            "tests": sum(t.cases for t in self.tests),
            "reference_files": code["code_files"],
            "reference_lines": code["code_lines"],
        }


def parse_requirements(
    text: str, where: str, problems: list[str], prefix: str = "R"
) -> list[Requirement]:
    """Requirement headings (``### R1: ...``; app tasks' features ``### F1: ...``) and tags."""
    reqs: list[Requirement] = []
    lines = text.splitlines()
    heading = re.compile(_HEADING.format(p=prefix))
    loose = re.compile(_LOOSE_HEADING.format(p=prefix))
    for number, line in enumerate(lines, start=1):
        match = heading.match(line)
        if not match:
            if loose.match(line):
                problems.append(
                    f"{where}:{number}: {line.strip()!r} is not a "
                    f"{'feature' if prefix != 'R' else 'requirement'} heading; "
                    f"write '### {prefix}<n>: <title>'"
                )
            continue
        tags: tuple[str, ...] = ()
        for following in lines[number:]:
            if not following.strip():
                continue
            tag_match = _TAGS.match(following.strip())
            if tag_match:
                tags = tuple(t.strip() for t in tag_match["tags"].split(",") if t.strip())
                bad = [t for t in tags if not _TAG.match(t)]
                if bad:
                    problems.append(
                        f"{where}:{number}: tags {bad} of {match['id']} are not marker names; "
                        "use lower-case identifiers like 'core' or 'error_handling'"
                    )
                    tags = tuple(t for t in tags if t not in bad)
            break
        reqs.append(Requirement(match["id"], match["title"], tags))
    seen: set[str] = set()
    for req in reqs:
        if req.id in seen:
            problems.append(f"{where}: requirement {req.id} is defined twice; renumber one of them")
        seen.add(req.id)
    if not reqs and not any(p.startswith(where) for p in problems):
        problems.append(
            f"{where}: no {'requirements' if prefix == 'R' else 'features'} found; add sections "
            f"headed '### {prefix}1: <title>', '### {prefix}2: <title>', ..."
        )
    return reqs


def _field(meta: dict, name: str, kind: type, where: str, problems: list[str], fix: str):
    if name not in meta:
        problems.append(f"{where}: field '{name}' is missing; add {fix}")
        return None
    value = meta[name]
    if not isinstance(value, kind):
        problems.append(
            f"{where}: field '{name}' = {value!r} has the wrong type "
            f"({type(value).__name__}); write {fix}"
        )
        return None
    return value


def load_task(root: Path) -> Task:
    """Read and validate the task folder ``root``; raise :class:`TaskError` listing problems.

    Read task.toml, validate its header and ``[tests]``, read the requirements, resolve the
    reference's description, scan the tests, then cross-check tests, requirements and checks.
    Pure: no network, no download. A fetched reference (``[source]``: a PyPI sdist or a git
    commit) is only described here; its files, and what is checked against them (its tests,
    their tags, ``tests.exclude``, the mutants' edits), come with :func:`fetch_reference`, a
    stage of the run (issue 28.6).
    """
    root = root.resolve()
    name = root.name
    where = f"{name}/{TASK_FILE}"
    problems: list[str] = []
    meta = _read_meta(root, where)
    head = _header(meta, name, where, problems)
    kind = head["kind"]
    conf = _test_conf(meta, where, problems)
    requirements = _read_requirements(root, kind, problems)
    raw_source = meta.get("source", "")
    reference, remote = describe_reference(
        root, raw_source if isinstance(raw_source, dict) else None, problems, optional=kind == "app"
    )
    if remote is not None and not head["source"]:
        head["source"] = remote.label
    files = _with_files(root, meta, kind, conf, requirements, reference, remote, problems)
    if problems:
        raise TaskError(str(root), problems)
    return Task(
        **head,
        root=root,
        requirements=tuple(requirements),
        test_timeout=float(conf["timeout"]),
        source_pin=remote.pin if remote is not None else None,
        remote=remote,
        test_requires=tuple(conf["requires"]),
        network=conf["network"],
        requirement_map=tuple((rid, tuple(globs)) for rid, globs in conf["mapping"].items()),
        browser=conf["browser"],
        **files,
    )


def _with_files(root: Path, meta, kind, conf, requirements, reference, remote, problems) -> dict:
    """The Task's fields read from the reference's files (its tests, their settings, the
    mutants, the methods' tables) and the task's checks, cross-checked: the reference is
    ``reference/``, a fetched one, or None (not fetched yet, or none: then only what needs no
    file of it is checked)."""
    name = root.name
    where = f"{name}/{TASK_FILE}"
    pinned = remote is not None
    settings = parse_settings(conf["raw"], root, reference, pinned, where, problems)
    tests_base = reference if pinned else root
    tests_dir = (tests_base / str(conf["path"])).resolve() if tests_base is not None else None
    found = parse_sections(SectionSource(root, meta, kind, reference, problems))
    app = found.get("app")
    tests, excluded = [], []
    owner = section_kinds().get(kind)
    if owner is not None and owner.tests is not None:  # a kind whose section lists its tests
        tests = owner.tests(found.get(owner.name)) or []
    elif tests_dir is not None and app is None:  # an app task has no tests: an LLM writes cases
        tests, excluded = _reference_tests(tests_dir, kind, conf, settings, pinned, name, problems)
    _check_mapping(where, conf["mapping"], requirements, problems)
    _check_tags(name, kind, requirements, tests, problems)
    known = {r.id for r in requirements}
    checks = _checks(root, name, known if requirements else None, problems)
    _tested(name, kind, requirements, tests, checks, problems)
    _entry_pages(name, kind, app, reference, problems)
    mutants = parse_mutants(root, reference, known, problems) if reference else []
    return {
        "reference_dir": reference,
        "tests_dir": tests_dir,
        "tests": tuple(tests),
        "excluded": tuple(excluded),
        "settings": settings,
        "mutants": tuple(mutants),
        "checks": tuple(checks),
        "slots": Slots(found),
    }


def fetch_reference(task: Task, *, download: bool = True) -> Task:
    """``task`` with its fetched reference (``[source]``) at hand: the files downloaded (once,
    into the cache) and the reference's tests scanned and cross-checked. The first stage of a
    run, and of the tools that read the reference; ``task`` itself when it has its own
    ``reference/`` or was fetched already. ``download=False``: only if it is fetched already
    (by this process, or in the cache on disk: no network), else ``task`` as it is.

    Raises InfrastructureError when the index or git host does not answer, TaskError when the
    download does not match the pin or its tests do not match task.toml.
    """
    if task.remote is None or task.reference_dir is not None:
        return task
    files = _FETCHED.get(task.remote)
    if files is None and download:
        files = _FETCHED[task.remote] = _fetched_files(task.remote)
    elif files is None and task.remote.cached() is not None:
        try:
            files = _FETCHED[task.remote] = _fetched_files(task.remote)
        except E2EBenchError:  # a run that fetches it says what is wrong
            files = None
    if files is None:
        return task
    slots = Slots(refetched(task.slots, files["slots"]))  # the session's level stays
    return dataclasses.replace(task, **{**files, "slots": slots})


# a fetched reference's Task fields, once per process (the files are cached on disk)
_FETCHED: dict[RemoteReference, dict] = {}


def _fetched_files(remote: RemoteReference) -> dict:
    """The fields of :func:`_with_files` from the fetched reference."""
    reference = remote.fetch()
    root, problems = remote.root, []
    meta = _read_meta(root, remote.where)
    conf = _test_conf(meta, remote.where, problems)
    kind = meta.get("kind")  # valid: the task loaded
    requirements = _read_requirements(root, kind, problems)
    files = _with_files(root, meta, kind, conf, requirements, reference, remote, problems)
    if problems:
        raise TaskError(str(root), problems)
    return files


def _reference_tests(tests_dir: Path, kind, conf, settings, pinned, name, problems) -> tuple:
    """The reference tests scanned statically, and those excluded by ``tests.exclude``."""
    if not tests_dir.exists():
        problems.append(
            f"{name}/{TASK_FILE}: field 'tests.path' = {conf['path']!r}: no such folder"
            f"{' in the sdist' if pinned else ''}; create it with the reference tests"
        )
        return [], []
    return _scan(tests_dir, kind, conf, settings, name, f"{name}/{TASK_FILE}", problems)


def _read_meta(root: Path, where: str) -> dict:
    """task.toml as a table; a missing or unparsable file ends the validation at once."""
    try:
        return tomllib.loads((root / TASK_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        problem = f"{where}: missing; create it (see docs/writing-a-task.md)"
        raise TaskError(str(root), [problem]) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(str(root), [f"{where}: not valid TOML ({exc}); fix the syntax"]) from None


def _header(meta: dict, name: str, where: str, problems: list[str]) -> dict:
    """The task's id, title, kind, language, created date and source, validated."""
    task_id = _field(meta, "id", str, where, problems, f'id = "{name}"')
    if task_id is not None and task_id != name:
        problems.append(
            f"{where}: field 'id' = {task_id!r} differs from the folder name; "
            f'write id = "{name}" or rename the folder'
        )
    elif task_id is not None and not _ID.match(task_id):
        problems.append(
            f"{where}: field 'id' = {task_id!r} must match [a-z0-9][a-z0-9_-]*; rename the task"
        )
    title = _field(meta, "title", str, where, problems, 'title = "<one line>"')
    kinds = (*KINDS, *section_kinds())
    kind = _field(
        meta, "kind", str, where, problems, f'kind = "library" (one of {", ".join(kinds)})'
    )
    if kind is not None and kind not in kinds:
        problems.append(
            f"{where}: field 'kind' = {kind!r} is not a task kind; use one of {', '.join(kinds)}"
        )
    # A web app is HTML/CSS/JS; an app may be anything its launch contract starts; a kind a
    # section adds checks its language itself; every other kind is a Python project.
    expected_language = "javascript" if kind in ("web", "app") else "python"
    language = meta.get("language", expected_language)
    if kind in kinds[len(KINDS) :]:
        pass  # the section's parse checks it
    elif kind == "app" and not isinstance(language, str):
        problems.append(f"{where}: field 'language' = {language!r} must be a string")
    elif kind != "app" and language != expected_language:
        problems.append(
            f"{where}: field 'language' = {language!r}: a {kind or 'library'} task is written in "
            f'{expected_language}; write language = "{expected_language}"'
        )
    created = _field(
        meta,
        "created",
        dt.date,
        where,
        problems,
        "created = 2026-01-31 (a TOML date, the reference's release date)",
    )
    if isinstance(created, dt.datetime):
        created = created.date()
    # 'source' is either where the task comes from (a string) or a PyPI reference (a table).
    raw_source = meta.get("source", "")
    source = raw_source if isinstance(raw_source, str) else ""
    return {
        "id": task_id,
        "title": title,
        "kind": kind,
        "language": language,
        "created": created,
        "source": source,
    }


def _test_conf(meta: dict, where: str, problems: list[str]) -> dict:
    """The ``[tests]`` table's path, timeout, requirement map, network, browser and requires,
    validated (a wrong value is reported and replaced by its default)."""
    test_conf = meta.get("tests", {})
    if not isinstance(test_conf, dict):
        problems.append(f"{where}: field 'tests' must be a table ([tests] with path, timeout)")
        test_conf = {}
    timeout = test_conf.get("timeout", DEFAULT_TEST_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        problems.append(
            f"{where}: field 'tests.timeout' = {timeout!r} must be a positive number of seconds"
        )
        timeout = DEFAULT_TEST_TIMEOUT
    mapping = test_conf.get("requirements", {})
    if not string_lists(mapping):
        problems.append(
            f"{where}: field 'tests.requirements' must map requirement ids to lists "
            'of node-id globs, e.g. R1 = ["tests/test_x.py::test_a*"]'
        )
        mapping = {}
    flags = {}
    for flag, what in (
        (
            "network",
            "whether a web app may load resources from the internet while its scenarios run",
        ),
        ("browser", "whether the tests drive headless Chromium themselves, through selenium"),
    ):
        value = test_conf.get(flag, False)
        if not isinstance(value, bool):
            problems.append(
                f"{where}: field 'tests.{flag}' = {value!r} must be true or false ({what})"
            )
            value = False
        flags[flag] = value
    requires = test_conf.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        problems.append(
            f"{where}: field 'tests.requires' must be a list of requirement strings, "
            'e.g. requires = ["hypothesis==6.100.0"]'
        )
        requires = []
    return {
        "raw": test_conf,
        "path": test_conf.get("path", "tests"),
        "timeout": timeout,
        "mapping": mapping,
        "requires": requires,
        **flags,
    }


def _read_requirements(root: Path, kind: str | None, problems: list[str]) -> list:
    """The requirements document's requirements (an app's are features, F<n>)."""
    req_where = f"{root.name}/{REQUIREMENTS_FILE}"
    try:
        return parse_requirements(
            (root / REQUIREMENTS_FILE).read_text(encoding="utf-8"),
            req_where,
            problems,
            FEATURE_PREFIX if kind == "app" else "R",
        )
    except FileNotFoundError:
        problems.append(f"{req_where}: missing; write the requirements document the agent sees")
        return []


def _scan(tests_dir: Path, kind, conf: dict, settings, name: str, where: str, problems):
    """The reference tests (scenarios for a web task) with their requirements mapped, and
    those the task's ``tests.exclude`` drops, with the reasons."""
    tests_path = conf["path"]
    if kind == "web":
        tests, scan_problems = scan_features(tests_dir)
    else:  # by the suite's own naming rules (python_files, ...), as pytest will collect
        naming = Naming.from_ini(dict(settings.ini))
        tests, scan_problems = scan_tests(tests_dir, naming=naming)
    problems.extend(f"{name}/{tests_path}/{p.split('/', 1)[1]}" for p in scan_problems)
    tests = apply_mapping(tests, conf["mapping"])
    excluded = [(t.nodeid, settings.excluded(t.nodeid)) for t in tests]
    excluded = [(nodeid, reason) for nodeid, reason in excluded if reason]
    for pattern, _ in settings.exclude:
        if not TestSettings(exclude=((pattern, "-"),)).excluded_any(tests):
            problems.append(
                f"{where}: field 'tests.exclude' names {pattern!r}, which matches no test; "
                "fix the node-id glob (relative to the task folder) or remove it"
            )
    dropped = {nodeid for nodeid, _ in excluded}
    tests = [t for t in tests if t.nodeid not in dropped]
    if not tests and not scan_problems:
        problems.append(
            f"{name}/{tests_path}: no scenarios found in *.feature files"
            if kind == "web"
            else f"{name}/{tests_path}: no test functions found in test_*.py files"
        )
    return tests, excluded


def _check_mapping(where: str, mapping: dict, requirements, problems) -> None:
    """Every requirement ``tests.requirements`` maps exists."""
    known = {r.id for r in requirements}
    for rid in mapping:
        if rid not in known and requirements:
            problems.append(
                f"{where}: tests.requirements names {rid}, which is not in "
                f"{REQUIREMENTS_FILE}; fix the key or add '### {rid}: <title>'"
            )


def _check_tags(name: str, kind, requirements, tests, problems) -> None:
    """Every test has a requirement, and every requirement it names exists."""
    known = {r.id for r in requirements}
    for test in tests:
        if not test.requirements:
            problems.append(
                f"{name}/{test.nodeid} (line {test.line}): no requirement tag; add "
                + (
                    "a tag like @R1 on the line above 'Scenario:' (or on the Feature)"
                    if kind == "web"
                    else '@pytest.mark.requirement("R<n>")'
                )
                + " or map it in task.toml [tests.requirements]"
            )
        for rid in test.requirements:
            if rid not in known and requirements:
                problems.append(
                    f"{name}/{test.nodeid} (line {test.line}): tagged with requirement {rid!r}, "
                    f"which is not in {REQUIREMENTS_FILE} (known: {_span(requirements)}); fix the "
                    f"marker or add '### {rid}: <title>'"
                )


def _tested(name: str, kind, requirements, tests, checks, problems) -> None:
    """Every requirement has a test or a check (when the task has tests at all)."""
    if not tests:
        return
    for req in requirements:
        if not any(req.id in t.requirements for t in (*tests, *checks)):
            problems.append(
                f"{name}/{REQUIREMENTS_FILE}: requirement {req.id} has no test; tag at least one "
                + (
                    f"scenario with @{req.id}"
                    if kind == "web"
                    else f'test with @pytest.mark.requirement("{req.id}")'
                )
            )


def _entry_pages(name: str, kind, app, reference: Path | None, problems) -> None:
    """A web task's reference starts at index.html; a static app's at its entry page."""
    if kind == "web" and reference is not None and not (reference / ENTRY_PAGE).is_file():
        problems.append(
            f"{name}/{REFERENCE_DIR}/{ENTRY_PAGE}: missing; a web task's reference app "
            "starts at index.html"
        )
    if app is not None and app.launch == "static" and reference is not None:
        entry = app.entry or ENTRY_PAGE
        if not (reference / entry).is_file():
            problems.append(
                f"{name}/{REFERENCE_DIR}/{entry}: missing; a static app's reference starts at "
                "its entry page (app.entry, default index.html)"
            )


def scan_checks(root: Path) -> tuple[list[StaticTest], list[str]]:
    """The checks under ``<task>/checks/`` with their requirement tags, plus problems.

    Read statically when the task is loaded (the checks run in :mod:`.checks`)."""
    folder = root / CHECKS_DIR
    if not folder.is_dir():
        return [], []
    return scan_tests(folder, label=CHECKS_DIR)


def _checks(root: Path, name: str, known: set[str] | None, problems: list[str]) -> list:
    """The task's checks (``checks/test_*.py``), each tagged with requirements it knows."""
    checks, scan_problems = scan_checks(root)
    problems.extend(f"{name}/{p}" for p in scan_problems)
    for check in checks:
        if not check.requirements:
            problems.append(
                f"{name}/{check.nodeid} (line {check.line}): no requirement tag; add "
                '@pytest.mark.requirement("R<n>") (a check counts toward the requirements it '
                f"names; see docs/plugins.md, {CHECKS_DIR}/)"
            )
        for rid in check.requirements:
            if known is not None and rid not in known:
                problems.append(
                    f"{name}/{check.nodeid} (line {check.line}): tagged with requirement "
                    f"{rid!r}, which is not in {REQUIREMENTS_FILE}; fix the marker or add "
                    f"'### {rid}: <title>'"
                )
    return checks


def _span(requirements: list[Requirement]) -> str:
    ids = [r.id for r in requirements]
    return ", ".join(ids) if len(ids) <= 6 else f"{ids[0]} … {ids[-1]}"


def stray_dirs(root: Path) -> list[Path]:
    """Folders right under ``root`` with no task.toml in or below them (not tasks at all).

    Hidden and private folders (``.git``, ``_drafts``, ``__pycache__``) are not reported.
    """
    return sorted(
        p
        for p in root.iterdir()
        if p.is_dir()
        and not p.is_symlink()
        and not p.name.startswith((".", "_"))
        and next(p.rglob(TASK_FILE), None) is None
    )


def find_task_dirs(root: Path) -> list[Path]:
    """Task folders (folders holding task.toml) under ``root``, sorted."""
    return sorted(p.parent for p in root.rglob(TASK_FILE) if "reference" not in p.parts)


def at_level(task: Task, settings) -> Task:
    """``task`` as the session's methods take it (``MethodSettings.session_task``: ProjectEval's
    level and mode, #17; other tasks unchanged)."""
    for method in settings.methods.values():
        task = method.session_task(task)
    return task
