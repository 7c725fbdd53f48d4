"""ProjectEval's cascade mode (issue #17): checklist, then skeleton, then code, each graded.

Benchmark runs go through runpytest_subprocess (the similarity indicators import numpy, which
cannot be imported twice in one process). The bundled console mission ``gradebook`` is the
smallest ProjectEval task.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from helpers.batch import Batch, batch_folder, run_result

from pytest_e2ebench.methods.projecteval.masker import mask_tree
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmark_tasks" / "gradebook"
CHECKLIST = json.loads((GRADEBOOK / "checklist.json").read_text())


def _results(pytester) -> dict:
    return json.loads((pytester.path / ".e2ebench" / "results.json").read_text())


def _runs(pytester) -> dict[str, dict]:
    return {r["agent"]: r for r in _results(pytester)["tasks"]}


def _steps(record: dict) -> dict[str, dict]:
    return {s["step"]: s for s in record["projecteval"]["cascade"]["steps"]}


@pytest.fixture
def gradebook(pytester) -> Path:
    shutil.copytree(GRADEBOOK, pytester.path / "tasks" / "gradebook")
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\ne2ebench_llm_retries = 0\n")
    return pytester.path / "tasks" / "gradebook"


def _files_answer(files: dict[str, str]) -> str:
    """A vanilla answer writing ``files``."""
    return "".join(f"### FILE: {p}\n```\n{t.rstrip()}\n```\n\n" for p, t in files.items())


def _cmd(script: str) -> str:
    """A cmd: agent running ``script`` (base64 keeps its commas out of the agent list)."""
    encoded = base64.b64encode(script.encode()).decode()
    return f"--e2e-agent=cmd:echo {encoded} | base64 -d | bash"


def test_mode_option_is_checked_and_documented(pytester, gradebook):
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-projecteval-mode=chain")
    result.stderr.fnmatch_lines(["*--e2e-projecteval-mode: invalid choice: 'chain'*"])
    help_text = pytester.runpytest("--help").stdout.str()
    assert "--e2e-projecteval-mode" in help_text and "e2ebench_projecteval_mode" in help_text
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\ne2ebench_projecteval_mode = chain\n")
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-level=1")
    result.stderr.fnmatch_lines(["*ini option e2ebench_projecteval_mode=chain: use direct*"])


@pytest.mark.slow
def test_cmd_agent_gets_its_own_outputs_and_a_truncated_checklist_scores_lower(pytester, gradebook):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("codebleu")
    truncated = json.dumps([{"page": "Report", "function": CHECKLIST[1]["function"][:1]}])
    encoded = base64.b64encode(truncated.encode()).decode()
    # each step checks that it got the agent's own earlier output, where the docs say
    script = f"""
case $E2EBENCH_STAGE in
checklist) echo {encoded} | base64 -d > checklist.json ;;
skeleton) grep -q 'Aggregate per student' "$INPUTS/checklist.json" || exit 3
  printf 'def main():\\n    \"\"\"Aggregate.\"\"\"\\n    ...\\n' > gradebook.py ;;
implement) grep -q 'def main' gradebook.py && grep -q 'Aggregate per student' "$REQ" &&
  ! grep -q 'Missing input file' "$REQ" && echo own > seen.txt ;;
