"""Convert NL2Repo-Bench's tasks (``test_files/<name>/``) into library tasks.

NL2Repo-Bench (arXiv 2512.12730) gives an agent one long natural-language specification
(``start.md``) and an empty workspace, and grades the library it writes with the upstream
project's own pytest suite: ``test_files.json`` names the suite's paths, ``test_commands.json``
how it was run and ``test_case_count.txt`` how many test cases it has. The suite itself is not
in the dataset; it is the upstream project's. ``e2ebench import nl2repo SRC OUT`` reads the
user's copy (the ``test_files`` folder, or the repository holding it) and writes, per task:

* the reference: the project's PyPI sdist of the newest version (of at most
  :data:`MAX_VERSIONS`, newest first, and :data:`MAX_SDISTS` in all) whose suite, counted
  statically (``taskmodel.testindex``: functions times literal ``parametrize`` lists), has the
  dataset's count; else the closest within :data:`COUNT_TOLERANCE`, or the closest below it
  (a parameter list computed at collection counts 1 here), reported as not agreed; the gate
  then counts what pytest collects;
* ``requirements.md``: ``start.md`` verbatim, then one ``### R<n>`` per test module of that
  suite, naming the specification's sections about the module's subject;
* ``task.toml``: ``[source] pypi`` + ``sha256``, ``[tests] path`` (the sdist's
  ``test_files.json`` path), run from the project's root as NL2Repo runs it.

Every file of the dataset is peer data: read through ``untrusted`` (bounded, no link
followed); a task whose files are refused is that task's report entry, and the others go on.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import re
import shlex
import sys
from pathlib import Path

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename

from ...environment.requirements import parse_requirement
from ...environment.source import SourceError, fetch_sdist, index_files
from ...errors import AgentFileError
from ...isolation.intake import parse_python
from ...taskmodel.testindex import StaticTest, is_test_module, module_tests
from ...untrusted import parse
from ...untrusted.peer import beneath, relative_path, safe_id
from ...untrusted.peer import read_text as peer_text
from . import add_arguments as shared_arguments
from . import e2edevbench, fresh_folder, write_report, write_task_toml

MAX_SPEC_BYTES = 4 << 20  # start.md: the largest of the 104 is 393 KB (ydata-profiling)
MAX_SMALL_BYTES = 64 << 10  # test_case_count.txt, test_files.json, test_commands.json
MAX_NAMES = 4  # project names asked of the package index per task
MAX_VERSIONS = 6  # releases of one project tried, newest first
MAX_SDISTS = 10  # sdists downloaded per task, all names together
MAX_TEST_FILES = 2000  # test modules scanned in one release
COUNT_TOLERANCE = 0.1  # a closest count this near the dataset's is imported, marked not agreed
TITLE = re.compile(
    r"^#{1,4}\s*(?:Introduction and Goals of the\s+)?(?P<name>.+?)(?:\s+Project)?\s*$",
    re.IGNORECASE,
)
HEADING = re.compile(r"^(#{2,4})\s+(\S.*?)\s*#*\s*$")
REQUIREMENT_LIKE = re.compile(r"^(?=###\s+R[0-9])", re.MULTILINE)  # the loader reads these as ours
PIP_INSTALL = re.compile(r"^(?:python\s+-m\s+)?pip3?\s+install\s+(.*)$")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclasses.dataclass
class TaskReport:
    """What happened to one NL2Repo task."""

    name: str
    task: str | None = None
    error: str | None = None
    pypi: str = ""  # the chosen release, name==version
    sha256: str = ""
    expected: int | None = None  # the dataset's test_case_count
    found: int | None = None  # the chosen release's count (static)
    agreed: bool = False
    tried: list[str] = dataclasses.field(default_factory=list)  # "pin: what was found"
    requirements: int = 0
    python: str | None = None
    test_requires: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Peer:
    """One task folder of the dataset, read through the boundary."""

    name: str
    spec: str
    count: int
    paths: tuple[str, ...]
    commands: tuple[str, ...]


@dataclasses.dataclass
class Release:
    """A release tried as the reference: its unpacked sdist, tests path and tests."""

    pin: str
    sha256: str
    root: Path
    path: str
    tests: list[StaticTest]
    uploaded: dt.date | None

    @property
    def count(self) -> int:
        return sum(t.cases for t in self.tests)


def task_id(name: str) -> str:
    """A task id from a task folder's name: lower case, ``[a-z0-9_-]``."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return f"nl2repo-{slug or 'task'}"


