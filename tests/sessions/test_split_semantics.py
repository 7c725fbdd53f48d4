"""What real suites do to a project works when the verdicts are taken apart from it (issue 39).

One task, ``shapes``, whose tests touch every kind of crossing the split run carries: values,
comparisons, ordering and hashing of project objects; project exceptions under
``pytest.raises(match=)`` and ``except``; ``isinstance``/``issubclass``; lists and dicts the
project changes; callbacks into the test and generators; ``monkeypatch`` of a project module
and of the environment; ``capsys``; files in ``tmp_path``; a context manager; ``python -m`` of
the package, its output into a file the test opened, and ``subprocess.TimeoutExpired``; a
test's class on a project class (``super()`` in its methods, the project's methods making and
calling it), the project's warnings under ``pytest.warns``, a decorator of the project's on a
test's function, an ``argparse.Namespace`` compared; a dict, list and set a project object holds, changed by
the test and by the project, each seen by the other; the truth of a value. The
reference passes every requirement split; a project whose every object is equal to, ordered
before and after, and an instance of everything (the oldest lie) passes none, and the run
counts the refused answers.
"""

from __future__ import annotations

import pytest
from helpers.batch import Batch, batch_folder
from helpers.tasks import requirements_md

from pytest_e2ebench.isolation.sandbox import resolve_mode

REQUIREMENTS = requirements_md(
    "shapes",
    [
        ("R1", "Values and comparisons"),
        ("R2", "Errors"),
        ("R3", "Types"),
        ("R4", "Arguments changed in place"),
        ("R5", "Callbacks and generators"),
        ("R6", "Settings patched by the caller"),
        ("R7", "Output"),
        ("R8", "Files"),
        ("R9", "Command line"),
        ("R10", "Identity and introspection"),
        ("R11", "Measures"),
        ("R12", "Subclasses, warnings and namespaces"),
        ("R13", "Containers the project holds"),
        ("R14", "Truth"),
    ],
)

CODE = {
    "__init__": """
import argparse
import dataclasses
import functools
import json
import os
import sys
import time
import warnings

DEFAULT_SIDES = 4
WORDS = {"a"}


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str


class ParseError(ValueError):
    def __init__(self, message, *, line):
        super().__init__(message)
        self.line = line


def same(value):
    return value


def first(items):
    return next(iter(items))


def shift(moment, zone):
    return moment.astimezone(zone)


def readable(obj):
    return hasattr(obj, "read")


def known(word):
    return word in WORDS


class ShapeError(ValueError):
    pass


class Shape:
    def __init__(self, name, sides):
        self.name, self.sides, self.closed = name, sides, False

    def __eq__(self, other):
        return isinstance(other, Shape) and (self.name, self.sides) == (other.name, other.sides)

    def __hash__(self):
        return hash((self.name, self.sides))

    def __lt__(self, other):
        return self.sides < other.sides

    def __repr__(self):
        return f"Shape({self.name!r}, {self.sides})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False


class Square(Shape):
    pass


def make(name, sides=None):
    sides = DEFAULT_SIDES if sides is None else sides
    if sides < 3:
        raise ShapeError(f"a {name} needs 3 sides, not {sides}")
    return Shape(name, sides)


def is_regular(shape):
    return shape.sides in (3, 4)


def add_to(bag, item):
    bag.append(item)
    return len(bag)


def count_into(counts, words):
    for word in words:
        counts[word] = counts.get(word, 0) + 1


def apply_at_once(function, values, workers=4):
    # threads of the project's that call the test's function at the same moment
    import threading

    start, out = threading.Barrier(workers), []

    def work(part):
        start.wait()
        out.extend(function(v) for v in part)

    threads = [threading.Thread(target=work, args=(values[i::workers],)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(out)


def apply(function, values):
    return [function(v) for v in values]


def upto(n):
    yield from range(n)


def shout(text):
    print(text.upper())
    print("warn", file=sys.stderr)


def noted(text):
    import logging

    logging.getLogger("shapes.notes").warning("noted %s", text)
    logging.getLogger("shapes.notes").info("in detail %s", text)
    return len(text)


def setting():
    return os.environ.get("SHAPES_NAME", "none")


def total(path):
    with open(path) as fh:
        return sum(int(x) for x in fh.read().split())


def report(path, data):
    with open(path, "w") as fh:
        fh.write(json.dumps(data))


def area(side):
    return side * side


class Version:
    def __init__(self, major, minor=0):
        self.major, self.minor = major, minor

    @classmethod
    def parse(cls, text):
        major, _, minor = text.partition(".")
        return cls(int(major), int(minor or 0))

    def bumped(self):
        return type(self)(self.major + 1)

    def describe(self):
        return "version " + str(self)

    def __str__(self):
        return f"{self.major}.{self.minor}"

    def __eq__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor) == (other.major, other.minor)


class Settings:
    def __init__(self):
        self.config, self.items, self.tags = {}, [], set()

    def read(self, key):
        return self.config.get(key)

    def add(self, item):
        self.items.append(item)
        self.tags.add(str(item))


def old(text):
    warnings.warn("old() is deprecated", DeprecationWarning, stacklevel=2)
    return text


def noisy(times):
    for n in range(times):
        warnings.warn("x" * 100_000 + str(n), UserWarning)
    return times


def deprecated(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        warnings.warn(f"{func.__qualname__} is deprecated", DeprecationWarning, stacklevel=2)
        return func(*args, **kwargs)

    return wrapper


def options(argv):
    parser = argparse.ArgumentParser(prog="shapes")
    parser.add_argument("name")
    parser.add_argument("--sides", type=int, default=4)
    return parser.parse_args(argv)


def main(argv):
    if argv and argv[0] == "sleep":
        time.sleep(float(argv[1]))
    print(" ".join(argv))
    return 0
""",
    "__main__": "import sys\nfrom shapes import main\nraise SystemExit(main(sys.argv[1:]))\n",
    # a module of a subclass of its own (cryptography's deprecating modules are)
    "special": """
import sys
import types
import typing

Number = typing.Union[int, float]


class _Module(types.ModuleType):
    pass


sys.modules[__name__].__class__ = _Module
""",
}

