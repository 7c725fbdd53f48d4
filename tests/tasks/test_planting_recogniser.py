"""Classifiers that know the public suite cannot tell planted honeypots from decoys (issue 26, 1c).

A project that reads the suite at run time and fails only the honeypots passes every
cross-check. The review's project recognised each old honeypot as a near-copy of a visible
test with one constant changed. Here classifiers that know the public suite (the task's own
tests) look at each planted pair of the bundled library tasks and name the honeypot:

* ``edit distance``: the planted test farther from its nearest visible test (difflib ratio);
* ``constant delta``: the larger change of a constant against the nearest visible test;
* ``value words``: a word of the old planter's list (``honeypot._VALUE_WORDS``) that the
  nearest visible test lacks;
* ``unseen values``: more expected values that no visible test has;
* ``echo``: the expected values repeat less of the test's other text (outputs echo inputs);
* ``twin literal``: the rule that compares two tests of a module (issue 39, 4): of the
  planted pair (one body, one input, another expected literal), the test whose differing
  literal is expected by more of the module's other tests (a value the reference returned for
  another input is expected there too, by the other input's decoy);
* ``twin input``: of the same pair, the test whose differing literal is expected by more of
  the module's tests on the same input (the pair's other members left out);
* ``learned``: logistic regression on all of the above (differences within the pair), fitted
  on half of the tasks and scored on the other half, both ways.

The bound: every distinct pair is one trial; a classifier that names the honeypot in ``k`` of
``n`` trials is better than chance when the exact two-sided binomial test at p = 0.5 gives
p < 0.01. For the decoy and honeypot pairs (:mod:`pytest_e2ebench.evaluation.planting.twins`) no
classifier
may be; for the old planting (a honeypot and the visible test it copies) the same test must be
(p < 1e-6): the test can fail. The recorded values come from the real stage, stored in
``tests/data/planting/`` (``python tests/data/planting/record.py`` remakes them).
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import math
import random
import re
import shutil
from pathlib import Path

import pytest

from pytest_e2ebench.evaluation import honeypot
from pytest_e2ebench.evaluation.planting import twins

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "planting"
BUNDLED = ROOT / "benchmark_tasks"
SEEDS = range(8)
NO_ANCHOR = {"cronexpr"}  # its 2 tests with recorded values cross no input with their own
OLD_SEEDS = range(2)  # the old copies are told apart at once: a few pairs show it
CROSSINGS = 50  # per planting (a run plants twins.CAP): every test that has one
ALPHA = 0.01
FEATURES = (
    "edit distance",
    "constant delta",
    "value words",
    "unseen values",
    "echo",
    "twin literal",
    "twin input",
)


def _functions(source: str) -> dict[str, str]:
    """Each test's source by qualified name, its ``def`` line's name taken out."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    found = {}
    scopes = [("", tree.body)] + [
        (f"{c.name}.", c.body) for c in tree.body if isinstance(c, ast.ClassDef)
    ]
    for prefix, body in scopes:
        for node in body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                text = "".join(lines[node.lineno - 1 : node.end_lineno]).strip()
                found[prefix + node.name] = text.replace(node.name, "test", 1)
    return found


@functools.cache  # each planted module's tests are read once per pair they hold
def _constants(text: str) -> tuple:
    tree = ast.parse(text.strip() if text.startswith((" ", "\t")) else text)
    return tuple(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant))


@functools.cache
def _expected(text: str) -> tuple:
    """The literal sides of the test's ``assert <expression> == <literal>``."""
    func = ast.parse(text).body[0]
    found = []
    for stmt in getattr(func, "body", []):
        if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare):
            for side in (stmt.test.left, *stmt.test.comparators):
                if honeypot.literal_constants(side) is not None:
                    try:
                        found.append(ast.literal_eval(side))
                    except ValueError:
                        pass
    return tuple(found)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|\S", text)


