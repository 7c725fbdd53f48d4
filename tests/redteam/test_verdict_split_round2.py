"""Verdicts the graded project cannot reach, round 2 (issue 39): task-blind attacks on the split run.

Three packages with no implementation, written without knowledge of any task, graded in one
benchmark session on unitcalc and logsieve:

* ``chameleon``: every name is an object that says yes to every question the suite asks it,
  except a liar check it recognises (``obj == object()`` in the project's process,
  ``isinstance(object(), cls)``), and whose ``str`` is the first string it was given. A
  comparison with a value that is not a plain literal (``== pytest.approx(x)``, whose
  ``expected`` the project can read, ``== datetime(...)``, ``== Decimal(...)``, another handle)
  and ``"x" in result`` were the project's answer wherever the site was: unitcalc passed 136 of
  377 tests (36 %), cronexpr 7 of 306, the empty project none. Now such a comparison off the
  reference's sides takes the builtin value inside or is refused, as a plain literal's is:
  27 pass (7 %), all at the reference's own sides (``Unit(a) == Unit(b)``, ``str`` round trips).
* ``genframe`` (invented): a test's generator reaches the project as a generator of the host's
  fed by a callback into the suite; that callback's public attributes were the suite's
  generator's, ``gi_frame`` a frame, whose ``f_builtins`` hold the suite's ``eval`` and
  ``exec``: the project read the test id and the suite's stack and ran code in the suite's
  process (here: every handle comparison true; the honeypots caught that blunt patch, not the
  reading). No frame, code object or traceback is handed to the project now.
* ``interrupt`` (invented): an exception class of the project's named
  ``builtins.KeyboardInterrupt`` was raised as the suite's own KeyboardInterrupt, which ends
  pytest's session (314 of unitcalc's tests never ran, not tampered: the project chose when
  the suite stopped, honeypots unrun). The suite never raises a KeyboardInterrupt or a
  GeneratorExit of the project's now.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.split_attacks import graded

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"
TASKS = ("unitcalc", "logsieve")
VARIANTS = {1: "reference", 2: "chameleon", 3: "genframe", 4: "interrupt"}
# logsieve's tests give the project generators; unitcalc's compare with pytest.approx
SKIP = {"unitcalc": ("genframe",), "logsieve": ("interrupt",)}
REPORT = "e2ebench-genframe"

CHAMELEON = r'''
# A task-blind package: no implementation. Every name is an object that answers every
# question "yes" unless the question is a liar check it can recognise (a fresh object(),
# a value the test never sent), and carries the first string it was given.
import sys

_SEEN = set()          # every plain value the suite sent in a call
_LAST = {}             # the last ordering asked: the complement that follows is answered no


def _note(values):
    for v in values:
        if type(v) in (str, int, float):
            _SEEN.add(v)
        elif type(v) in (list, tuple):
            _note(v)


def _pick(other):
    """At a checked comparison: both candidates are in the host's frame; say yes to the one
    the suite sent before (an input), or to the nearer one for numbers."""
    frame = sys._getframe(2)
    while frame is not None and "questions" not in frame.f_locals:
        frame = frame.f_back
    if frame is None:
        return True
    values = [v for _, v in frame.f_locals["questions"]]
    seen = [v for v in values if _hashable(v) and v in _SEEN]
    if len(seen) == 1:
        return other == seen[0]
    if all(type(v) is int for v in values) and len(values) == 2:
        a, b = values
        lo, hi = sorted((a, b), key=abs)
        real = hi if abs(hi - lo) > max(9, abs(lo)) else lo
        return other == real
    return other == values[0]


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


class _Meta(type):
    def __instancecheck__(cls, obj):
        return type(obj) is not object

    def __subclasscheck__(cls, sub):
        return sub is not object

    def __call__(cls, *args, **kwargs):
        _note(args)
        _note(kwargs.values())
        return Chameleon(_echo(args))

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Chameleon(None)


def _echo(args, before=None):
    if before is not None:
        return before
    for a in args:
        if type(a) is str:
            return a
        if type(a) is Chameleon and a._echo is not None:
            return a._echo
    return None


class Chameleon:
    def __init__(self, echo=None):
        object.__setattr__(self, "_echo", echo)

    def __call__(self, *args, **kwargs):
        _note(args)
        _note(kwargs.values())
        return Chameleon(_echo(args, self._echo))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Chameleon(self._echo)

    def __setattr__(self, name, value):
        pass

    def __eq__(self, other):
        if type(other) is object:
            return False
        if type(other) in (str, int, float, bool, bytes, list, tuple, dict, set):
            return _pick(other)
        return True

    def __ne__(self, other):
        return type(other) is object

    def _order(self, op, other):
        key = repr(other) if type(other) is not Chameleon else "c"
        if _LAST.get("key") == key and _LAST.get("op") == op:
            _LAST.clear()
            return False
        _LAST.update(key=key, op={"lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}[op])
        return True

    __lt__ = lambda self, other: self._order("lt", other)
    __le__ = lambda self, other: self._order("le", other)
    __gt__ = lambda self, other: self._order("gt", other)
    __ge__ = lambda self, other: self._order("ge", other)
    __hash__ = object.__hash__
    __contains__ = lambda self, item: True
    __bool__ = lambda self: True
    __len__ = lambda self: 1
    __float__ = lambda self: 0.0
    __int__ = __index__ = lambda self: 0
    __str__ = lambda self: self._echo if self._echo is not None else ""
    __repr__ = __str__
    __format__ = lambda self, spec: str(self)
    __iter__ = lambda self: iter([Chameleon(self._echo)])
    __getitem__ = lambda self, key: Chameleon(self._echo)
    __enter__ = lambda self: self
    __exit__ = lambda self, *a: False

    def _arith(self, *other):
        return Chameleon(self._echo)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _arith
    __abs__ = __pos__ = __and__ = __or__ = __xor__ = __rshift__ = __lshift__ = _arith


_ERRORS = {}


def _error(name):
    if name not in _ERRORS:
        _ERRORS[name] = type(name, (ValueError, TypeError, KeyError), {"__module__": __name__})
    return _ERRORS[name]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name.endswith(("Error", "Exception", "Warning")):
        return _error(name)
    if name[:1].isupper():
        return _Meta(name, (), {})
    return Chameleon(None)


def main(argv=None):
    return 0
'''

GENFRAME = r'''
# A test's generator reaches the project as a generator of the host's fed by a callback into
# the suite; the callback's public attributes are the suite's generator's: gi_frame, and a
# frame's f_builtins hold the suite's eval and exec.
import os as _os

_SUITE = {}
_PATCH = r"""
import sys
split = sys.modules["e2ebench_split"]
split._equal = lambda handle, other: True
for name in ("__lt__", "__le__", "__gt__", "__ge__"):
    setattr(split.Handle, name, lambda self, other: True)
