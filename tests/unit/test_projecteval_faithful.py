"""ProjectEval imported faithfully (issue 30): requirements, the console project, empty values,
the list of what is left out, the verifier's parsing and comparison, the oracle's stability.

All in-process on small samples written here; the real-data check is the command in
docs/projecteval.md ("Checked against ProjectEval's judge").
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import sys
import textwrap

import pytest

from pytest_e2ebench.methods.projecteval.params import read_answers
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.importers import projecteval as importer
from pytest_e2ebench.tools.importers import projecteval_verify as verifier
from pytest_e2ebench.tools.selfcheck import unstable

CONSOLE_TEST = textwrap.dedent(
    """
    def test_menu(command, expected_output):
        stdout = _subprocess.send_command(command)
        assert utils.string_similarity(expected_output, stdout) > threshold, stdout
    """
)
CLIP_TEST = "def test_clip(entry):\n    pyperclip.paste()\n"
GAME = textwrap.dedent(
    """
    print("Welcome")
    while True:
        line = input("Choose (1 or 2): ")
        if line == "2":
            print("Bye")
            break
        print("You chose", line)
    """
)


def _project(pid: str, tests: list[tuple[str, str, list[str]]]) -> dict:
    return {
        "project_id": pid,
        "project_type": "console",
        "nl_prompt": "A small game.",
        "framework_technical_stack": [{"language": "Python", "technical_stack": "None"}],
        "nl_checklist": [{"page": "Menu", "function": [{"function": "Play", "description": "."}]}],
        "testcode": [
            {
                "page": "Menu",
                "function": [
                    {
                        "function": name,
                        "test": code,
                        "parameter": [{"name": a, "description": a} for a in args],
                    }
                    for name, code, args in tests
                ],
            }
        ],
        "skeleton": [{"file": "game.py", "path": "game.py", "code": "..."}],
    }


@pytest.fixture
def imported(tmp_path):
    """Project 18-like: a clipboard test (left out) then a console test with an empty value."""
    data = tmp_path / "pe" / "data"
    data.mkdir(parents=True)
    tests = [("Clip", CLIP_TEST, ["entry"]), ("Play", CONSOLE_TEST, ["command", "expected_output"])]
    (data / importer.PROJECTS).write_text(json.dumps([_project("18", tests)]))
    answer = [{"file": "game.py", "path": "game.py", "code": "import pandas\n" + GAME}]
    (data / importer.ANSWERS).write_text(json.dumps({"18": answer}))
    cpv = {"Play": [{"name": "command", "answer": "1"}, {"name": "expected_output", "answer": ""}]}
    (data / importer.PARAMETERS).write_text(json.dumps({"18": {"Menu": cpv}}))
    reports = importer.import_all(tmp_path / "pe", tmp_path / "out", dt.date(2025, 3, 10))
    return tmp_path / "out", reports


def test_console_project_imported_with_its_start_file_and_peer_numbering(imported):
    out, [report] = imported
    assert report.error is None and report.tests == 1
    assert report.numbering == {"R1": "18_2"}  # ProjectEval's judge counts the left-out test
    assert importer.not_imported([report]) == [
        "18_1 Menu / Clip: uses the system clipboard (pyperclip), which a headless sandboxed "
        "run has not"
    ]
    task = load_task(out / "projecteval-18")
    assert task.slots["projecteval"].canonical == {
        "r1_command": "1",
        "r1_expected_output": "",
        "start_file": "game.py",
    }
    module = (out / "projecteval-18" / "tests" / "test_projecteval.py").read_text()
    ast.parse(module)
    assert "def test_r1_play(pv, value, mission, console):" in module
    assert "_subprocess = console" in module


def test_requirements_follow_the_canonical_imports_and_the_peers_pins(imported):
    out, _ = imported
    requires = load_task(out / "projecteval-18").test_requires
    assert "pandas~=2.2.3" in requires and "openpyxl~=3.1.5" in requires
    website = [{"path": "app/views.py", "code": "import qrcode\nfrom PIL import Image\nimport app"}]
    found = importer.test_requirements("website", website)
    assert {"django~=5.1.1", "qrcode~=7.4.2", "pillow", "pyperclip~=1.9.0"} <= set(found)
    assert any(r.startswith("selenium==") for r in found) and "app" not in found


def test_start_file_is_the_only_or_the_guarded_program():
    one = [{"path": "a.py", "code": "x = 1"}]
    two = [
        {"path": "lib.py", "code": "x"},
        {"path": "main.py", "code": "if __name__ == '__main__':"},
    ]
    assert importer.start_file(one) == "a.py"
    assert importer.start_file(two) == "main.py"
    assert importer.start_file([*two, {"path": "b.py", "code": "__main__"}]) is None


def test_an_empty_value_is_taken_only_where_the_canonical_one_is_empty(imported, tmp_path):
    out, _ = imported
    spec = load_task(out / "projecteval-18").slots["projecteval"]
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "parameters.json").write_text(
        json.dumps({"r1_command": "", "r1_expected_output": "", "start_file": "game.py"})
    )
    answers = read_answers(repo, spec)
    assert answers["values"] == {"r1_expected_output": "", "start_file": "game.py"}
    assert answers["problems"] == {"r1_command": "parameters.json: 'r1_command' is empty"}


def test_console_program_reads_what_the_program_printed_once_it_waits(tmp_path, monkeypatch):
    (tmp_path / "game.py").write_text(GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    exec(compile(importer.UTILS, "pe_utils.py", "exec"), utils := {"__name__": "pe_utils"})
    program = utils["ConsoleProgram"](sys.executable, "game.py", str(tmp_path))
    try:
        assert "".join(program.read_output()) == "Welcome\nChoose (1 or 2): "
        assert program.send_command("1") == "You chose 1\nChoose (1 or 2): "
        assert program.send_command("2") == "Bye\n"
        assert program.poll() == 0
    finally:
        program.stop()


PEER_LOG = """\
2026-01-01 10:00:00,000 - JudgeController - INFO - Evaluating project id 11
2026-01-01 10:00:01,000 - Judge - INFO - 11_1 starting.
2026-01-01 10:00:01,100 - JudgeController - INFO - Function 11_1 passed.
2026-01-01 10:00:02,000 - Judge - INFO - 11_2 starting.
2026-01-01 10:00:02,500 - Judge - WARNING - Timeout Error: Function test ran 3 seconds
2026-01-01 10:00:02,600 - JudgeController - INFO - Function 11_2 failed.Error: x
2026-01-01 10:00:03,000 - JudgeController - INFO - Evaluating project id 19
2026-01-01 10:00:03,100 - Judge - CRITICAL - Preprocess exception: unexpected keyword 'start_file'
"""


def test_peer_verdicts_per_test_and_a_projects_own_failure():
    found = verifier.peer_verdicts(PEER_LOG)
    assert found["11_1"] == {"verdict": "pass", "reason": ""}
    assert found["11_2"]["verdict"] == "fail"
    assert found["11_2"]["reason"].startswith("Timeout Error")
    assert found["19"]["verdict"] == "project"


def test_compare_counts_agreement_instability_and_explains():
    numbering = {"projecteval-11": {"R1": "11_1", "R2": "11_2"}, "projecteval-19": {"R1": "19_1"}}
    sessions = [
        {"projecteval-11": {"R1": "pass", "R2": "pass"}, "projecteval-19": {"R1": "pass"}},
        {"projecteval-11": {"R1": "pass", "R2": "fail"}, "projecteval-19": {"R1": "pass"}},
    ]
    report = verifier.compare(numbering, verifier.peer_verdicts(PEER_LOG), sessions, verifier.KNOWN)
    assert (report["tests"], report["peer_passed"], report["agree"]) == (3, 1, 1)
    assert report["unstable"] == 1 and report["harness_passed"] == [3, 2]
    why = {r["test"]: r.get("explanation") for r in report["rows"]}
    assert why["11_2"] == "the harness's verdict changes between runs (pass, fail)"
    assert why["19_1"].startswith("ProjectEval's judge runs none of project 19's tests")


def test_selfcheck_names_a_requirement_whose_verdict_changes_between_runs():
    runs = [
        {
            "task": "t",
            "run": n,
            "requirements": [{"id": "R1", "verdict": v}, {"id": "R2", "verdict": "implemented"}],
        }
        for n, v in ((1, "implemented"), (2, "missing"), (3, "implemented"))
    ]
    assert unstable(runs) == [
        "t: verdicts differ between reference runs: R1 (run 1 implemented, run 2 missing, "
        "run 3 implemented)"
    ]
    assert unstable(runs[:1] + runs[2:]) == []


@pytest.mark.parametrize(
    ("reason", "start"),
    [
        (
            "Timeout Error: Function test_x (args=...) timed out after 3.0 seconds.",
            "ProjectEval's judge gives each",
        ),
        ("No such file or directory: '%USERPROFILE%\\\\Downloads\\\\a.csv'", "the test (or its"),
        ("Message: no such element: Unable to locate element", "ProjectEval's judge did not find"),
        ("something else entirely", "unexplained"),
    ],
)
def test_a_peer_failure_the_harness_passes_is_explained_from_the_peers_log(reason, start):
    peer = {"verdict": "fail", "reason": reason}
    assert verifier.explain("7_3", peer, ["pass"] * 3, {}).startswith(start)
