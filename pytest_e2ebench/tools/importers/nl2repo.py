"""Convert NL2Repo-Bench's tasks (``test_files/<name>/``) into library tasks.

NL2Repo-Bench (arXiv 2512.12730) gives an agent one long natural-language specification
(``start.md``) and an empty workspace, and grades the library it writes with the upstream
project's own pytest suite: ``test_files.json`` names the suite's paths, ``test_commands.json``
how it was run and ``test_case_count.txt`` how many test cases it has. The suite itself is not
in the dataset; it is the upstream project's. ``e2ebench import nl2repo SRC OUT`` reads the
user's copy (the ``test_files`` folder, or the repository holding it) and writes, per task:

* the reference: the project's PyPI sdist (:func:`project_names`, :func:`choose_release`)
  whose suite, counted statically (``taskmodel.testindex``: functions times literal
  ``parametrize`` lists), has the dataset's count, found by bisecting the project's history
  (:class:`Search`, at most :data:`MAX_SDISTS` downloads); else the closest within
  :data:`COUNT_TOLERANCE`, or the closest below it (a parameter list computed at collection
  counts 1 here), reported as not agreed; the gate then counts what pytest collects. A suite
  the sdist keeps elsewhere than the dataset says is looked for where it moved
  (:func:`relocated`);
* ``requirements.md``: ``start.md`` verbatim, then one ``### R<n>`` per test module of that
  suite, naming the specification's sections about the module's subject;
* ``task.toml``: ``[source] pypi`` + ``sha256``, ``[tests] path`` (the sdist's
  ``test_files.json`` path), run from the project's root as NL2Repo runs it, with the
  variables the dataset's test commands set (:func:`command_steps`).

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
from ...taskmodel.testconf import parse_settings, reference_ini
from ...taskmodel.testindex import Naming, StaticTest, is_test_module, module_tests
from ...untrusted import parse
from ...untrusted.peer import beneath, relative_path, safe_id
from ...untrusted.peer import read_text as peer_text
from . import add_arguments as shared_arguments
from . import e2edevbench, fresh_folder, write_report, write_task_toml

MAX_SPEC_BYTES = 4 << 20  # start.md: the largest of the 104 is 393 KB (ydata-profiling)
MAX_SMALL_BYTES = 64 << 10  # test_case_count.txt, test_files.json, test_commands.json
MAX_NAMES = 5  # project names asked of the package index per task
MAX_SDISTS = 12  # sdists downloaded per task, all names together (a bisection of ~100 takes 8)
MAX_TEST_FILES = 2000  # test modules scanned in one release
COUNT_TOLERANCE = 0.1  # a closest count this near the dataset's is imported, marked not agreed
# the project's name in the specification's title: "Introduction and Goals of the Jinja2
# Project", "Introduction to the Cachier Project", "FastVector Project Introduction and ...";
# a title of at most three words is the name itself ("Sklearn-pandas")
TITLES = (
    re.compile(r"\b(?:of|to) the (?P<name>.+?)(?:_main)? Project\b", re.IGNORECASE),
    re.compile(r"^(?P<name>[^ ].*?)(?:_main)? Project\b", re.IGNORECASE),
    re.compile(r"^(?P<name>\S+(?: \S+){0,2})$"),
)
IMPORT_LINE = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
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


def spec_module(spec: str) -> list[str]:
    """The module the specification's examples import most (``from phe import paillier``:
    the project is ``phe``), when at least three lines do and it is not the standard
    library's."""
    counts: dict[str, int] = {}
    for match in IMPORT_LINE.finditer(spec):
        counts[match[1]] = counts.get(match[1], 0) + 1
    top = max(counts, key=counts.get, default="")
    return [top] if counts.get(top, 0) >= 3 and top not in sys.stdlib_module_names else []