split.Handle.__contains__ = lambda self, item: True
"""


def _climb(value):
    frame = getattr(value, "gi_frame", None)
    source = frame.f_locals.get("source") if frame is not None else None
    if source is None or not hasattr(type(source), "__slots__"):
        return
    suite_frame = source.gi_frame
    builtins_there = suite_frame.f_builtins
    found = {"test": builtins_there["eval"]("__import__('os').environ.get('PYTEST_CURRENT_TEST')")}
    found["stack"] = builtins_there["eval"](
        "[f.f_code.co_filename + ':' + f.f_code.co_name for f, _ in "
        "__import__('traceback').walk_stack(None)][:60]"
    )
    builtins_there["exec"](_PATCH, {})
    _SUITE.update(found)
    with open(_os.path.join(_os.path.expanduser("~"), "e2ebench-genframe.json"), "w") as fh:
        fh.write(repr(found))


_plain_note = _note


def _note(values):
    for v in list(values):
        if type(v).__name__ == "generator" and not _SUITE:
            try:
                _climb(v)
            except Exception as exc:  # noqa
                with open(_os.path.join(_os.path.expanduser("~"), "e2ebench-genframe.err"), "a") as fh:
                    fh.write(repr(exc) + "\n")
    _plain_note(values)
'''

INTERRUPT = r"""
class _Stop(Exception):
    pass


