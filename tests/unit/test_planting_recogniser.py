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
OLD_SEEDS = range(2)  # the old copies are told apart at once: a few pairs show it
CROSSINGS = 50  # per planting (a run plants 2): every test that has one, per parse of a suite
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
    """The test's syntax tree with the literal sides of its ``==`` assertions blanked."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            for side in (node.test.left, *node.test.comparators):
                if honeypot.literal_constants(side) is not None:
                    for leaf in ast.walk(side):
                        if isinstance(leaf, ast.Constant):
                            leaf.value = None
    return ast.dump(tree)


def _has_twin(funcs: dict[str, str], name: str) -> bool:
    """Whether another test of the module has ``name``'s body and expects other literals."""
    text = funcs[name]
    return any(
        other != name and _body(twin) == _body(text) and _expected(twin) != _expected(text)
        for other, twin in funcs.items()
    )


def twinned(tmp_path: Path) -> dict[str, tuple[int, int]]:
    """What the rule names of the tests as a set (docs/sandbox.md): (tests with a twin, tests),
    planted and public, two crossings per bundled task with recorded values, seed 0."""
    found = {"planted": [0, 0], "public": [0, 0]}
    for task, entries in _recorded().items():
        where = tmp_path / f"{task}-twinned"
        shutil.copytree(
            BUNDLED / task / "tests", where, ignore=shutil.ignore_patterns("__pycache__")
        )
        pairs = twins.plant_twins(where, random.Random(0), entries, count=2)
        planted = {".".join(n.split("::")[1:]) for n in [*pairs, *pairs.values()]}
        for path in where.rglob("test_*.py"):
            funcs = _functions(path.read_text())
            for name in funcs:
                count = found["planted" if name in planted else "public"]
                count[0] += _has_twin(funcs, name)
                count[1] += 1
        shutil.rmtree(where)
    return {k: (v[0], v[1]) for k, v in found.items()}


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
            if planter == "twins":
                pairs = twins.plant_twins(where, rng, entries, count=CROSSINGS)
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
    return {planter: scores(collect(where, planter)) for planter in ("twins", "old")}


CLASSIFIERS = [*FEATURES, "learned"]


class TestBatchRecogniser:
    """One measurement read by every test: the scheduler (conftest.py) gives a
    ``TestBatch`` class to one xdist worker, so the 27 s of it are spent once, not once
    per worker that got one of these tests (issue 27)."""

    @pytest.mark.parametrize("name", CLASSIFIERS)
    def test_no_classifier_tells_a_honeypot_from_its_decoy(self, measured, name):
        right, n = measured["twins"][name]
        p = binomial_p(right, n)
        assert p >= ALPHA, f"{name}: named the honeypot in {right} of {n} pairs (p = {p:.2g})"

    def test_the_same_classifiers_pick_out_the_old_honeypots(self, measured):
        """The test can fail: against the old planting (a visible test's copy with one value
        changed) the classifiers name the honeypot far better than chance."""
        found = {n: (k, m, binomial_p(k, m)) for n, (k, m) in measured["old"].items()}
        assert found["edit distance"][0] == found["edit distance"][1] > 20, found
        assert found["edit distance"][2] < 1e-6 and found["learned"][2] < 1e-6, found

    def test_enough_pairs_are_measured(self, measured):
        """Chance is measured on enough distinct pairs: at n >= 150 a classifier right 62 % of the
        time fails the bound (p < 0.01). Measured: 189 pairs of 10 bundled tasks."""
        assert measured["twins"]["learned"][1] >= 150, measured["twins"]

    if (
        __name__ == "__main__"
    ):  # the numbers, without pytest: python tests/unit/test_planting_recogniser.py
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for planter in ("twins", "old"):
                for name, (k, n) in scores(collect(Path(tmp), planter)).items():
                    print(f"{planter:6} {name:15} {k:4}/{n:<4} p = {binomial_p(k, n):.3g}")
            for kind, (k, n) in twinned(Path(tmp)).items():
                print(f"{kind} tests with a twin (same body, other literals): {k}/{n}")
