"""mutants.toml: validation, application, and grading mutants through dir:."""

from __future__ import annotations

import json

import pytest

from pytest_e2ebench.errors import TaskError
from pytest_e2ebench.taskmodel.mutants import MutantError, apply
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.selfcheck import mutants_main as main

MUTANTS = """
[[mutant]]
name = "sub-adds"
class = "wrong_logic"
fails = ["R2"]
[[mutant.edit]]
file = "calc/sub.py"
old = "return a - b"
new = "return a + b"

[[mutant]]
name = "mul-stub"
class = "stub"
fails = ["R3"]
[[mutant.edit]]
file = "calc/mul.py"
old = "return a * b"
new = "return None"
"""


def test_mutants_load_and_apply(tasks, tmp_path):
    root = tasks.make()
    (root / "mutants.toml").write_text(MUTANTS)
    task = load_task(root)
    assert [(m.name, m.cls, m.fails) for m in task.mutants] == [
        ("sub-adds", "wrong_logic", ("R2",)),
        ("mul-stub", "stub", ("R3",)),
    ]
    out = apply(task.reference_dir, task.mutants[0], tmp_path / "m")
    assert "return a + b" in (out / "calc" / "sub.py").read_text()
    assert "return a - b" in (task.reference_dir / "calc" / "sub.py").read_text()


def test_edit_must_match_exactly_once(tasks, tmp_path):
    root = tasks.make()
    (root / "mutants.toml").write_text(MUTANTS.replace('old = "return a * b"', 'old = "return"'))
    task = load_task(root)
    apply(task.reference_dir, task.mutants[0], tmp_path / "ok")
    with pytest.raises(MutantError, match="occurs 2 times in calc/mul.py"):
        apply(task.reference_dir, task.mutants[1], tmp_path / "bad")


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            '[[mutant]]\nname = "x"\nclass = "typo"\nfails = ["R1"]\n[[mutant.edit]]\nfile = "calc/add.py"\nold = "a"\nnew = "b"\n',
            "calc/mutants.toml: mutant 'x': field 'class' = 'typo'; use one of missing_feature, stub, wrong_logic, wrong_format",
        ),
        (
            '[[mutant]]\nname = "x"\nclass = "stub"\nfails = ["R7"]\n[[mutant.edit]]\nfile = "calc/add.py"\nold = "a"\nnew = "b"\n',
            "calc/mutants.toml: mutant 'x': fails ['R7'], which are not in requirements.md",
        ),
        (
            '[[mutant]]\nname = "x"\nclass = "stub"\nfails = ["R1"]\n[[mutant.edit]]\nfile = "calc/nope.py"\nold = "a"\nnew = "b"\n',
            "calc/mutants.toml: mutant 'x': edit file 'calc/nope.py' is not in the reference",
        ),
        (
            '[[mutant]]\nname = "x"\nclass = "stub"\nfails = []\n',
            "calc/mutants.toml: mutant 'x': field 'fails' must list the requirement ids it fails",
        ),
        ("[[mutant]\n", "calc/mutants.toml: not valid TOML"),
    ],
)
def test_malformed_mutants_name_the_field(tasks, text, problem):
    root = tasks.make()
    (root / "mutants.toml").write_text(text)
    with pytest.raises(TaskError) as info:
        load_task(root)
    assert problem in str(info.value)


def test_materialized_mutants_fail_exactly_what_they_declare(pytester, tasks, results, capsys):
    root = tasks.make()
    (root / "mutants.toml").write_text(MUTANTS)
    assert main([str(pytester.path / "tasks"), str(pytester.path / "muts")]) == 0
    assert "grade them with: pytest --e2e-agent=dir:" in capsys.readouterr().out
    manifest = json.loads((pytester.path / "muts" / "mutants.json").read_text())
    assert [m["name"] for m in manifest["calc"]] == ["sub-adds", "mul-stub"]
    result = pytester.runpytest("--e2e-agent=dir:muts", "--e2e-tasks=tasks", "--e2e-runs=2")
    result.assert_outcomes(passed=4, failed=2)
    failed = {
        r["run"]: [q["id"] for q in r["requirements"] if q["verdict"] != "implemented"]
        for r in results()["tasks"]
    }
    assert failed == {1: ["R2"], 2: ["R3"]}


@pytest.mark.slow
def test_selfcheck_names_the_test_behind_an_undeclared_failure(pytester, tasks, capsys):
    """A mutant that fails another requirement than it declares: FAIL, with the failing test."""
    from pytest_e2ebench.tools.selfcheck import main as selfcheck

    root = tasks.make()
    (root / "mutants.toml").write_text(MUTANTS.replace('fails = ["R2"]', 'fails = ["R1"]'))
    code = selfcheck([str(root), "--runs", "1", "-n", "0", "--keep", str(pytester.path / "w")])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("FAIL calc:")
    assert "mutant 'sub-adds' (wrong_logic) fails ['R2'], declares ['R1']" in out
    assert "(tests/test_calc.py::test_sub: assert 8 == 2)" in out  # what failed R2, and why