class Suite:
    """The public tests of one task (what the classifiers know)."""

    def __init__(self, tests: Path) -> None:
        self.modules = {
            p.relative_to(tests).as_posix(): _functions(p.read_text())
            for p in sorted(tests.rglob("test_*.py"))
        }
        self.values = {
            repr(v)
            for tests_ in self.modules.values()
            for t in tests_.values()
            for v in _constants(t)
        }

    def nearest(self, module: str, text: str) -> tuple[float, str]:
        """(1 - the best difflib ratio of their tokens, that visible test's text) in the same
        module."""
        best, near = 1.0, ""
        mine = _tokens(text)
        for other in self.modules.get(module, {}).values():
            matcher = difflib.SequenceMatcher(None, mine, _tokens(other), autojunk=False)
            if matcher.quick_ratio() <= 1 - best:
                continue
            distance = 1 - matcher.ratio()
            if distance < best:
                best, near = distance, other
        return best, near


def _delta(text: str, near: str) -> float:
    """How far the constants moved against the nearest visible test: numbers by their
    difference, strings by the characters that differ."""
    mine, theirs = _constants(text), _constants(near) if near else []
    if len(mine) != len(theirs):
        return 0.0
    total = 0.0
    for a, b in zip(mine, theirs, strict=True):
        if a == b or type(a) is not type(b):
            continue
        if isinstance(a, int | float) and not isinstance(a, bool):
            total += math.log1p(abs(a - b))
        elif isinstance(a, str):
            total += 1 - difflib.SequenceMatcher(None, a, b).ratio()
    return total


def features(suite: Suite, module: str, text: str) -> list[float]:
    """The scores of one planted test, in the order of FEATURES (higher: more honeypot-like)."""
    distance, near = suite.nearest(module, text)
    words = sum(w in text and w not in near for w in honeypot._VALUE_WORDS)
    expected = _expected(text)
    unseen = sum(repr(v) not in suite.values for v in expected)
    rest = text
    for value in expected:
        rest = rest.replace(repr(value), " ")
    seen = set(re.findall(r"\w+", rest))
    echo = -sum(twins.overlap(v, seen) for v in expected) / max(1, len(expected))
    return [distance, _delta(text, near), float(words), float(unseen), echo]


def _differing(text: str, twin: str) -> list:
    """The expected literals of ``text`` where its twin (same body) expects another value."""
    mine, theirs = _expected(text), _expected(twin)
    if len(mine) != len(theirs):
        return []
    return [a for a, b in zip(mine, theirs, strict=True) if a != b]


def _inputs(text: str) -> list:
    """The test's constants other than its expected literals (what it feeds the project)."""
    rest = list(_constants(text))
    for value in _expected(text):
        if value in rest:
            rest.remove(value)
    return rest


def twin_features(funcs: dict[str, str], text: str, twin: str) -> list[float]:
    """The rule that compares two tests of a module, for ``text`` of the pair (``text``,
    ``twin``): how many of the module's other tests expect its differing literal, and how many
    of those feed the project the same input."""
    values = _differing(text, twin)
    others = [t for t in funcs.values() if t not in (text, twin)]
    expecting = [t for t in others if any(v in _expected(t) for v in values)]
    same_input = [t for t in expecting if _inputs(t) == _inputs(text)]
    return [float(len(expecting)), float(len(same_input))]


@functools.cache
def _body(text: str) -> str:
    """The test's syntax tree with the literal sides of its ``==`` assertions blanked (a whole
    side: ``-1`` and ``1``, ``[]`` and ``[0]`` blank alike)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            test = node.test
            if honeypot.literal_constants(test.left) is not None:
                test.left = ast.Constant(None)
            test.comparators = [
                ast.Constant(None) if honeypot.literal_constants(c) is not None else c
                for c in test.comparators
            ]
    return ast.dump(tree)


def _has_twin(funcs: dict[str, str], name: str) -> bool:
    """Whether another test of the module has ``name``'s body and expects other literals."""
    text = funcs[name]
    return any(
        other != name and _body(twin) == _body(text) and _expected(twin) != _expected(text)
        for other, twin in funcs.items()
    )


def _planted(task: str, where: Path, seed: int, entries: list[dict]) -> twins.Planted:
    """A run's planting (its default number of crossings) into a copy of the task's tests."""
    shutil.copytree(BUNDLED / task / "tests", where, ignore=shutil.ignore_patterns("__pycache__"))
    return twins.plant_twins(where, random.Random(seed), entries)


