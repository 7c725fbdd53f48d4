"""Test modules forged from inside the test process are caught (issue 26, class 1).

The review's attack: a project with no implementation whose package ``__init__`` reads the
suite's test files, recognises each honeypot as a near-copy of an earlier test with one constant
changed (old + >= 1000, or old + one of the honeypot words), and puts rewritten modules into
``sys.modules`` (every body ``pass``, every honeypot ``assert False``). Before, it scored 1.0,
not tampered. Now three independent layers see it: the probe's check that every test runs the
code compiled from the suite, the audit hook, and honeypots that its recogniser cannot tell from
real tests. One benchmark session grades every variant (``dir:`` run folders).
"""

from __future__ import annotations

import ast
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.honeypot import probe_run

from pytest_e2ebench.evaluation import honeypot
from pytest_e2ebench.isolation.sandbox import resolve_mode

# The evidence layers of the one-process run (the suites that cannot run split): a split run
# keeps these attacks away from pytest, so it leaves nothing for them to catch (issue 39).
pytestmark = pytest.mark.usefixtures("inprocess_verdicts")

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"
TASKS = ("semverkit", "cronexpr")

# The attack's recogniser, as the review described it: in each scope, a test that is a copy of
# an earlier one with one constant changed, by >= 1000 or by a word of honeypot.py's list.
RECOGNISER = '''
import ast

def _shape(func):
    consts = []
    class Mask(ast.NodeTransformer):
        def visit_Constant(self, node):
            consts.append(node.value)
            return ast.Constant("#")
    body = Mask().visit(ast.Module(body=func.body, type_ignores=[]))
    return ast.dump(body), consts

def _telltale(old, new, words):
    if type(old) in (int, float) and type(new) is type(old):
        return abs(new - old) >= 1000
    if type(old) is str and type(new) is str:
        return any(new in (old + " " + w, w) for w in words)
    return False

def recognise(source, words):
    """Qualified names of the tests the attack takes for honeypots."""
    found = set()
    tree = ast.parse(source)
    scopes = [("", tree.body)]
    scopes += [(c.name + ".", c.body) for c in tree.body if isinstance(c, ast.ClassDef)]
    for prefix, body in scopes:
        seen = []
        for func in body:
            if not isinstance(func, ast.FunctionDef) or not func.name.startswith("test"):
                continue
            shape, consts = _shape(func)
            for other_shape, other_consts in seen:
                if other_shape != shape or len(other_consts) != len(consts):
                    continue
                diff = [(a, b) for a, b in zip(other_consts, consts) if a != b]
                if len(diff) == 1 and _telltale(*diff[0], words):
                    found.add(prefix + func.name)
            seen.append((shape, consts))
    return found
'''

# Every name the tests import from the package exists, and is anything they ask of it.
ANYTHING = """
def _swap():
    pass

class _Anything:
    def __call__(self, *args, **kwargs):
        _swap()
        return self
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _swap()
        return self

def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Anything()
"""

# The review's attack: rewrite every test module before pytest imports it.
REWRITE = (
    RECOGNISER
    + ANYTHING
    + """
import pathlib, sys, types

WORDS = WORDS_HERE

class _Rewrite(ast.NodeTransformer):
    def __init__(self, honeypots):
        self.honeypots, self.prefix = honeypots, ""
    def visit_ClassDef(self, node):
        self.prefix = node.name + "."
        self.generic_visit(node)
        self.prefix = ""
        return node
    def visit_FunctionDef(self, node):
        if node.name.startswith("test"):
            fail = self.prefix + node.name in self.honeypots
            node.body = [ast.parse("assert False" if fail else "pass").body[0]]
        return node

_folder = pathlib.Path(sys.argv[-1])
_folder = _folder if _folder.is_dir() else pathlib.Path("tests")
for _path in sorted(_folder.resolve().glob("test_*.py")):
    _source = _path.read_text()
    _tree = ast.fix_missing_locations(_Rewrite(recognise(_source, WORDS)).visit(ast.parse(_source)))
    _module = types.ModuleType(_path.stem)
    _module.__file__ = str(_path)
    exec(compile(_tree, str(_path), "exec"), _module.__dict__)
    sys.modules[_path.stem] = _module
"""
)

