"""Find a task's reference tests and their requirement tags without importing them.

The outer pytest must never import reference tests (they import the package under test, which
does not exist in the harness), so tags are read from the syntax tree. A tag is the literal
``pytest.mark.requirement("R1", ...)`` on a test function or class, or in a ``pytestmark``
assignment of the module or class.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import os
from pathlib import Path

from ..isolation.intake import MAX_SOURCE_BYTES, PARSE_ERRORS, parse_python
from ..untrusted import child

TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")
# Which of an agent's test-named modules define tests (its own suite's gate) is asked in a
# child with these bounds (issue 40, item 5): its modules are the agent's, and the index is
# not cheap on them -- a 2 MB module of one-line functions takes 9 s and 500 MB to parse and
# scan, a 67 KB chain of 2,000 ``Test`` classes 9 s, 137 KB of 4,000 of them 76 s.
INDEX_SECONDS = 60.0
INDEX_MEMORY = 2 << 30
INDEX_STEP = "the index of the project's own tests"
# as few and small modules as these are indexed in the harness's process (a child costs
# 0.2-0.3 s): the worst measured here, a 16 KiB chain of 500 classes, took 0.8 s
SMALL_BYTES = 16 << 10
SMALL_FILES = 20


@dataclasses.dataclass(frozen=True)
class Naming:
    """pytest's ``python_files``, ``python_classes`` and ``python_functions`` (defaults: pytest's
    own). Files are globs; classes and functions are prefixes, or globs when they hold one."""

    files: tuple[str, ...] = TEST_FILE_PATTERNS
    classes: tuple[str, ...] = ("Test",)
    functions: tuple[str, ...] = ("test",)

    @staticmethod
    def _match(name: str, patterns: tuple[str, ...]) -> bool:
        return any(
            fnmatch.fnmatchcase(name, p) if any(c in p for c in "*?[") else name.startswith(p)
            for p in patterns
        )

    def is_file(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, p) for p in self.files)

    def is_class(self, name: str) -> bool:
        return self._match(name, self.classes)

    def is_function(self, name: str) -> bool:
        return self._match(name, self.functions)

    @classmethod
    def from_ini(cls, ini: dict[str, tuple[str, ...]]) -> Naming:
        """From pytest settings (name -> words), e.g. a task's ``[tests.ini]``."""
        return cls(
            tuple(ini.get("python_files") or TEST_FILE_PATTERNS),
            tuple(ini.get("python_classes") or ("Test",)),
            tuple(ini.get("python_functions") or ("test",)),
        )


DEFAULT_NAMING = Naming()


@dataclasses.dataclass(frozen=True)
class StaticTest:
    """One test function as written in a reference test module.

    ``nodeid`` is relative to the folder that holds the tests folder, e.g.
    ``tests/test_api.py::TestParse::test_empty``; ``cases`` is the number of items pytest will
    make of it (the product of literal ``parametrize`` lists, 1 when unknown).
    """

    nodeid: str
    requirements: tuple[str, ...]
    cases: int
    line: int
    # (case glob, requirement id): requirements a mapping gives only to some parametrized
    # cases of the test, e.g. ``tests/test_x.py::test_f[utf8-*]`` (issue 20.2)
    case_requirements: tuple[tuple[str, str], ...] = ()

    def requirements_of(self, nodeid: str) -> list[str]:
        """The requirements of the case ``nodeid`` of this test."""
        params = nodeid[len(self.nodeid) :]
        return [
            rid
            for rid in self.requirements
            if not any(r == rid for _, r in self.case_requirements)
            or any(r == rid and _case_match(params, g) for g, r in self.case_requirements)
        ]

    @property
    def file(self) -> str:
        """The test module's path, relative like the node id."""
        return self.nodeid.split("::", 1)[0]


def dotted_name(node: ast.AST) -> str:
    """``a.b.c`` of an attribute chain over a name; the part it could read of anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _mark_name(node: ast.AST) -> str | None:
    """``pytest.mark.requirement(...)`` -> ``requirement``; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    dotted = dotted_name(node.func)
    head, _, name = dotted.rpartition(".")
    if head.endswith("mark") and name:
        return name
    return None


class _Problems(list):
    def add(self, path: str, node: ast.AST, text: str) -> None:
        self.append(f"{path}:{getattr(node, 'lineno', 0)}: {text}")