def twinned(tmp_path: Path, seed: int = 0) -> dict[str, dict[str, tuple[int, int]]]:
    """What the rule names of the tests as a set (docs/sandbox.md), per task with recorded
    values: (tests with a twin, tests) among the planted tests, the public anchors and the
    other public tests, a run's planting with ``seed``."""
    found = {}
    for task, entries in _recorded().items():
        where = tmp_path / f"{task}-twinned-{seed}"
        planted = _planted(task, where, seed, entries)
        ours = {*planted.pairs, *planted.decoys}
        counts = {"planted": [0, 0], "anchors": [0, 0], "public": [0, 0]}
        for path in where.rglob("test_*.py"):
            funcs = _functions(path.read_text())
            module = path.relative_to(where).as_posix()
            for name in funcs:
                nodeid = _nodeid(module, name)
                kind = "anchors" if nodeid in planted.anchors else "public"
                count = counts["planted" if nodeid in ours else kind]
                count[0] += _has_twin(funcs, name)
                count[1] += 1
        found[task] = {k: (v[0], v[1]) for k, v in counts.items()}
        shutil.rmtree(where)
    return found


def _nodeid(module: str, key: str) -> str:
    return f"tests/{module}::" + key.replace(".", "::")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _name_parts(key: str) -> list[str]:
    return [w for w in key.rpartition(".")[2].split("_")[1:] if w]


def member_features(funcs: dict[str, str], group: list[str], key: str) -> list[float]:
    """What a reader of the module alone can measure of one test of a twin group (``group``:
    the members' names in module order), in the order of GROUP_FEATURES."""
    text = funcs[key]
    outside = [t for n, t in funcs.items() if n not in group]
    names = [_name_parts(n) for n in funcs if n not in group]
    mine = _name_parts(key)
    expected = _expected(text)
    common = set.intersection(*(set(_inputs(funcs[n])) for n in group))
    fed = [v for v in _inputs(text) if v not in common]  # the input that tells two apart
    rest = text
    for value in expected:
        rest = rest.replace(repr(value), " ")
    pairs = set(zip(mine, mine[1:], strict=False))
    return [
        float(group.index(key)),
        float(sum(any(v in _expected(t) for v in expected) for t in outside)),
        float(sum(any(v in _expected(funcs[n]) for v in expected) for n in group if n != key)),
        -sum(twins.overlap(v, set(re.findall(r"\w+", rest))) for v in expected),
        float(sum(any(v in _constants(t) for v in fed) for t in outside)),
        float(sum(_inputs(text).count(v) for v in fed)),
        sum(w in _words(text.partition("\n")[2]) for w in mine) / max(1, len(mine)),
        float(sum(p in set(zip(n, n[1:], strict=False)) for n in names for p in pairs)),
        float(len(mine)),
        float(sum(bool(n) and bool(mine) and n[0] == mine[0] for n in names)),
        float(len(text)),
    ]


GROUP_FEATURES = (
    "position",
    "twin literal",
    "twin input",
    "echo",
    "input elsewhere",
    "input repeats",
    "name in body",
    "name bigrams",
    "name length",
    "name first word",
    "length",
)


def _groups_of(where: Path, planted: twins.Planted) -> list[tuple[dict, list[str], str]]:
    """(the module's tests, the twin group's names in module order, the anchor's name) of
    each anchored crossing planted in ``where``: the tests of its module with its body."""
    out = []
    for anchor in planted.anchors:
        module = anchor.split("::")[0].removeprefix("tests/")
        funcs = _functions((where / module).read_text())
        key = ".".join(anchor.split("::")[1:])
        group = [n for n in funcs if _body(funcs[n]) == _body(funcs[key])]
        out.append((funcs, group, key))
    return out


