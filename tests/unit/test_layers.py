"""The package's import structure, checked statically: no first-party import cycle, no private
name taken from another module, and no import that climbs the documented layer order.

Every ``import`` in ``pytest_e2ebench`` is read with :mod:`ast` -- module level, inside functions
and under ``if TYPE_CHECKING:`` alike (a function-level import hides a cycle, it does not remove
it; a type-only import still ties two layers together). Relative imports are resolved against the
importing module's package; ``import a.b`` and ``from a import b`` both count, ``from a import
b`` as an import of the module ``a.b`` when that is a module, else of ``a`` for the name ``b``.

The layer table lives in docs/architecture.md (section "Layers"), so the rule a reader sees is
the rule this test holds. ``python tests/unit/test_layers.py`` prints the measured numbers (cycles,
private imports, layer breaks, functions over 60 and 80 lines) without running pytest.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from helpers.structure import (
    PACKAGE,
    ROOT,
    Import,
    all_imports,
    imports_in,
    long_functions,
    module_files,
)

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def import_graph(imports: list[Import]) -> dict[str, dict[str, list[Import]]]:
    """Edges ``source -> target -> [imports]``.

    Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``, so those are edges too --
    except the importer's own ancestors, which are already being imported when it runs.
    """
    modules = module_files()
    graph: dict[str, dict[str, list[Import]]] = {m: {} for m in modules}
    for imp in imports:
        if imp.attribute:
            continue
        own = set(_ancestors(imp.source))
        for target in [*_ancestors(imp.target), imp.target]:
            if target in modules and target not in own and target != imp.source:
                graph[imp.source].setdefault(target, []).append(imp)
    return graph


def strongly_connected(graph: dict[str, dict[str, list[Import]]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(result)


def _cycle_in(component: list[str], graph: dict[str, dict[str, list[Import]]]) -> list[str]:
    """One shortest cycle through the component's first module (breadth-first)."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node]):
            if nxt == start:
                return paths[node] + [start]
            if nxt in members and nxt not in paths:
                paths[nxt] = paths[node] + [nxt]
                queue.append(nxt)
    return component


def describe_cycle(cycle: list[str], graph: dict[str, dict[str, list[Import]]]) -> str:
    """``a -> b (names, at a:12) -> a …``: the modules and the names that tie them."""
    short = PACKAGE + "."
    steps = []
    for source, target in zip(cycle, cycle[1:], strict=False):
        imps = graph[source][target]
        names = sorted({n for i in imps for n in i.names}) or ["module"]
        lines = ", ".join(sorted({i.where().removeprefix(short) for i in imps}))
        steps.append(
            f"{source.removeprefix(short)} -> {target.removeprefix(short)} "
            f"[{', '.join(names)}; at {lines}]"
        )
    return "\n  ".join(steps)


def private_imports(imports: list[Import]) -> list[Import]:
    """Imports of a ``_name`` (or ``module._name`` accesses) from another first-party module."""
    return [
        i for i in imports if any(n.startswith("_") and not n.startswith("__") for n in i.names)
    ]


# --- layers -------------------------------------------------------------------------------------


def layer_table(text: str | None = None) -> tuple[list[str], dict[str, str], list[tuple]]:
    """The layers (top first), module -> layer, and the allowed exceptions, from the docs.

    The "Layers" section of docs/architecture.md holds a table ``| n | layer | modules |`` (module
    names relative to the package, a ``pkg.*`` entry covering a package and its modules) and a
    list of exceptions ``- `a` -> `b`: reason``, imports that climb a layer until the move that
    removes them.
    """
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    layers: list[str] = []
    owner: dict[str, str] = {}
    for row in re.findall(r"^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*$", section, re.M):
        layers.append(row[1])
        for name in re.findall(r"`([^`]+)`", row[2]):
            owner[name] = row[1]
    exceptions = re.findall(r"^- `([\w.*]+)` -> `([\w.*]+)`:", section, re.M)
    return layers, owner, exceptions


def layer_of(module: str, owner: dict[str, str]) -> str | None:
    """The layer a module belongs to: its own entry, else its nearest ``pkg.*`` entry."""
    name = module.removeprefix(PACKAGE).lstrip(".") or "__init__"
    if name in owner:
        return owner[name]
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        wildcard = ".".join(parts[:n]) + ".*"
        if wildcard in owner:
            return owner[wildcard]
    return None


def _excepted(imp: Import, exceptions: list[tuple]) -> bool:
    source = imp.source.removeprefix(PACKAGE + ".")
    target = imp.target.removeprefix(PACKAGE + ".")
    return any(_matches(source, a) and _matches(target, b) for a, b in exceptions)


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return module == pattern


def layer_breaks(imports: list[Import], text: str | None = None) -> list[tuple[Import, str, str]]:
    """Imports whose target sits in a higher layer than their source, exceptions aside."""
    layers, owner, exceptions = layer_table(text)
    rank = {name: n for n, name in enumerate(layers)}
    breaks = []
    for imp in imports:
        if imp.attribute:
            continue
        src, dst = layer_of(imp.source, owner), layer_of(imp.target, owner)
        if src and dst and rank[dst] < rank[src] and not _excepted(imp, exceptions):
            breaks.append((imp, src, dst))
    return breaks


# --- function sizes (informational) -------------------------------------------------------------


def function_level_imports() -> list[tuple[str, int]]:
    """``(module, line)`` of every first-party import made inside a function."""
    found = []
    for module, path in module_files().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                first_party = (isinstance(node, ast.ImportFrom) and node.level) or (
                    isinstance(node, ast.Import | ast.ImportFrom)
                    and PACKAGE in ast.unparse(node).split()[1].split(".")[:1]
                )
                if first_party:
                    found.append((module, node.lineno))
    return sorted(set(found))


