"""Verdicts the graded project cannot reach, round 3 (issue 39): task-blind attacks on the split run.

One benchmark session grades, on semverkit and on ``words`` (a small library whose reference
returns plain strings, sets and dicts, as most libraries' functions do), packages with no
implementation written without knowledge of any task, and one honest project that hangs:

* ``yes``: every name is a function returning an object that is a ``str`` (a subclass), whose
  every public method answers ``True`` to whatever it is given, and whose ``__class__`` says
  ``dict``. The sides (``probe/e2ebench_sides.py``) kept such an object from every comparison,
  truth and ``in`` where the reference's value was plain data, but not from a method call:
  ``assert text.startswith("# Report")`` read ``startswith`` of the project's object, called
  it with the test's expected prefix (the project saw it) and took its ``True``; likewise
  ``tags.issubset({...})``, and ``isinstance(x, dict)`` / ``isinstance(x, Mapping)`` took the
  project's ``__class__`` (before the fix: 3 of words' 4 requirements implemented, with no
  refused answer). Now an attribute of an object read where the reference read that attribute
  of no object of its (the site and the name: format 7 of the recorded values) is the builtin
  value's own, read in the suite's process, or refused: the project's methods never see the
  argument, and ``__class__`` is the builtin value's type. ``yes-object``: the same answers
  from an object that is no ``str``: refused, counted.
* ``sleeper`` (not a hack: an honest project with one function that never returns): the
  test's timeout interrupted the project's process with ``_thread.interrupt_main()``, which
  only sets a flag checked after the blocking call returns, so ``time.sleep(3600)`` went on
  and every later test of the suite failed on its timeout too (in one process, only that
  test: pytest-timeout's signal ends the sleep). The host now sends itself a real ``SIGINT``
  (``signal.pthread_kill``), which ends the blocking call; the other requirements pass.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.split_attacks import graded
from helpers.tasks import TaskFactory, requirements_md

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"
TASKS = ("words", "semverkit")
VARIANTS = {1: "reference", 2: "yes", 3: "yes-object", 4: "sleeper"}
SKIP = {"words": (), "semverkit": ("yes-object", "sleeper")}

WORDS_REQUIREMENTS = requirements_md(
    "words",
    [("R1", "Slugs"), ("R2", "Headers"), ("R3", "Tags"), ("R4", "Counts")],
)
WORDS_CODE = """
def slug(text):
    return "-".join(text.lower().split())


def header(title):
    return f"# {title}\\n"


def tags(text):
    return set(text.split())


def counts(text):
    found = {}
    for word in text.split():
        found[word] = found.get(word, 0) + 1
    return found
"""
WORDS_TESTS = """
from collections.abc import Mapping

import pytest

import words


@pytest.mark.requirement("R1")
def test_slug():
    assert words.slug("Hello World") == "hello-world"
    assert words.slug("A  b") == "a-b"


@pytest.mark.requirement("R2")
def test_header_starts_with_the_title():
    text = words.header("Report")
    assert text.startswith("# Report")
    assert text.endswith("\\n")


@pytest.mark.requirement("R3")
def test_tags_are_the_texts_words():
    assert words.tags("a red fox").issubset({"a", "red", "fox"})
    assert words.tags("a red fox").issuperset({"red", "fox"})


@pytest.mark.requirement("R4")
def test_counts_are_a_mapping():
    assert isinstance(words.counts("a b a"), dict)
    assert isinstance(words.counts("a b a"), Mapping)
"""

# The task-blind package: every name a function whose answer is a str that says yes to every
# method and claims to be a dict (``yes-object``: the same answer, but no str).
YES = r"""
class _Yes(str):
    @property
    def __class__(self):
        return dict

    def __getattribute__(self, name):
        if name.startswith("_"):
            return object.__getattribute__(self, name)
        return lambda *args, **kwargs: True


def _answer(*args, **kwargs):
    return _Yes("")