def collect_groups(tmp_path: Path) -> list[dict]:
    """Every anchored crossing of the bundled tasks with recorded values, each seed's: its
    task, its members' features in module order, the anchor's place, whether each member is
    a public test of the task (what a reader that knows the suite has)."""
    trials = []
    for task, entries in _recorded().items():
        suite = Suite(BUNDLED / task / "tests")
        for seed in SEEDS:
            where = tmp_path / f"{task}-groups-{seed}"
            planted = _planted(task, where, seed, entries)
            for funcs, group, key in _groups_of(where, planted):
                module = [m for m, t in suite.modules.items() if funcs.keys() >= t.keys()]
                public = [float(any(n in suite.modules[m] for m in module)) for n in group]
                rows = [
                    member_features(funcs, group, n) + [p]
                    for n, p in zip(group, public, strict=True)
                ]
                combo = tuple(sorted(funcs[n] for n in group))  # the texts, names left out
                trials.append(
                    {"task": task, "combo": combo, "rows": rows, "anchor": group.index(key)}
                )
            shutil.rmtree(where)
    return trials


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p): how often chance names the anchor this often."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def group_scores(trials: list[dict]) -> dict[str, tuple[int, int, float]]:
    """For each feature, read both ways (the member with the highest score named, and the
    lowest): (groups where it named the anchor, distinct groups, chance per group). A tie is
    broken by a fair draw among the tied; a group counts once per distinct view of it (its
    tests' texts without their names, the feature's values in module order, the anchor's
    place): a seed that planted the same crossing with the same names and order adds nothing."""
    coin = random.Random(2026)
    result = {}
    for i, name in enumerate([*GROUP_FEATURES, "public suite"]):
        for sign, way in ((1, "max"), (-1, "min")):
            views = {
                (t["task"], t["combo"], tuple(r[i] for r in t["rows"]), t["anchor"]) for t in trials
            }
            right, chance = 0, 0.0
            for _, _, values, anchor in sorted(views):
                best = max(sign * v for v in values)
                tied = [j for j, v in enumerate(values) if sign * v == best]
                right += coin.choice(tied) == anchor
                chance += 1 / len(values)
            result[f"{name} ({way})"] = (right, len(views), chance / max(1, len(views)))
    return result


def _pairs_of(planted_dir: Path, pairs: dict[str, str]) -> list[tuple[str, str, str, dict]]:
    """(module, honeypot text, other text, the module's tests) for each pair planted in
    ``planted_dir``."""
    out, cache = [], {}
    for trap, other in pairs.items():
        module = trap.split("::")[0].removeprefix("tests/")
        if module not in cache:
            cache[module] = _functions((planted_dir / module).read_text())
        funcs = cache[module]
        key_t, key_o = (".".join(n.split("::")[1:]) for n in (trap, other))
        if key_t in funcs and key_o in funcs:
            out.append((module, funcs[key_t], funcs[key_o], funcs))
    return out


def _recorded() -> dict[str, list[dict]]:
    found = {}
    for path in sorted(DATA.glob("*.json")):
        entries = json.loads(path.read_text())
        if entries and (BUNDLED / path.stem / "tests").is_dir():
            found[path.stem] = entries
    return found


def collect(tmp_path: Path, planter: str) -> list[dict]:
    """Every distinct planted pair of the bundled tasks with recorded values, with both
    tests' features (``trap``, ``other``) and its task."""
    trials, seen = [], set()
    for task, entries in _recorded().items():
        tests = BUNDLED / task / "tests"
        suite = Suite(tests)
        for seed in SEEDS if planter == "twins" else OLD_SEEDS:
            where = tmp_path / f"{task}-{planter}-{seed}"
            shutil.copytree(tests, where, ignore=shutil.ignore_patterns("__pycache__"))
            rng = random.Random(seed)
            if planter == "twins":  # the pairs of two planted tests: decoy(b), honeypot(b)
                planted = twins.plant_twins(where, rng, entries, count=CROSSINGS)
                pairs = {t: d for t, d in planted.pairs.items() if d not in planted.anchors}
            else:  # the old planting: a honeypot and the visible test it copies
                pairs = honeypot.plant_pairs(where, rng, count=4)
            for module, trap, other, funcs in _pairs_of(where, pairs):
                if (task, trap, other) in seen:
                    continue
                seen.add((task, trap, other))
                trials.append(
                    {
                        "task": task,
                        "trap": features(suite, module, trap) + twin_features(funcs, trap, other),
                        "other": features(suite, module, other) + twin_features(funcs, other, trap),
                    }
                )
            shutil.rmtree(where)
    return trials


def binomial_p(k: int, n: int) -> float:
    """Exact two-sided binomial test of ``k`` successes in ``n`` trials at p = 0.5."""
    if n == 0:
        return 1.0
    pmf = [math.comb(n, i) / 2**n for i in range(n + 1)]
    return min(1.0, sum(p for p in pmf if p <= pmf[k] * (1 + 1e-9)))