def project_names(peer: Peer) -> list[str]:
    """Names to ask the package index for, most likely first: the project's name in the
    specification's title (:data:`TITLES`), the folder's name and its variants
    (``python-`` added or removed, a ``-master``/``-stable`` suffix removed; the module its
    examples import, :func:`spec_module`). Never a part of
    the title alone: "ArXiv MCP Server" is not ``arxiv``, "FastAPI Users" not ``fastapi``."""
    names: list[str] = []
    first = next((ln for ln in peer.spec.splitlines() if ln.strip()), "").strip("\ufeff \t")
    if first.startswith("#"):
        title = first.lstrip("#").strip()
        found = next((m for m in (t.search(title) for t in TITLES) if m), None)
        if found and found["name"].lower() not in ("project", "the"):
            names.append(found["name"].strip().replace(" ", "-"))
    base = re.sub(r"-(master|stable|main|v[0-9]+)$", "", peer.name, flags=re.IGNORECASE)
    names += [peer.name, base, *spec_module(peer.spec), base.removeprefix("python-")]
    names.append(f"python-{base}")
    unique: dict[str, str] = {}
    for name in names:
        if NAME.fullmatch(name):
            unique.setdefault(canonicalize_name(name), name)
    return list(unique.values())[:MAX_NAMES]


def releases(name: str) -> list[tuple[str, dict]]:
    """The sdists of ``name`` on the package index, newest version first (no pre-release, no
    yanked file): ``(name==version, index entry)``."""
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
    return [(f"{project}=={v}", e) for v, e in found]


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


def command_paths(commands: tuple[str, ...]) -> list[str]:
    """The paths the dataset's pytest commands name (``pytest ... test_schema.py``)."""
    found: list[str] = []
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        if not any(Path(w).name == "pytest" for w in words):
            continue
        for word in words:
            word = word.removeprefix("/workspace/")
            if not word.startswith("-") and (word.endswith(".py") or word in ("test", "tests")):
                found.append(word)
    return found


def relocated(root: Path, peer: Peer) -> list[str]:
    """Where the sdist keeps a suite none of whose listed paths it has: the suite folder
    moved upstream since the dataset's commit (``tests`` in ``test``, in the package as
    ``deslib/tests``, ``src/pytz/tests`` as ``pytz/tests``), a module the test commands name,
    else the test modules at the sdist's root named after the task (fuzzywuzzy's
    ``test_fuzzywuzzy.py``)."""
    wanted: list[str] = []
    folders = sorted(
        p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink() and p.name[0] != "."
    )
    for listed in [*peer.paths, *command_paths(peer.commands)]:
        parts = Path(listed.rstrip("/")).parts
        wanted += [Path(*parts[i:]).as_posix() for i in range(1, len(parts))]  # src/ dropped
        if parts and parts[-1] in ("test", "tests"):
            for name in ("tests", "test"):
                wanted += [name, *(f"{d}/{name}" for d in folders)]
                wanted += [f"src/{d}/{name}" for d in folders]
        wanted.append(listed)
    present = [w for w in dict.fromkeys(wanted) if beneath(root, w).exists()]
    if present:
        return present
    own = {peer.name.lower().replace("-", "_"), re.sub(r"^python[-_]", "", peer.name.lower())}
    return sorted(  # fuzzywuzzy's test_fuzzywuzzy.py, not another project's test_brownout.py
        p.name
        for p in root.iterdir()
        if p.is_file() and is_test_module(p) and any(o in p.stem.lower() for o in own)
    )


