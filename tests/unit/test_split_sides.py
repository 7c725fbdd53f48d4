"""The keys of a split run's sides (issue 39, item 4): one per assertion site, the same for
the reference's test, its migrated copy (other names) and a planted test made from it (other
literals), and different for another statement."""

from __future__ import annotations

import importlib
import random

from pytest_e2ebench.probe import PROBE_DIR
from pytest_e2ebench.probe import e2ebench_sides as sides

ORIGINAL = """
import semverkit


def test_parse():
    v = semverkit.parse("1.2.3")
    assert v.major == 1
    assert v < "2.0.0"
    with semverkit.strict(level=2):
        assert str(v) == f"{v.major}.2.3"
"""

# migrated onto another package's names, and a planted copy with other literals
MIGRATED = ORIGINAL.replace("semverkit", "versions").replace("major", "first")
PLANTED = (
    ORIGINAL.replace('"1.2.3"', '"4.5.6"').replace("== 1", "== 4").replace("level=2", "level=7")
)


def _keys(tmp_path, name: str, text: str) -> dict[int, str]:
    path = tmp_path / name
    path.write_text(text)
    return sides._line_keys(str(path))


def test_a_site_keeps_its_key_across_migration_and_planting(tmp_path):
    original = _keys(tmp_path, "a.py", ORIGINAL)
    assert original == _keys(tmp_path, "b.py", MIGRATED)
    assert original == _keys(tmp_path, "c.py", PLANTED)


def test_each_statement_of_a_test_has_a_key_of_its_own(tmp_path):
    keys = _keys(tmp_path, "a.py", ORIGINAL)
    lines = ORIGINAL.splitlines()
    at = {lines[n - 1].strip(): key for n, key in keys.items()}
    assert at["assert v.major == 1"] != at['assert v < "2.0.0"']
    # a block's header line is its own site, apart from the statements inside it
    assert at["with semverkit.strict(level=2):"] != at['assert str(v) == f"{v.major}.2.3"']
    assert "def test_parse():" not in at  # a function is no site: its statements are


def _suite_module(tmp_path, text: str) -> tuple:
    """A suite folder with one module ``test_x.py`` of ``text``, and that module's names."""
    inside = tmp_path / "suite"
    inside.mkdir()
    (inside / "test_x.py").write_text(text)
    namespace: dict = {}
    exec(compile(text, str(inside / "test_x.py"), "exec"), namespace)
    return inside, namespace


def test_a_site_outside_the_suite_has_no_key_and_the_table_decides(tmp_path):
    inside, namespace = _suite_module(tmp_path, "def check(s):\n    return s.site(1)\n")
    table = sides.Sides(str(inside), [])
    key = namespace["check"](table)
    assert key.startswith("test_x.py:") and len(key) > len("test_x.py:")
    assert sides.Sides(str(tmp_path / "elsewhere"), []).site(1) == ""
    assert table.plain_only() is True  # the reference reported no site: plain data only
    assert sides.Sides(str(inside), None).plain_only() is False  # no table: as before


def test_a_liar_checks_value_is_never_the_tests_value(monkeypatch):
    """The value a checked comparison asks beside the test's differs from it: a set's drawn
    element already in the set left ``{1, 2}`` equal to itself, and the honest reference of
    ordered-set had a refused answer in one session of three."""
    monkeypatch.syspath_prepend(str(PROBE_DIR))  # the suite process's path: the probe's folder
    split = importlib.import_module("e2ebench_split")
    for value in [frozenset({1, 2}), {1, 2, 3}, {True, False}, {"a": 1, "b": 2}, {1: 2, 2: 3}]:
        assert all(split._sentinel(value) != value for _ in range(2000)), value


def test_a_liar_checks_number_does_not_say_which_was_the_tests(monkeypatch):
    """A project sees both values of a checked comparison (the test's and the check's) and
    says yes to one: the best guess from the pair alone, the value most likely to have drawn
    the other, is right about half the time for ints and floats (with ``value`` plus up to
    ``|value|`` the smaller one was right three times in four)."""
    monkeypatch.syspath_prepend(str(PROBE_DIR))
    split = importlib.import_module("e2ebench_split")
    rng = random.Random(7)
    for make in (lambda: rng.randint(10, 10**6), lambda: rng.uniform(0.01, 1e4)):
        right = 0
        for _ in range(4000):
            value = make()
            other = split._sentinel(value)
            right += min(value, other, key=abs) == value  # the old rule's best guess
            assert other != value and type(other) is type(value)
            assert len(str(abs(other))) == len(str(abs(value))) or type(value) is float
        assert 0.45 < right / 4000 < 0.55, right


def test_a_table_the_run_could_not_hold_whole_is_no_table(tmp_path, monkeypatch):
    """A recording run that saw more keys than it reports says so first; a table with that
    mark answers every site as a run without a table does, never refusing the keys it lost
    (before: the keys past the bound were dropped, and an honest object there refused)."""
    monkeypatch.setattr(sides, "MAX_SIDES", 3)
    inside, namespace = _suite_module(
        tmp_path, "def check(s, name):\n    return s.plain_only(1, name)\n"
    )
    recording = sides.Sides(str(inside), None)
    for name in ("a", "b", "c", "d"):  # an attribute read per name: a key of its own each
        namespace["check"](recording, name)
    reported = recording.reported()
    assert reported[0] == sides.OVERFLOW and len(reported) == 4
    assert all(k.startswith("test_x.py:") and k.endswith((".a", ".b", ".c")) for k in reported[1:])
    assert sides.Sides(str(inside), reported).plain_only() is False
    assert sides.Sides(str(inside), reported[1:]).plain_only() is True


def test_only_the_suites_own_code_is_asked_here(tmp_path):
    inside, namespace = _suite_module(tmp_path, "def check(s):\n    return s.asked_here(1)\n")
    assert namespace["check"](sides.Sides(str(inside), [])) is True
    assert sides.Sides(str(inside), []).asked_here(1) is False  # this file is no suite's
