"""Run test suites against a generated project, in a subprocess of the run's environment.

Two suites per run (E2EDevBench Table 2):

* ``extended`` — the reference tests after migration, copied into a folder the harness owns and
  run there with a harness-written ini file, so the project's ``conftest.py`` and pytest
  settings play no part;
* ``original`` — the tests the agent wrote itself, run where they are, with its own settings.

Both run under ``coverage run --branch`` with pytest's plugin autoload off, a per-test timeout
(pytest-timeout) and a whole-run timeout that kills the process group. Per-test outcomes come
from the probe plugin's JSON lines, never from parsing stdout. The ``all`` suite's coverage is
the union of both runs' coverage data.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import json
import os
import random
import re
import resource
import secrets
import shutil
import stat
import sys
import textwrap
import threading
from pathlib import Path

from ..environment import finder
from ..environment.vendor import materialize, read_manifest
from ..environment.web import WEB_PLUGIN, browser_binaries
from ..environment.workspace import coverage_omit
from ..errors import AgentFileError, InfrastructureError
from ..grading.verdicts import PASSING, base_nodeid
from ..isolation import process
from ..isolation.intake import IntakeLimits, copy_tree, read_beneath, read_regular
from ..isolation.sandbox import Limits, Sandbox
from ..probe import NOCOV_PLUGIN, PROBE_DIR, PROBE_PLUGIN, PV_PLUGIN, project_env
from ..taskmodel import features, skips, testconf
from ..taskmodel.testconf import TestSettings
from ..taskmodel.testindex import bounded_test_modules, is_test_module
from ..untrusted.child import size
from ..untrusted.parse import loads_json, read_json
from . import coverage_bound, honeypot, split, tamper
from .planting import twins

COVERAGE_TIMEOUT = 300.0
COVERAGE_STEP = "coverage's report of the project"
TOTALS_FILE = "totals.json"  # the JSON report's totals, written by the report child
# per-run coverage reports, next to the coverage data in the run's eval folder
COVERAGE_XML = "coverage.xml"
COVERAGE_HTML = "htmlcov"
COVERAGE_SOURCE = "source"  # the intake copy of the project the reports read
# why a web task's suites have no coverage (results.json's coverage_note says it, issue 31)
WEB_COVERAGE = (
    "not measured: a web task's scenarios drive a browser against the served app, which "
    "coverage does not run under"
)
SOURCE_LIMITS = IntakeLimits(max_files=20_000, max_bytes=256 << 20, max_file_bytes=16 << 20)
PROBE_LIMIT = 64 << 20  # bytes of the probe's results file read (a big suite writes ~1 MB)
# What a test run imports from its environment (the probe comes from the harness's folder).
_TOOLS = ("pytest", "_pytest", "pluggy", "pytest_timeout.py")
_COVERAGE_TOOLS = ("coverage",)
_WEB_TOOLS = ("pytest_bdd", "selenium")
_IGNORE = shutil.ignore_patterns("__pycache__")
INI = textwrap.dedent(
    """\
    [pytest]
    markers =
        requirement(*ids): requirements this test checks
    """
)


def _run_section(root: Path, data: Path, too_big: list[str]) -> str:
    """``[run]`` measuring branches of the code files under ``root``, data in ``data``;
    ``too_big``: files under ``root`` left out (:mod:`.coverage_bound`)."""
    patterns = [*coverage_omit(root), *coverage_bound.omit_patterns(root, too_big)]
    omit = "\n".join(f"    {p}" for p in patterns)
    return f"[run]\nbranch = True\nsource =\n    {root}\nomit =\n{omit}\ndata_file = {data}\n"


def _coveragerc(where: Path, repo: Path, data: Path, copies: list[Path]) -> Path:
    """The run's rc file: the project, and ``copies`` (folders where tests may copy it)."""
    rc = where / "coveragerc"
    # Tests of command-line tools copy the project to a temporary folder and run it there as
    # a subprocess (gradebook, tipcalc): those folders are measured too, and the report maps
    # files found there back to the project's (coverage_totals, issue 31).
    extra = "".join(f"    {c}\n" for c in copies)
    rc.write_text(
        _run_section(repo, data, coverage_bound.oversized(repo)).replace(
            "\nomit =", f"\n{extra}omit =", 1
        )
        + "parallel = True\n"
        # ... and the subprocesses themselves (coverage >= 7.10), which save their data when
        # they are terminated (a server a fixture stops) as well as when they exit
        "patch = subprocess\nsigterm = True\n"
    )
    return rc


def read_probe(path: Path, key: str) -> dict:
    """:func:`parse_probe` of a results file the probe wrote (run by hand, into a file)."""
    # project-zone data: a regular file, not followed through a link, bounded
    try:
        return parse_probe(read_regular(path, PROBE_LIMIT), key)
    except FileNotFoundError:
        return parse_probe(b"", key)
    except (OSError, ValueError):  # something else in its place, or far too long
        return parse_probe(b"", key, odd=True)


# The fields of each record the probe and the web plugin write that the harness reads, with
# their types: a signed record of another shape was signed with a key the project found.
_FIELDS = {
    "test": (("nodeid", str), ("outcome", str), ("message", str), ("requirements", list)),
    "collect_error": (("nodeid", str), ("message", str)),
    "collected": (("nodeids", list),),
    "tamper": (("when", str), ("changed", list)),
    "end": (("exitstatus", int),),
    "split": (("lies", int), ("examples", list), ("sides", list)),
}


def _well_formed(kind: object, rec: dict) -> bool:
    """Whether ``rec`` has the fields the harness reads of a ``kind`` record, typed so."""
    if kind in ("web", "web_end"):
        return isinstance(rec.get("browser_error", ""), str)
    fields = _FIELDS.get(kind, ()) if isinstance(kind, str) else ()
    return all(isinstance(rec.get(name), type_) for name, type_ in fields)


def parse_probe(data: bytes, key: str, *, odd: bool = False) -> dict:
    """Parse the probe's signed JSON lines into tests, collection errors and the exit status.

    Lines whose signature does not verify (written by anything but the probe) are counted in
    ``forged_lines`` and otherwise ignored (a last line cut short by a kill is not). The probe
    numbers its records from its ``start``: ``sequence_broken`` says that the verified records
    are not exactly that sequence (one was added with a stolen key, repeated or removed).
    ``collected`` is the node ids pytest collected (None without that record), ``tamper`` what
    the probe saw change in pytest's machinery, ``after_end`` how many records came after
    pytest's session ended (the probe writes none). ``odd``: the data was cut at the size limit
    or was not the probe's (counted as a forged line).
    """
    *lines, cut = data.split(b"\n")  # ``cut``: after the last newline, "" unless killed
    records, forged = _verified_records(lines, key.encode())
    kinds = [kind for kind, _, _ in records]
    seqs = [seq for _, seq, _ in records]
    by_kind = _by_kind(records)
    found = {
        "tests": by_kind["tests"],
        "collect_errors": by_kind["collect_errors"],
        "exitstatus": by_kind["exitstatus"],
        "forged_lines": forged + int(odd),
        "collected": by_kind["collected"],
        "tamper": by_kind["tamper"],
        "after_end": len(kinds) - kinds.index("end") - 1 if "end" in kinds else 0,
        "sequence_broken": bool(kinds) and (kinds[0] != "start" or seqs != list(range(len(seqs)))),
    }
    if by_kind["web"]:
        found["web"] = by_kind["web"]
    if "split" in by_kind:  # the split run's liar checks (evaluation.split)
        found["split"] = by_kind["split"]
    return found