# --- the tests ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def test_no_first_party_import_cycle(imports):
    graph = import_graph(imports)
    cycles = [describe_cycle(_cycle_in(c, graph), graph) for c in strongly_connected(graph)]
    assert not cycles, "first-party import cycles:\n  " + "\n\n  ".join(cycles)


def test_no_first_party_import_inside_a_function():
    # issue 28: a function-level import hides an edge of the graph from a reader (the cycle
    # test sees it, people do not); only third-party modules may be imported late
    found = [f"{module}:{line}" for module, line in function_level_imports()]
    assert not found, "import these at module level: " + ", ".join(found)


def test_no_private_name_imported_from_another_module(imports):
    found = [f"{i.where()}: {i.target}.{', '.join(i.names)}" for i in private_imports(imports)]
    assert not found, (
        "private names used across modules (make them public where they belong):\n  "
        + "\n  ".join(found)
    )


def test_every_module_has_a_layer():
    _, owner, _ = layer_table()
    missing = [m for m in module_files() if layer_of(m, owner) is None]
    assert not missing, f"modules without a layer in {ARCHITECTURE.name}: {missing}"


def test_imports_follow_the_layer_order(imports):
    found = [
        f"{imp.where()} ({src}) imports {imp.target} ({dst})"
        for imp, src, dst in layer_breaks(imports)
    ]
    assert not found, (
        f"imports that climb the layer order of {ARCHITECTURE.name} (move the name down, "
        "or pass it in through a parameter or hook):\n  " + "\n  ".join(found)
    )


def test_every_layer_exception_is_still_needed(imports):
    """An exception that no import uses any more is removed from the table, not left to rot."""
    layers, owner, exceptions = layer_table()
    rank = {name: n for n, name in enumerate(layers)}
    used = set()
    for imp in imports:
        src, dst = layer_of(imp.source, owner), layer_of(imp.target, owner)
        if imp.attribute or not (src and dst) or rank[dst] >= rank[src]:
            continue
        for exc in exceptions:
            if _excepted(imp, [exc]):
                used.add(exc)
    stale = [f"{a} -> {b}" for a, b in exceptions if (a, b) not in used]
    assert not stale, f"layer exceptions no import needs any more: {stale}"


SAMPLE = """
## Layers

| n | layer | modules |
| - | ----- | ------- |
| 1 | face | `plugin` |
| 2 | run | `runs`, `agents.*` |
| 3 | base | `errors` |

- `errors` -> `runs`: an example exception

## Next
"""


def test_layer_check_sees_a_climbing_import():
    """The checker itself: a downward import passes, an upward one is reported."""
    down = Import(f"{PACKAGE}.plugin", f"{PACKAGE}.agents.base", (), 1)
    up = Import(f"{PACKAGE}.agents.base", f"{PACKAGE}.plugin", (), 2)
    excepted = Import(f"{PACKAGE}.errors", f"{PACKAGE}.runs", (), 3)
    assert [b[0] for b in layer_breaks([down, up, excepted], SAMPLE)] == [up]


def test_cycle_finder_sees_a_function_level_cycle(tmp_path):
    """The graph walker itself, on a two-module cycle hidden in a function, relative import."""
    source = "def f():\n    from .b import g\n"
    tree_a = imports_in(f"{PACKAGE}.a", _write(tmp_path / "a.py", source), _fake_modules())
    tree_b = imports_in(
        f"{PACKAGE}.b", _write(tmp_path / "b.py", "import pytest_e2ebench.a\n"), _fake_modules()
    )
    graph = {m: {} for m in _fake_modules()}
    for imp in tree_a + tree_b:
        graph[imp.source].setdefault(imp.target, []).append(imp)
    [component] = strongly_connected(graph)
    assert component == [f"{PACKAGE}.a", f"{PACKAGE}.b"]
    assert "a -> b [g; at a:2]" in describe_cycle(_cycle_in(component, graph), graph)


def test_private_finder_sees_names_and_attributes(tmp_path):
    source = "from . import b\nfrom .b import _x\n\ndef f():\n    return b._y\n"
    found = imports_in(f"{PACKAGE}.a", _write(tmp_path / "a.py", source), _fake_modules())
    assert sorted(n for i in private_imports(found) for n in i.names) == ["_x", "_y"]


def _fake_modules() -> dict[str, Path]:
    return {
        PACKAGE: Path("__init__.py"),
        f"{PACKAGE}.a": Path("a.py"),
        f"{PACKAGE}.b": Path("b.py"),
    }


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def main() -> None:
    """Print the measured numbers: cycles, private imports, layer breaks, long functions."""
    found = all_imports()
    graph = import_graph(found)
    components = strongly_connected(graph)
    print(f"first-party import cycles (strongly connected groups): {len(components)}")
    for component in components:
        print("  " + describe_cycle(_cycle_in(component, graph), graph))
    private = private_imports(found)
    print(f"private names used across modules: {len(private)}")
    for imp in private:
        print(f"  {imp.where()}: {imp.target}.{', '.join(imp.names)}")
    if ARCHITECTURE.exists():
        print(f"layer breaks (exceptions aside): {len(layer_breaks(found))}")
    print(f"first-party imports made inside functions: {len(function_level_imports())}")
    for limit in (60, 80):
        print(f"functions over {limit} lines: {len(long_functions(limit))}")
    for module, name, size in long_functions(80):
        print(f"  {size:4d} {module}.{name}")


if __name__ == "__main__":
    main()
