"""The reference passes every planted decoy and fails every planted honeypot (issue 26, 1c).

Crossings are planted from the values the trusted stage recorded (stored in
``tests/data/planting/``) into a copy of a bundled task's tests, which then run on the
task's reference in one plain pytest process (the reference is the harness's own code).
"""

from __future__ import annotations

import ast
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.evaluation.planting import twins

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "planting"
TASKS = ("bankrec", "cfgmerge", "csvq")


def _outcomes(task: str, tmp_path: Path, seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """(honeypot -> decoy node ids, node id -> outcome) of one planting run on the reference."""
    entries = json.loads((DATA / f"{task}.json").read_text())
    tests = tmp_path / "tests"
    shutil.copytree(ROOT / "benchmark_tasks" / task / "tests", tests)
    planted = twins.plant_twins(tests, random.Random(seed), entries, count=4)
    pairs = planted.pairs
    assert len(pairs) >= 2, pairs
    reference = ROOT / "benchmark_tasks" / task / "reference"
    path = reference / "src" if (reference / "src").is_dir() else reference
    env = {**os.environ, "PYTHONPATH": str(path), "PYTHONDONTWRITEBYTECODE": "1"}
    modules = sorted({n.split("::")[0] for n in pairs})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", *modules],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcome: dict[str, str] = {}
    for line in done.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR"):
            nodeid = rest.split(" ")[0].split("[")[0]
            outcome[nodeid] = "FAILED" if outcome.get(nodeid, word) != word else word
    # a module whose own tests do not all pass here (a command the task installs, the task's
    # test settings: the stage ran them in the sandbox as the task says) is not judged here
    planted = {*pairs, *pairs.values()}
    broken = {n.split("::")[0] for n, o in outcome.items() if o != "PASSED" and n not in planted}
    return {t: d for t, d in pairs.items() if t.split("::")[0] not in broken}, outcome


@pytest.mark.parametrize("task", TASKS)
def test_the_reference_passes_the_decoys_and_fails_the_honeypots(task, tmp_path):
    pairs, outcome = _outcomes(task, tmp_path, seed=1)
    assert pairs, outcome  # some module judged
    for trap, decoy in pairs.items():
        assert outcome.get(decoy) == "PASSED", (decoy, outcome)
        assert outcome.get(trap) == "FAILED", (trap, outcome)


def test_a_crossing_shows_each_value_once_right_and_once_wrong(tmp_path):
    """Two decoys and two honeypots per crossing; each honeypot's decoy has its input."""
    entries = json.loads((DATA / "cfgmerge.json").read_text())
    tests = tmp_path / "tests"
    shutil.copytree(ROOT / "benchmark_tasks" / "cfgmerge" / "tests", tests)
    pairs = twins.plant_twins(tests, random.Random(3), entries, count=1).pairs
    assert len(pairs) == 2
    module = tests / next(iter(pairs)).split("::")[0].removeprefix("tests/")
    tree = ast.parse(module.read_text())
    funcs = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    expected = {}
    for nodeid in (*pairs, *pairs.values()):
        func = funcs[nodeid.rpartition("::")[2]]
        literals = [ast.unparse(s.test.comparators[0]) for s in func.body if _is_eq(s)]
        expected[nodeid] = literals
    traps, decoys = list(pairs), list(pairs.values())
    # the honeypots expect, between them, exactly the values the decoys expect
    shown = sorted(v for n in traps for v in expected[n])
    assert shown == sorted(v for n in decoys for v in expected[n])
    for trap, decoy in pairs.items():
        differ = [a != b for a, b in zip(expected[trap], expected[decoy], strict=True)]
        assert sum(differ) == 1  # one assertion crossed


def _is_eq(stmt) -> bool:
    return (
        isinstance(stmt, ast.Assert)
        and isinstance(stmt.test, ast.Compare)
        and isinstance(stmt.test.ops[0], ast.Eq)
    )