def static_tests(root: Path, path: str) -> list[StaticTest]:
    """The tests of the release's suite at ``path`` as pytest's naming finds them (the
    sdist's own ``python_files``, as the harness honours it),
    read bounded without following links; node ids start with ``tests/``; AgentFileError when
    a test module is not Python 3 the harness reads (the task would not load)."""
    base = beneath(root, path)
    naming = Naming.from_ini(reference_ini(root)[0])  # tqdm's python_files = tests_*.py
    if base.is_file():
        files = [(path, f"tests/{Path(path).name}")]
    else:
        files = []
        for top, dirs, names in os.walk(base):  # links to folders are not entered
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                rel = Path(top, name).relative_to(root).as_posix()
                if naming.is_file(name):
                    files.append((rel, f"tests/{Path(top, name).relative_to(base).as_posix()}"))
    found: list[StaticTest] = []
    for rel, label in files[:MAX_TEST_FILES]:
        tree = parse_python(root, rel)
        if tree is None:  # the task would not load (boto 2's suite is Python 2)
            raise AgentFileError(rel, "is not Python 3 the harness can read")
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
            path, _ = tests_path(root, tuple(relocated(root, peer)))
        if path is None:
            report.tried.append(f"{pin}: the sdist ships none of {', '.join(peer.paths)}")
            return None
        release = Release(pin, sha, root, path, static_tests(root, path), _uploaded(entry))
    except AgentFileError as exc:
        report.tried.append(f"{pin}: refused ({exc})")
        return None
    if release.count:
        report.tried.append(f"{pin}: {release.count} test cases in {path}")
    else:  # the folder, but no test by the names pytest collects (or a helpers' folder only)
        report.tried.append(f"{pin}: no test pytest's naming collects in {path}")
    return release