def _requirement_ids(node: ast.AST, path: str, problems: _Problems) -> list[str]:
    """Requirement ids in one decorator / pytestmark expression (a mark or a list of marks)."""
    if isinstance(node, ast.List | ast.Tuple):
        ids: list[str] = []
        for elt in node.elts:
            ids.extend(_requirement_ids(elt, path, problems))
        return ids
    if _mark_name(node) != "requirement":
        return []
    ids = []
    assert isinstance(node, ast.Call)
    for arg in node.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            ids.append(arg.value.strip())
        else:
            problems.add(
                path,
                node,
                "requirement marker arguments must be string literals, "
                'e.g. @pytest.mark.requirement("R1")',
            )
    if not node.args:
        problems.add(
            path, node, 'requirement marker without an id; write @pytest.mark.requirement("R1")'
        )
    return ids


def _cases(decorators: list[ast.expr], constants: dict[str, int]) -> int:
    """Number of parametrized cases: product of the lengths of literal argvalue lists.

    A list may also be named by a module-level constant assigned a literal list or tuple.
    """
    total = 1
    for dec in decorators:
        if _mark_name(dec) != "parametrize":
            continue
        assert isinstance(dec, ast.Call)
        values = dec.args[1] if len(dec.args) > 1 else None
        for kw in dec.keywords:
            if kw.arg == "argvalues":
                values = kw.value
        if isinstance(values, ast.List | ast.Tuple):
            total *= len(values.elts)
        elif isinstance(values, ast.Name) and values.id in constants:
            total *= constants[values.id]
    return total


def _literal_lengths(tree: ast.Module) -> dict[str, int]:
    """Module-level ``NAME = [...]`` / ``(...)`` assignments and their lengths."""
    lengths: dict[str, int] = {}
    for stmt in tree.body:
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name) and isinstance(value, ast.List | ast.Tuple):
            lengths[target.id] = len(value.elts)
    return lengths