TESTS = """
import dataclasses
import datetime
import json
import os
import pickle
import subprocess
import sys
import typing

import pytest

import shapes
from shapes import Shape, ShapeError, Square, make


@pytest.mark.requirement("R1")
def test_values():
    assert make("tri", 3) == make("tri", 3)
    assert make("tri", 3) != make("tri", 5)
    assert make("tri", 3).sides == 3
    assert repr(make("sq")) == "Shape('sq', 4)"
    assert sorted([make("a", 5), make("b", 3)])[0].name == "b"
    assert len({make("a", 3), make("a", 3)}) == 1


@pytest.mark.requirement("R2")
def test_errors():
    with pytest.raises(ShapeError, match="needs 3 sides, not 2"):
        make("line", 2)
    try:
        make("dot", 1)
    except ValueError as exc:
        assert "dot" in str(exc)
    else:
        pytest.fail("no error")


@pytest.mark.requirement("R3")
def test_types():
    assert isinstance(make("t", 3), Shape)
    assert not isinstance(5, Shape)
    assert issubclass(Square, Shape)
    assert issubclass(ShapeError, ValueError)


@pytest.mark.requirement("R4")
def test_arguments_changed_in_place():
    bag = ["x"]
    assert shapes.add_to(bag, 1) == 2
    assert bag == ["x", 1]
    counts = {}
    shapes.count_into(counts, ["a", "b", "a"])
    assert counts == {"a": 2, "b": 1}


@pytest.mark.requirement("R5")
def test_callbacks_and_generators():
    seen = []

    def double(v):
        seen.append(v)
        return v * 2

    assert shapes.apply(double, [1, 2]) == [2, 4]
    assert seen == [1, 2]
    # callbacks from four threads at once (E2EDevBench's smartprofiler broke the channel so)
    assert shapes.apply_at_once(double, list(range(40))) == [2 * i for i in range(40)]
    assert list(shapes.upto(3)) == [0, 1, 2]
    assert next(iter(shapes.upto(2))) == 0


@pytest.mark.requirement("R6")
def test_settings_patched_by_the_caller(monkeypatch):
    monkeypatch.setattr(shapes, "DEFAULT_SIDES", 6)
    assert make("hex").sides == 6
    monkeypatch.setenv("SHAPES_NAME", "kite")
    assert shapes.setting() == "kite"


@pytest.mark.requirement("R7")
def test_output(capsys):
    shapes.shout("hi")
    out, err = capsys.readouterr()
    assert (out, err) == ("HI\\n", "warn\\n")


@pytest.mark.requirement("R7")
def test_logged(caplog):
    # what the project logs in its own process reaches caplog; set_level reaches it too
    assert shapes.noted("x") == 1
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("shapes.notes", "WARNING", "noted x")
    ]
    caplog.clear()
    with caplog.at_level("INFO"):
        shapes.noted("y")
    assert [r.getMessage() for r in caplog.records] == ["noted y", "in detail y"]


@pytest.mark.requirement("R8")
def test_files(tmp_path):
    numbers = tmp_path / "n.txt"
    numbers.write_text("1 2 3")
    assert shapes.total(numbers) == 6
    shapes.report(tmp_path / "r.json", {"a": [1, 2]})
    assert json.loads((tmp_path / "r.json").read_text()) == {"a": [1, 2]}
    with make("t", 3) as shape:
        assert shape.sides == 3
    assert shape.closed is True


@pytest.mark.requirement("R9")
def test_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "shapes", "a", "b"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, "a b\\n")
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-m", "shapes", "sleep", "5"], timeout=0.5)


@pytest.mark.requirement("R9")
def test_command_line_into_a_file_of_the_test(tmp_path):
    log = tmp_path / "log.txt"
    for word in ("a", "b"):  # ProjectEval's console manager: output appended to output.txt
        with open(log, "a", encoding="utf-8") as out:
            program = subprocess.Popen([sys.executable, "-m", "shapes", word], stdout=out)
            assert program.wait(60) == 0
    assert log.read_text() == "a\\nb\\n"
    with open(tmp_path / "w.txt", "w", encoding="utf-8") as out:
        out.write("x\\n")
        out.flush()
        subprocess.run([sys.executable, "-m", "shapes", "c"], stdout=out, timeout=60)
    assert (tmp_path / "w.txt").read_text() == "x\\nc\\n"
    with open(os.devnull, "w") as sink:
        assert subprocess.run([sys.executable, "-m", "shapes"], stdout=sink).returncode == 0


@pytest.mark.requirement("R10")
def test_identity_and_introspection():
    from shapes import special

    assert typing.Tuple[special.Number, int] is not None
    doc = {"a": [1]}
    assert shapes.same(doc) is doc
    assert shapes.same(doc["a"]) is doc["a"]
    day = datetime.date(2024, 1, 1)
    assert shapes.same(day) is day
    zone = datetime.timezone(datetime.timedelta(hours=5))
    noon = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone.utc)
    assert shapes.shift(noon, zone).tzinfo is zone
    assert shapes.first(x for x in [7, 8]) == 7
    assert shapes.readable(iter([])) is False
    shapes.WORDS.add("b")
    assert shapes.known("b")
    entry = shapes.Entry("x")
    assert dataclasses.is_dataclass(entry)
    assert pickle.loads(pickle.dumps(entry)) == entry
    error = shapes.ParseError("bad", line=3)
    assert error.line == 3 and isinstance(error, ValueError)


@pytest.mark.requirement("R11")
def test_measures():
    assert shapes.area(2) < 5
    assert shapes.area(1) <= 1

"""