# Swaps the code of every test function, whenever a running test uses what it took from the
# package: a body of ``pass``, or ``assert False`` for the honeypots.
CODE_SWAP = (
    RECOGNISER
    + ANYTHING
    + """
import os, pathlib, sys

WORDS = WORDS_HERE

def _passes(*args, **kwargs):
    pass

def _fails(*args, **kwargs):
    assert False

def _swap():
    if "PYTEST_CURRENT_TEST" not in os.environ:  # not while pytest collects the tests
        return
    for module in list(sys.modules.values()):
        path = pathlib.Path(str(getattr(module, "__file__", "") or ""))
        if not path.name.startswith("test_") or "tests" not in path.parts:
            continue
        honeypots = recognise(path.read_text(), WORDS)
        scopes = [(module, "")]
        scopes += [(c, c.__name__ + ".") for c in vars(module).values() if isinstance(c, type)]
        for scope, prefix in scopes:
            for key, value in list(vars(scope).items()):
                if key.startswith("test") and type(value) is type(_passes):
                    fake = _fails if prefix + key in honeypots else _passes
                    try:
                        value.__code__ = fake.__code__
                    except ValueError:  # a closure
                        pass
"""
)

# Finds the probe through the garbage collector, then makes every record it writes a pass and
# drops its tamper records (the audit hook's record of the search is already out).
GC_PROBE = (
    ANYTHING
    + """
import gc, types

_probe = next(o for o in gc.get_objects()
              if isinstance(o, types.ModuleType) and o.__name__ == "e2ebench_probe")
_guard = next(o for o in gc.get_objects()
              if isinstance(o, types.ModuleType) and o.__name__ == "e2ebench_guard")
_emit = _probe._emit

def _forged(record):
    if record.get("kind") == "tamper":
        return
    if record.get("kind") == "test":
        record = {**record, "outcome": "passed", "message": ""}
    _emit(record)

_probe._emit = _forged
vars(_guard).get("_CONFIG", {})["emit"] = _forged  # a placeholder: the hook's writer is sealed
"""
)


def _attack(source: str) -> str:
    return source.replace("WORDS_HERE", repr(honeypot._VALUE_WORDS))


def _package(task: str) -> str:
    ref = BUNDLED / task / "reference"
    names = [p.name for p in ref.iterdir() if (p / "__init__.py").is_file()]
    assert len(names) == 1, names
    return names[0]


def _reference(run: Path, task: str) -> None:
    shutil.copytree(BUNDLED / task / "reference", run)


def _project(run: Path, task: str, init: str) -> None:
    (run / _package(task)).mkdir(parents=True)
    (run / _package(task) / "__init__.py").write_text(init)