class Search:
    """The releases of one project probed for the dataset's count, within a download budget.

    A project's suite grows over its releases, so the count falls going back in time: the
    newest release that ships the suite is probed, and when its count is above the dataset's
    the history is bisected (newest first, so equal counts keep the newer release). When the
    newest does not ship the suite, the history is sampled for one that does (older sdists
    often shipped their tests)."""

    def __init__(self, candidates: list, peer: Peer, report: TaskReport, budget: int):
        self.candidates, self.peer, self.report, self.budget = candidates, peer, report, budget
        self.probed: dict[int, Release | None] = {}

    def probe(self, index: int) -> Release | None:
        if index not in self.probed and self.budget > 0:
            self.budget -= 1
            self.probed[index] = try_release(*self.candidates[index], self.peer, self.report)
        return self.probed.get(index)

    def first_shipping(self) -> int | None:
        last = len(self.candidates) - 1
        for index in dict.fromkeys([0, last // 4, last // 2, 3 * last // 4, last]):
            if self.probe(index) is not None:
                return index
        return None

    def run(self) -> Release | None:
        """The release with the dataset's count, else the closest of those probed."""
        low = self.first_shipping()  # its count is above the dataset's, or the loop ends
        high = len(self.candidates)  # the first release known to be below it (or none)
        while low is not None and self.budget > 0 and high - low > 1:
            if self.probed[low].count <= self.peer.count:
                break
            middle = (low + high) // 2
            found = self.probe(middle)
            if found is not None and found.count == self.peer.count:
                break
            if found is not None and found.count > self.peer.count:
                low = middle
            else:  # below the count, or no suite in the sdist yet: older than the one sought
                high = middle
        shipped = [r for _, r in sorted(self.probed.items()) if r is not None and r.count]
        return min(shipped, key=lambda r: abs(r.count - self.peer.count), default=None)

    @property
    def suite_found(self) -> bool:
        """Whether a release probed has the suite's folder (whether or not it has tests)."""
        return any(r is not None for r in self.probed.values())


def choose_release(peer: Peer, report: TaskReport) -> Release:
    """The release whose suite has the dataset's count (see :class:`Search`), else the closest
    within COUNT_TOLERANCE or below, of the first name (most likely first) whose sdists ship
    the suite (a later name may be another project: "synthetic" is not synthetic-data-kit);
    ValueError saying why none can be the reference."""
    best: Release | None = None
    budget, known = MAX_SDISTS, False
    for name in project_names(peer):
        try:
            candidates = releases(name)
        except SourceError:  # no such project on the index
            continue
        known = known or bool(candidates)
        search = Search(candidates, peer, report, budget)
        found = search.run() if candidates else None
        budget = search.budget
        if search.suite_found:  # the first name whose sdists ship the suite is the project
            best = found
            break
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
    if best is None and any("no test pytest's naming" in t for t in report.tried):
        raise ValueError(
            f"the sdists tried ship {', '.join(peer.paths)}, but no test in it by the names "
            "pytest collects"
        )
    refused = [t for t in report.tried if ": refused (" in t]
    if best is None and refused:
        raise ValueError(f"the sdists that ship the suite are refused: {refused[0]}")
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


def command_steps(commands: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    """What the dataset's test commands set up besides installing: the variables its test run
    gets (``set AWS_DEFAULT_REGION=us-east-1``, ``export X=1``, ``X=1 pytest``) and the steps
    that write files into the project before it is installed (``echo "__version__ = '0.0.1'"
    > tqdm/version.py``). A variable given to ``pip install`` only is the build's, not the
    tests' (``SETUPTOOLS_SCM_PRETEND_VERSION_FOR_TQDM``: an sdist has its version in PKG-INFO)."""
    env: dict[str, str] = {}
    writes: list[str] = []
    for command in commands:
        for part in re.split(r"&&|\|\||;", command):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            if words[:1] in (["set"], ["export"]):
                words = words[1:]
            assigned = [w for w in words if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w)]
            rest = words[len(assigned) :] if words[: len(assigned)] == assigned else words
            if not rest or Path(rest[0]).name == "pytest" or rest[:3] == ["python", "-m", "pytest"]:
                env.update(w.split("=", 1) for w in assigned)
            if rest[:1] == ["echo"] and any(w in (">", ">>") for w in rest):
                writes.append(part.strip())
    return env, writes


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


def requirements_text(peer: Peer, sections: list[str], writes: list[str]) -> str:
    """``requirements.md``: the specification, then the requirements; the files the dataset's
    commands write before installing are named, since nothing writes them here."""
    spec = REQUIREMENT_LIKE.sub("#", peer.spec.rstrip())  # a spec's "### R1" is not ours
    intro = (
        "The upstream project's own test suite grades this library, one requirement per test "
        "module of it (NL2Repo-Bench's task; docs/datasets.md)."
    )
    if writes:
        steps = "\n".join(f"    {w}" for w in writes)
        intro += (
            "\n\nNL2Repo-Bench's own run writes these files into the project before installing "
            f"it:\n\n{steps}\n\nHere the project is installed as you leave it: include what "
            "they write."
        )
    return f"{spec}\n\n## Requirements\n\n{intro}\n\n" + "\n".join(sections)


def test_env(peer: Peer, report: TaskReport, folder: Path) -> dict[str, str]:
    """The variables the dataset's commands give the test run, as the loader accepts them (a
    name the harness sets itself is dropped, and said)."""
    env, _ = command_steps(peer.commands)
    problems: list[str] = []
    kept = dict(parse_settings({"env": env}, folder, None, False, "", problems).env)
    if env:
        report.notes.append(f"the dataset's test commands set {', '.join(sorted(env))}")
    report.notes += [f"not kept: {p.split(': ', 1)[-1]}" for p in problems]
    return kept


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
    if release.path not in peer.paths:
        report.notes.append(f"the dataset's {', '.join(peer.paths)} is {release.path} here")
    sections, mapping = requirements(peer, release)
    if not sections:
        report.error = f"{release.pin}: no test pytest would collect in {release.path}"
        return report
    code = environment(release, peer, report)
    plugins = [plugin for pattern, plugin in e2edevbench.PLUGINS if pattern.search(code)]
    task = task_id(name)
    folder = fresh_folder(out, task)
    folder.mkdir(parents=True)
    _, writes = command_steps(peer.commands)
    text = requirements_text(peer, sections, writes)
    (folder / "requirements.md").write_text(text, encoding="utf-8")
    env = test_env(peer, report, folder)
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
        **({"env": env} if env else {}),
        "requirements": mapping,
    }
    first = next((ln for ln in peer.spec.splitlines() if ln.strip()), name)
    meta = {"id": task, "title": first.strip("\ufeff# ").strip()[:120] or name, "kind": "library"}
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
