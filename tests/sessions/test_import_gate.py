"""The reference gate every import ends with (issue 47): memor's sdist did not build, and its
task imported "(ok)" to score 0 for every agent. The gate grades each imported reference as
grading will; one that does not build is set aside with its reason, one that fails tests is
named with the count, and the exit status says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.batch import CALC_MUTANT
from helpers.tasks import CALC_CODE, TaskFactory

from pytest_e2ebench import cli
from pytest_e2ebench.tools.importers import gate

SETTINGS_CODE = {
    "add": "CONFIG = {'offset': 0}\n\n\ndef add(a, b):\n    return a + b + CONFIG['offset']\n"
    "\n\nadd.config = CONFIG\n",
}
# a suite the split does not carry yet: a test changes a dict the project holds, and gets a
# copy of it (E2EDevBench's encypher-ai, settings.config[...] = ...); in one process it passes
SETTINGS_TESTS = """\
import pytest
from calc import add


@pytest.mark.requirement("R1")
def test_add():
    assert add(1, 2) == 3


@pytest.mark.requirement("R2")
def test_offset_changed_in_place():
    add.config["offset"] = 10
    try:
        assert add(1, 2) == 13
    finally:
        add.config["offset"] = 0


@pytest.mark.requirement("R3")
def test_add_again():
    assert add(2, 2) == 4
"""


@pytest.mark.slow
def test_the_gate_sets_aside_a_reference_that_does_not_build_and_names_failing_ones(
    tmp_path, capsys, monkeypatch
):
    factory = TaskFactory(tmp_path)
    factory.make("calc")
    broken = factory.make("unbuildable")
    (broken / "reference" / "pyproject.toml").write_text(
        "[build-system]\nrequires = ['setuptools>=61']\nbuild-backend = 'setuptools.build_meta'\n"
        "[project]\nname = 'calc'\nversion = 'not a version!'\n"
    )
    failing = factory.make("failing")
    factory.reference(failing / "reference", CALC_MUTANT)
    factory.make("logged", tests={"test_calc.py": SETTINGS_TESTS}, code=SETTINGS_CODE)
    assert CALC_MUTANT != CALC_CODE
    tasks = factory.tasks
    # given as a user types it, relative (the session it starts runs in that folder: it once
    # looked for tasks/tasks there and then crashed on the missing results)
    monkeypatch.chdir(tasks.parent)
    assert gate.check(Path(tasks.name), jobs=2) == 1
    found = json.loads((tasks / "gate.json").read_text())
    assert {k: found["calc"][k] for k in ("verdict", "why")} == {"verdict": "ok", "why": ""}
    # graded again in one process, where all pass: written to be graded so (issue 39, 3)
    assert found["logged"]["verdict"] == "ok" and found["logged"]["mode"] == "inprocess"
    why = "the reference fails 1 of 3 tests split and 0 in one process (the import gate)"
    assert found["logged"]["why"] == f"graded in one process: {why}"
    assert f'inprocess = "{why}"' in (tasks / "logged" / "task.toml").read_text()
    assert found["failing"]["mode"] == "split"  # as many fail in one process: left as it is
    assert found["unbuildable"]["verdict"] == "does not build"
    assert "failed to install" in found["unbuildable"]["why"]
    assert found["failing"]["verdict"] == "fails tests"
    assert found["failing"]["why"].startswith("2 of 7 reference tests fail")
    # set aside: no agent is graded (and scored 0) on it
    assert not (tasks / "unbuildable").exists()
    reason = tasks / gate.NOT_GRADABLE / "unbuildable" / "REASON.txt"
    assert "failed to install" in reason.read_text()
    said = capsys.readouterr().out
    assert "gate: unbuildable: does not build" in said and "2 of 4 references" in said
    assert "2 reference(s) failed tests split; grading them in one process" in said


def test_every_import_command_has_the_gate_and_its_switch(capsys):
    gated = [n for n, m in cli.IMPORTERS.items() if getattr(m, "GATED", True)]
    assert set(cli.IMPORTERS) - set(gated) == {"realdevbench"}  # it has no reference
    for command in [["import", name] for name in gated] + [["fetch"]]:
        with pytest.raises(SystemExit):
            cli.main([*command, "--help"])
        said = capsys.readouterr().out
        assert "--no-gate" in said and "--gate-jobs" in said, command
