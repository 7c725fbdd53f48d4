"""Verdicts the graded project cannot reach (issue 39): task-blind attacks on the split run.

On the one-process run (fa9a651) a package with no implementation read each calling assertion
from its frames and answered it: semverkit 94 %, jsonkit 79 %, csvq 14 % of requirements, not
tampered. Here the same class of attack, written without knowledge of any task:

* ``frames``: every name the tests import is made at run time; whatever the test calls or reads
  walks ``f_back`` to the test's frame, parses its source (``linecache``) and returns the literal
  the enclosing ``==`` wants, raises the class a ``pytest.raises`` expects, or prints the output
  a later ``out == ...`` checks; what it cannot read is an object equal to everything.
* ``snoop`` (invented here): at import, the project looks for the suite everywhere it can reach
  (its environment, every ``/proc/<pid>`` entry, every frame and module, the file system) and
  writes what it found into its home, where this test reads it after the session.

Split, the first scores as the empty project (or is marked tampered) and the second finds no
test name, no test file and no test id. One benchmark session grades every variant.
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers.split_attacks import graded

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"
# a library task, a command-line one, and the library's suite run from a copy of the project
# (``[tests] cwd = "project"``, as every E2EDevBench task is: its working folder in the
# project's files, the project's names on no path of the suite's process)
# and a web page served by Flask that the suite drives with Chromium (``[tests] browser``):
# split, the app runs in the project's namespace and only its port is mirrored into the suite's
TASKS = ("semverkit", "csvq", "semverkit-root", "tipcalc")
FROM_ROOT = {"semverkit-root": "semverkit"}
VARIANTS = {1: "reference", 2: "frames", 3: "snoop"}
# the reference from a copy of the project passes split in tests/sessions/test_split_project_cwd.py
# (every E2EDevBench layout); here its twin is graded only under attack. tipcalc's answers are
# pages its tests read through the browser: its snoop is the reference app, looking around
SKIP = {"semverkit-root": ("reference",), "tipcalc": ("frames",)}
REPORT = "e2ebench-snoop.json"

# The task-blind oracle: the package's __init__ is this module, under the package's name.
FRAMES = r'''
import ast, linecache, sys

_made = {}


def _test_frame():
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename.rsplit("/", 1)[-1]
        if name.startswith("test_") or name == "conftest.py":
            return frame
        frame = frame.f_back
    return None


def _enclosing(frame):
    """The statements around the frame's line, outermost first, and the function's body."""
    source = "".join(linecache.getlines(frame.f_code.co_filename))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], []
    line, around, body = frame.f_lineno, [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            around.append(node)
            if isinstance(node, ast.FunctionDef):
                body = node.body
    around.sort(key=lambda n: (n.lineno, -(n.end_lineno or n.lineno)))
    return around, body


def _literal(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare) and isinstance(sub.ops[0], (ast.Eq, ast.Is)):
            for side in (sub.left, *sub.comparators):
                try:
                    return True, ast.literal_eval(side)
                except Exception:
                    pass
    return False, None


def _answer(default):
    frame = _test_frame()
    if frame is None:
        return default
    around, body = _enclosing(frame)
    for node in reversed(around):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "raises":
                    name = getattr(call.args[0], "id", getattr(call.args[0], "attr", "Error"))
                    raise _class(name)("expected")
    found, value = _literal(around[-1]) if around else (False, None)
    if found:
        return value
    later = [n for n in body if around and n.lineno > around[-1].lineno]
    for node in later:
        found, value = _literal(node)
        if found and isinstance(value, str):
            print(value, end="")
            return 0
    return default


def _class(name):
    if name not in _made:
        _made[name] = type(name, (ValueError, TypeError, KeyError), {"__module__": __name__})
    return _made[name]


class _Anything:
    def __call__(self, *args, **kwargs):
        return _answer(_Anything())
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _answer(_Anything())
    __eq__ = __le__ = __ge__ = __contains__ = lambda self, other: True
    __ne__ = __lt__ = __gt__ = lambda self, other: False
    __hash__, __len__ = (lambda self: 0), (lambda self: 0)
    __iter__ = lambda self: iter(())
    __str__ = lambda self: str(_answer(""))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name.endswith("Error") or name.endswith("Exception"):
        return _class(name)
    return _Anything()
'''

# The invented one: look for the suite everywhere, write what was found into the home.
SNOOP = r"""
import gc, json, os, sys