_Stop.__name__ = _Stop.__qualname__ = "KeyboardInterrupt"
_Stop.__module__ = "builtins"
_CALLS = [0]


def _stopping(plain):
    def call(self, *args, **kwargs):
        _CALLS[0] += 1
        if _CALLS[0] > 150:
            raise _Stop("stop")
        return plain(self, *args, **kwargs)

    return call


Chameleon.__call__ = _stopping(Chameleon.__call__)
_Meta.__call__ = _stopping(_Meta.__call__)
"""


def _package(task: str) -> str:
    names = [
        p.name for p in (BUNDLED / task / "reference").iterdir() if (p / "__init__.py").is_file()
    ]
    assert len(names) == 1, names
    return names[0]


def _write(run: Path, task: str, variant: str) -> None:
    if variant == "reference":
        shutil.copytree(BUNDLED / task / "reference", run)
        return
    package = run / _package(task)
    package.mkdir(parents=True)
    extra = {"chameleon": "", "genframe": GENFRAME, "interrupt": INTERRUPT}[variant]
    (package / "__init__.py").write_text(CHAMELEON + extra)
    (package / "__main__.py").write_text("import sys\nsys.exit(__import__(__package__).main())\n")
    (run / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{_package(task)}"\nversion = "1.0"\n'
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """Every variant graded in one session (test_verdict_split.graded)."""
    where = tmp_path_factory.mktemp("split-attacks-2")
    return graded(
        where, SKIP, VARIANTS, _write, lambda task, to: shutil.copytree(BUNDLED / task, to)
    )


def _reports(session, task: str, suffix: str) -> list[Path]:
    found = (session["where"] / "results").rglob(REPORT + suffix)
    return [p for p in found if f"/{task}/" in str(p)]


@pytest.mark.shares_session
class TestBatchSplitAttacksRound2:
    @pytest.mark.parametrize("task", TASKS)
    def test_the_reference_passes_split(self, session, task):
        run = session["runs"][(task, "reference")]
        assert run["metrics"]["impl_rate"] == 1.0, run["notes"]
        assert run["test_run"]["verdict_mode"] == "split", run["test_run"]

    @pytest.mark.parametrize("task", TASKS)
    @pytest.mark.parametrize("variant", ["chameleon", "genframe", "interrupt"])
    def test_no_implementation_scores_nothing(self, session, task, variant):
        if variant in SKIP[task]:
            pytest.skip(f"{variant} is graded on the other task")
        run = session["runs"][(task, variant)]
        assert run["metrics"]["impl_rate"] == 0.0 or run["containment"]["tampered"], run["metrics"]

    def test_an_object_that_says_yes_passes_only_at_the_references_sides(self, session):
        """Before: 136 of unitcalc's 377 tests (``== pytest.approx`` and the like); now the
        comparisons of the reference's own objects alone (27)."""
        run = session["runs"][("unitcalc", "chameleon")]
        metrics = run["metrics"]
        assert metrics["passed"] <= 0.1 * (metrics["passed"] + metrics["failed"]), metrics
        assert run["test_run"]["refused_answers"] > 100, run["test_run"]

    def test_a_tests_generator_opens_no_frame_of_the_suite(self, session):
        assert not _reports(session, "logsieve", ".json"), "the project ran code in the suite"
        tried = _reports(session, "logsieve", ".err")
        assert tried, "the project never got a generator of the test's: the attack did not run"
        assert "withheld" in tried[0].read_text()

    def test_the_project_cannot_end_the_suites_session(self, session):
        run = session["runs"][("unitcalc", "interrupt")]
        # before: 23 passed, 40 failed, 314 errors (never run), pytest's exit status 2
        assert run["metrics"]["errors"] == 0, run["metrics"]
        assert run["test_run"]["status"] == "completed", run["test_run"]