def _verified_records(lines: list[bytes], mac_key: bytes) -> tuple[list[tuple], int]:
    """The probe's records among ``lines`` as ``(kind, seq, record)``, in order, and the count
    of the lines that are not (a signature that does not verify, or not a signed record)."""
    records = []
    forged = 0
    for raw in lines:
        try:
            signed = loads_json(raw, "a probe record")
            body = signed["body"]
            mac = hmac.new(mac_key, body.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(mac, str(signed["mac"])):
                forged += 1
                continue
            rec = loads_json(body, "a probe record")
            kind = rec.pop("kind", None)
            if not _well_formed(kind, rec):  # signed with a stolen key: what is read below
                raise ValueError(kind)  # would raise TypeError, a harness error
        except (ValueError, KeyError, TypeError, AttributeError):
            forged += 1 if raw.strip() else 0
            continue
        records.append((kind, rec.pop("seq", None), rec))
    return records, forged


def _by_kind(records: list[tuple]) -> dict:
    """The verified records sorted into tests, collection errors, the exit status, the node ids
    collected, the tamper records and the web plugin's facts (``web``, merged)."""
    found: dict = {
        "tests": [],
        "collect_errors": [],
        "exitstatus": None,
        "collected": None,
        "tamper": [],
        "web": {},
    }
    for kind, _, rec in records:
        if kind == "test":
            found["tests"].append(rec)
        elif kind == "collect_error":
            found["collect_errors"].append(rec)
        elif kind == "collected":
            found["collected"] = [str(n) for n in rec.get("nodeids", [])]
        elif kind == "tamper":
            found["tamper"].append(rec)
        elif kind == "end":
            found["exitstatus"] = rec.get("exitstatus")
        elif kind in ("web", "web_end"):
            found["web"].update(rec)
        elif kind == "split":
            sides = [str(k) for k in rec["sides"][: split.MAX_SIDES]]
            found["split"] = {"lies": rec["lies"], "examples": rec["examples"], "sides": sides}
    return found


class _ProbePipe:
    """A pipe the probe writes its records to, drained as the run goes into ``path`` (at most
    :data:`PROBE_LIMIT` bytes kept). On exit: ``data`` what arrived, ``odd`` when more than the
    limit arrived or a process outside the run still held the pipe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""
        self.odd = False

    def __enter__(self) -> _ProbePipe:
        read_fd, self.write_fd = os.pipe()
        self._file = process.open_log(self.path)
        self._counts = [0]
        stream = os.fdopen(read_fd, "rb", buffering=0)
        self._reader = threading.Thread(
            target=process.drain, args=(stream, self._file, PROBE_LIMIT, self._counts), daemon=True
        )
        self._reader.start()
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.write_fd)  # the run is over: the reader sees the end once its copies go
        self._reader.join(timeout=10)
        self.odd = self._reader.is_alive() or self._counts[0] > PROBE_LIMIT
        self.data = os.pread(self._file, PROBE_LIMIT, 0)
        if not self._reader.is_alive():  # else the reader still writes to it: left open
            os.close(self._file)


# Which coverage data files are plain coverage.py data (run by the harness's interpreter, in
# the child of :data:`_MEASURED_THEN_REPORTS`). A data file is an SQLite database the project
# could write: a view in place of coverage.py's ``file`` table (a recursive query, 53 KB) held every
# coverage step that read it for its whole timeout, 20 minutes of the harness per suite, and
# a generated column computes an expression at every read. Only coverage.py's own tables, as
# plain tables, are read (the schema itself is read without running a query of the file's).
_PLAIN = (
    "import json, sqlite3, sys\n"
    "from pathlib import Path\n"
    "from coverage import CoverageData\n"
    "from coverage.sqldata import SCHEMA\n"
    "ref = sqlite3.connect(':memory:')\n"
    "ref.executescript(SCHEMA)\n"
    "TABLES = {n for (n,) in ref.execute(\"select name from sqlite_master where type='table'\")}\n"
    "def plain(path):\n"
    "    db = sqlite3.connect(Path(path).as_uri() + '?mode=ro', uri=True)\n"
    "    try:\n"
    "        rows = db.execute('select type, name, sql from sqlite_master').fetchall()\n"
    "        tables = [n for t, n, sql in rows if t == 'table']\n"
    "        if not set(tables) <= TABLES:\n"
    "            return False\n"
    "        if any(t not in ('table', 'index') for t, _, _ in rows):\n"
    "            return False  # a view or a trigger\n"
    "        if any((sql or '').upper().startswith('CREATE VIRTUAL') for _, _, sql in rows):\n"
    "            return False\n"
    "        return not any(c[-1] for n in tables\n"
    "                       for c in db.execute(f'pragma table_xinfo(\"{n}\")'))\n"
    "    except sqlite3.Error:\n"
    "        return False\n"
    "    finally:\n"
    "        db.close()\n"
)
# combine, then the JSON totals and the asked-for reports (xml, html), in ONE child: each
# interpreter start costs about a second on a loaded machine, and a run made five of them.
# A step that fails prints why; the token-tagged ``<kind>-ok`` lines say which succeeded
# (the token: a source file's name printed in a warning cannot claim a report).
# The JSON report is as large as the project's sources make it: its totals are taken from it
# here, in the child, into a file of a few lines (:data:`TOTALS_FILE`), the one the harness
# reads. A step the data or the sources drove into MemoryError or RecursionError says so
# (``<kind>-memory-<token>``): the agent's, like the child's time bound.
_REPORTS = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from coverage import Coverage\n"
    "rc, out, token, *rest = sys.argv[1:]\n"
    "split = rest.index('--')\n"
    "kinds, files = rest[:split], rest[split + 1:]\n"
    "cov = Coverage(config_file=rc)\n"
    "try:\n"
    "    cov.combine(files, strict=True, keep=True)\n"
    "    cov.save()\n"
    "except Exception as exc:  # as ``coverage combine``: reported, the JSON step decides\n"
    "    print(f'combine: {exc}')\n"
    "cov = Coverage(config_file=rc)\n"
    "cov.load()\n"
    "def totals():\n"
    "    cov.json_report(outfile=out, ignore_errors=True)\n"
    "    with open(out, encoding='utf-8') as report:\n"
    "        found = json.load(report)['totals']\n"
    f"    Path(out).with_name({TOTALS_FILE!r}).write_text(json.dumps(found))\n"
    "steps = [('json', totals)]\n"
    "steps += [(k, lambda k=k: getattr(cov, k + '_report')(ignore_errors=True)) for k in kinds]\n"
    "for kind, step in steps:\n"
    "    try:\n"
    "        step()\n"
    "    except Exception as exc:\n"
    "        print(f'{kind}: {type(exc).__name__}: {exc}')\n"
    "        if isinstance(exc, (MemoryError, RecursionError)):\n"
    "            bound = 'memory' if isinstance(exc, MemoryError) else 'recursion'\n"
    "            print(f'{kind}-{bound}-{token}', flush=True)\n"
    "        if kind == 'json':\n"
    "            break\n"
    "    else:\n"
    "        print(f'{kind}-ok-{token}', flush=True)\n"
)
# The files the data files measured and the data files refused (a line tagged with the token,
# JSON), then, in the same child, the reports of the data not refused: one interpreter and one
# import of coverage.py per suite instead of two (issue 27). The reports assume the project
# was not copied elsewhere; when the measured names say it was (:func:`copy_prefixes`), the
# harness runs :data:`_REPORTS` again with those folders as aliases.
_MEASURED_THEN_REPORTS = (
    _PLAIN + "rc, out, token, *rest = sys.argv[1:]\n"
    "split = rest.index('--')\n"
    "names, refused = set(), []\n"
    "for path in rest[split + 1:]:\n"
    "    if not plain(path):\n"
    "        refused.append(path)\n"
    "        continue\n"
    "    data = CoverageData(path)\n"
    "    data.read()\n"
    "    names.update(data.measured_files())\n"
    "found = {'names': sorted(names), 'refused': refused}\n"
    "print(f'{token}-measured ' + json.dumps(found), flush=True)\n"
    "kept = [f for f in rest[split + 1:] if f not in refused]\n"
    "if not kept:\n"
    "    sys.exit(0)\n"
    "sys.argv[1:] = [rc, out, token, *rest[:split], '--', *kept]\n" + _REPORTS
)
_GLOB = frozenset("*?[]{}\n\r\\")  # a [paths] entry is a glob: such names are never aliased
MAX_NAME = 4096  # PATH_MAX: a longer name is no file of this machine


def copy_prefixes(measured: list[str], repo: Path, source: Path) -> list[str]:
    """Folders whose files are copies of the project's: ``[paths]`` aliases of ``source``.

    A measured file outside ``repo`` whose last path parts name a file of the project (the
    longest such match, so ``pkg/mod.py`` is not taken for a top-level ``mod.py``) was run from
    a copy the tests made (a command-line tool run in a temporary folder); its folder up to
    that match is an alias of the project.

    The names are the project zone's (a data file it wrote): only a name ending in the name of
    a file of the project, no longer than a path can be, is tried, and only its suffixes no
    deeper than the intake copies (a name of 8,000 parts stat'ed the longest one first, whose
    ENAMETOOLONG ended the run as a harness error, and then the others, in quadratic time).
    """
    prefixes = set()
    inside = str(repo).rstrip("/") + "/"
    files = {name for _, _, found in os.walk(source) for name in found}
    for name in measured:
        if not name.startswith("/") or name.startswith(inside) or _GLOB & set(name):
            continue
        parts = name.split("/")
        if len(name) > MAX_NAME or parts[-1] not in files:
            continue
        for cut in range(max(1, len(parts) - SOURCE_LIMITS.max_depth - 1), len(parts)):
            try:  # longest suffix first
                found = (source / "/".join(parts[cut:])).is_file()
            except OSError:  # not a name this machine can open: no file of the project
                found = False
            if found:
                prefixes.add("/".join(parts[:cut]) or "/")
                break
    return sorted(p for p in prefixes if p != "/")


def _measured(output: str, token: str, files: list[Path]) -> tuple[list[str], list[Path]]:
    """The file names the data files recorded, and the data files that are not plain
    coverage.py data, from the child's token-tagged line. Without that line, every file is
    refused: what the child could not read, the reports cannot either."""
    found = {}
    for line in output.splitlines():
        if line.startswith(f"{token}-measured "):
            try:
                found = json.loads(line.split(" ", 1)[1])
            except ValueError:
                found = {}
    if not isinstance(found, dict) or not isinstance(found.get("refused"), list):
        return [], list(files)
    names = found.get("names")
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    refused = {r for r in found["refused"] if isinstance(r, str)}
    return names, [f for f in files if str(f) in refused]


def _report_rc(
    where: Path, repo: Path, source: Path, too_big: list[str], copies: tuple[str, ...] = ()
) -> Path:
    """The rc file of the harness's coverage steps: data remapped from ``repo`` to ``source``.

    Reports read only the intake copy ``source`` (``[report] include``), so a data file that
    names a file outside the project (it is the project zone's output) reports nothing.
    ``too_big`` (files of ``source``) are neither added nor reported (:mod:`.coverage_bound`).
    ``copies`` are folders the tests copied the project to (:func:`copy_prefixes`).
    """
    rc = where / "coveragerc"
    aliases = "".join(f"    {c}\n" for c in copies)
    # the project's code only: its tests (or the suite's, measured where tests copy the
    # project and mapped onto the project's own test files) are not in the denominator (#48)
    patterns = [*coverage_omit(source), *coverage_bound.omit_patterns(source, too_big)]
    omit = "".join(f"    {p}\n" for p in patterns)
    rc.write_text(
        _run_section(source, where / "combined", too_big) + "[paths]\n"
        f"project =\n    {source}\n    {repo}\n{aliases}"
        "[report]\n"
        f"include =\n    {source}/*\n" + f"omit =\n{omit}" + "[html]\n"
        f"directory = {where / COVERAGE_HTML}\n"
        "[xml]\n"
        f"output = {where / COVERAGE_XML}\n"
    )
    return rc


def coverage_step(
    where: Path, name: str, args: list[str], cwd: Path | None = None
) -> process.Completed:
    """``coverage ARGS`` by the harness's interpreter in isolated mode (log in ``where``).

    Only for data and sources the harness copied into its own folders (never the run's
    environment's interpreter, which the project could have changed), under rlimits.
    """
    return process.run(
        [sys.executable, "-I", "-m", "coverage", *args],
        cwd=cwd or where,
        env={"PATH": os.defpath, "LANG": "C.UTF-8"},
        timeout=COVERAGE_TIMEOUT,
        log=where / f"coverage-{name}.log",
        preexec=Limits().apply,  # rlimits only: this is the harness's own code, on data
    )


def _report_child(
    where: Path, script: str, args: list, kinds: list[str], files: list[Path]
) -> process.Completed:
    """``script`` (:data:`_REPORTS` or :data:`_MEASURED_THEN_REPORTS`) with ``args`` (rc file,
    JSON output, token), the report ``kinds`` and the data ``files``, by the harness's
    interpreter in isolated mode, under rlimits (this is the harness's own code, on data)."""
    return process.run(
        [sys.executable, "-I", "-c", script, *map(str, args), *kinds, "--", *map(str, files)],
        cwd=where,
        env={"PATH": os.defpath, "LANG": "C.UTF-8"},
        timeout=COVERAGE_TIMEOUT * (2 + len(kinds)),
        log=where / "coverage-reports.log",
        preexec=Limits().apply,
    )


def coverage_totals(
    where: Path, repo: Path, data: list[Path], reports: bool = False
) -> dict | None:
    """Combine coverage data files written by sandboxed runs into totals (None: no data).

    The data files are the project zone's output, so they are handled as data only: copied,
    without following links and within size limits, into ``where`` (a fresh folder no sandbox
    could write) together with the project's sources, and combined and reported there by the
    *harness's* interpreter in isolated mode (``-I``: no environment variables, no user site,
    no current folder on ``sys.path``), under resource limits — never by the run's environment,
    which the project could have changed. A report that fails (e.g. on a source file too big to
    parse) leaves coverage unknown for this suite and says so; it never changes a verdict.
    With ``reports``, coverage.py's Cobertura XML (``coverage.xml``) and HTML (``htmlcov/``)
    reports are written into ``where`` too, and ``reports`` in the result names them.
    """
    where.mkdir(parents=True)
    files = _take_data(where / "data", data)
    if not files:
        return None
    source = where / COVERAGE_SOURCE
    copy_tree(repo, source, SOURCE_LIMITS, ignore=("__pycache__", ".git"))
    too_big = coverage_bound.oversized(source)
    out = where / "coverage.json"
    token = secrets.token_hex(8)
    kinds = ["xml", "html"] if reports else []
    rc = _report_rc(where, repo, source, too_big)
    report = _report_child(where, _MEASURED_THEN_REPORTS, [rc, out, token], kinds, files)
    names, refused = _measured(report.output, token, files)
    files = [f for f in files if f not in refused]
    if not files:
        return {"error": f"coverage data refused: {len(refused)} file(s) not coverage.py's"}
    copies = tuple(copy_prefixes(names, repo, source))
    if copies:  # the tests ran copies of the project: its reports again, those as aliases
        (where / "combined").unlink(missing_ok=True)  # combined again, with the aliases
        rc = _report_rc(where, repo, source, too_big, copies)
        report = _report_child(where, _REPORTS, [rc, out, token], kinds, files)
    done = set(report.output.split())
    if f"json-ok-{token}" not in done or not out.is_file():
        stopped = _stopped(report, token, COVERAGE_TIMEOUT * (2 + len(kinds)))
        if stopped:  # over a bound the project's data or sources drove it to: the agent's
            return {"error": stopped, "over_bound": stopped}
        if "No data" in report.output:
            return None  # nothing of the project was imported: not an error
        return {"error": f"coverage report failed:\n{report.tail(5)}"}
    return _totals(where, too_big, refused, done if reports else None, token)


def _stopped(report: process.Completed, token: str, seconds: float) -> str | None:
    """The note of a report child stopped at a bound (its time, its memory, a signal), or None:
    the report of a project is then the agent's failure, its coverage 0."""
    said = set(report.output.split())
    if report.timed_out:
        why = f"over its time bound ({seconds:g} s)"
    elif report.returncode is not None and report.returncode < 0:
        why = f"ended by signal {-report.returncode}"
    elif f"json-memory-{token}" in said:
        why = f"over its memory bound ({size(Limits().address_space)})"
    elif f"json-recursion-{token}" in said:
        why = "nested too deep"
    else:
        return None
    return f"{COVERAGE_STEP} stopped, {why}: line and branch coverage count 0"


def _take_data(inbox: Path, data: list[Path]) -> list[Path]:
    """Copy the folders ``data`` into ``inbox`` as data (no link followed, within limits) and
    return the coverage data files among the copies, sorted."""
    inbox.mkdir()
    # coverage.py writes its data files flat into the folder: nothing deeper is taken (a tree
    # of long names hundreds of levels deep would make paths the harness cannot open)
    limits = IntakeLimits(
        max_files=10_000, max_bytes=512 << 20, max_file_bytes=256 << 20, max_depth=2
    )
    for index, source in enumerate(d for d in data if d.is_dir() and not d.is_symlink()):
        copy_tree(source, inbox / str(index), limits)
    files = []
    for folder in sorted(p for p in inbox.iterdir() if p.is_dir()):
        with os.scandir(folder) as entries:
            files += [
                Path(e.path)
                for e in entries
                if e.name.startswith("data") and e.is_file(follow_symlinks=False)
            ]
    files.sort()
    return files


def _totals(
    where: Path, too_big: list[str], refused: list[Path], done: set | None, token: str
) -> dict:
    """The suite's coverage record from the JSON report's totals (:data:`TOTALS_FILE`): the
    totals, the files left out, the data files refused and, if reports were asked for
    (``done``: the report child's words), the reports that were written."""
    try:  # the child's few lines, read bounded all the same
        totals = read_json(where, TOTALS_FILE, max_bytes=1 << 16)
    except AgentFileError as exc:
        return {"error": f"coverage report failed: {exc}"}
    if not isinstance(totals, dict):
        return {"error": f"coverage report failed: no {TOTALS_FILE}"}
    found = {
        "statements": totals.get("num_statements", 0),
        "covered_lines": totals.get("covered_lines", 0),
        "branches": totals.get("num_branches", 0),
        "covered_branches": totals.get("covered_branches", 0),
    }
    if too_big:
        found["omitted"] = coverage_bound.omitted_record(too_big)
    if refused:  # the project zone's forgeries: the other files' coverage, and a count
        found["refused_data_files"] = len(refused)
    if done is not None:
        targets = {"xml": COVERAGE_XML, "html": f"{COVERAGE_HTML}/index.html"}
        found["reports"] = {
            kind: str(where / target)
            for kind, target in targets.items()
            if f"{kind}-ok-{token}" in done and (where / target).is_file()
        }
    return found


def _check_tools(venv_python: Path, *, web: bool) -> None:
    """Raise InfrastructureError when the run's environment lacks a test tool.

    Decided from the environment the harness built, before the run, never from what the test
    run prints (which the project controls).
    """
    names = (*_TOOLS, *(_WEB_TOOLS if web else _COVERAGE_TOOLS))
    sites = list((venv_python.parent.parent / "lib").glob("python*/site-packages"))
    missing = [n for n in names if not any((site / n).exists() for site in sites)]
    if missing or not (PROBE_DIR / f"{PROBE_PLUGIN}.py").is_file():
        raise InfrastructureError(
            "tests",
            f"the test environment {venv_python.parent.parent} lacks "
            f"{', '.join(missing) or 'the probe'}: rebuild it (--e2e-rerun)",
        )


def own_tests(repo: Path) -> tuple[list[Path], str | None]:
    """The agent's own test modules in its repository, and a note when the index of them
    stopped at a bound (then every test-named module counts: :func:`.bounded_test_modules`).

    A module of a package whose name only looks like a test (``pkg/test_utils.py`` with no
    test in it) is code, not a test.
    """

    found = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in ("__pycache__", "venv", ".venv", "build", "dist", "node_modules")
        )
        found += [Path(dirpath, f) for f in sorted(filenames) if is_test_module(Path(f))]
    kept, note = bounded_test_modules(repo, [path.relative_to(repo) for path in found])
    return [repo / rel for rel in kept], note


def run_suite(
    name: str,
    *,
    tests: Path | None,
    venv_python: Path,
    repo: Path,
    eval_dir: Path,
    timeout: float,
    test_timeout: float,
    sandbox: Sandbox,
    web: dict[str, str] | None = None,
    network: bool = False,
    vendored: list | None = None,
    may_skip: frozenset[str] = frozenset(),
    honeypots: bool = True,
    settings: TestSettings | None = None,
    deselect: tuple[str, ...] = (),
    browser: dict[str, str] | None = None,
    recorded: list[dict] | None = None,
    written: bool = False,
    requires: tuple[str, ...] = (),
    sides: list[str] | None = None,
    seed: int | None = None,
) -> dict | None:
    """Run one suite and return what happened (JSON-able), or None if it has no tests.

    ``tests`` is the folder of (migrated) reference tests for a harness-owned suite, or None for
    the agent's own tests in ``repo``. ``web`` (the environment of a web task's run: where the
    browser is) runs Gherkin scenarios against the app served from ``repo`` (no coverage).
    ``network`` lets a web app reach the internet; ``vendored`` (:class:`.vendor.Vendored`):
    CDN files served in the app's place (a read-only copy). A harness-owned suite of Python
    tests gets honeypot tests (:mod:`.honeypot`; never copies of the tests in ``may_skip``),
    and its results are cross-checked (:mod:`.tamper`): what contradicts them is in
    ``tamper_evidence``, the honeypots' records in ``honeypots``. ``honeypots=False`` plants
    none: for tests an agent wrote, whose weak assertions a honeypot could not make fail.
    ``recorded`` (the reference's values for new inputs, :mod:`.planting.values`) plants decoy
    and honeypot pairs (:func:`.planting.twins.plant_twins`); else copies, one value changed.
    ``written``: the tests are an agent's and ``repo`` the reference (the probe's audit hook
    guards the code under test). ``settings`` (a harness-owned Python suite): the task's
    ``[tests]`` fields (:mod:`.testconf`);
    ``deselect`` the node ids of tests the task excludes. ``browser`` (where Chromium is) is for
    tests that drive one themselves; ``requires`` the task's own test libraries (both ``[tests]``).
    ``sides``: where the reference's value met a literal as an object (``e2ebench_sides``);
    ``seed``: the planting's (:func:`.planting.values.seed`; else a fresh one).
    """
    _check_tools(venv_python, web=web is not None)
    suite, work, config_dir = _suite_dirs(eval_dir / name)
    run = _Run(cwd=repo, readable=[venv_python.parent.parent, repo, PROBE_DIR, config_dir])
    common = _common_args(test_timeout, web is not None)
    paths = (venv_python, repo, suite, work, config_dir)
    if tests is not None:
        chosen = dict(honeypots=honeypots, may_skip=may_skip, deselect=deselect, requires=requires)
        chosen.update(recorded=recorded, written=written, browser=browser, sides=sides, seed=seed)
        _harness_suite(run, tests, paths, common, web=web, settings=settings, **chosen)
    elif not _own_suite(run, repo, common):
        return None
    done, probe = _run_in_sandbox(run, paths, sandbox, timeout, web, browser, network, vendored)
    return _suite_result(name, done, probe, run, tests, web, repo, eval_dir, suite)


def _own_suite(run: _Run, repo: Path, common: list[str]) -> bool:
    """The project's own tests, as it wrote them (#48): from its folder with no path given, so
    that its ini's ``testpaths`` apply (pysemver's docs doctests read a namespace its
    ``tests/conftest.py`` sets: 45 of 379 failed when pytest was given the folder), and its
    ini's pytest-cov options accepted and ignored (the harness measures coverage itself).
    False: the project defines no test (:func:`own_tests`), there is no such suite."""
    found, run.over_bound = own_tests(repo)
    if not found:
        return False
    nocov = ["-p", "no:pytest_cov", "-p", NOCOV_PLUGIN]
    run.args = ["--rootdir", str(repo), *common, *nocov]
    run.trusted = [repo]
    return True


def _run_in_sandbox(
    run: _Run,
    paths: tuple[Path, Path, Path, Path, Path],
    sandbox: Sandbox,
    timeout: float,
    web: dict[str, str] | None,
    browser: dict[str, str] | None,
    network: bool,
    vendored: list | None,
) -> tuple:
    """Launch the suite (:func:`_launch`) and run it with the probe: what the sandbox says, and
    the probe's verified records. ``paths`` as for :func:`_launch`."""
    if run.mode[0] == split.SPLIT:
        return _run_split(run, paths, sandbox, timeout)
    command, writable, env, sandbox = _launch(run, paths, sandbox, web, browser, network, vendored)
    suite = paths[2]
    return _run_probed(sandbox, [*command, *run.args], suite, run, env, timeout, writable, network)


def _run_split(run: _Run, paths: tuple, sandbox: Sandbox, timeout: float) -> tuple:
    """The suite in a process without the project, the project in one without the suite
    (:mod:`.split`); coverage is measured in the project's."""
    venv_python, repo, suite, work, config_dir = paths
    host_home = suite / "host"
    for folder in (host_home, suite / "coverage"):
        folder.mkdir()
    tools = split.tools_view(venv_python, config_dir / "tools", run.requires)
    with split.scratch(sandbox, suite / "shared") as shared:
        folders = [shared]
        if run.cwd != suite:  # [tests] cwd = "project": both processes in one copy of it
            run.cwd = split.shared_copy(run.cwd, shared)
            folders.append(run.cwd)
        env = project_env(venv_python, work / "home")
        # the links to the test tools are the tools' (pytest_timeout.py's frames among them)
        env["E2EBENCH_PROBE_TRUSTED"] = os.pathsep.join(map(str, [*run.trusted, tools]))
        env.update(run.env, TMPDIR=str(shared))
        env.update(split.guard_env([*folders[1:], repo]))
        rc = _coveragerc(config_dir, repo, suite / "coverage" / "data", [Path("/tmp"), *folders])
        box = sandbox
        if run.browser is not None:  # the tests start Chromium: found through the environment
            env.update(run.browser)
            box = _unlimited_address_space(sandbox)  # the suite's process, not the project's
        host = split.Host(
            sandbox,
            split.host_command(venv_python, rc),
            cwd=run.cwd,
            env=split.host_env(venv_python, host_home, shared, run.task_env),
            timeout=timeout,
            log=suite / "host.log",
            writable=[suite / "coverage", host_home],
            readable=[venv_python.parent.parent, repo, PROBE_DIR, config_dir, *run.data],
            shared=folders,
            served=run.browser is not None,
        )
        command = [*split.parent_command(venv_python, tools), *run.args]
        return _run_probed(box, command, suite, run, env, timeout, [work], False, host)


def _launch(
    run: _Run,
    paths: tuple[Path, Path, Path, Path, Path],
    sandbox: Sandbox,
    web: dict[str, str] | None,
    browser: dict[str, str] | None,
    network: bool,
    vendored: list | None,
) -> tuple[list[str], list[Path], dict[str, str], Sandbox]:
    """The suite's command, what it may write, its environment and its sandbox.

    ``paths``: the test environment's interpreter, the repository, the suite's folder, its
    ``work`` and ``config`` folders."""
    venv_python, repo, suite, work, config_dir = paths
    env = project_env(venv_python, work / "home")
    # where the probe accepts hook implementations from besides the test tools: conftest.py
    # files of the harness's tests (and the plugins the task declared, installed by the
    # harness with the test tools), or of the agent's own tests in its own suite
    env["E2EBENCH_PROBE_TRUSTED"] = os.pathsep.join(map(str, run.trusted))
    env.update(run.env)
    if web is None and browser is not None:
        # tests that drive Chromium (ProjectEval's websites, #17): as for web tasks, the browser
        # is found through the environment and gets no address-space limit
        env.update(browser)
        sandbox = _unlimited_address_space(sandbox)
    if web is None:
        command, writable = _coverage_command(venv_python, env, repo, suite, work, config_dir)
    else:
        writable = [work, suite / "artifacts"]
        command = [str(venv_python), "-m", "pytest"]
        _web_env(env, run, web, repo, suite, network, vendored)
        # Chromium reserves far more address space than it uses: no address-space limit.
        sandbox = _unlimited_address_space(sandbox)
    return command, writable, env, sandbox


def _suite_dirs(suite: Path) -> tuple[Path, Path, Path]:
    """The suite's folder, its ``work`` and its ``config`` folders, made.

    The tests write only to ``work`` (home, the probe's results), ``coverage`` and
    ``artifacts``. The tests and the ini file stay read-only in the harness's folders: a
    project must not rewrite the test modules pytest has not imported yet.
    """
    work = suite / "work"
    (work / "home").mkdir(parents=True)
    (suite / "config").mkdir()
    return suite, work, suite / "config"


@dataclasses.dataclass
class _Run:
    """What one suite's pytest run is given: its arguments, folder, what it may read, whose
    hooks the probe trusts, extra environment, and the honeypots planted in it."""

    cwd: Path
    readable: list[Path]
    args: list[str] = dataclasses.field(default_factory=list)
    trusted: list[Path] = dataclasses.field(default_factory=list)
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    planted: list[str] = dataclasses.field(default_factory=list)
    originals: dict[str, str] = dataclasses.field(default_factory=dict)
    decoys: list[str] = dataclasses.field(default_factory=list)
    anchors: list[str] = dataclasses.field(default_factory=list)  # public tests with twins
    seed: int | None = None
    sealed: tuple[Path, str] | None = None  # tests inside a writable folder, and their digest
    mode: tuple[str, str] = (
        "inprocess",
        "the agent's own tests",
    )  # verdict mode (:mod:`.split`) and why
    task_env: dict[str, str] = dataclasses.field(default_factory=dict)  # [tests] env
    data: list[Path] = dataclasses.field(default_factory=list)  # [tests] data, as laid out
    requires: tuple[str, ...] = ()  # [tests] requires: linked into the split suite's process
    browser: dict[str, str] | None = None  # [tests] browser: where Chromium is
    over_bound: str | None = None  # the index of the agent's own tests stopped at a bound


def _common_args(test_timeout: float, web: bool) -> list[str]:
    """The pytest arguments of every suite: the probe, the per-test timeout, quiet output."""
    plugins = ["-p", WEB_PLUGIN, "-p", "pytest_bdd.plugin"] if web else []
    return [
        *plugins,
        "-p",
        PROBE_PLUGIN,
        "-p",
        "pytest_timeout",
        "-p",
        "no:cacheprovider",
        f"--timeout={test_timeout:g}",
        "--timeout-method=signal",
        "-q",
        "--no-header",
        "-rN",
        "--color=no",
    ]


def _harness_suite(run: _Run, tests: Path, paths: tuple, common: list[str], **chosen) -> None:
    """A harness-owned suite: the tests copied in (honeypots planted among Python tests), the
    task's ``[tests]`` settings applied, the probe told which code is the suite's. ``paths``:
    the venv python, repository, suite, work and config folders (as for :func:`_launch`)."""
    venv_python, repo, suite, work, config_dir = paths
    web, settings = chosen["web"], chosen["settings"]
    honeypots, may_skip, deselect = chosen["honeypots"], chosen["may_skip"], chosen["deselect"]
    settings = settings if web is None and settings is not None else TestSettings()
    run.mode = split.mode(tests=tests, web=web, settings=settings, **_modal(chosen))
    run.requires, run.browser = tuple(chosen["requires"]), chosen["browser"]
    extra = testconf.prepare_run(settings, venv_python, repo, suite, work)
    here = extra.tests  # suite/tests, or tests/ of the run's copy (rootdir_writable)
    shutil.copytree(tests, here, ignore=_IGNORE)
    if web is None and honeypots:
        _planted_into(run, here, frozenset(may_skip), deselect, chosen)
    if run.mode[0] == split.SPLIT and chosen["sides"] is not None:
        # where the suite's process alone reads it: the project's process cannot see work/
        (work / "sides.json").write_text(json.dumps(chosen["sides"]), encoding="utf-8")
        run.env[split.SIDES_ENV] = str(work / "sides.json")
    if settings.rootdir_writable:
        # inside a folder the run writes: read-only by the sandbox's binds, and checked after
        run.sealed = (here, tree_digest(here))
    (config_dir / "pytest.ini").write_text(settings.ini_text(INI))
    # e2ebench_pv: the pv fixture of ProjectEval-style tasks (fixtures only, no hooks)
    pv = ["-p", PV_PLUGIN] if web is None else []
    run.readable.append(here)
    run.trusted = [here]
    if web is not None:
        # the scenarios' plain test modules, which the web plugin collects under the feature
        # files' node ids; read-only in the run, as the tests are
        index = features.write_scenario_modules(here, suite / "scenarios")
        run.readable.append(index.parent)
        run.env[features.SCENARIOS_ENV] = str(index.parent)
    run.cwd = extra.cwd
    run.readable += extra.readable
    run.data, run.task_env = list(extra.readable), dict(extra.env)
    # from another working directory the tests are named by their path (ids stay relative
    # to the root folder, the one holding tests/)
    where = "tests" if run.cwd == here.parent else str(here)
    run.args = [
        *("-c", str(config_dir / "pytest.ini"), "--rootdir", str(here.parent)),
        *common,
        *pv,
        *extra.args,
        *(f"--deselect={n}" for n in deselect),
        where,
    ]
    if web is None:
        # the plugins the task declared, installed by the harness with the test tools
        run.trusted += list(extra.trusted)
        # the suite's own helper modules are the suite's, whatever files the project has
        run.env[finder.SUITE_ENV] = finder.suite_modules(here)
        # compiled by the probe before the project is imported: every test must run that code
        run.env["E2EBENCH_PROBE_SUITE"] = str(here)
        if chosen["written"]:  # an agent's tests; the code under test (the reference) is guarded
            run.env["E2EBENCH_PROBE_UNDER_TEST"] = str(repo)
        run.env.update(extra.env)


def _planted_into(run: _Run, here: Path, may_skip, deselect, chosen: dict) -> None:
    """Plant the run's decoys and honeypots into the suite's copy ``here`` (its seed drawn
    when the run has none): a deselected test never runs, so it anchors no twin."""
    run.seed = secrets.randbits(64) if chosen["seed"] is None else chosen["seed"]
    rng = random.Random(run.seed)
    exclude = may_skip | {base_nodeid(n) for n in deselect}
    run.originals, run.decoys, run.anchors = _plant(here, rng, exclude, chosen["recorded"])
    run.planted = sorted({*run.originals, *run.decoys})


def _modal(chosen: dict) -> dict:
    return {k: chosen[k] for k in ("written", "requires")}


def tree_digest(root: Path, max_entries: int = 20_000) -> str:
    """SHA-256 over a folder's entries (path, kind, bytes), never following a link, each file
    read bounded (the folder may be one a project could write): what a run must leave as the
    harness made it."""
    digest = hashlib.sha256()
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in [*sorted(filenames), *dirnames]:
            count += 1
            if count > max_entries:
                return "too many entries"
            rel = Path(dirpath, name).relative_to(root)
            try:
                mode = os.lstat(root / rel).st_mode
                data = read_beneath(root, rel, 64 << 20) if stat.S_ISREG(mode) else b""
            except (OSError, ValueError) as exc:
                return f"unreadable {rel}: {exc}"
            digest.update(f"{rel.as_posix()}\0{stat.S_IFMT(mode)}\0".encode())
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _coverage_command(venv_python, env, repo, suite, work, config_dir):
    """pytest under coverage for a Python suite, and the folders the run may write."""
    copies = sorted({Path("/tmp"), Path(env.get("TMPDIR") or "/tmp"), work})
    rc = _coveragerc(config_dir, repo, suite / "coverage" / "data", copies)
    command = [str(venv_python), "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest"]
    return command, [work, suite / "coverage"]


def _unlimited_address_space(sandbox: Sandbox) -> Sandbox:
    return dataclasses.replace(
        sandbox,
        limits=dataclasses.replace(sandbox.limits, address_space=resource.RLIM_INFINITY),
    )


def _web_env(env: dict, run: _Run, web: dict, repo: Path, suite: Path, network, vendored):
    """A web suite's environment: where the browser and the app are, the CDN files served."""
    env.update(
        web,
        E2EBENCH_APP_DIR=str(repo),
        E2EBENCH_ARTIFACTS=str(suite / "artifacts"),
        E2EBENCH_WEB_NETWORK="1" if network else "0",
    )
    if vendored:
        materialize(vendored, suite / "vendor")
        run.readable.append(suite / "vendor")
        env["E2EBENCH_VENDOR_DIR"] = str(suite / "vendor")


def _run_probed(sandbox, command, suite, run: _Run, env, timeout, writable, network, host=None):
    """Run the suite in the sandbox with the probe: what the sandbox says, and the probe's
    verified records. ``host``: the project's process of a split run (:class:`.split.Host`),
    started beside it, given its end of the channel."""
    key = secrets.token_hex(32)
    # The key travels through a pipe the probe reads and closes before the project is
    # imported: it is never in the environment (nor in /proc/<pid>/environ).
    key_fd, write_fd = os.pipe()
    os.write(write_fd, key.encode())
    os.close(write_fd)
    env["E2EBENCH_PROBE_KEY_FD"] = str(key_fd)
    # The records come back live through a pipe into a file of the harness's (outside what the
    # run can write): lines already read cannot be rewritten from inside the run at its end.
    with _ProbePipe(suite / "probe.jsonl") as results, host or contextlib.nullcontext():
        env["E2EBENCH_PROBE_OUT_FD"] = str(results.write_fd)
        channel = () if host is None else host.fds
        env.update({} if host is None else host.env)
        try:
            # Generated code runs here: sandboxed, writing only to ``writable``, no network.
            done = sandbox.run(
                command,
                cwd=run.cwd,
                env=env,
                timeout=timeout,
                log=suite / "pytest.log",
                writable=writable,
                readable=run.readable,
                network=network,
                pass_fds=(key_fd, results.write_fd, *channel),
                shared=() if host is None else host.shared,
                netns=None if host is None else host.suite_netns,
            )
        finally:
            os.close(key_fd)
    if host is not None and host.done is not None and host.done.contained:
        done = dataclasses.replace(done, contained=(*done.contained, *host.done.contained))
    return done, parse_probe(results.data, key, odd=results.odd)


def _suite_result(name, done, probe, run: _Run, tests, web, repo, eval_dir, suite) -> dict:
    """The suite's record: its status, the probe's tests cross-checked, its coverage."""
    if done.timed_out:
        status = "timeout"
    elif done.stopped:
        status = done.stopped  # e.g. "disk_quota": the watchdog stopped the run
    elif probe["exitstatus"] is None:
        status = "crashed"
    else:
        status = "completed"
    # Signed: the web plugin's, not the app's; but only a run with a browser has a web plugin,
    # and a Python project that found the probe's key signed one (a harness error, out of the
    # mean, instead of the project's failure)
    if web is not None and probe.get("web", {}).get("browser_error"):
        raise InfrastructureError("browser", probe["web"]["browser_error"])
    if tests is not None:
        probe["tamper_evidence"] = tamper.evidence(
            probe, returncode=done.returncode, timed_out=done.timed_out, honeypots=run.originals
        )
        if web is None and probe.get("web"):
            probe["tamper_evidence"].append("a browser's record in a run without a browser")
        if run.sealed is not None and tree_digest(run.sealed[0]) != run.sealed[1]:
            probe["tamper_evidence"].append(
                f"the suite's tests in {run.sealed[0].name}/ changed during the run"
            )
        probe["tests"], caught = honeypot.split(probe["tests"], run.planted)
        probe["honeypots"] = {
            "seed": run.seed,
            "planted": run.planted,
            "originals": run.originals,
            "decoys": run.decoys,
            "anchors": run.anchors,
            "tests": [{k: t.get(k) for k in ("nodeid", "outcome")} for t in caught],
            # evidence shown, not a verdict: a decoy is a test no task author reviewed
            "decoys_failed": sorted(
                t["nodeid"]
                for t in caught
                if base_nodeid(t["nodeid"]) in run.decoys and t.get("outcome") not in PASSING
            ),
        }
    probe["collected"] = None if probe["collected"] is None else len(probe["collected"])
    if tests is None:  # the project's own suite: why it never started, if it did not, and
        probe["start_error"] = _start_error(done, probe)
        probe["over_bound"] = run.over_bound  # the bound its index stopped at (None: none)
    return {
        "status": status,
        "verdict_mode": run.mode[0],
        "verdict_reason": run.mode[1],
        "returncode": done.returncode,
        "duration_s": round(done.duration_s, 3),
        "output_truncated": done.truncated,
        # what the sandbox itself stopped (e.g. disk_quota): harness facts, not output
        "contained": list(done.contained),
        "coverage": {"error": WEB_COVERAGE}
        if web is not None
        else coverage_totals(
            eval_dir / f"{name}-coverage", repo, [suite / "coverage"], reports=name == "extended"
        ),
        **probe,
    }


_ERROR_LINE = re.compile(r"\b\w*(Error|Exception)\b: |: error: ")


def _start_error(done, probe: dict) -> str:
    """Why a suite ran no test (pytest's exit status and its first error line), or "": a
    usage error (exit 4: an ini option of a plugin that is not installed), an internal
    error (3), an interruption (2) or no end at all. The text is the project's output: cut."""
    if probe["tests"] or probe["exitstatus"] in (0, 1, 5) or done.timed_out:
        return ""
    lines = done.output.splitlines()
    named = [x for x in lines if _ERROR_LINE.search(x)]  # "E   ModuleNotFoundError: ..."
    said = [x for x in lines if "error" in x.lower() and "usage:" not in x and "===" not in x]
    first = (named or said or lines or [""])[0]  # not the usage, not a banner
    return f"pytest exit status {done.returncode}: {first.strip()[:200]}"


def _plant(
    tests: Path,
    rng: random.Random,
    exclude: frozenset[str],
    recorded: list[dict] | None,
) -> tuple[dict[str, str], list[str], list[str]]:
    """Plant into ``tests``: (each honeypot's node id with the node id of the test that makes
    its pass a contradiction, the planted decoys' node ids, the public tests among those
    tests). Anchored crossings where the reference's values were recorded (each honeypot's
    decoy a planted test or a public one, which keeps counting), else copies of real tests
    with one value changed (their originals are public too, but not planted beside twins)."""
    if recorded:
        planted = twins.plant_twins(tests, rng, recorded, exclude=exclude)
        if planted.pairs:
            return planted.pairs, planted.decoys, planted.anchors
    return honeypot.plant_pairs(tests, rng, exclude=exclude), [], []


def _scenarios(task, tests: Path, kwargs: dict) -> dict | None:
    """A web task's reference scenarios, run against its app in a browser."""
    web, vendored = browser_binaries(), read_manifest(task.root)
    return run_suite(
        "extended", tests=tests, web=web, network=task.network, vendored=vendored, **kwargs
    )


def run_all(
    task,
    tests: Path,
    venv_python: Path,
    repo: Path,
    eval_dir: Path,
    timeout: float,
    sandbox: Sandbox,
    progress=None,
    **planting,
) -> dict:
    """The ``extended`` and ``original`` suites, and the coverage of both together.
    ``planting``: :func:`run_suite`'s ``recorded`` (the reference's values for the decoy and
    honeypot pairs, :mod:`.planting`), ``sides`` and ``seed``, for the extended suite.
    ``progress`` (the run's callback) hears which suite runs, of how many."""
    say = progress if progress is not None else lambda info: None
    kwargs = dict(
        venv_python=venv_python,
        repo=repo,
        eval_dir=eval_dir,
        timeout=timeout,
        test_timeout=task.test_timeout,
        sandbox=sandbox,
    )
    if task.kind == "web":  # only the reference scenarios: an agent's own tests are not run
        say({"doing": "running the reference scenarios in a browser"})
        return {"extended": _scenarios(task, tests, kwargs), "original": None, "all_coverage": None}
    suites = 2 if own_tests(repo) else 1
    say({"doing": f"running the reference tests (suite 1 of {suites}, then its coverage)"})
    extended = run_suite(
        "extended",
        tests=tests,
        may_skip=skips.may_skip(task),
        settings=task.settings,
        requires=task.test_requires,
        deselect=testconf.suite_nodeids(task),
        browser=browser_binaries() if getattr(task, "browser", False) else None,
        **planting,
        **kwargs,
    )
    if suites == 2:
        say({"doing": "running the project's own tests (suite 2 of 2, then its coverage)"})
    original = run_suite("original", tests=None, **kwargs)
    union = None
    if original is not None:
        say({"doing": "combining the two suites' coverage"})
        # both suites' raw data files together
        union = coverage_totals(
            eval_dir / "all",
            repo,
            [eval_dir / "extended" / "coverage", eval_dir / "original" / "coverage"],
        )
    return {"extended": extended, "original": original, "all_coverage": union}