def read_peer(root: Path, name: str) -> Peer:
    """The files of the task folder ``root/name``; AgentFileError for anything refused."""
    safe_id(name, "task folder")
    folder = beneath(root, name, name)
    spec = peer_text(folder, "start.md", MAX_SPEC_BYTES)
    if not spec or not spec.strip():
        raise AgentFileError(f"{name}/start.md", "is missing or empty (the task's specification)")
    raw = (peer_text(folder, "test_case_count.txt", MAX_SMALL_BYTES) or "").strip()
    if not raw.isdigit() or int(raw) < 1:
        raise AgentFileError(f"{name}/test_case_count.txt", f"{raw[:40]!r} is not a count")
    where = f"{name}/test_files.json"
    listed = parse.read_json(folder, "test_files.json", max_bytes=MAX_SMALL_BYTES, where=where)
    if not isinstance(listed, list) or not listed:
        raise AgentFileError(where, "is not a list of test paths")
    paths = tuple(str(relative_path(p, where)) for p in listed)
    where = f"{name}/test_commands.json"
    commands = parse.read_json(folder, "test_commands.json", max_bytes=MAX_SMALL_BYTES, where=where)
    if commands is not None and not (
        isinstance(commands, list) and all(isinstance(c, str) for c in commands)
    ):
        raise AgentFileError(where, "is not a list of commands")
    return Peer(name, spec, int(raw), paths, tuple(commands or ()))


def project_names(peer: Peer) -> list[str]:
    """Names to ask the package index for, most likely first: the specification's title
    ("Introduction and Goals of the Jinja2 Project"), then the folder's name and its variants
    (``python-`` added or removed, a ``-master``/``-stable`` suffix removed)."""
    names: list[str] = []
    first = next((ln for ln in peer.spec.splitlines() if ln.strip()), "")
    match = TITLE.match(first.strip())
    if match and first.lstrip().startswith("#"):
        title = match["name"].strip()
        names += [title.replace(" ", "-"), title.split()[0] if title.split() else title]
    base = re.sub(r"-(master|stable|main|v[0-9]+)$", "", peer.name, flags=re.IGNORECASE)
    names += [peer.name, base, base.removeprefix("python-"), f"python-{base}"]
    unique: dict[str, str] = {}
    for name in names:
        if NAME.fullmatch(name):
            unique.setdefault(canonicalize_name(name), name)
    return list(unique.values())[:MAX_NAMES]


def releases(name: str) -> list[tuple[str, dict]]:
    """The sdists of ``name`` on the package index, newest version first (no pre-release, no
    yanked file), at most MAX_VERSIONS: ``(name==version, index entry)``."""
    found = []
    for entry in index_files(name):
        try:
            project, version = parse_sdist_filename(entry["filename"])
        except InvalidSdistFilename:
            continue
        sha = (entry.get("hashes") or {}).get("sha256")
        if project != canonicalize_name(name) or version.is_prerelease or entry.get("yanked"):
            continue
        if isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha):
            found.append((version, entry))
    found.sort(key=lambda pair: pair[0], reverse=True)
    project = canonicalize_name(name)  # the index's name, not the title's spelling
    return [(f"{project}=={v}", e) for v, e in found[:MAX_VERSIONS]]


def tests_path(root: Path, paths: tuple[str, ...]) -> tuple[str | None, list[str]]:
    """The one path of the release's suite (a folder or a test module) for the dataset's
    ``paths``, and the listed paths it leaves out: the only one present, else the folder
    holding all present ones, else the first present."""
    present = [p.rstrip("/") for p in paths if beneath(root, p).exists()]
    suites = [p for p in present if (root / p).is_dir() or is_test_module(Path(p))]
    if not suites:
        return None, []
    chosen = suites[0]
    common = os.path.commonpath(suites)
    if len(suites) > 1 and common and common != "." and (root / common).is_dir():
        chosen = common
    return chosen, [p for p in present if p != chosen and not p.startswith(chosen + "/")]