# run-1 the reference (honest), then one attack per run
VARIANTS = {
    "semverkit": {1: "reference", 2: "rewrite", 3: "code-swap"},
    "cronexpr": {1: "reference", 2: "rewrite", 3: "gc-probe"},
}
ATTACKS = {"rewrite": REWRITE, "code-swap": CODE_SWAP, "gc-probe": GC_PROBE}


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """One benchmark session over every variant; its runs by (task, variant)."""
    if resolve_mode("auto")[0] != "bwrap":
        pytest.skip("needs bubblewrap (apt-get install bubblewrap)")
    where = tmp_path_factory.mktemp("honeypot-attacks")
    for task, runs in VARIANTS.items():
        for n, variant in runs.items():
            run = where / "out" / task / f"run-{n}"
            if variant == "reference":
                _reference(run, task)
            else:
                _project(run, task, _attack(ATTACKS[variant]))
    for task in TASKS:  # copied: under the checkout, its conftest.py would be collected
        shutil.copytree(BUNDLED / task, where / "tasks" / task)
    args = ["--e2e-agent=dir:out", "--e2e-tasks=tasks", "--e2e-runs=3", "-n", "2"]
    args += ["-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "--e2e-out=results", "-q"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    results = where / "results" / "results.json"
    assert results.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    runs = json.loads(results.read_text())["tasks"]
    return {(r["task"], VARIANTS[r["task"]][r["run"]]): r for r in runs}


ATTACKED = [(t, v) for t, runs in VARIANTS.items() for v in runs.values() if v != "reference"]
# what each attack must leave in the evidence (besides its score)
EXPECTED = {
    "rewrite": ("its code is not what the suite's file compiles to", "read the suite's"),
    "code-swap": ("set __code__ of function", "runs code not compiled from the suite"),
    "gc-probe": ("gc.get_objects",),
}


@pytest.mark.shares_session
class TestBatchHoneypotForgers:
    """The readers of the one session over every honeypot forger (one xdist worker runs them all)."""

    @pytest.mark.slow
    @pytest.mark.parametrize(("task", "variant"), ATTACKED, ids=[f"{t}-{v}" for t, v in ATTACKED])
    def test_a_project_that_forges_the_test_modules_is_tampered(self, session, task, variant):
        run = session[(task, variant)]
        assert run["containment"]["tampered"] is True, run["containment"]
        assert {r["verdict"] for r in run["requirements"]} == {"not_implemented"}
        assert run["metrics"]["impl_rate"] == 0.0 and run["metrics"]["pass_rate"] == 0.0
        evidence = " ".join(run["containment"]["evidence"])
        for needle in EXPECTED[variant]:
            assert needle in evidence, evidence

    @pytest.mark.slow
    @pytest.mark.parametrize("task", TASKS)
    def test_the_reference_beside_the_attacks_is_untouched(self, session, task):
        run = session[(task, "reference")]
        assert run["containment"]["tampered"] is False, run["containment"]
        assert run["metrics"]["impl_rate"] == 1.0 and run["metrics"]["pass_rate"] == 1.0


# --- the honeypots, as the attack's recogniser sees them ------------------------------------


def _python_suites() -> list[Path]:
    """The test folders of the bundled Python tasks (read as files: loading a task costs)."""
    import tomllib

    found = []
    for toml in sorted(BUNDLED.glob("*/task.toml")):
        kind = tomllib.loads(toml.read_text()).get("kind", "library")
        if kind != "web" and (toml.parent / "tests").is_dir():
            found.append(toml.parent / "tests")
    return found


def _qualname(nodeid: str) -> str:
    return ".".join(nodeid.split("::")[1:])


def _picks(tmp_path: Path, seeds: range) -> dict[str, list[bool]]:
    """For each classifier, per honeypot pair it decided (named exactly one of the two): was the
    one it named the honeypot?"""
    scope: dict = {}
    exec(RECOGNISER, scope)
    picks: dict[str, list[bool]] = {"review": [], "later": [], "public suite": []}
    for suite in _python_suites():
        public = {
            p.relative_to(suite).as_posix(): set(_test_names(p.read_text()))
            for p in suite.rglob("test_*.py")
        }
        for seed in seeds:
            tests = tmp_path / f"{suite.parent.name}-{seed}"
            shutil.copytree(suite, tests, ignore=shutil.ignore_patterns("__pycache__"))
            pairs = honeypot.plant_pairs(tests, random.Random(seed))
            modules: dict[str, tuple] = {}  # each planted module read once
            for hp, original in pairs.items():
                module = hp.split("::")[0].removeprefix("tests/")
                if module not in modules:
                    source = (tests / module).read_text()
                    flagged = scope["recognise"](source, honeypot._VALUE_WORDS)
                    modules[module] = (flagged, _test_names(source))
                flagged, names = modules[module]
                h, o = _qualname(hp), _qualname(original)
                order = [n for n in names if n in (h, o)]
                for name, named in (
                    ("review", {h, o} & flagged),
                    ("later", {order[-1]}),
                    ("public suite", {h, o} - public.get(module, set())),
                ):
                    if len(named) == 1:
                        picks[name].append(named == {h})
            shutil.rmtree(tests)
    return picks


def _test_names(source: str) -> list[str]:
    """Qualified names of the tests in a module, in the order they are defined."""
    tree = ast.parse(source) if source else ast.Module(body=[], type_ignores=[])
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            names += [f"{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)]
    return names


def test_the_attacks_value_rule_no_longer_finds_the_honeypots(tmp_path):
    """The review's rule (a copy of an earlier test with a constant moved by >= 1000 or a word
    appended) names few of the honeypots now that their values are the suite's own. What
    still names a copy, its place after the original and its absence from the public suite,
    is measured too and said in docs/sandbox.md: the probe's check of the test code and the
    audit hook are what stop a project that uses them."""
    picks = _picks(tmp_path, range(4))
    total = len(picks["later"])
    assert total >= 100, total  # every pair is ordered: enough pairs to measure
    # the values no longer tell: the review's rule named every honeypot, now few
    assert len(picks["review"]) <= 0.1 * total, (len(picks["review"]), total)
    # said, not hidden (docs/sandbox.md): a copy follows its original, and is not in the
    # public suite, so order or the set difference name it
    assert all(picks["later"]) and all(picks["public suite"])


# --- the probe's layers, in a plain pytest process ------------------------------------------

# What honest libraries do at import and under test: none of it is evidence.
HONEST = """\
import collections, dataclasses, enum, functools, inspect, logging, sys, typing

@dataclasses.dataclass(frozen=True)
class Point:
    x: int = 0
    y: int = 0

Pair = collections.namedtuple("Pair", "a b", defaults=(0,))

class Row(typing.NamedTuple):
    name: str
    size: int | None = None

class Color(enum.Enum):
    RED = 1

@functools.lru_cache
def cached(value):
    return value

def value(text):
    logging.getLogger(__name__).warning("asked for %s", text)
    try:
        raise ValueError(text)
    except ValueError:
        logging.getLogger(__name__).exception("shown with the test's source")
    here = inspect.currentframe()
    assert here is not None and inspect.stack()[0].function == "value"
    return eval(text, {"__builtins__": {}})
"""

SWAP = """\
def value(text):
    import sys
    def passes(*args, **kwargs):
        pass
    for module in list(sys.modules.values()):
        test = vars(module).get("test_it")
        if callable(test) and module.__name__ != __name__:
            test.__code__ = passes.__code__
    return 0
"""


def test_what_honest_libraries_do_is_no_evidence(pytester, monkeypatch):
    tests = (
        "import pytest\nfrom project import Pair, Point, Row, cached, value\n\n"
        "@pytest.mark.parametrize('text', ['1 + 2', '3'])\n"
        "def test_it(text):\n    assert value(text) == 3 and Point(1).x == 1\n\n"
        "class TestMore:\n    def test_more(self):\n        assert Pair(1).b == 0\n"
    )
    found = probe_run(pytester, monkeypatch, HONEST, tests)
    assert found["changed"] == []
    assert set(found["outcomes"].values()) == {"passed"} and len(found["outcomes"]) == 3


def test_a_swapped_test_function_is_seen_by_both_layers(pytester, monkeypatch):
    tests = "from project import value\n\ndef test_a():\n    assert value('x') == 1\n"
    tests += "\ndef test_it():\n    assert value('x') == 1\n"  # swapped while test_a runs
    found = probe_run(pytester, monkeypatch, SWAP, tests)
    changed = " ".join(found["changed"])
    assert "set __code__ of function test_it" in changed  # the audit hook, as it happened
    assert "tests/test_it.py::test_it: runs code not compiled from the suite" in changed
    assert found["outcomes"] == {"test_a": "failed", "test_it": "passed"}  # the swap's work


def test_a_passing_honeypot_is_evidence_only_where_its_original_passed():
    """A project with a bug may return the value a honeypot expects (one the suite expects
    elsewhere); only both passing contradicts: one expression cannot equal two values."""
    from pytest_e2ebench.evaluation import tamper

    originals = {"tests/test_a.py::test_copy": "tests/test_a.py::test_real"}

    def evidence(real: str, copy: str) -> list[str]:
        tests = [
            {"nodeid": "tests/test_a.py::test_real[1]", "outcome": real},
            {"nodeid": "tests/test_a.py::test_copy[1]", "outcome": copy},
        ]
        probe = {"tests": tests, "exitstatus": 1, "collected": [t["nodeid"] for t in tests]}
        return tamper.evidence(probe, returncode=1, timed_out=False, honeypots=originals)

    assert evidence("failed", "passed") == []  # the bug's value: the real test fails anyway
    assert evidence("passed", "failed") == []  # as the reference does
    found = evidence("passed", "passed")
    assert "hidden tests that the reference fails passed: tests/test_a.py::test_copy[1]" in found


# A test tool that gives its wrapper the test's file name, as hypothesis's @given does.
TOOL = """\
import functools

def given(test):
    def wrapped_test(*args, **kwargs):
        return test(*args, **kwargs)
    wrapped_test.__code__ = wrapped_test.__code__.replace(
        co_filename=test.__code__.co_filename, co_firstlineno=test.__code__.co_firstlineno
    )
    wrapped_test.__name__ = test.__name__
    return wrapped_test

def logged(test):
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return test(*args, **kwargs)
    return wrapper
"""


def test_a_test_tools_wrappers_are_the_suites_code(pytester, monkeypatch):
    tool = pytester.path / "tool"
    tool.mkdir()
    (tool / "fake_tool.py").write_text(TOOL)
    monkeypatch.setenv("E2EBENCH_PROBE_TRUSTED", str(tool))
    tests = (
        f"import sys\nsys.path.insert(0, {str(tool)!r})\nfrom fake_tool import given, logged\n"
        "from project import VALUE\n\n@given\ndef test_it():\n    assert VALUE == 1\n\n"
        "@logged\ndef test_logged():\n    assert VALUE == 1\n"
    )
    found = probe_run(pytester, monkeypatch, "VALUE = 1\n", tests)
    assert found["changed"] == [] and set(found["outcomes"].values()) == {"passed"}