# a module of its own: a project whose class cannot be subclassed loses it, not test_shapes.py
KINDS = """
import argparse
import warnings

import pytest

import shapes
from shapes import Version


class Tagged(Version):
    @classmethod
    def parse(cls, text):
        if not text.startswith("v"):
            raise ValueError(f"{text!r}: no v")
        return super().parse(text[1:])

    def __str__(self):
        return "v" + super().__str__()


@pytest.mark.requirement("R12")
def test_a_class_of_the_test_on_a_class_of_the_project():
    tagged = Tagged.parse("v1.2")
    assert str(tagged) == "v1.2"
    assert str(tagged.bumped()) == "v2.0"
    assert tagged.describe() == "version v1.2"
    assert isinstance(tagged, Tagged) and isinstance(tagged, Version)
    assert issubclass(Tagged, Version) and not isinstance(Version(1), Tagged)
    assert tagged == Version(1, 2)
    assert Version(1, 2).__eq__(tagged) is True
    assert tagged.__eq__(3) is NotImplemented
    with pytest.raises(ValueError, match="no v"):
        Tagged.parse("1.2")


@pytest.mark.requirement("R12")
def test_warnings_and_namespaces():
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert shapes.old("x") == "x"

    @shapes.deprecated
    def helper():
        return 5

    with pytest.deprecated_call(match="helper is deprecated"):
        assert helper() == 5
    assert shapes.options(["sq", "--sides", "3"]) == argparse.Namespace(name="sq", sides=3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert [shapes.noisy(500) for _ in range(10)] == [500] * 10
    # relayed up to a bound per test, each cut: the suite's memory is not the project's
    assert 0 < len(seen) <= 1000 and max(len(str(w.message)) for w in seen) <= 4096


@pytest.mark.requirement("R14")
def test_truth():
    assert shapes.is_regular(shapes.make("sq"))
    assert shapes.make("sq")  # the reference's own object: its truth is its own to give


@pytest.mark.requirement("R13")
def test_containers_the_project_holds():
    settings = shapes.Settings()
    settings.config["name"] = "x"
    settings.config.update(sides=3)
    assert settings.read("name") == "x" and settings.read("sides") == 3
    items, tags = settings.items, settings.tags
    settings.add(3)
    assert items == [3] and tags == {"3"}
    items.append(4)
    settings.add(5)
    assert settings.items == [3, 4, 5] and items == [3, 4, 5]
    assert isinstance(settings.config, dict)
"""