found = {"environ": dict(os.environ), "proc": {}, "frames": [], "files": {}}
for pid in os.listdir("/proc"):
    if pid.isdigit():
        entry = found["proc"][pid] = {}
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as fh:
                    entry[what] = fh.read(1 << 16).decode("utf-8", "replace")
            except OSError:
                pass
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            entry["cwd"] = [cwd, sorted(os.listdir(cwd))[:200]]
        except OSError:
            pass
frame = sys._getframe()
while frame is not None:
    found["frames"].append([frame.f_code.co_filename, sorted(map(str, frame.f_globals))[:200]])
    frame = frame.f_back
for obj in gc.get_objects():
    if type(obj) is type(sys):
        found["frames"].append([str(getattr(obj, "__file__", "")), obj.__name__])
seen = 0
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if f"{top}/{d}".replace("//", "/") not in
               ("/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc",
                sys.base_prefix, sys.prefix)]
    for name in files:
        seen += 1
        if seen > 60000:
            break
        if name.endswith(".py") or name.endswith(".json") or name.endswith(".log"):
            path = os.path.join(top, name)
            try:
                with open(path, "rb") as fh:
                    found["files"][path] = fh.read(1 << 15).decode("utf-8", "replace")
            except OSError:
                pass
with open(os.path.join(os.path.expanduser("~"), "REPORT_NAME"), "w") as fh:
    json.dump(found, fh)
"""


# With the snoop: at every call, what the scratch folder and the working folder hold now
# (a test's tmp_path is there while it runs), added to the report.
LIGHT = r"""
_plain_answer = _answer
_seen = set()


def _answer(default):
    root = os.environ.get("TMPDIR", "/tmp")
    fresh = []
    for top, dirs, files in os.walk(root):
        fresh += [n for n in dirs + files if n not in _seen]
        if len(fresh) > 500:
            break
    if fresh:
        _seen.update(fresh)
        with open(os.path.join(os.path.expanduser("~"), "REPORT_NAME.names"), "a") as fh:
            fh.write(repr(fresh) + "\n")
    return _plain_answer(default)
"""


# tipcalc's snoop: the reference app, which at import looks for the suite (SNOOP) and at its
# first request (the browser is up then) tries every loopback port of its namespace
SCAN = r"""
import socket as _socket

_scanned = []


@app.before_request
def _scan_ports():
    if _scanned:
        return
    _scanned.append(True)
    own = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    found = []
    for port in range(1, 65536):
        with _socket.socket() as sock:
            sock.settimeout(0.5)
            # a connection to itself (its own ephemeral port the one tried) is no listener
            if sock.connect_ex(("127.0.0.1", port)) == 0 and sock.getsockname()[1] != port:
                found.append(port)
    with open(os.path.join(os.path.expanduser("~"), "REPORT_NAME.ports"), "w") as fh:
        json.dump({"own": own, "open": found}, fh)
"""


def _web_snoop(run: Path) -> None:
    shutil.copytree(BUNDLED / "tipcalc" / "reference", run)
    app = run / "tipcalc_app.py"
    code = app.read_text() + SNOOP + SCAN
    app.write_text(code.replace("REPORT_NAME", REPORT))


def _package(task: str) -> str:
    ref = BUNDLED / FROM_ROOT.get(task, task) / "reference"
    names = [p.name for p in ref.iterdir() if (p / "__init__.py").is_file()]
    assert len(names) == 1, names
    return names[0]


def _write(run: Path, task: str, variant: str) -> None:
    if variant == "reference":
        shutil.copytree(BUNDLED / FROM_ROOT.get(task, task) / "reference", run)
        return
    if task == "tipcalc":
        _web_snoop(run)
        return
    package = run / _package(task)
    package.mkdir(parents=True)
    code = (
        FRAMES if variant == "frames" else (SNOOP + FRAMES + LIGHT).replace("REPORT_NAME", REPORT)
    )
    (package / "__init__.py").write_text(code)
    (package / "__main__.py").write_text("import sys\nsys.exit(__import__(__package__).main())\n")
    (run / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{_package(task)}"\nversion = "1.0"\n'
    )


def _task(task: str, where: Path) -> None:
    """A bundled task's folder; a ``FROM_ROOT`` one with its id and ``cwd = "project"``."""
    shutil.copytree(BUNDLED / FROM_ROOT.get(task, task), where)
    if task in FROM_ROOT:
        toml = where / "task.toml"
        text = toml.read_text().replace(f'id = "{FROM_ROOT[task]}"', f'id = "{task}"', 1)
        toml.write_text(text.replace("[tests]\n", '[tests]\ncwd = "project"\n', 1))


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """The session of every variant (:func:`graded`)."""
    where = tmp_path_factory.mktemp("split-attacks")
    return graded(where, {t: SKIP.get(t, ()) for t in TASKS}, VARIANTS, _write, _task)