esac
"""
    code = base64.b64encode(script.encode()).decode()
    agent = f'--e2e-agent=cmd:INPUTS={{inputs}} REQ={{requirements}} bash -c "$(echo {code} | base64 -d)"'
    result = pytester.runpytest_subprocess(
        agent, "--e2e-level=1", "--e2e-projecteval-mode=cascade", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=3)
    (record,) = _results(pytester)["tasks"]
    steps = _steps(record)
    assert 0.0 < steps["checklist"]["similarity"] < 0.6  # one of four items matched
    assert 0.0 < steps["skeleton"]["similarity"] < 1.0
    assert steps["code"]["status"] == "ok"
    # the code step got its own checklist in the brief and its own skeleton in the workspace
    assert (Path(record["dir"]) / "repo" / "seen.txt").read_text().strip() == "own"


@pytest.mark.slow
def test_vanilla_cascade_through_the_scripted_endpoint_resumes_after_an_outage(
    pytester, gradebook, tmp_path
):
    reference = GRADEBOOK / "reference"
    skeleton = {p: (tmp_path / "s" / p).read_text() for p in mask_tree(reference, tmp_path / "s")}
    code = {p.name: p.read_text() for p in reference.iterdir() if p.is_file()}
    pytester.makeini(
        "[pytest]\ne2ebench_tasks = tasks\ne2ebench_model = scripted\ne2ebench_llm_retries = 0\n"
    )
    args = ["--e2e-agent=vanilla", "--e2e-level=1", "--e2e-projecteval-mode=cascade"]
    args.append("--e2e-llm-cache=record")
    checklist_answer = _files_answer({"checklist.json": json.dumps(CHECKLIST)})
    # the endpoint answers the checklist and skeleton steps, then goes away before the code
    with ScriptedLLM([reply(checklist_answer), reply(_files_answer(skeleton))]) as llm:
        result = pytester.runpytest_subprocess(*args, f"--e2e-llm-base-url={llm.base_url}")
        first, second = ([m["content"] for m in r["messages"]] for r in llm.requests[:2])
    result.assert_outcomes(errors=3)  # an outage is the infrastructure's, not the model's
    assert "one stage of a software project's lifecycle" in first[0]
    assert "This is the checklist step of a cascade" in first[1] and "## Checklist" not in first[1]
    assert "This is the skeleton step" in second[1] and "**Header check**" in second[1]
    run_dir = pytester.path / ".e2ebench" / "vanilla" / "gradebook" / "level-1-cascade" / "run-1"
    manifests = {s: (run_dir / f"cascade-{s}" / "repo.json") for s in ("checklist", "skeleton")}
    written = {s: m.read_text() for s, m in manifests.items()}
    # each step's conversation has its own tape in the LLM cache, named by agent and task
    tapes = pytester.path / ".e2ebench" / "llm-cache"
    for step in manifests:
        scope = f"vanilla_gradebook_level-1-cascade_run-1_cascade-{step}_vanilla"
        assert (tapes / scope / "00000.json").is_file(), sorted(p.name for p in tapes.iterdir())
    # a new session resumes: the finished steps are not asked again
    with ScriptedLLM([reply(_files_answer(code))]) as llm:
        result = pytester.runpytest_subprocess(*args, f"--e2e-llm-base-url={llm.base_url}")
        (last,) = ([m["content"] for m in r["messages"]] for r in llm.requests)
    result.assert_outcomes(passed=3)
    assert {s: m.read_text() for s, m in manifests.items()} == written
    assert "## Skeleton" in last[1] and "`gradebook.py`" in last[1] and "## Parameters" in last[1]
    (record,) = _results(pytester)["tasks"]
    steps = _steps(record)
    assert [steps[s]["similarity"] for s in ("checklist", "skeleton")] == [1.0, 1.0]
    assert all(steps[s]["agent_run"]["steps"] == 1 for s in steps)
    assert record["metrics"]["steps"] == 3  # the run's cost is the whole cascade's
    assert steps["code"]["test_acc"] == 1.0


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "the agent wrote no checklist.json"),
        ("[1, 2", "checklist.json: not valid JSON"),
        ('{"page": "x"}', "checklist.json: must be a non-empty list of pages"),
        ('[{"page": "x", "function": []}]', "field 'function' must be a non-empty list"),
    ],
)
def test_an_unusable_checklist_says_why(tmp_path, content, why):
    from pytest_e2ebench.methods.projecteval.cascade import read_checklist

    if content is not None:
        (tmp_path / "checklist.json").write_text(content)
    items, raw, reason = read_checklist(tmp_path)
    assert items is None and raw is None and why in reason


def test_a_linked_checklist_is_not_followed(tmp_path):
    from pytest_e2ebench.methods.projecteval.cascade import read_checklist

    (tmp_path / "checklist.json").symlink_to(GRADEBOOK / "checklist.json")
    note = read_checklist(tmp_path)[2]
    assert note.startswith("checklist.json: is or lies behind a symbolic link"), note


def test_the_runs_cost_is_the_whole_cascades_and_the_line_names_each_step():
    from pytest_e2ebench.methods.projecteval.cascade import Cascade
    from pytest_e2ebench.methods.projecteval.report import cascade_line

    step = {"step": "checklist", "status": "ok", "similarity": 0.25, "notes": []}
    step["agent_run"] = {"tokens_sent": 10, "cost_usd": None, "duration_s": 1.5}
    cascade = Cascade(task=None, steps=[step])
    total = cascade.total({"tokens_sent": 5, "cost_usd": None, "duration_s": 2.0, "note": "n"})
    assert total == {**total, "tokens_sent": 15, "cost_usd": None, "duration_s": 3.5, "note": "n"}
    record = {"agent": "a", "task": "t", "level": 1, "run": 2, "metrics": {"test_acc": 0.5}}
    record["projecteval"] = {"cascade": cascade.summary(record, {"tokens_sent": 5})}
    assert cascade_line(record) == (
        "cascade a/t/level-1/run-2: checklist similarity 0.250 -> code tests 50.0 %"
    )
    ended = Cascade(
        task=None,
        steps=[{**step, "status": "failed"}],
        ended="the cascade ended at the checklist step: no file",
    )
    record["projecteval"] = {"cascade": ended.summary(record, {})}
    assert cascade_line(record).endswith("code not run; ended at the checklist step: no file")


# --- the reference and nop at levels 1 and 2, and a malformed checklist: two sessions ---------

MALFORMED = _cmd("printf '{\"page\": ' > checklist.json")


@pytest.fixture(scope="module")
def cascades(request, tmp_path_factory) -> dict[int, dict]:
    """Per level, one cascade session of gradebook in one folder: the reference and nop (and,
    at level 1, under ``-n 2``, a cmd agent writing a malformed checklist); each level's
    outcome, output and results.json, read by ``TestBatchCascades``."""
    with batch_folder(request, tmp_path_factory, "cascades") as root:
        batch = Batch(root)
        shutil.copytree(GRADEBOOK, root / "tasks" / "gradebook")
        (root / "pytest.ini").write_text(
            "[pytest]\ne2ebench_tasks = tasks\ne2ebench_llm_retries = 0\n"
        )
        found = {}
        for level in (1, 2):
            agents = "reference,nop" + (f",{MALFORMED.split('=', 1)[1]}" if level == 1 else "")
            args = [f"--e2e-agent={agents}", f"--e2e-level={level}", "-p", "no:cacheprovider"]
            if level == 1:
                args += ["-n", "2"]  # a cascade's steps run on the worker of its run's items
            done = batch.run(*args, "--e2e-projecteval-mode=cascade")
            found[level] = {"result": run_result(done), "results": batch.results()}
        yield found


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchCascades:
    """The readers of the two cascade sessions (one xdist worker runs them)."""

    def test_reference_scores_full_and_empty_zero_at_every_step_and_level(self, cascades):
        # level 3 under cascade mode is direct: test_projecteval's level-3 session checks it
        for level in (1, 2):
            result, document = cascades[level]["result"], cascades[level]["results"]
            # the empty cascade fails, never errors (level 1: the malformed checklist's 3 too)
            result.assert_outcomes(passed=3, failed=6 if level == 1 else 3)
            runs = {r["agent"]: r for r in document["tasks"] if r.get("level") == level}
            reference, empty = runs["reference"], runs["nop"]
            assert reference["metrics"]["test_acc"] == 1.0 and empty["metrics"]["test_acc"] == 0.0
            first = "checklist" if level == 1 else "skeleton"
            assert reference["projecteval_mode"] == "cascade"
            assert reference["dir"].endswith(f"reference/gradebook/level-{level}-cascade/run-1")
            steps = _steps(reference)
            assert list(steps) == ["checklist", "skeleton", "code"][level - 1 :]
            assert all(steps[s]["similarity"] == 1.0 for s in list(steps)[:-1])
            assert steps["code"] == {**steps["code"], "status": "ok", "test_acc": 1.0}
            assert set(steps[first]["agent_run"]) >= {"tokens_sent", "duration_s"}
            refreshed = [r for r in document["refreshed"] if not r.startswith("cmd-")]
            assert refreshed == [
                f"{a}/gradebook/level-{level}-cascade/run-1" for a in ("nop", "reference")
            ]
            steps = _steps(empty)
            assert list(steps) == [first, "code"]
            assert steps[first]["status"] == "failed" and steps[first]["similarity"] == 0.0
            assert steps["code"]["status"] == "not run"
            ended = empty["projecteval"]["cascade"]["ended"]
            assert ended.startswith(f"the cascade ended at the {first} step: the agent wrote no")
            assert ended in empty["notes"]
            result.stdout.fnmatch_lines(
                [
                    f"cascade nop/gradebook/level-{level}/run-1: {first} similarity 0.000 -> code "
                    f"not run; ended at the {first} step*",
                    f"cascade reference/gradebook/level-{level}/run-1: *similarity 1.000 -> code "
                    "tests 100.0 %",
                    f"reference@level-{level}-cascade: ProjectEval Pass@1 (averaged over rounds) 1.000*",
                ]
            )

    def test_a_malformed_checklist_ends_the_cascade_with_a_clear_note(self, cascades):
        result, document = cascades[1]["result"], cascades[1]["results"]
        (record,) = [r for r in document["tasks"] if r["agent"].startswith("cmd-")]
        steps = _steps(record)
        assert list(steps) == ["checklist", "code"]
        assert steps["checklist"]["status"] == "failed" and steps["checklist"]["similarity"] == 0.0
        assert steps["checklist"]["failed"].startswith("checklist.json: not valid JSON")
        assert record["metrics"]["test_acc"] == 0.0
        result.stdout.fnmatch_lines(
            ["*note: the cascade ended at the checklist step: checklist.json*"]
        )