def _pytestmark(body: list[ast.stmt], path: str, problems: _Problems) -> list[str]:
    ids: list[str] = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
        ):
            ids.extend(_requirement_ids(stmt.value, path, problems))
    return ids


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@pytest.fixture`` / ``@fixture(...)``: a fixture named ``test_*`` is not a test."""
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if dotted_name(target).rpartition(".")[2] in ("fixture", "yield_fixture"):
            return True
    return False


def _not_a_test(body: list[ast.stmt]) -> bool:
    """``__test__ = False`` in a module or class body."""
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__test__" for t in stmt.targets)
            and isinstance(stmt.value, ast.Constant)
            and not stmt.value.value
        ):
            return True
    return False


class _Module:
    """What one test module defines, for the scan: its classes by name, and the naming rules."""

    def __init__(self, tree: ast.Module, naming: Naming = DEFAULT_NAMING) -> None:
        self.classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
        self.naming = naming

    def bases(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """``cls``'s base classes defined in this module, nearest first (the MRO, roughly):
        depth first, each class once. (The recursion that was here, visiting a class again on
        every path to it, took time exponential in a chain of classes each with two bases of
        the ones before -- 26 of them 2 s, a module of 40 lines minutes -- and raised
        RecursionError on a chain 1,000 deep.)"""
        out: list[ast.ClassDef] = []
        seen = {id(cls)}
        pending = [iter(cls.bases)]
        while pending:
            base = next(pending[-1], None)
            if base is None:
                pending.pop()
                continue
            local = self.classes.get(dotted_name(base))
            if local is None or id(local) in seen:
                continue
            seen.add(id(local))
            out.append(local)
            pending.append(iter(local.bases))
        return out

    def is_unittest(self, cls: ast.ClassDef) -> bool:
        """A ``unittest.TestCase`` subclass (directly, or through a class of this module):
        pytest collects it whatever its name."""
        return any(
            dotted_name(base).rpartition(".")[2].endswith("TestCase")
            for owner in (cls, *self.bases(cls))
            for base in owner.bases
        )


def _class_ids(cls: ast.ClassDef, path: str, problems: _Problems) -> list[str]:
    ids = _pytestmark(cls.body, path, problems)
    for dec in cls.decorator_list:
        ids.extend(_requirement_ids(dec, path, problems))
    return ids


def _scan_class(cls, module, prefix, inherited, path, problems, out, constants) -> None:
    """The tests of a collected class: its own ``test*`` methods and those it inherits from
    classes of the same module (pytest collects inherited test methods under the subclass)."""
    unittest = module.is_unittest(cls)
    chain = [cls, *module.bases(cls)]
    ids = inherited + [rid for c in chain for rid in _class_ids(c, path, problems)]
    seen: set[str] = set()
    for owner in chain:
        for stmt in owner.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if stmt.name in seen:
                    continue  # overridden in a subclass
                seen.add(stmt.name)
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                named = (
                    stmt.name.startswith("test")
                    if unittest
                    else module.naming.is_function(stmt.name)
                )  # unittest's loader takes test* methods, whatever pytest's settings say
                if named and not _is_fixture(stmt):
                    _add_test(
                        stmt,
                        f"{prefix}::{stmt.name}",
                        ids,
                        path,
                        problems,
                        out,
                        constants,
                        parametrized=not unittest,
                    )
            elif isinstance(stmt, ast.ClassDef) and not unittest:
                _scan_nested(stmt, module, prefix, ids, path, problems, out, constants)


def _scan_nested(cls, module, prefix, inherited, path, problems, out, constants) -> None:
    if module.naming.is_class(cls.name) and not _not_a_test(cls.body) and not _has_init(cls):
        _scan_class(cls, module, f"{prefix}::{cls.name}", inherited, path, problems, out, constants)


def _has_init(cls: ast.ClassDef) -> bool:
    """pytest does not collect a ``Test*`` class with its own ``__init__`` (it warns)."""
    return any(
        isinstance(s, ast.FunctionDef) and s.name in ("__init__", "__new__") for s in cls.body
    )


def _add_test(stmt, nodeid, inherited, path, problems, out, constants, parametrized=True):
    ids = list(inherited)
    for dec in stmt.decorator_list:
        ids.extend(_requirement_ids(dec, path, problems))
    out.append(
        StaticTest(
            nodeid=nodeid,
            requirements=tuple(dict.fromkeys(ids)),
            cases=_cases(stmt.decorator_list, constants) if parametrized else 1,
            line=stmt.lineno,
        )
    )


def _scan_module(
    tree: ast.Module,
    path: str,
    problems: _Problems,
    out: list,
    naming: Naming = DEFAULT_NAMING,
) -> None:
    """The tests pytest collects from one module, by its default naming rules: functions named
    ``test*`` (not fixtures), classes named ``Test*`` without ``__init__``, and every
    ``unittest.TestCase`` subclass whatever its name; ``__test__ = False`` opts out."""
    if _not_a_test(tree.body):
        return
    constants = _literal_lengths(tree)
    module = _Module(tree, naming)
    own = _pytestmark(tree.body, path, problems)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if naming.is_function(stmt.name) and not _is_fixture(stmt):
                _add_test(stmt, f"{path}::{stmt.name}", own, path, problems, out, constants)
        elif isinstance(stmt, ast.ClassDef) and not _not_a_test(stmt.body):
            if module.is_unittest(stmt):
                _scan_class(
                    stmt, module, f"{path}::{stmt.name}", own, path, problems, out, constants
                )
            elif naming.is_class(stmt.name) and not _has_init(stmt):
                _scan_class(
                    stmt, module, f"{path}::{stmt.name}", own, path, problems, out, constants
                )


def module_tests(tree: ast.Module, path: str) -> list[StaticTest]:
    """The tests of one parsed module (node ids start with ``path``), tags unchecked."""
    found: list[StaticTest] = []
    _scan_module(tree, path, _Problems(), found)
    return found


class _Found(Exception):
    """The scan found a test: whether there is one is all :func:`defines_tests` asks."""


class _FirstTest(list):
    def append(self, test) -> None:
        raise _Found


def defines_tests(root: Path, rel: Path) -> bool:
    """True when the module ``root/rel`` defines a test pytest would collect (read bounded,
    without following links; an unparseable module counts as a test module). The scan stops
    at the first test: the tests a chain of classes inherits grow with its square."""
    tree = parse_python(root, rel)
    if tree is None:
        return True
    try:
        _scan_module(tree, rel.as_posix(), _Problems(), _FirstTest())
    except _Found:
        return True
    return False


def test_modules_among(root: Path, rels: list[Path]) -> list[str]:
    """The modules of ``rels`` (relative to ``root``) that define a test, as posix paths."""
    return [rel.as_posix() for rel in rels if defines_tests(root, rel)]


def bounded_test_modules(
    root: Path, rels: list[Path], seconds: float | None = None
) -> tuple[list[Path], str | None]:
    """:func:`test_modules_among` of the agent's modules ``rels``, and None: in a child
    (:mod:`~pytest_e2ebench.untrusted.child`, :data:`INDEX_SECONDS` unless ``seconds``), few
    and small modules (:data:`SMALL_BYTES`, :data:`SMALL_FILES`) here. Over a bound, every one
    of ``rels`` counts as a test module (as an unparseable one does: pytest, in the sandbox,
    collects what there is) and the note names the step and the bound."""
    if _small(root, rels):
        return [Path(rel) for rel in test_modules_among(root, rels)], None
    bounds = {"seconds": seconds or INDEX_SECONDS, "memory": INDEX_MEMORY}
    try:
        found = child.call(test_modules_among, root, rels, step=INDEX_STEP, stage="tests", **bounds)
    except child.OverBound as over:
        return list(rels), f"{over}: every test-named module of the project counts as one"
    return [Path(rel) for rel in found], None


def _small(root: Path, rels: list[Path]) -> bool:
    """Whether ``rels`` are at most :data:`SMALL_FILES` files of :data:`SMALL_BYTES` together."""
    if len(rels) > SMALL_FILES:
        return False
    total = 0
    for rel in rels:
        try:  # lstat: a link is not followed (defines_tests reads none either)
            total += os.lstat(root / rel).st_size
        except OSError:
            continue
    return total <= SMALL_BYTES


def is_test_module(path: Path) -> bool:
    """True for file names pytest collects by default (``test_*.py``, ``*_test.py``)."""
    return any(fnmatch.fnmatch(path.name, pat) for pat in TEST_FILE_PATTERNS)


def scan_tests(
    tests: Path, *, label: str = "tests", naming: Naming = DEFAULT_NAMING
) -> tuple[list[StaticTest], list[str]]:
    """Every test function under ``tests`` (a folder or one module) with its tags, plus problems.

    Node ids start with ``label``, the folder the tests get in the harness's test directory.
    """
    found: list[StaticTest] = []
    problems = _Problems()
    files = [tests] if tests.is_file() else sorted(tests.rglob("*.py"))
    for file in files:
        if not naming.is_file(file.name) or "__pycache__" in file.parts:
            continue
        rel = f"{label}/{file.relative_to(tests if tests.is_dir() else tests.parent).as_posix()}"
        # Tasks may be imported from elsewhere: the read is bounded and a module the parser
        # cannot take (too large, nested too deeply) is a problem of the task, not a crash.
        with file.open("rb") as fh:
            source = fh.read(MAX_SOURCE_BYTES + 1)
        if len(source) > MAX_SOURCE_BYTES:
            problems.append(f"{rel}: larger than {MAX_SOURCE_BYTES} bytes; split the module")
            continue
        try:
            tree = ast.parse(source, filename=str(file))
        except SyntaxError as exc:
            problems.append(f"{rel}:{exc.lineno}: syntax error: {exc.msg}; fix the test module")
            continue
        except PARSE_ERRORS as exc:
            problems.append(f"{rel}: cannot be parsed ({type(exc).__name__}); simplify it")
            continue
        _scan_module(tree, rel, problems, found, naming)
    return found, list(problems)


def _split_case(pattern: str) -> tuple[str, str]:
    """``tests/t.py::test_f[a-*]`` -> (``tests/t.py::test_f``, ``[a-*]``); no case part: ''."""
    head, sep, last = pattern.rpartition("::")
    bracket = last.find("[")
    if not sep or bracket <= 0 or not last.endswith("]"):
        return pattern, ""
    return f"{head}::{last[:bracket]}", last[bracket:]


def _case_match(params: str, glob: str) -> bool:
    """Case ids hold brackets of their own: only ``*`` and ``?`` are wildcards here."""
    escaped = "".join("[[]" if c == "[" else "[]]" if c == "]" else c for c in glob)
    return fnmatch.fnmatchcase(params, escaped)


def apply_mapping(tests: list[StaticTest], mapping: dict[str, list[str]]) -> list[StaticTest]:
    """Add requirement ids to tests whose node id matches a glob of ``[tests.requirements]``.

    A glob that names parametrized cases (``...::test_f[utf8-*]``) gives the requirement to
    those cases only.
    """
    out = []
    for test in tests:
        extra: list[str] = []
        cases: list[tuple[str, str]] = []
        for rid, globs in mapping.items():
            for pattern in globs:
                base, params = _split_case(pattern)
                if not fnmatch.fnmatchcase(test.nodeid, base):
                    if params or not fnmatch.fnmatchcase(test.nodeid, pattern + "::*"):
                        continue
                if params:
                    cases.append((params, rid))
                extra.append(rid)
        whole = set(test.requirements) | {
            rid for rid in extra if not any(r == rid for _, r in cases)
        }
        cases = [(g, rid) for g, rid in cases if rid not in whole]
        if extra:
            test = dataclasses.replace(
                test,
                requirements=tuple(dict.fromkeys(test.requirements + tuple(extra))),
                case_requirements=tuple(dict.fromkeys(cases)),
            )
        out.append(test)
    return out