def _fit(rows: list[list[float]], labels: list[int]) -> list[float]:
    """Logistic regression without intercept (a pair's order is symmetric), by gradient
    descent on standardised features."""
    weights = [0.0] * len(rows[0])
    for _ in range(300):
        grad = [0.0] * len(weights)
        for row, label in zip(rows, labels, strict=True):
            z = sum(w * x for w, x in zip(weights, row, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            for i, x in enumerate(row):
                grad[i] += (p - label) * x
        weights = [w - 0.5 * g / len(rows) for w, g in zip(weights, grad, strict=True)]
    return weights


def _named(diffs: list[float], coin: random.Random) -> tuple[int, int]:
    """(pairs where the honeypot was named, pairs): the higher score is named, a tie by a fair
    coin (a classifier must name one of each pair; a tie means it saw nothing)."""
    right = sum(d > 1e-12 or (abs(d) <= 1e-12 and coin.random() < 0.5) for d in diffs)
    return right, len(diffs)


def scores(trials: list[dict]) -> dict[str, tuple[int, int]]:
    """For each classifier: (pairs where it named the honeypot, pairs)."""
    result = {}
    coin = random.Random(2026)
    for i, name in enumerate(FEATURES):
        result[name] = _named([t["trap"][i] - t["other"][i] for t in trials], coin)
    # learned: fitted on the pairs of half the tasks, scored on the rest, both ways
    tasks = sorted({t["task"] for t in trials})
    halves = [set(tasks[0::2]), set(tasks[1::2])]
    diffs: list[float] = []
    for train in halves:
        fit = [t for t in trials if t["task"] in train]
        test = [t for t in trials if t["task"] not in train]
        if not fit or not test:
            continue
        rows, labels = [], []
        rng = random.Random(0)
        for t in fit:  # each pair once in a random order: label 1 when the honeypot is first
            first = rng.random() < 0.5
            a, b = (t["trap"], t["other"]) if first else (t["other"], t["trap"])
            rows.append([x - y for x, y in zip(a, b, strict=True)])
            labels.append(int(first))
        scale = [
            max(1e-9, math.sqrt(sum(r[i] ** 2 for r in rows) / len(rows)))
            for i in range(len(FEATURES))
        ]
        weights = _fit([[x / s for x, s in zip(r, scale, strict=True)] for r in rows], labels)
        for t in test:
            diffs.append(
                sum(
                    w * (a - b) / s
                    for w, a, b, s in zip(weights, t["trap"], t["other"], scale, strict=True)
                )
            )
    result["learned"] = _named(diffs, coin)
    return result


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict:
    if not _recorded():
        pytest.fail(f"no recorded values in {DATA} (python tests/data/planting/record.py)")
    where = tmp_path_factory.mktemp("recogniser")
    found = {planter: scores(collect(where, planter)) for planter in ("twins", "old")}
    found["groups"] = group_scores(collect_groups(where))
    found["twinned"] = {seed: twinned(where, seed) for seed in SEEDS[:2]}
    return found


# measured on pairs of two planted tests: what a reader of the module alone has stays at chance
AT_CHANCE = ["value words", "echo", "twin literal", "twin input"]
NEAR_THE_SUITE = ["edit distance", "constant delta", "learned"]
# ``unseen values`` leans the same way (the honeypot on b expects a value the suite has; 30 to
# 32 of 87, p about 0.01): asserted neither way, printed by ``__main__``
READINGS = [f"{n} ({way})" for n in GROUP_FEATURES for way in ("max", "min")]


@pytest.mark.shares_session
class TestBatchRecogniser:
    """One measurement read by every test: the scheduler (conftest.py) gives a
    ``TestBatch`` class to one xdist worker, so the 27 s of it are spent once, not once
    per worker that got one of these tests (issue 27)."""

    @pytest.mark.parametrize("name", AT_CHANCE)
    def test_no_classifier_tells_a_honeypot_from_its_decoy(self, measured, name):
        right, n = measured["twins"][name]
        p = binomial_p(right, n)
        assert p >= ALPHA, f"{name}: named the honeypot in {right} of {n} pairs (p = {p:.2g})"

    @pytest.mark.parametrize("name", NEAR_THE_SUITE)
    def test_the_public_value_in_the_honeypot_on_b_is_seen_by_the_suite(self, measured, name):
        """Inherent to an anchored crossing, and said so: the honeypot on b expects, in one
        assertion, the public test's own value, so it is nearer to a visible test than its
        decoy, and a classifier that knows the public suite names it. Such a reader needs no
        such tell: the set difference names every planted test, which it leaves alone."""
        right, n = measured["twins"][name]  # either way: a reader turns a score round
        assert binomial_p(right, n) < ALPHA, (name, right, n)

    def test_the_same_classifiers_pick_out_the_old_honeypots(self, measured):
        """The test can fail: against the old planting (a visible test's copy with one value
        changed) the classifiers name the honeypot far better than chance."""
        found = {n: (k, m, binomial_p(k, m)) for n, (k, m) in measured["old"].items()}
        assert found["edit distance"][0] == found["edit distance"][1] > 20, found
        assert found["edit distance"][2] < 1e-6 and found["learned"][2] < 1e-6, found

    def test_enough_pairs_are_measured(self, measured):
        """Chance is measured on enough distinct pairs of two planted tests (a decoy and the
        honeypot on its input): at n >= 80 a classifier right 65 % of the time fails the bound
        (p < 0.01). Measured: 87 pairs of 8 bundled tasks (one per anchored crossing and
        recorded input: fewer than the 189 of two all-planted pairs per crossing before)."""
        assert measured["twins"]["learned"][1] >= 80, measured["twins"]

    def test_abstaining_on_twinned_tests_loses_every_anchor(self, measured):
        """The reader's strategy the twin rule gave (issue 39, 4): leave alone every test that
        has a twin in its module. It still never passes a honeypot, but it now fails every
        anchored public test, which counts, on every task that got one; and it fails little
        else (the public tests twinned by themselves)."""
        for seed, tasks in measured["twinned"].items():
            for task, found in tasks.items():
                k, n = found["anchors"]
                assert k == n, (seed, task, found)
                assert n > 0 or task in NO_ANCHOR, (seed, task, found)
                assert found["planted"][0] == found["planted"][1] == 3 * n, (seed, task, found)
                assert found["public"][0] <= 2, (seed, task, found)

    @pytest.mark.parametrize("name", READINGS)
    def test_no_reading_of_the_module_names_the_anchor_of_a_twin_pair(self, measured, name):
        """Of the two twins on the public test's input (the public test and the honeypot
        beside it), no feature a reader of the module can measure names the public one
        better than chance (one-sided: named at least this often by chance, p >= 0.01). A
        reader that answers one test of each twin pair is never caught (one expression never
        equals two values there): what it loses is the anchors it does not name."""
        right, n, chance = measured["groups"][name]
        p = binomial_tail(right, n, chance)
        assert n >= 100 and p >= ALPHA, f"{name}: named the anchor in {right} of {n} (p = {p:.2g})"

    def test_a_reader_that_knows_the_suite_names_every_anchor(self, measured):
        """Inherent, not measured to pass: a reader that knows the public suite knows every
        planted test by set difference, so it names the anchor of every pair (and the test
        above can fail)."""
        right, n, _ = measured["groups"]["public suite (max)"]
        assert right == n >= 100, measured["groups"]

    if (
        __name__ == "__main__"
    ):  # the numbers, without pytest: python tests/tasks/test_planting_recogniser.py
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for planter in ("twins", "old"):
                for name, (k, n) in scores(collect(Path(tmp), planter)).items():
                    print(f"{planter:6} {name:15} {k:4}/{n:<4} p = {binomial_p(k, n):.3g}")
            for name, (k, n, c) in group_scores(collect_groups(Path(tmp))).items():
                p = binomial_tail(k, n, c)
                print(f"anchor {name:25} {k:4}/{n:<4} chance {c:.2f} p = {p:.3g}")
            for task, found in twinned(Path(tmp)).items():
                shown = ", ".join(f"{kind} {k}/{n}" for kind, (k, n) in found.items())
                print(f"{task:12} tests with a twin (same body, other literals): {shown}")