def static_tests(root: Path, path: str) -> list[StaticTest]:
    """The tests of the release's suite at ``path`` as pytest's default naming finds them,
    read bounded without following links; node ids start with ``tests/``."""
    base = beneath(root, path)
    if base.is_file():
        files = [(path, f"tests/{Path(path).name}")]
    else:
        files = []
        for top, dirs, names in os.walk(base):  # links to folders are not entered
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                rel = Path(top, name).relative_to(root).as_posix()
                if is_test_module(Path(name)):
                    files.append((rel, f"tests/{Path(top, name).relative_to(base).as_posix()}"))
    found: list[StaticTest] = []
    for rel, label in files[:MAX_TEST_FILES]:
        tree = parse_python(root, rel)
        if tree is not None:
            found += module_tests(tree, label)
    return found


def _uploaded(entry: dict) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(entry.get("upload-time", ""))[:10])
    except ValueError:
        return None


def try_release(pin: str, entry: dict, peer: Peer, report: TaskReport) -> Release | None:
    """The release ``pin`` unpacked and its suite counted, or None (the reason in ``tried``)."""
    sha = entry["hashes"]["sha256"]
    try:
        root = fetch_sdist(pin, sha)
    except SourceError as exc:
        report.tried.append(f"{pin}: not downloaded ({exc})")
        return None
    try:
        path, _ = tests_path(root, peer.paths)
        if path is None:
            report.tried.append(f"{pin}: the sdist ships none of {', '.join(peer.paths)}")
            return None
        release = Release(pin, sha, root, path, static_tests(root, path), _uploaded(entry))
    except AgentFileError as exc:
        report.tried.append(f"{pin}: refused ({exc})")
        return None
    report.tried.append(f"{pin}: {release.count} test cases in {path}")
    return release


def choose_release(peer: Peer, report: TaskReport) -> Release:
    """The release whose suite has the dataset's count (newest first), else the closest
    within COUNT_TOLERANCE; ValueError saying why none can be the reference."""
    best: Release | None = None
    downloads, known = 0, False
    for name in project_names(peer):
        try:
            candidates = releases(name)
        except SourceError:  # no such project on the index
            continue
        known = known or bool(candidates)
        for pin, entry in candidates:
            if downloads >= MAX_SDISTS:
                break
            downloads += 1
            release = try_release(pin, entry, peer, report)
            if release is None:
                continue
            if release.count == peer.count:
                return release
            if best is None or abs(release.count - peer.count) < abs(best.count - peer.count):
                best = release
    if best is not None and abs(best.count - peer.count) <= COUNT_TOLERANCE * peer.count:
        return best
    if best is not None and best.count < peer.count:
        # a parametrize over a computed list counts 1 statically: the count is a lower bound
        report.notes.append(
            f"the static count {best.count} is below the dataset's {peer.count} in every "
            "release tried (parameters computed at collection are not counted): the closest "
            "is taken, and the gate counts what pytest collects"
        )
        return best
    if not known:
        names = ", ".join(project_names(peer))
        raise ValueError(f"no sdist on the package index under any of: {names}")
    if best is None:
        raise ValueError(f"no sdist tried ships the tests ({', '.join(peer.paths)})")
    raise ValueError(
        f"the test count never matches: the dataset says {peer.count}, the closest release "
        f"{best.pin} has {best.count} (tried: {len(report.tried)} sdists)"
    )


def spec_sections(spec: str) -> list[tuple[str, str]]:
    """``(heading, body)`` of the specification's level 2-4 headings, outside code blocks."""
    sections: list[tuple[str, str]] = []
    heading, body, fenced = None, [], False
    for line in spec.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            if heading is not None:
                sections.append((heading, "\n".join(body)))
            heading, body = match[2], []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        sections.append((heading, "\n".join(body)))
    return sections


def subject(module: str) -> str:
    """What a test module is about, from its name: ``tests/test_sheet.py`` -> ``sheet``
    (a module named ``test.py`` or ``tests.py``: its folder's name)."""
    stem = re.sub(r"^tests?_?|_tests?$", "", Path(module).stem)
    return stem or Path(module).parent.name


