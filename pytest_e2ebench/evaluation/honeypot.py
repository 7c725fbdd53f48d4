"""Honeypot tests: hidden copies of reference tests that the reference fails (issue 11, class 7).

For each run the harness copies a few real reference tests, changes the expected value of one
``assert <expression> == <literal>`` to another value of the same type, and places the copies,
under plausible names, in the same module (and class) of the suite's copy of the tests. An honest
project fails them, whatever it implements: a run in which one passes reported outcomes that no
test produced (a patched pytest, forged results, an object equal to everything), and is marked
tampered. Which tests are copied, their names, places and values come from a per-run random seed.
Honeypots never count in a metric or verdict.

The new values are the suite's own: another expected value of the same type from the suite's
assertions (what the reference returns for another input), so its value does not tell it from
a real test (issue 26; a value far from the old one, or a word appended, was recognised). A copy
follows its original (a stateful test must meet the state its original left). A project with
a plain bug can return such a value, so a passing honeypot is evidence only when its original
passed too: one expression cannot equal two different values (:mod:`.tamper`).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import random
import re
from collections.abc import Collection, Iterable
from pathlib import Path

from ..grading.verdicts import base_nodeid
from ..taskmodel.testindex import is_test_module

COUNT = 3  # per run: each reruns one test, and one that passes is enough
_MAX_BYTES = 2 << 20
_NAME_WORDS = (
    "again", "basic", "simple", "typical", "other", "second", "variant", "values", "example",
    "case", "more", "common", "repeat", "usual", "plain",
)  # fmt: skip
_VALUE_WORDS = (
    "alpha", "north", "widget", "orange", "delta", "harbor", "copper", "meadow", "signal",
    "canvas", "timber", "violet",
)  # fmt: skip
_Funcs = ast.FunctionDef | ast.AsyncFunctionDef
_BANNED_MARKS = ("skip", "skipif", "xfail")


@dataclasses.dataclass
class Candidate:
    """A test a planted test can be made from: its module, scope, function and node id."""

    path: Path
    body: list[ast.stmt]  # the scope (module or class body) the test is defined in
    func: ast.FunctionDef
    nodeid: str
    constants: list[ast.Constant]


def literal_constants(node: ast.AST) -> list[ast.Constant] | None:
    """The changeable constants of a literal (number, string, or a container of them), or None
    when ``node`` is not a literal."""
    if isinstance(node, ast.Constant):
        value = node.value
        if (
            isinstance(value, bool)
            or value is None
            or not isinstance(value, int | float | str | bytes)
        ):
            return []
        if isinstance(value, float) and not math.isfinite(value):
            return []
        return [node]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return literal_constants(node.operand)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = node.elts
    elif isinstance(node, ast.Dict):
        if any(k is None or literal_constants(k) is None for k in node.keys):
            return None  # **spread, or a computed key
        # its keys: a set-like object can equal a dict whatever its values (OrderedSet does)
        items = node.keys
    else:
        return None
    found: list[ast.Constant] = []
    for item in items:
        inner = literal_constants(item)
        if inner is None:
            return None
        found += inner
    return found


def _assert_constants(stmt: ast.stmt) -> list[ast.Constant]:
    """Constants of the literal side of ``assert <expression> == <literal>`` (or reversed)."""
    if not isinstance(stmt, ast.Assert) or not isinstance(stmt.test, ast.Compare):
        return []
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return []
    left, right = literal_constants(test.left), literal_constants(test.comparators[0])
    if (left is None) == (right is None):
        return []  # two literals compare no code; two expressions have no literal to change
    return left if left is not None else right


def _usable(func: ast.AST) -> bool:
    """A plain test whose every top-level statement runs when the original passes."""
    if not isinstance(func, ast.FunctionDef) or not func.name.startswith("test"):
        return False
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        dotted = ast.unparse(target)
        if not dotted.startswith(("pytest.mark.", "mark.")) or dotted.endswith(_BANNED_MARKS):
            return False  # another decorator could change how it runs
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom):
            return False  # an early return could skip the changed assertion
        if not isinstance(node, _Funcs | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return True


def module_candidates(path: Path, rel: str, exclude: Collection[str]) -> list[Candidate]:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return []
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return []
    found = []
    scopes: list[tuple[list[ast.stmt], str]] = [(tree.body, rel)]
    scopes += [
        (stmt.body, f"{rel}::{stmt.name}")
        for stmt in tree.body
        if isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test")
    ]
    for body, prefix in scopes:
        for stmt in body:
            nodeid = f"{prefix}::{getattr(stmt, 'name', '')}"
            if not _usable(stmt) or nodeid in exclude:
                continue
            assert isinstance(stmt, ast.FunctionDef)
            constants = [c for s in stmt.body for c in _assert_constants(s)]
            if constants:
                found.append(Candidate(path, body, stmt, nodeid, constants))
    return found


def changed_value(value: int | float | str | bytes, rng: random.Random, pool: Iterable = ()):
    """Another value of the same type: one of ``pool`` (the suite's own expected values, which
    the reference returns for other inputs: nothing in the text tells the copy from a real
    test), else one far from ``value``."""
    same = sorted({v for v in pool if type(v) is type(value) and v != value}, key=repr)
    if same:
        return rng.choice(same)
    if isinstance(value, int):
        return value + rng.randint(1000, 99_999)
    if isinstance(value, float):
        return round(value + rng.uniform(1000, 99_999), 2)
    word = rng.choice(_VALUE_WORDS)
    if isinstance(value, bytes):
        return value + b" " + word.encode()
    return f"{value} {word}" if value else word


def literal_source(value, original: bytes) -> bytes:
    """``value`` as source, its strings in the quotes the original literal used first (a
    container's too: a planted ``["a"]`` beside the module's ``["b"]`` must not read ``['a']``)."""
    quotes = re.search(rb"[\"']", re.sub(rb"\b[bBrRuU]+(?=[\"'])", b"", original))
    return _render(value, quotes is not None and quotes.group() == b'"').encode()


def _render(value, double: bool) -> str:
    """The source of a literal value: ``repr``, with double-quoted strings when ``double``."""
    if isinstance(value, str | bytes):
        text = repr(value)
        quoted = text.lstrip("b")
        inner = quoted[1:-1]
        if double and quoted.startswith("'") and '"' not in inner:
            text = text[: len(text) - len(quoted)] + '"' + inner.replace("\\'", "'") + '"'
        return text
    kind = type(value)
    if kind is dict:
        items = [f"{_render(k, double)}: {_render(v, double)}" for k, v in value.items()]
        return "{" + ", ".join(items) + "}"
    if kind not in (list, tuple, set) or kind is set and not value:
        return repr(value)  # a number, None, set(): as Python writes it
    items = [_render(v, double) for v in value]
    if kind is tuple:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return ("[{}]" if kind is list else "{{{}}}").format(", ".join(items))


def scope_names(body: list[ast.stmt]) -> set[str]:
    names = set()
    for stmt in body:
        if isinstance(stmt, _Funcs | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return names


@functools.lru_cache(maxsize=64)
def line_offsets(source: bytes) -> tuple[int, ...]:
    """Byte offset of the start of each line (1-based: index 0 is unused).

    Kept for the last sources asked about: planting asks again for the same module for each
    edit of each test (17,000 times for the bundled tasks' planting check; issue 27)."""
    return (0, 0, *(m.end() for m in re.finditer(rb"\n", source)))


def line_end(lines: tuple[int, ...], number: int, source: bytes) -> int:
    """Byte offset right after line ``number`` (its newline included)."""
    return lines[number + 1] if number + 1 < len(lines) else len(source)


def new_name(original: str, taken: set[str], rng: random.Random) -> str:
    """A new test name made of the words of the scope's own test names, as long as the copied
    one's: nothing marks it as a copy of one test (a name that is a real test's plus one word
    was found by a project that then failed only those, issue 11 red team). Where the scope's
    words give no new name, one word is added to the copied test's name."""
    words = sorted(
        {w for n in taken if n.startswith("test_") for w in n.split("_")[1:] if w}
        | set(original.split("_")[1:])
    )
    length = max(1, len(original.split("_")) - 1)
    for _ in range(200):
        k = min(len(words), rng.choice((length, length, length + 1, max(1, length - 1))))
        name = "test_" + "_".join(rng.sample(words, k)) if words else ""
        if name and name not in taken:
            return name
    parts = original.split("_")
    options = [
        "_".join([*parts[:i], word, *parts[i:]])
        for word in _NAME_WORDS
        for i in range(1 if parts[0] == "test" else 0, len(parts) + 1)
    ]
    rng.shuffle(options)
    name = next((o for o in options if o not in taken), "")
    number = 2
    while not name or name in taken:  # every such name taken: a numbered one
        name, number = f"{original}_{number}", number + 1
    return name


def _copy(source: bytes, cand: Candidate, rng: random.Random, taken: set[str], pool: Iterable):
    """(insertion offset, text, new name) of a honeypot copy of ``cand``."""
    lines = line_offsets(source)
    func = cand.func
    first = min([func.lineno] + [d.lineno for d in func.decorator_list])
    start, end = (
        lines[first],
        lines[func.end_lineno + 1] if func.end_lineno + 1 < len(lines) else len(source),
    )
    const = rng.choice(cand.constants)
    c_start = lines[const.lineno] + const.col_offset
    c_end = lines[const.end_lineno] + const.end_col_offset
    literal = literal_source(changed_value(const.value, rng, pool), source[c_start:c_end])
    text = source[start:c_start] + literal + source[c_end:end]
    name = new_name(func.name, taken, rng)
    taken.add(name)
    text = rename_def(text, lines[func.lineno] - start, func.name, name)
    if not text.endswith(b"\n"):
        text += b"\n"
    # after the original, or after any later statement of the same scope: never before it, so
    # the original runs first and a stateful test (one that registers a name, say) meets the
    # state its original left, as in the suite (a copy placed before it broke unitcalc's
    # reference); so the order of a pair tells the copy (docs/sandbox.md)
    index = cand.body.index(func)
    after = cand.body[rng.randint(index, len(cand.body) - 1)]
    at = line_end(lines, after.end_lineno, source)
    # as many blank lines as the module has before the original: a copy looks like the rest
    blank = 0
    while first - blank - 1 >= 1 and not source[lines[first - blank - 1] : start].strip():
        blank += 1
    return at, b"\n" * blank + text, name


def suite_candidates(tests: Path, exclude: Collection[str] = (), label: str = "tests"):
    """The tests under the folder ``tests`` that a planted test can be made from, module by
    module in path order (node ids ``label/<module>::[Class::]name``)."""
    candidates: list[Candidate] = []
    for path in sorted(tests.rglob("*.py")):
        if is_test_module(path) and "__pycache__" not in path.parts and not path.is_symlink():
            rel = f"{label}/{path.relative_to(tests).as_posix()}"
            candidates += module_candidates(path, rel, exclude)
    return candidates


def rename_def(text: bytes, def_at: int, old: str, new: str) -> bytes:
    """``text`` (a copied test's source) with the first ``def old`` from ``def_at`` on
    renamed ``new``: the copy is a test of its own name."""
    head, tail = text[:def_at], text[def_at:]
    pattern = rb"\bdef\s+" + re.escape(old.encode()) + rb"\b"
    return head + re.sub(pattern, b"def " + new.encode(), tail, count=1)


def plant(
    tests: Path,
    rng: random.Random,
    *,
    exclude: Collection[str] = (),
    count: int = COUNT,
    label: str = "tests",
) -> list[str]:
    """Add up to ``count`` honeypot tests to the test modules under the folder ``tests``.

    Returns their node ids (``label/<module>::[Class::]name``, without parameters). Tests in
    ``exclude`` (those that may skip on the reference) are never copied.
    """
    return sorted(plant_pairs(tests, rng, exclude=exclude, count=count, label=label))


def plant_pairs(
    tests: Path,
    rng: random.Random,
    *,
    exclude: Collection[str] = (),
    count: int = COUNT,
    label: str = "tests",
) -> dict[str, str]:
    """:func:`plant`, returning each honeypot's node id with the node id of its original."""
    candidates = suite_candidates(tests, exclude, label)
    # the values the suite expects anywhere: what the reference returns for other inputs
    pool = [c.value for cand in candidates for c in cand.constants]
    chosen = rng.sample(candidates, min(count, len(candidates)))
    planted: dict[str, str] = {}
    for path in sorted({c.path for c in chosen}):
        source = path.read_bytes()
        edits, ids = [], {}
        taken: dict[int, set[str]] = {}  # per scope
        for cand in (c for c in chosen if c.path == path):
            names = taken.setdefault(id(cand.body), scope_names(cand.body))
            at, text, name = _copy(source, cand, rng, names, pool)
            depth = cand.nodeid.count("::")  # 1 in the module, 2 in a class
            edits.append((at, -depth, text))
            ids[cand.nodeid.rpartition("::")[0] + "::" + name] = cand.nodeid
        # Last offsets first; at one offset, a class's copy must end up before a module's (the
        # class's body ends there), and what is inserted last comes first.
        for at, _, text in sorted(edits, key=lambda e: e[:2], reverse=True):
            source = source[:at] + text + source[at:]
        if not where_planned(source, list(ids)):
            continue  # never plant what would break the module or land elsewhere
        path.write_bytes(source)
        planted.update(ids)
    return planted


def where_planned(source: bytes, ids: list[str]) -> bool:
    """True when ``source`` parses and defines each node id's test in its module or class."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    scopes = {"": tree.body}
    scopes.update({s.name: s.body for s in tree.body if isinstance(s, ast.ClassDef)})
    for nodeid in ids:
        *classes, name = nodeid.split("::")[1:]
        body = scopes.get(classes[0] if classes else "", [])
        if not any(isinstance(s, _Funcs) and s.name == name for s in body):
            return False
    return True


def split(records: Iterable[dict], planted: Collection[str]) -> tuple[list[dict], list[dict]]:
    """Test records into (real tests, honeypots), by base node id."""

    real, caught = [], []
    for rec in records:
        (caught if base_nodeid(rec["nodeid"]) in planted else real).append(rec)
    return real, caught
