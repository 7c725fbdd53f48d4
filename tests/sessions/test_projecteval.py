"""ProjectEval's way (issue #17): levels, parameters, similarity, Pass@K and the importer.

Benchmark runs go through runpytest_subprocess: the similarity indicators import numpy, which
cannot be imported again after an in-process run drops it from sys.modules.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shutil
import tomllib
from pathlib import Path

import pytest
import tomli_w
from helpers.batch import SharedSession, batch_folder

from pytest_e2ebench.errors import TaskError
from pytest_e2ebench.methods.projecteval import masker, passk, similarity, with_spec
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.importers import projecteval as importer

HAS_RAPIDFUZZ = importlib.util.find_spec("rapidfuzz") is not None

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmark_tasks" / "gradebook"


def _results(pytester) -> dict:
    return json.loads((pytester.path / ".e2ebench" / "results.json").read_text())


@pytest.fixture
def gradebook(pytester) -> Path:
    """A copy of the bundled console mission in a throw-away tasks folder."""
    shutil.copytree(GRADEBOOK, pytester.path / "tasks" / "gradebook")
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    return pytester.path / "tasks" / "gradebook"


def test_level_briefs_grow_and_carry_the_parameter_request():
    task = load_task(GRADEBOOK)
    one, two, three = (with_spec(task, level=n).requirements_text for n in (1, 2, 3))
    assert "## Checklist" not in one and "## Checklist" in two and "## Skeleton" in three
    assert (
        "`gradebook.py`" in three
        and "parameters.json" not in three.split("## Skeleton")[1].split("## Parameters")[0]
    )
    for text in (one, two, three, task.requirements_text):
        assert "`missing_file_message`" in text


def test_masker_keeps_signatures_and_docstrings_and_drops_bodies(tmp_path):
    out = masker.mask_python('import os\nX = 1\n\ndef f(a, b=2):\n    """Doc."""\n    return a\n')
    assert "def f(a, b=2):" in out and "'Doc.'" in out or '"""Doc."""' in out
    assert "return a" not in out and "X = 1" in out
    html = masker.mask_html('<div><p id="r" data-mask>secret <b>x</b></p><p>kept</p></div>')
    assert html == '<div><p id="r"></p><p>kept</p></div>'
    files = masker.mask_tree(GRADEBOOK / "reference", tmp_path / "s")
    assert files == ["gradebook.py"]  # the canonical parameters.json is not handed out


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (("parameters.json", "[1]"), "gradebook/parameters.json: must be an object"),
        (("checklist.json", "{"), "gradebook/checklist.json: not valid JSON"),
        (("reference/parameters.json", '{"entry": "x"}'), "has no canonical value"),
        (("level1.md", ""), "gradebook/level1.md: empty"),
    ],
)
def test_invalid_projecteval_files_name_file_field_and_fix(tmp_path, edit, problem):
    root = tmp_path / "gradebook"
    shutil.copytree(GRADEBOOK, root)
    (root / edit[0]).write_text(edit[1])
    with pytest.raises(TaskError) as info:
        load_task(root)
    assert problem in str(info.value)


def test_level_option_is_checked(pytester, gradebook):
    result = pytester.runpytest_subprocess("--e2e-agent=reference", "--e2e-level=4")
    result.stderr.fnmatch_lines(["*--e2e-level=4: use 1 (prompt)*"])


@pytest.mark.slow
def test_reference_full_at_every_level_and_empty_zero(pytester, gradebook):
    # the wrong parameter value: TestBatchParameterAnswers::test_wrong_pv_fails_its_tests
    for level in (1, 2, 3):
        # level 3 under --e2e-projecteval-mode=cascade: level 3 is direct whatever the mode, so
        # this one session is also test_projecteval_cascade's level 3 (issue 27: not run twice)
        mode = ["--e2e-projecteval-mode=cascade"] if level == 3 else []
        result = pytester.runpytest_subprocess(
            "--e2e-agent=reference,nop", f"--e2e-level={level}", "-p", "no:cacheprovider", *mode
        )
        result.assert_outcomes(passed=3, failed=3)
        result.stdout.fnmatch_lines(
            [
                "*e2ebench projecteval (similarity, not part of the pass rates)*",
                f"reference@level-{level}: ProjectEval Pass@1 (averaged over rounds) 1.000*",
            ]
        )
        runs = _results(pytester)["tasks"]
        records = {r["agent"]: r for r in runs if r.get("level") == level}
        assert records["reference"]["level"] == level
        assert records["reference"]["metrics"]["test_acc"] == 1.0
        assert records["nop"]["metrics"]["test_acc"] == 0.0
        sim = records["reference"]["projecteval"]["similarity"]
        assert sim["parameters"] == (1.0 if HAS_RAPIDFUZZ else None)  # None: the extra is absent
        if level == 3:  # direct: no steps before the code, no cascade recorded
            reference = records["reference"]
            assert "projecteval_mode" not in reference and "cascade" not in reference["projecteval"]


def test_pass_at_k_labels_projectevals_average_apart_from_the_estimator():
    def record(run, implemented):
        verdict = "implemented" if implemented else "not_implemented"
        failing = [] if implemented else [{"nodeid": "t::a"}]
        return {
            "task": "t",
            "agent": "a",
            "run": run,
            "status": "ok",
            "level": 1,
            "projecteval": {},
            "metrics": {"test_acc": 1.0 if implemented else 0.0},
            "requirements": [{"id": "R1", "verdict": verdict, "tests": 1, "failing": failing}],
        }

    runs = [record(1, True)] + [record(n, False) for n in range(2, 6)]
    out = passk.summarize_passk(runs)["a@level-1"]
    assert out["projecteval_pass_at_rounds_averaged"] == pytest.approx(0.2)
    assert out["pass_at_k_unbiased_requirements"]["1"] == pytest.approx(0.2)
    assert out["pass_at_k_unbiased_requirements"]["5"] == 1.0  # one of five runs passed
    assert out["pass_at_k_unbiased_tests"]["3"] == pytest.approx(0.6)


def test_parameter_similarity_is_one_for_itself_and_lower_otherwise():
    pytest.importorskip("rapidfuzz")
    cpv = {"a": "index.html", "b": "Error: missing"}
    assert similarity.parameter_similarity(cpv, dict(cpv)) == 1.0
    assert similarity.parameter_similarity(cpv, {"a": "index.htm"}) < 0.5


def test_assignment_ignores_order_and_counts_what_is_missing():
    pytest.importorskip("scipy")
    eye = [[1.0, 0.0], [0.0, 1.0]]
    assert similarity.assignment_score(eye) == 1.0
    assert similarity.assignment_score([[0.0, 1.0], [1.0, 0.0]]) == 1.0
    assert similarity.assignment_score([[1.0], [0.0]]) == 0.5


@pytest.mark.slow
def test_checklist_similarity_self_shuffled_truncated():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("all_minilm_l6_v2")
    items = [i.sentence() for i in load_task(GRADEBOOK).slots["projecteval"].checklist]
    assert similarity.checklist_similarity(items, items) == pytest.approx(1.0, abs=1e-5)
    shuffled = items[:]
    random.Random(3).shuffle(shuffled)
    assert similarity.checklist_similarity(items, shuffled) == pytest.approx(1.0, abs=1e-5)
    assert similarity.checklist_similarity(items, items[:2]) < 0.6


def test_code_and_skeleton_similarity_of_the_reference_to_itself():
    pytest.importorskip("codebleu")
    ref = GRADEBOOK / "reference"
    for masked in (False, True):
        sources = similarity.python_sources(ref, masked=masked)
        assert similarity.code_similarity(sources, sources) == 1.0
    other = ["def f():\n    return 1\n"]
    assert similarity.code_similarity(similarity.python_sources(ref), other) < 0.5


def _sample(root: Path) -> Path:
    """A tiny dataset in ProjectEval's published shape (written here, not copied)."""
    data = root / "data"
    (data / "material").mkdir(parents=True)
    (data / "material" / "2-input.txt").write_text("hello\n")
    test = "def test_out(entry, word):\r\n\tstdout, stderr = utils.run_entry(entry)\r\n\tassert word in stdout"
    clip = "def test_clip(entry):\n    pyperclip.paste()"
    projects = [
        {
            "project_id": "1",
            "project_type": "website",
            "nl_prompt": "A site.",
            "framework_technical_stack": [{"language": "Python", "technical_stack": "Flask"}],
            "nl_checklist": [],
            "testcode": [],
            "skeleton": [],
        },
        {
            "project_id": "2",
            "project_type": "console",
            "nl_prompt": "Print hello.",
            "framework_technical_stack": [{"language": "Python", "technical_stack": "None"}],
            "nl_checklist": [
                {
                    "page": "Main",
                    "required": True,
                    "function": [
                        {"function": "Hello", "description": "Print hello", "required": True}
                    ],
                }
            ],
            "testcode": [
                {
                    "page": "Main",
                    "function": [
                        {
                            "function": "Hello",
                            "test": test,
                            "parameter": [
                                {"name": "entry", "description": "the file to run"},
                                {"name": "word", "description": "what it prints"},
                            ],
                        },
                        {
                            "function": "Clip",
                            "test": clip,
                            "parameter": [{"name": "entry", "description": "the file to run"}],
                        },
                    ],
                }
            ],
            "skeleton": [{"file": "main.py", "path": "main.py", "code": "def main():\n    pass\n"}],
        },
    ]
    (data / importer.PROJECTS).write_text(json.dumps(projects))
    (data / importer.ANSWERS).write_text(
        json.dumps({"2": [{"file": "main.py", "path": "main.py", "code": "print('hello')\n"}]})
    )
    (data / importer.PARAMETERS).write_text(
        json.dumps(
            {
                "2": {
                    "Main": {
                        "Hello": [
                            {"name": "entry", "answer": "main.py"},
                            {"name": "word", "answer": "hello"},
                        ]
                    }
                }
            }
        )
    )
    return root