def sections_about(sections: list[tuple[str, str]], word: str, limit: int = 5) -> list[str]:
    """The headings of the sections that name ``word`` (in the heading first, then in the
    text; ``open_workbook`` also as "open workbook" and "openworkbook"), at most ``limit``."""
    if len(word) < 3:
        return []
    low = word.lower()
    variants = {low, low.replace("_", " "), low.replace("_", ""), low.replace("_", "-")}
    titled = [h for h, _ in sections if any(v in h.lower() for v in variants)]
    named = [h for h, b in sections if h not in titled and any(v in b.lower() for v in variants)]
    return list(dict.fromkeys(titled + named))[:limit]


def requirements(peer: Peer, release: Release) -> tuple[list[str], dict[str, list[str]]]:
    """One ``### R<n>`` per test module of the release's suite, with the node-id glob of its
    tests: the requirement is what that module checks, as the specification's sections that
    name the module's subject describe it (the whole specification when none does)."""
    parts = spec_sections(peer.spec)
    sections, mapping = [], {}
    for number, module in enumerate(sorted({t.file for t in release.tests}), start=1):
        word = subject(module)
        named = sections_about(parts, word)
        cases = sum(t.cases for t in release.tests if t.file == module)
        where = (
            "in its sections " + "; ".join(f'"{h[:100]}"' for h in named) + "."
            if named
            else f"(no section of it names `{word}`: the specification as a whole)."
        )
        text = (
            f"What the upstream suite's `{module}` checks ({cases} test cases), as the "
            f"specification above describes it, {where}"
        )
        sections.append(f"### R{number}: {word}, checked by {module}\n\n{text}\n")
        mapping[f"R{number}"] = [f"{module}::*"]
    return sections, mapping


def command_requirements(commands: tuple[str, ...]) -> list[str]:
    """The packages NL2Repo's test commands install besides the project (``pip install
    gitpython``): requirements only, no option, path, file or URL."""
    out: list[str] = []
    for command in commands:
        for part in re.split(r"&&|\|\||[;&|]", command):
            match = PIP_INSTALL.match(part.strip())
            try:
                words = shlex.split(match[1]) if match else []
            except ValueError:
                continue
            skip = False
            for word in words:
                if skip or word in ("-r", "--requirement", "-e", "--editable", "-c"):
                    skip = not skip
                    continue
                if word.startswith(("-", ".")) or "/" in word or ":" in word:
                    continue
                try:
                    req = parse_requirement(word)
                except ValueError:
                    continue
                name = canonicalize_name(req.name)
                if name not in e2edevbench.NOT_DECLARED and not req.url and word not in out:
                    out.append(word)
    return out


def _module_files(release: Release) -> list[str]:
    """The release's test modules (and conftest.py files) as paths in the unpacked sdist."""
    if (release.root / release.path).is_file():
        return [release.path]
    files = [f"{release.path}/{t.file.removeprefix('tests/')}" for t in release.tests]
    conftests = [
        Path(top, "conftest.py").relative_to(release.root).as_posix()
        for top, _, names in os.walk(release.root / release.path)
        if "conftest.py" in names
    ]
    return list(dict.fromkeys(conftests + files))


def environment(release: Release, peer: Peer, report: TaskReport) -> str:
    """Fill in the Python version and the test requirements of the release (declared, in the
    dataset's commands, imported by its tests and undeclared); the tests' code, for plugins."""
    root = release.root
    report.python = e2edevbench.python_of(root)
    report.test_requires = e2edevbench.declared_test_requirements(root)
    extra = [r for r in command_requirements(peer.commands) if r not in report.test_requires]
    if extra:
        report.test_requires += extra
        report.notes.append(f"the dataset's test commands install {', '.join(extra)}")
    files = _module_files(release)
    e2edevbench.add_undeclared(root, files, report, release.uploaded)
    code = []
    for rel in files:
        try:
            code.append(peer_text(root, rel) or "")
        except AgentFileError:
            continue
    return "\n".join(code)