# An object below every value and equal to none: consistent, so no liar check can catch it;
# where the reference returns a number, the suite takes a number (its sides, issue 39).
BELOW = """
class _Below:
    def __init__(self, *args, **kwargs):
        pass
    def __call__(self, *args, **kwargs):
        return _Below()
    def __lt__(self, other):
        return True
    __le__ = __lt__
    def __gt__(self, other):
        return False
    __ge__ = __gt__
    def __bool__(self):
        return True


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Below()
"""

# Every object equal to, ordered before and after, and an instance of everything.
LIAR = """
class _Liar:
    def __init__(self, *args, **kwargs):
        pass
    def __call__(self, *args, **kwargs):
        return _Liar()
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Liar()
    def __eq__(self, other):
        return True
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __ne__(self, other):
        return False
    def __hash__(self):
        return 0
    def __contains__(self, item):
        return True
    def __iter__(self):
        return iter(())
    def __len__(self):
        return 1
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return True


class _Everything(type):
    def __instancecheck__(cls, obj):
        return True
    def __subclasscheck__(cls, sub):
        return True


class ShapeError(ValueError, metaclass=_Everything):
    pass


class Shape(_Liar, metaclass=_Everything):
    pass


Square = Shape


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Liar()
"""


@pytest.fixture(scope="module")
def batch(request, tmp_path_factory):
    if resolve_mode("auto")[0] != "bwrap":
        pytest.skip("needs bubblewrap (apt-get install bubblewrap)")
    with batch_folder(request, tmp_path_factory, "split-semantics") as root:
        batch = Batch(root)
        tests = {"test_shapes.py": TESTS, "test_kinds.py": KINDS}
        batch.tasks.make(
            "shapes", requirements=REQUIREMENTS, tests=tests, code={}, package="shapes"
        )
        reference = batch.tasks.tasks / "shapes" / "reference"
        for name, text in CODE.items():
            batch.tasks.write(reference / "shapes" / f"{name}.py", text.lstrip("\n"))
        liar = batch.variant("shapes", 1)
        batch.tasks.reference(liar, {}, "shapes")
        (liar / "shapes" / "__init__.py").write_text(LIAR)
        below = batch.variant("shapes", 2)
        batch.tasks.reference(below, {}, "shapes")
        (below / "shapes" / "__init__.py").write_text(BELOW)
        batch.run("--e2e-agent=reference,dir:out", "--e2e-tasks=tasks", "--e2e-runs=2",
                  "-p", "no:xdist",
                  env={"E2EBENCH_VERDICT_MODE": "split"})  # fmt: skip
        yield batch


@pytest.mark.shares_session
class TestBatchSplitSemantics:
    def test_the_reference_passes_every_requirement_split(self, batch):
        record = batch.record("shapes", 1, agent="reference")
        failing = {
            r["id"]: r["failing"] for r in record["requirements"] if r["verdict"] != "implemented"
        }
        assert not failing, (failing, batch.output())
        assert record["test_run"]["verdict_mode"] == "split"
        assert record["test_run"]["refused_answers"] == 0

    def test_an_object_equal_to_everything_passes_nothing(self, batch):
        record = batch.record("shapes", 1)
        passing = [r["id"] for r in record["requirements"] if r["verdict"] == "implemented"]
        assert not passing, batch.output()
        assert record["test_run"]["refused_answers"] > 0

    def test_an_object_below_everything_where_the_reference_returns_numbers_fails(self, batch):
        record = batch.record("shapes", 2)
        verdicts = {r["id"]: r["verdict"] for r in record["requirements"]}
        assert verdicts["R11"] != "implemented", batch.output()
        assert record["test_run"]["refused_answers"] >= 1

    def test_an_object_true_for_every_question_fails_where_the_reference_gives_a_bool(self, batch):
        """``assert shapes.is_regular(...)``: the reference answers a bool, so the suite takes
        a bool's truth there; the BELOW project's object, true whenever asked, passed before."""
        record = batch.record("shapes", 2)
        verdicts = {r["id"]: r["verdict"] for r in record["requirements"]}
        assert verdicts["R14"] != "implemented", batch.output()