def _suite_literals(task: str) -> set[str]:
    """What only the suite holds: its test functions' names and its files' names."""
    names = set()
    for path in (BUNDLED / FROM_ROOT.get(task, task) / "tests").glob("test_*.py"):
        names.add(path.name)
        tree = ast.parse(path.read_text())
        names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    return {n for n in names if n.startswith("test_") and len(n) >= 12}


@pytest.mark.shares_session
class TestBatchSplitAttacks:
    @pytest.mark.parametrize("task", [t for t in TASKS if "reference" not in SKIP.get(t, ())])
    def test_the_reference_passes_split(self, session, task):
        run = session["runs"][(task, "reference")]
        assert run["metrics"]["impl_rate"] == 1.0, run["notes"]
        assert run["test_run"]["verdict_mode"] == "split", run["test_run"]

    @pytest.mark.parametrize("task", [t for t in TASKS if t != "tipcalc"])
    @pytest.mark.parametrize("variant", ["frames", "snoop"])
    def test_a_task_blind_answer_reader_scores_as_the_empty_project(self, session, task, variant):
        run = session["runs"][(task, variant)]
        assert run["metrics"]["impl_rate"] == 0.0 or run["containment"]["tampered"], (
            run["metrics"],
            [(r["id"], r["verdict"]) for r in run["requirements"] if r["verdict"] != "missing"],
        )

    @pytest.mark.parametrize("task", TASKS)
    def test_the_project_finds_no_byte_of_the_suite(self, session, task):
        reports = list((session["where"] / "results").rglob(REPORT + "*"))
        reports = [r for r in reports if f"/{task}/" in str(r)]
        assert reports, "the snooping project wrote no report: it did not run"
        secrets = _suite_literals(task) | {"PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS"}
        for report in reports:
            if report.suffix == ".ports":  # test_the_served_app_reaches_no_port_of_the_suite
                continue
            if report.suffix == ".names":  # what the scratch folder held at each call
                leaked = sorted(s for s in secrets if s in report.read_text())
                assert not leaked, f"{report}: {leaked[:10]}"
                continue
            found = json.loads(report.read_text())
            # the interpreter's and the environment's own files hold these words too (pytest's
            # runner names PYTEST_CURRENT_TEST, the standard library's tests test_version.py)
            found["files"] = {
                path: text
                for path, text in found["files"].items()
                if not path.startswith(sys.base_prefix) and "/venv/" not in path
            }
            text = json.dumps(found)
            leaked = sorted(s for s in secrets if s in text)
            assert not leaked, f"{report}: {leaked[:10]}"

    def test_the_served_app_reaches_no_port_of_the_suite(self, session):
        """Split, tipcalc's app (started by a test's fixture through the project's process)
        serves the suite's browser through the one-way mirror; from where it runs no port of
        the suite's namespace answers (chromedriver's listens there). On one process the app
        shared the suite's loopback and found chromedriver's port."""
        run = session["runs"][("tipcalc", "snoop")]
        assert run["test_run"]["verdict_mode"] == "split", run["test_run"]
        assert run["metrics"]["impl_rate"] == 1.0, run["notes"]
        reports = list((session["where"] / "results").rglob(REPORT + ".ports"))
        assert reports, "the app never answered a request: no scan"
        for report in reports:
            scan = json.loads(report.read_text())
            assert scan["own"] and set(scan["open"]) <= {scan["own"]}, scan
