"""The level-3 skeleton: the reference with its implementation masked (ProjectEval §3.1).

Python files keep their imports, module-level statements, class and function signatures and
docstrings; every function body becomes its docstring and ``...``. HTML files keep their
markup; the inner content of each element carrying the attribute ``data-mask`` is emptied
(the attribute is dropped). Other files are copied as they are, except the reference's
``parameters.json`` (its canonical answers are not the agent's to see).
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from . import PARAMETERS_FILE

MASK_ATTRIBUTE = "data-mask"
NOT_COPIED = ("__pycache__", "*.pyc", "*.egg-info", PARAMETERS_FILE)
_MASKED_OPEN = re.compile(
    r"<(?P<tag>[A-Za-z][A-Za-z0-9-]*)(?P<before>[^>]*?)\s" + MASK_ATTRIBUTE + r"(?:=\"[^\"]*\")?"
    r"(?P<after>[^>]*)>",
)


class _Bodies(ast.NodeTransformer):
    def _mask(self, node):
        self.generic_visit(node)  # nested classes keep their shape; nested defs vanish anyway
        doc = ast.get_docstring(node, clean=False)
        body: list[ast.stmt] = [ast.Expr(ast.Constant(doc))] if doc is not None else []
        node.body = [*body, ast.Expr(ast.Constant(...))]
        return node

    visit_FunctionDef = _mask
    visit_AsyncFunctionDef = _mask


def mask_python(source: str) -> str:
    """``source`` with every function body replaced by its docstring and ``...``."""
    tree = _Bodies().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def mask_html(source: str) -> str:
    """``source`` with the inner content of every ``data-mask`` element removed."""
    out: list[str] = []
    position = 0
    while True:
        match = _MASKED_OPEN.search(source, position)
        if match is None:
            out.append(source[position:])
            return "".join(out)
        tag = match["tag"]
        out.append(source[position : match.start()])
        out.append(f"<{tag}{match['before']}{match['after']}>")
        # the matching close tag, counting nested elements of the same name
        depth, cursor = 1, match.end()
        pattern = re.compile(rf"<(/?){tag}\b[^>]*>", re.IGNORECASE)
        while depth:
            found = pattern.search(source, cursor)
            if found is None:
                cursor = len(source)
                break
            depth += -1 if found[1] else 1
            cursor = found.end()
            if not depth:
                out.append(f"</{tag}>")
        position = cursor


def mask_tree(reference: Path, dest: Path) -> list[str]:
    """Write the skeleton of ``reference`` into ``dest``; return its files (posix paths)."""
    shutil.copytree(reference, dest, ignore=shutil.ignore_patterns(*NOT_COPIED), dirs_exist_ok=True)
    files = []
    for path in sorted(p for p in dest.rglob("*") if p.is_file()):
        if path.suffix == ".py":
            try:
                path.write_text(mask_python(path.read_text(encoding="utf-8")), encoding="utf-8")
            except (SyntaxError, UnicodeDecodeError):
                pass  # kept as it is: the skeleton of a file that is not Python 3
        elif path.suffix in (".html", ".htm"):
            path.write_text(mask_html(path.read_text(encoding="utf-8")), encoding="utf-8")
        files.append(path.relative_to(dest).as_posix())
    return files