def import_task(root: Path, name: str, out: Path, created: dt.date) -> TaskReport:
    """Write the task of the dataset folder ``root/name`` under ``out``; what happened."""
    report = TaskReport(name=name)
    try:
        peer = read_peer(root, name)
        report.expected = peer.count
        release = choose_release(peer, report)
        _, left_out = tests_path(release.root, peer.paths)
    except ValueError as exc:  # AgentFileError too: the dataset's files refused
        report.error = str(exc)
        return report
    report.pypi, report.sha256, report.found = release.pin, release.sha256, release.count
    report.agreed = release.count == peer.count
    if left_out:
        report.notes.append(f"listed but outside the suite's path {release.path}: {left_out}")
    sections, mapping = requirements(peer, release)
    if not sections:
        report.error = f"{release.pin}: no test pytest would collect in {release.path}"
        return report
    code = environment(release, peer, report)
    plugins = [plugin for pattern, plugin in e2edevbench.PLUGINS if pattern.search(code)]
    task = task_id(name)
    folder = fresh_folder(out, task)
    folder.mkdir(parents=True)
    spec = REQUIREMENT_LIKE.sub("#", peer.spec.rstrip())  # a spec's "### R1" is not ours
    intro = (
        "The upstream project's own test suite grades this library, one requirement per test "
        "module of it (NL2Repo-Bench's task; docs/datasets.md)."
    )
    (folder / "requirements.md").write_text(
        f"{spec}\n\n## Requirements\n\n{intro}\n\n" + "\n".join(sections), encoding="utf-8"
    )
    tests = {
        "path": release.path,
        "timeout": 60,
        # NL2Repo runs `pytest <paths>` in the workspace after `pip install -e .`
        "cwd": "project",
        "rootdir_on_path": True,
        **({"rootdir_writable": True} if "__file__" in code else {}),
        "plugins": e2edevbench.plugins_of(plugins, report.test_requires),
        "requires": e2edevbench.non_plugins(report.test_requires),
        **({"python": report.python} if report.python else {}),
        "requirements": mapping,
    }
    first = next((ln for ln in peer.spec.splitlines() if ln.strip()), name)
    meta = {"id": task, "title": first.strip("# ").strip()[:120] or name, "kind": "library"}
    source = {"pypi": release.pin, "sha256": release.sha256}
    meta |= {"language": "python", "created": release.uploaded or created, "source": source}
    write_task_toml(folder, {**meta, "tests": tests})
    report.task, report.requirements = task, len(sections)
    return report


def task_folders(src: Path, only: list[str]) -> tuple[Path, list[str]]:
    """The dataset's folder of tasks (``src`` or ``src/test_files``) and the names in it
    (a link among them is listed, to be refused as that task's entry)."""
    root = src / "test_files" if (src / "test_files").is_dir() else src
    if not root.is_dir():
        raise ValueError(f"{src}: not NL2Repo-Bench's test_files folder (or its repository)")
    names = sorted(p.name for p in root.iterdir() if p.is_dir() or p.is_symlink())
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise ValueError(f"{root}: no task folder {', '.join(unknown)}")
        names = [n for n in names if n in only]
    if not names:
        raise ValueError(f"{root}: no task folders (test_files/<name>/start.md)")
    return root, names


def import_all(src: Path, out: Path, created: dt.date, only: list[str] = ()) -> list:
    """Import every task of the dataset ``src`` (or those named ``only``); the reports, also
    written to import-report.json."""
    root, names = task_folders(src, list(only))
    out.mkdir(parents=True, exist_ok=True)
    reports = []
    for name in names:
        reports.append(import_task(root, name, out, created))
        write_report(out, reports)  # as it goes: an import of 104 tasks takes a while
    return reports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import nl2repo``."""
    shared_arguments(
        parser,
        "NL2Repo-Bench's test_files folder, or the repository that holds it",
        None,
        "date for a task whose sdist has no upload time (default: today)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME[,NAME...]",
        help="import these task folders only (repeatable, or comma-separated)",
    )


def describe(report: TaskReport) -> str:
    """One line for a task's report."""
    if report.error:
        return f"NOT IMPORTED {report.name}: {report.error}"
    agreed = "agreed" if report.agreed else "NOT agreed"
    return (
        f"{report.task}: imported ({report.pypi}, {report.found} test cases found statically, "
        f"the dataset's count {report.expected}: {agreed}; {report.requirements} requirements)"
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what happened; exit status 1 when nothing could be imported."""
    only = [n for item in args.only for n in item.split(",") if n]
    try:
        reports = import_all(args.src, args.out, args.created, only)
    except (OSError, ValueError) as exc:
        print(f"e2ebench: {exc}", file=sys.stderr)
        return 1
    for report in reports:
        print(describe(report))
        for note in report.notes:
            print(f"  note: {note}")
    print(f"report: {args.out / 'import-report.json'}")
    return 0 if any(not r.error for r in reports) else 1
