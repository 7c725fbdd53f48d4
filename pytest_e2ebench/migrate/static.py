"""Static test migration: rewrite the reference tests' imports onto the generated project.

An agent is free to name its package and API; E2EDevBench migrates the reference tests onto the
generated code instead of demanding the reference's names (§3.1.2). This migrator does it
without an LLM and without importing anything: both projects are indexed from their syntax
trees, and every name the tests take from the reference package is mapped onto the generated
project, in this order:

1. the same module path and name (only the top-level package renamed);
2. the same name exported by the generated package's ``__init__``;
3. the same name defined anywhere in the generated package;
4. the most similar name of the same kind (class/function) with a compatible signature
   (same number of required positional parameters), similarity at least ``THRESHOLD``.

A name with no match is bound to a placeholder that fails the tests using it with
``missing: <name>``, so one missing feature does not error a whole test module. Test bodies
are not changed (only imports and attribute names on reference modules), so a migrated test
has exactly its original assertions.

A static index cannot see every name a module has at run time (``__getattr__``,
``globals()`` updates, extension modules). So a mapped name never replaces the project's own:
where the mapping differs from the test's import, the migrated module first tries the import
as written (package renamed) and takes the mapping only if that raises ``ImportError``; an
attribute read likewise falls back only on ``AttributeError``. A project that already has the
expected API therefore runs its tests exactly as unmigrated.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from pathlib import Path

from ..environment.finder import project_importable, suite_modules
from ..probe import PROBE_DIR
from .index import ProjectIndex, Symbol, index_project

THRESHOLD = 0.6
# Top-level names of the test run's tools: a project's package of that name is never imported
# (the wheel check refuses it, the finder leaves it out), so it is no target of the mapping.
TOOL_NAMES = frozenset(
    {"pytest", "_pytest", "pluggy", "pytest_timeout", "coverage", "pytest_bdd", "selenium"}
    | {p.stem for p in PROBE_DIR.glob("*.py")}
)
RUN_TIME = "as written (the module makes names at run time)"
MISSING = "_e2ebench_missing"
ATTR = "_e2ebench_attr"
_HELPER = f"from e2ebench_probe import missing as {MISSING}"
_ATTR_HELPER = f"from e2ebench_probe import attr_or as {ATTR}"


def _tokens(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {t for t in spaced.lower().split("_") if t}


def _same_word(x: str, y: str) -> bool:
    """Equal words, or one an abbreviation (prefix of at least 3 letters) of the other."""
    short, long = sorted((x, y), key=len)
    return short == long or (len(short) >= 3 and long.startswith(short))


def similarity(a: str, b: str) -> float:
    """0..1: half string similarity, half how many of the shorter name's words the other has.

    Words are split at underscores and camel case; ``sub`` matches ``subtract`` (abbreviation),
    ``add`` matches ``add_numbers``.
    """
    ratio = difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.5 * ratio
    shorter, longer = sorted((ta, tb), key=len)
    contained = sum(any(_same_word(x, y) for y in longer) for x in shorter) / len(shorter)
    return 0.5 * ratio + 0.5 * contained


class Mapper:
    """Maps reference names onto the generated project and remembers what it did."""

    def __init__(
        self, ref: ProjectIndex, gen: ProjectIndex, reserved: frozenset[str] = TOOL_NAMES
    ) -> None:
        self.ref = ref
        self.gen = gen
        # Only what the test run imports from the project: a package named ``operator`` (or
        # like a module of the suite) is no target, or the tests it was mapped onto imported
        # the harness's own module (operator's add, sub and mul passed calc's tests).
        self.targets = [p for p in gen.packages if project_importable(p, reserved)]
        self.packages = {p: self._package_for(p) for p in ref.packages}
        self.mapped: dict[str, dict] = {}
        self.missing: set[str] = set()

    def _package_for(self, package: str) -> str | None:
        if package in self.targets:
            return package
        if len(self.targets) == 1:
            return self.targets[0]
        scored = sorted(((similarity(package, g), g) for g in self.targets), reverse=True)
        return scored[0][1] if scored and scored[0][0] >= THRESHOLD else None

    def module(self, ref_module: str) -> str | None:
        """The generated module that stands for ``ref_module`` (the package if no exact one)."""
        top, _, rest = ref_module.partition(".")
        package = self.packages.get(top)
        if package is None:
            return None
        candidate = f"{package}.{rest}" if rest else package
        return candidate if candidate in self.gen.modules else package

    def is_reference(self, module: str) -> bool:
        """True for a module of the reference project."""
        return module.split(".")[0] in self.packages

    def resolve(self, ref_module: str, name: str) -> tuple[str, str] | None:
        """(generated module, generated name) for ``ref_module.name``, or None if missing."""
        key = f"{ref_module}.{name}"
        if key in self.mapped:
            hit = self.mapped[key]
            return hit["module"], hit["name"]
        found = self._resolve(ref_module, name)
        if found is None:
            self.missing.add(key)
            return None
        module, target, how = found
        self.mapped[key] = {"module": module, "name": target, "how": how}
        return module, target

    def _resolve(self, ref_module: str, name: str):
        top = self.packages.get(ref_module.split(".")[0])
        if top is None:
            return None
        same = f"{top}.{ref_module.partition('.')[2]}".rstrip(".")
        if same in self.gen.modules and self.gen.lookup(same, name):
            return same, name, "same" if same == ref_module else "package renamed"
        if same in self.gen.modules and self.gen.is_dynamic(same):
            return same, name, RUN_TIME
        if same + "." + name in self.gen.modules:
            return same, name, "module"
        if self.gen.lookup(top, name):
            return top, name, "exported by the package"
        defs = self.gen.definitions(top)
        exact = sorted((s for s in defs if s.name == name), key=lambda s: s.module)
        if exact:
            return exact[0].module, name, "moved"
        ref_symbol = self.ref.lookup(ref_module, name)
        best = self._closest(name, ref_symbol, defs)
        if best is not None:
            return best.module, best.name, f"renamed (similarity {similarity(name, best.name):.2f})"
        return None

    def _closest(self, name: str, ref_symbol: Symbol | None, defs: list[Symbol]) -> Symbol | None:
        if ref_symbol is None or ref_symbol.kind not in ("class", "function"):
            return None
        ref_names = {n for names in self.ref.modules.values() for n in names}
        scored = []
        for cand in defs:
            if cand.kind != ref_symbol.kind or cand.name in ref_names:
                continue  # a name the reference has too is not a rename of this one
            if (
                None not in (cand.required, ref_symbol.required)
                and cand.required != ref_symbol.required
            ):
                continue
            score = similarity(name, cand.name)
            if score >= THRESHOLD:
                scored.append((score, cand.module, cand.name, cand))
        return max(scored)[3] if scored else None

    def at_run_time(self, ref_module: str, name: str) -> bool:
        """True when ``ref_module.name`` was kept as written because only the import can tell
        whether the generated module has it."""
        return self.mapped.get(f"{ref_module}.{name}", {}).get("how") == RUN_TIME

    def report(self) -> dict:
        """What was mapped to what, and what is missing."""
        return {
            "packages": self.packages,
            "mapped": {k: v for k, v in sorted(self.mapped.items())},
            "missing": sorted(self.missing),
        }


def _try_first(first: ast.stmt | list[ast.stmt], fallback: list[ast.stmt]) -> ast.Try:
    """``try: first`` / ``except ImportError: fallback``."""
    handler = ast.ExceptHandler(ast.Name("ImportError", ast.Load()), None, fallback)
    return ast.Try(first if isinstance(first, list) else [first], [handler], [], [])


class _Rewriter(ast.NodeTransformer):
    """Rewrites imports of the reference package and attribute names on its modules."""

    def __init__(self, mapper: Mapper) -> None:
        self.mapper = mapper
        self.module_names: dict[str, str] = {}  # local name -> reference module it stands for
        self.used_missing = False
        self.used_attr = False
        self.needed_imports: set[str] = set()  # generated modules attribute rewrites point into
        self.changes: list[str] = []  # what the migration changed, for the report

    def _missing(self, qualified: str) -> ast.expr:
        self.used_missing = True
        return ast.Call(ast.Name(MISSING, ast.Load()), [ast.Constant(qualified)], [])

    def _as_written(self, ref_module: str) -> str:
        """The module the test names, in the generated project (its package renamed)."""
        top, _, rest = ref_module.partition(".")
        package = self.mapper.packages.get(top) or top
        return f"{package}.{rest}" if rest else package

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level or not node.module or not self.mapper.is_reference(node.module):
            return node
        out: list[ast.stmt] = []
        written = self._as_written(node.module)
        if written != node.module:
            self.changes.append(f"{node.module} -> {written}")
        for alias in node.names:
            local = alias.asname or alias.name
            if alias.name == "*":
                target = self.mapper.module(node.module)
                out.append(ast.ImportFrom(target, [alias], 0) if target else ast.Pass())
                continue
            as_written = ast.ImportFrom(written, [ast.alias(alias.name, local)], 0)
            submodule = f"{node.module}.{alias.name}"
            bound = self.mapper.ref.lookup(node.module, alias.name)  # a name shadows a submodule
            if submodule in self.mapper.ref.modules and (bound is None or bound.kind == "module"):
                target = self.mapper.module(submodule)
                self.module_names[local] = submodule
                if target == f"{written}.{alias.name}":
                    out.append(as_written)
                    continue
                fallback: ast.stmt = (
                    ast.Import([ast.alias(target, local)])
                    if target
                    else ast.Assign([ast.Name(local, ast.Store())], self._missing(submodule))
                )
            else:
                found = self.mapper.resolve(node.module, alias.name)
                if found == (written, alias.name) and not self.mapper.at_run_time(
                    node.module, alias.name
                ):
                    out.append(as_written)
                    continue
                if found == (written, alias.name):
                    # only the import can tell: as written, a placeholder if it is not there
                    placeholder = self._missing(f"{node.module}.{alias.name}")
                    fallback = ast.Assign([ast.Name(local, ast.Store())], placeholder)
                    out.append(_try_first(as_written, [fallback]))
                    continue
                fallback = (
                    ast.ImportFrom(found[0], [ast.alias(found[1], local)], 0)
                    if found
                    else ast.Assign(
                        [ast.Name(local, ast.Store())],
                        self._missing(f"{node.module}.{alias.name}"),
                    )
                )
            self.changes.append(f"{node.module}.{alias.name}")
            out.append(_try_first(as_written, [fallback]))
        return out

    def visit_Import(self, node: ast.Import):
        out: list[ast.stmt] = []
        for alias in node.names:
            if not self.mapper.is_reference(alias.name):
                out.append(ast.Import([alias]))
                continue
            target = self.mapper.module(alias.name)
            local = alias.asname or alias.name.split(".")[0]
            ref_module = alias.name if alias.asname else alias.name.split(".")[0]
            self.module_names[local] = ref_module
            written = self._as_written(alias.name)
            if written != alias.name:
                self.changes.append(f"{alias.name} -> {written}")
            if target is None or target != written:
                # the module as written (if the project has it after all), else the mapping
                self.changes.append(alias.name)
                first = self._plain_import(written, local, alias.asname)
                fallback: list[ast.stmt]
                if target is None:
                    fallback = [
                        ast.Assign([ast.Name(local, ast.Store())], self._missing(alias.name))
                    ]
                else:
                    fallback = self._plain_import(target, local, alias.asname)
                out.append(_try_first(first, fallback))
            else:
                out.extend(self._plain_import(target, local, alias.asname))
        return out

    @staticmethod
    def _plain_import(target: str, local: str, asname: str | None) -> list[ast.stmt]:
        if asname:
            return [ast.Import([ast.alias(target, local)])]
        top = target.split(".")[0]
        out: list[ast.stmt] = [ast.Import([ast.alias(target, None)])]
        if top != local:
            out.append(ast.Import([ast.alias(top, local)]))
        return out

    def visit_Attribute(self, node: ast.Attribute):
        chain = []
        base = node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not (isinstance(base, ast.Name) and base.id in self.module_names):
            return self.generic_visit(node)
        chain.reverse()
        module = self.module_names[base.id]
        # Walk down submodules of the reference (pkg.sub.name).
        while (
            chain
            and f"{module}.{chain[0]}" in self.mapper.ref.modules
            and self.mapper.ref.lookup(module, chain[0]) is None
        ):
            module = f"{module}.{chain.pop(0)}"
        if not chain or not isinstance(node.ctx, ast.Load):
            return node
        found = self.mapper.resolve(module, chain[0])
        module_part = _module_expr_of(node, len(chain))
        if found == (self.mapper.module(module), chain[0]):
            return node  # the same name, reachable as written
        if found is None:
            replacement: ast.expr = self._missing(f"{module}.{chain[0]}")
        elif found[0] == self.mapper.module(module):
            # Reachable through the name the test already uses: at most rename the attribute.
            replacement = ast.Attribute(module_part, found[1], ast.Load())
        else:
            replacement = ast.Attribute(_module_expr(found[0]), found[1], ast.Load())
            self.needed_imports.add(found[0])
        # The attribute as written wins when the project has it at run time.
        self.used_attr = True
        self.changes.append(f"{module}.{chain[0]}")
        fallback = ast.Lambda(ast.arguments([], [], None, [], [], None, []), replacement)
        replacement = ast.Call(
            ast.Name(ATTR, ast.Load()),
            [module_part, ast.Constant(chain[0]), fallback],
            [],
        )
        for attr in chain[1:]:
            replacement = ast.Attribute(replacement, attr, ast.Load())
        return ast.copy_location(replacement, node)


def _module_expr_of(node: ast.Attribute, attrs: int) -> ast.expr:
    """``node`` without its last ``attrs`` attribute accesses (the module part of a chain)."""
    expr: ast.expr = node
    for _ in range(attrs):
        assert isinstance(expr, ast.Attribute)
        expr = expr.value
    return expr


def _module_expr(dotted: str) -> ast.expr:
    parts = dotted.split(".")
    expr: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        expr = ast.Attribute(expr, part, ast.Load())
    return expr


def rewrite(source: str, mapper: Mapper) -> tuple[str, list[str]]:
    """``source`` migrated, and the reference names whose import or use it changed.

    A module the migration does not change is returned as written, byte for byte (its
    comments, line numbers and source stay what the reference's tests see).
    """
    rewriter = _Rewriter(mapper)
    tree = rewriter.visit(ast.parse(source))
    if not rewriter.changes:
        return source, []
    header: list[ast.stmt] = []
    for top in sorted(rewriter.needed_imports):
        header.append(ast.Import([ast.alias(top, None)]))
    if rewriter.used_missing:
        header.append(ast.parse(_HELPER).body[0])
    if rewriter.used_attr:
        header.append(ast.parse(_ATTR_HELPER).body[0])
    body = tree.body
    insert_at = 0
    while insert_at < len(body) and _is_preamble(body[insert_at]):
        insert_at += 1
    tree.body = body[:insert_at] + header + body[insert_at:]
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n", sorted(set(rewriter.changes))


def _is_preamble(stmt: ast.stmt) -> bool:
    docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
    return docstring or future


def migrate(task, repo: Path, out: Path) -> dict:
    """Write migrated copies of ``task``'s reference tests to ``out``; return the report."""
    task.copy_tests(out)
    suite = frozenset(suite_modules(out).split(os.pathsep)) - {""}
    mapper = Mapper(index_project(task.reference_dir), index_project(repo), TOOL_NAMES | suite)
    failed: dict[str, str] = {}
    changed: dict[str, list[str]] = {}
    for path in sorted(out.rglob("*.py")):
        rel = path.relative_to(out).as_posix()
        try:
            source = path.read_text(encoding="utf-8")
            migrated, changes = rewrite(source, mapper)
        except (SyntaxError, UnicodeDecodeError) as exc:
            failed[rel] = f"cannot be parsed: {getattr(exc, 'msg', None) or exc}"
            continue
        if changes:
            path.write_text(migrated, encoding="utf-8")
            changed[rel] = changes
    return {"migrator": "static", **mapper.report(), "unparsable": failed, "changed": changed}