def test_importer_writes_valid_tasks_and_reports_what_it_skipped(tmp_path, capsys):
    from pytest_e2ebench.cli import main

    code = main(
        ["import", "projecteval", "--no-gate", str(_sample(tmp_path / "pe")), str(tmp_path / "out")]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "  project 1: a website on Flask: only Django sites are served" in out
    assert (
        "projecteval-2: imported 1 tests, 2 parameters, 1 skeleton files, 1 material files" in out
    )
    assert "  2_2 Main / Clip: uses the system clipboard (pyperclip)" in out
    task = load_task(tmp_path / "out" / "projecteval-2")
    assert task.slots["projecteval"].canonical == {"r1_entry": "main.py", "r1_word": "hello"}
    assert [t.requirements for t in task.tests] == [("R1",)]
    assert (task.root / "tests" / "materials" / "2-input.txt").is_file()


@pytest.mark.slow
def test_imported_console_task_reference_passes_and_empty_fails(pytester, tmp_path):
    importer.import_all(_sample(tmp_path / "pe"), pytester.path / "tasks", importer.dt.date.today())
    task_toml = pytester.path / "tasks" / "projecteval-2" / "task.toml"
    # the sample needs none of the console missions' usual libraries: keep its venv small
    meta = tomllib.loads(task_toml.read_text())
    meta["tests"]["requires"] = ["rapidfuzz", "openpyxl", "pandas"]
    task_toml.write_text(tomli_w.dumps(meta))
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest_subprocess("--e2e-agent=reference,nop", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


def test_a_level_is_a_run_of_its_own_in_results():
    from pytest_e2ebench.report.results import merge, run_key

    plain = {"task": "t", "agent": "a", "run": 1}
    level = {**plain, "level": 2}
    assert run_key(plain) == "a/t/run-1"
    assert run_key(level) == "a/t/level-2/run-1"
    assert len(merge([plain], [level])) == 2


# --- the answers with a wrong or a missing parameter value: one session ----------------------


def answer_with(root: Path, name: str, edit) -> None:
    """``dir:NAME``'s gradebook: the reference with ``edit`` applied to its parameters."""
    answer = root / name / "gradebook"
    shutil.copytree(GRADEBOOK / "reference", answer)
    cpv = json.loads((answer / "parameters.json").read_text())
    edit(cpv)
    (answer / "parameters.json").write_text(json.dumps(cpv))


def wrong_value(cpv: dict) -> None:
    cpv["bad_header_message"] = "no such message"


def missing_values(cpv: dict) -> None:
    del cpv["missing_file_message"]
    cpv["bad_header_message"] = ["not", "a", "string"]


@pytest.fixture(scope="module")
def pv_answers(request, tmp_path_factory) -> SharedSession:
    """One session of gradebook for ``dir:wrong`` and ``dir:missing``."""
    with batch_folder(request, tmp_path_factory, "pv-answers") as root:
        batch = SharedSession(root)
        shutil.copytree(GRADEBOOK, root / "tasks" / "gradebook")
        answer_with(root, "wrong", wrong_value)
        answer_with(root, "missing", missing_values)
        batch.run(
            "--e2e-agent=dir:wrong,dir:missing",
            "--e2e-tasks=tasks",
        )
        yield batch


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchParameterAnswers:
    """The readers of the one session of the two answers (one xdist worker builds it)."""

    def test_wrong_pv_fails_its_tests(self, pv_answers):
        outcomes = pv_answers.outcomes("dir-wrong", 1)
        assert sorted(outcomes.values()) == ["failure", "passed", "passed"], outcomes
        failures = pv_answers.failures("dir-wrong", 1)
        assert "R3 not implemented" in failures and "test_wrong_header" in failures
        record = pv_answers.record("gradebook", 1, "dir-wrong")
        if HAS_RAPIDFUZZ:
            assert record["projecteval"]["similarity"]["parameters"] < 1.0
        failing = [t["nodeid"] for r in record["requirements"] for t in r["failing"]]
        assert failing == ["tests/test_gradebook.py::test_wrong_header"]

    def test_missing_pv_fails_only_the_tests_that_use_it_naming_it(self, pv_answers):
        outcomes = pv_answers.outcomes("dir-missing", 1)
        assert sorted(outcomes.values()) == ["failure", "failure", "passed"], outcomes
        failures = pv_answers.failures("dir-missing", 1)
        assert "parameter 'missing_file_message' unusable: parameters.json has no value" in (
            failures
        )
        assert re.search(r"parameter 'bad_header_message' unusable.*is not a string", failures)
