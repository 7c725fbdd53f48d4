"""No code path gets an unsandboxed Sandbox by forgetting to name one (issue 26).

``Sandbox`` once defaulted to mode ``none`` and the agent toolbox and the environment build fell
back to ``Sandbox()`` when given none: a caller that forgot the argument ran agent-controlled
code without namespaces. The mode and those parameters are now required; the AST walk below
fails when new code brings such a default back.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from pytest_e2ebench.agents.tools import Toolbox
from pytest_e2ebench.environment import venv
from pytest_e2ebench.isolation.sandbox import Sandbox

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_e2ebench"


def test_a_sandbox_without_a_mode_is_refused():
    with pytest.raises(TypeError, match="mode"):
        Sandbox()


@pytest.mark.parametrize(
    "function, name",
    [(Toolbox.__init__, "sandbox"), (venv.build, "sandbox")],
    ids=["Toolbox", "venv.build"],  # stable across xdist workers (no addresses)
)
def test_the_toolbox_and_the_environment_build_require_a_sandbox(function, name):
    assert inspect.signature(function).parameters[name].default is inspect.Parameter.empty


def _calls_and_parameters(tree: ast.AST):
    """(line, problem) for each ``Sandbox(...)`` without a mode or with the literal ``none``,
    and each parameter annotated as a sandbox that has a default."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Sandbox":
            modes = [k.value for k in node.keywords if k.arg == "mode"] + node.args[:1]
            if not modes:
                yield node.lineno, "Sandbox() without a mode"
            elif isinstance(modes[0], ast.Constant) and modes[0].value == "none":
                yield node.lineno, 'Sandbox(mode="none") in the package'
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            tail = positional[len(positional) - len(args.defaults) :]
            defaults = dict(zip(tail, args.defaults, strict=True))
            pairs = zip(args.kwonlyargs, args.kw_defaults, strict=True)
            defaults.update((a, d) for a, d in pairs if d is not None)
            for arg in defaults:
                if arg.annotation is not None and "Sandbox" in ast.unparse(arg.annotation):
                    yield node.lineno, f"{node.name}({arg.arg}=...): a sandbox with a default"


def test_no_package_code_defaults_a_sandbox_or_names_mode_none():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {problem}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, problem in _calls_and_parameters(ast.parse(path.read_text(), str(path)))
    ]
    assert not found, "pass the session's sandbox or machine_sandbox():\n" + "\n".join(found)


def test_the_walk_finds_each_shape_it_forbids():
    source = (
        "def a(sandbox: Sandbox | None = None): pass\n"
        "def b(*, box: 'Sandbox' = X): pass\n"
        "Sandbox()\n"
        "Sandbox(mode='none')\n"
        "Sandbox(mode=chosen)\n"
        "def c(sandbox: Sandbox): pass\n"
    )
    found = sorted(line for line, _ in _calls_and_parameters(ast.parse(source)))
    assert found == [1, 2, 3, 4]