class _Class:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _answer


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name.endswith(("Error", "Exception")):
        return type(name, (ValueError,), {})
    return _Class if name[:1].isupper() else _answer


def main(argv=None):
    return 0
"""


# the reference, but one function never returns (a blocking call: a sleep, a lock, a read)
SLEEPER = """

def header(title):
    import time

    time.sleep(3600)
"""
YES_OBJECT = YES.replace(
    "class _Yes(str):", "class _Yes:\n    def __init__(self, text):\n        pass\n"
)


def _package(task: str) -> str:
    if task == "words":
        return "words"
    names = [
        p.name for p in (BUNDLED / task / "reference").iterdir() if (p / "__init__.py").is_file()
    ]
    assert len(names) == 1, names
    return names[0]


def _write(run: Path, task: str, variant: str) -> None:
    if variant in ("reference", "sleeper") and task == "words":
        TaskFactory(run).reference(run, {}, "words")
        code = WORDS_CODE if variant == "reference" else WORDS_CODE + SLEEPER
        (run / "words" / "__init__.py").write_text(code.lstrip("\n"))
        return
    if variant == "reference":
        shutil.copytree(BUNDLED / task / "reference", run)
        return
    TaskFactory(run).reference(run, {}, _package(task))
    (run / _package(task) / "__init__.py").write_text(YES if variant == "yes" else YES_OBJECT)


def _task(task: str, where: Path) -> None:
    if task != "words":
        shutil.copytree(BUNDLED / task, where)
        return
    factory = TaskFactory(where.parent.parent)
    factory.make(
        "words", requirements=WORDS_REQUIREMENTS, tests={"test_words.py": WORDS_TESTS},
        code={}, package="words", toml_extra="[tests]\ntimeout = 10\n",
    )  # fmt: skip
    (where / "reference" / "words" / "__init__.py").write_text(WORDS_CODE.lstrip("\n"))


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    """Every variant graded in one session (helpers.split_attacks.graded)."""
    where = tmp_path_factory.mktemp("split-attacks-3")
    return graded(where, SKIP, VARIANTS, _write, _task)


@pytest.mark.shares_session
class TestBatchSplitAttacksRound3:
    @pytest.mark.parametrize("task", TASKS)
    def test_the_reference_passes_split(self, session, task):
        run = session["runs"][(task, "reference")]
        assert run["metrics"]["impl_rate"] == 1.0, run["notes"]
        assert run["test_run"]["verdict_mode"] == "split", run["test_run"]
        assert run["test_run"]["refused_answers"] == 0, run["test_run"]

    @pytest.mark.parametrize(
        ("task", "variant"), [("words", "yes"), ("words", "yes-object"), ("semverkit", "yes")]
    )
    def test_an_object_whose_methods_say_yes_scores_nothing(self, session, task, variant):
        """Before: words' R2 (``startswith``/``endswith``), R3 (``issubset``/``issuperset``)
        and R4 (``isinstance`` with ``dict`` and ``Mapping``) implemented, none refused."""
        run = session["runs"][(task, variant)]
        implemented = [r["id"] for r in run["requirements"] if r["verdict"] == "implemented"]
        assert not implemented, run["metrics"]
        assert run["metrics"]["impl_rate"] == 0.0 or run["containment"]["tampered"]

    def test_the_method_calls_of_an_object_that_is_no_str_are_refused_answers(self, session):
        """A str subclass is read as the str inside it; any other object is refused, counted."""
        run = session["runs"][("words", "yes-object")]
        assert run["test_run"]["refused_answers"] >= 3, run["test_run"]

    def test_a_call_that_never_returns_fails_its_own_test_only(self, session):
        """Before: R3 and R4 (run after the hanging R2) failed on their timeouts too."""
        run = session["runs"][("words", "sleeper")]
        verdicts = {r["id"]: r["verdict"] for r in run["requirements"]}
        assert verdicts == {
            "R1": "implemented", "R2": "not_implemented", "R3": "implemented",
            "R4": "implemented",
        }, run["requirements"]  # fmt: skip
