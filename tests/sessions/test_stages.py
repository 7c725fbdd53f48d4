"""DevEval's lifecycle stages (issue 16): design, setup, acceptance and unit tests.

For each stage the reference answer scores 100 %, the empty answer 0 and a degraded answer in
between; the design judge's swap protocol turns a judge that always prefers the first answer
into ties.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers.batch import Batch, SharedSession, batch_folder, run_result
from helpers.stages import ARCHITECTURE, CLASS, MUTANTS, SEQUENCE
from helpers.tasks import CALC_TESTS, TaskFactory

from pytest_e2ebench.methods.stages import parse_stages
from pytest_e2ebench.methods.stages.design import f1, swap_outcome, tree_files, win_rates
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply

EXAMPLES = {
    "plain.py": "from calc import add\nassert add(2, 3) == 5\n",
    # six is not a dependency of the test tools, so only a dependency file naming it helps
    "with_six.py": "import six\nfrom calc import mul\nassert six.PY3 and mul(2, 3) == 6\n",
}


@pytest.fixture
def staged(tasks):
    """The calc task with the references of every stage (and one mutant)."""
    return stage_task(tasks)


def stage_task(tasks: TaskFactory) -> Path:
    """Make the calc task with the references of every stage (and one mutant)."""
    root = tasks.make()
    tasks.write(root / "design" / "class.mmd", CLASS)
    tasks.write(root / "design" / "sequence.mmd", SEQUENCE)
    tasks.write(root / "design" / "architecture.txt", ARCHITECTURE)
    tasks.write(root / "setup" / "requirements.txt", "six\n")
    for name, text in EXAMPLES.items():
        tasks.write(root / "setup" / "examples" / name, text)
    tasks.write(root / "mutants.toml", MUTANTS)
    return root


def answers(pytester, files: dict[str, str]):
    """A dir: agent's output folder for the calc task holding ``files``."""
    base = pytester.path / "answers" / "calc"
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return "dir:answers"


def stage_runs(document: dict, stage: str) -> dict[str, dict]:
    return {r["agent"]: r for r in document["stages"]["runs"] if r["stage"] == stage}


def test_stage_names_parse_in_lifecycle_order():
    assert parse_stages("unit-tests,design") == ("design", "unit-tests")
    assert parse_stages("all")[0] == "design" and len(parse_stages("all")) == 5
    with pytest.raises(ValueError):
        parse_stages("deploy")


def test_file_tree_and_f1():
    assert tree_files(ARCHITECTURE) == {
        "calc/pyproject.toml",
        "calc/calc/__init__.py",
        "calc/calc/add.py",
        "calc/calc/sub.py",
        "calc/calc/mul.py",
    }
    assert tree_files("a/b.py\n  # comment only\nc.py  # top\n") == {"a/b.py", "c.py"}
    assert f1({"a", "b"}, {"a", "b"}) == 1.0
    assert f1(set(), {"a"}) == 0.0
    assert f1({"a"}, {"a", "b"}) == pytest.approx(2 / 3)


def test_swap_protocol_outcomes():
    assert swap_outcome(1, 2) == "win"  # preferred as design 1 and as design 2
    assert swap_outcome(2, 1) == "loss"
    assert swap_outcome(1, 1) == "tie"  # always the first: position bias, not preference
    assert swap_outcome(None, 2) == "tie"
    rates = win_rates(["win", "tie", "loss", "win"])
    assert rates["win_rate"] == 0.5 and rates["win_rate_no_ties"] == pytest.approx(2 / 3)


def test_unknown_stage_is_a_usage_error(pytester, staged):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-stage=deploy")
    result.stderr.fnmatch_lines(["*--e2e-stage='deploy': unknown stage deploy; use one or more*"])


def test_items_per_stage_and_artefact_and_k_selects_a_stage(pytester, staged):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\ne2ebench_stage = all\n")
    result = pytester.runpytest("--e2e-agent=reference", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "*calc[[]reference-run-1-R1]",  # implement first (issue 26)
            "*calc[[]reference-run-1-design-class]",
            "*calc[[]reference-run-1-design-architecture]",
            "*calc[[]reference-run-1-setup-plain]",
            "*calc[[]reference-run-1-setup-with_six]",
            "*calc[[]reference-run-1-acceptance-tests-oracle]",
            "*calc[[]reference-run-1-unit-tests-oracle]",
            "*10 tests collected*",
        ]
    )
    result = pytester.runpytest("--e2e-agent=reference", "--collect-only", "-q", "-k", "setup")
    result.stdout.fnmatch_lines(["*2/10 tests collected (8 deselected)*"])
    result = pytester.runpytest("--e2e-agent=reference", "--co", "-q", "-k", "implement")
    result.stdout.fnmatch_lines(["*3/10 tests collected (7 deselected)*"])


def test_half_provided_design_reference_names_the_missing_file(pytester, tasks):
    root = tasks.make()
    tasks.write(root / "design" / "class.mmd", CLASS)
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-stage=design")
    result.stdout.fnmatch_lines(["*calc/design/architecture.txt: missing*"])


@pytest.mark.slow
def test_design_judge_swap_protocol_with_a_scripted_endpoint(pytester, staged, results):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\ne2ebench_model = scripted\n")
    # The baseline is the reference design: a judge that always says "design 1" ties everything.
    with ScriptedLLM([reply('{"better": 1, "reason": "first"}')] * 4) as llm:
        result = pytester.runpytest(
            "--e2e-agent=reference",
            "--e2e-stage=design",
            "--e2e-judge=llm",
            f"--e2e-llm-base-url={llm.base_url}",
        )
        assert llm.remaining() == 0
    result.assert_outcomes(passed=3)
    judged = stage_runs(results(), "design")["reference"]["details"]["judge"]
    assert judged["ties"] == 2 and judged["win_rate"] == 0.0
    assert judged["win_rate_no_ties"] is None

    # A judge that prefers the design naming Multiplier wins in both orders for it.
    baseline = staged / "design" / "baseline"
    baseline.mkdir()
    (baseline / "class.mmd").write_text("classDiagram\n    class Calculator\n")
    (baseline / "sequence.mmd").write_text("sequenceDiagram\n    User->>Calculator: add\n")
    (baseline / "architecture.txt").write_text("calc/add.py\n")

    def prefers_multiplier(body):
        text = body["messages"][1]["content"]
        one, two = text.split("# Design 2")
        better = 1 if "Multiplier" in one.split("# Design 1")[1] else 2
        return reply(json.dumps({"better": better, "reason": "complete"}))

    with ScriptedLLM([prefers_multiplier] * 4) as llm:
        result = pytester.runpytest(
            "--e2e-agent=reference",
            "--e2e-stage=design",
            "--e2e-judge=llm",
            f"--e2e-llm-base-url={llm.base_url}",
            "--e2e-rerun",
        )
        orders = [b["messages"][1]["content"].index("Multiplier") for b in llm.requests]
    result.assert_outcomes(passed=3)
    judged = stage_runs(results(), "design")["reference"]["details"]["judge"]
    assert (judged["wins"], judged["win_rate"], judged["win_rate_no_ties"]) == (2, 1.0, 1.0)
    assert orders[0] < orders[1]  # the answer came first, then second


def test_setup_refuses_a_direct_reference(pytester, staged, results):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    agent = answers(pytester, {"requirements.txt": "six @ file:///etc/passwd\n"})
    result = pytester.runpytest(f"--e2e-agent={agent}", "--e2e-stage=setup")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*requirements.txt: 'six @ file:///etc/passwd' is a direct ref*"])


@pytest.mark.slow
def test_cmd_agent_gets_the_stage_and_the_reference_design(pytester, staged, results):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    # setup is given the design (modular: the reference's); the command copies a name from it
    command = (
        "cmd:test $E2EBENCH_STAGE = {stage} && grep -q Multiplier {inputs}/design/class.mmd "
        "&& echo six > requirements.txt"
    )
    result = pytester.runpytest(f"--e2e-agent={command}", "--e2e-stage=setup")
    result.assert_outcomes(passed=2)


@pytest.mark.slow
def test_e2e_mode_feeds_the_agents_own_design(pytester, staged, results):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    command = (
        "cmd:if [ {stage} = design ]; then mkdir design && "
        "printf 'classDiagram\\n  class OwnDesign\\n' > design/class.mmd; "
        "else grep -q OwnDesign {inputs}/design/class.mmd && echo six > requirements.txt; fi"
    )
    result = pytester.runpytest(
        f"--e2e-agent={command}", "--e2e-stage=setup", "--e2e-stage-mode=e2e"
    )
    result.assert_outcomes(passed=2)  # setup's items only: design ran as its input
    runs = results()["stages"]["runs"]
    assert [(r["stage"], r["mode"]) for r in runs] == [("setup", "e2e")]
    # modular: the reference design has no OwnDesign, so the command writes nothing
    result = pytester.runpytest(f"--e2e-agent={command}", "--e2e-stage=setup")
    result.assert_outcomes(failed=2)


@pytest.mark.slow
def test_vanilla_gets_the_stage_instruction_and_writes_the_design(pytester, staged, results):
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\ne2ebench_model = scripted\n")
    files = {"design/class.mmd": CLASS, "design/sequence.mmd": SEQUENCE}
    files["design/architecture.txt"] = ARCHITECTURE
    answer = "".join(f"### FILE: {p}\n```\n{t.rstrip()}\n```\n\n" for p, t in files.items())
    with ScriptedLLM([reply(answer)]) as llm:
        result = pytester.runpytest(
            "--e2e-agent=vanilla", "--e2e-stage=design", f"--e2e-llm-base-url={llm.base_url}"
        )
        system, user = (m["content"] for m in llm.requests[0]["messages"])
    result.assert_outcomes(passed=3)
    assert "one stage of a software project's lifecycle" in system
    assert "This is the software-design stage" in user and "### R1: Addition" in user
    runs = stage_runs(results(), "design")
    assert runs["vanilla"]["agent_run"]["steps"] == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "representative",
    [
        pytest.param(True, id="semverkit"),
        pytest.param(False, id="the-others", marks=pytest.mark.selfcheck),
    ],
)
def test_bundled_tasks_with_stage_references_are_self_checking(pytester, results, representative):
    """Every bundled task with design/ and setup/ scores 100 % with the oracle, 0 empty.

    A check of the tasks: the default run checks semverkit (tests/tasks' representative), the
    self-check (--selfcheck) the others too (issue 27)."""
    import shutil
    from pathlib import Path

    bundled = Path(__file__).resolve().parents[2] / "benchmark_tasks"
    staged_tasks = sorted(p.name for p in bundled.iterdir() if (p / "design").is_dir())
    assert len(staged_tasks) >= 3 and "semverkit" in staged_tasks
    staged_tasks = [t for t in staged_tasks if (t == "semverkit") == representative]
    for name in staged_tasks:
        shutil.copytree(bundled / name, pytester.path / "tasks" / name)
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest(
        "--e2e-agent=reference,nop", "--e2e-stage=design,setup", "-p", "no:cacheprovider"
    )
    runs = results()["stages"]["runs"]
    scores = {(r["task"], r["agent"], r["stage"]): r["metrics"] for r in runs}
    for task in staged_tasks:
        assert scores[(task, "reference", "design")]["design_score"] == 1.0
        assert scores[(task, "reference", "setup")]["example_pass_rate"] == 1.0
        assert scores[(task, "nop", "design")]["design_score"] == 0.0
        assert scores[(task, "nop", "setup")]["example_pass_rate"] == 0.0
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == outcomes["failed"]


def test_markdown_wrapped_designs_and_trees_without_slashes():
    from pytest_e2ebench.methods.stages.design import fenced

    doc = "# Architecture\nBelow is the tree.\n```bash\n├── examples\n│   └── demo.py\n└── x.py\n```\n"
    assert tree_files(fenced(doc)) == {"examples/demo.py", "x.py"}
    wrapped = "Some words\n```mermaid\nclassDiagram\n  class A\n```\ntrailing"
    assert fenced(wrapped) == "classDiagram\n  class A\n"
    assert fenced("classDiagram\n  class A\n") == "classDiagram\n  class A\n"


@pytest.mark.slow
def test_deveval_import_converts_and_every_stage_of_the_reference_scores_100(pytester, results):
    from helpers.deveval_sample import write_sample

    from pytest_e2ebench.cli import main

    write_sample(pytester.path / "deveval")
    assert main(["import", "deveval", "--no-gate", str(pytester.path / "deveval"), "tasks"]) == 0
    report = json.loads((pytester.path / "tasks" / "import-report.json").read_text())
    assert {r["repo"]: r["error"] for r in report} == {
        "nosequence": "missing UML_sequence.md",
        "wordstat": None,
    }
    task = pytester.path / "tasks" / "deveval-wordstat"
    assert (task / "design" / "class.mmd").read_text().startswith("classDiagram")
    assert not (task / "reference" / "PRD.md").exists()
    assert sorted(p.name for p in (task / "reference").iterdir()) == ["wordstat"]
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-stage=all")
    result.assert_outcomes(passed=8)  # 3 design, 1 example, R1, R2, 2 oracles
    document = results()
    assert document["tasks"][0]["metrics"]["impl_rate"] == 1.0
    unit = stage_runs(document, "unit-tests")["reference"]["metrics"]
    assert unit["oracle_pass"] == 1.0 and unit["statement_coverage"] > 0.5


def test_a_stage_the_harness_cannot_grade_is_an_error_not_a_failure(pytester, staged, results):
    (staged / "design" / "sequence.mmd").write_text("sequenceDiagram\n    A ->> {{\n")
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-stage=design")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*the task's reference design/sequence.mmd does not parse*"])
    (run,) = results()["stages"]["runs"]
    assert run["status"] == "error" and run["metrics"] is None
    summary = results()["stages"]["summary"]["design"]["reference"]
    assert summary["errored_runs"] == 1


# --- one session of every graded stage: reference, nop and one degraded answer ----------------

DEGRADED_CLASS = CLASS.replace(
    "    class Multiplier {\n        +mul(a, b) int\n    }\n", ""
).replace("    Calculator --> Multiplier\n", "")
DEGRADED = {  # each stage reads its own files of the one answer (modular mode)
    "design/class.mmd": DEGRADED_CLASS,
    "design/sequence.mmd": "sequenceDiagram\n    User->>Calculator: add\n    A -->> {{",
    "design/architecture.txt": "calc/\n    add.py\n",
    "requirements.txt": "# nothing needed\n",
    "tests/acceptance/test_calc.py": CALC_TESTS.replace(
        "assert sub(5, 3) == 2", "assert sub(5, 3) == 3"
    ),
    "tests/unit/test_add.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


@pytest.fixture(scope="module")
def stages_session(request, tmp_path_factory) -> SharedSession:
    """One session of the design, setup, acceptance- and unit-test stages for the reference,
    nop and ``dir:answers`` (degraded in each stage), read by ``TestBatchStages``."""
    with batch_folder(request, tmp_path_factory, "stages-session") as root:
        batch = SharedSession(root)
        stage_task(batch.tasks)
        for rel, text in DEGRADED.items():
            batch.tasks.write(root / "answers" / "calc" / rel, text)
        batch.run(
            "--e2e-agent=reference,nop,dir:answers",
            "--e2e-tasks=tasks",
            "--e2e-stage=design,setup,acceptance-tests,unit-tests",
        )
        yield batch


BOTH = ("reference", "nop")


@pytest.fixture(scope="module")
def stages_xdist(stages_session: SharedSession) -> dict:
    """The design and setup stages of the reference and nop again, under ``-n 2`` in the
    stages session's folder (its own ``--e2e-out``): the stages session is the serial one."""
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "--e2e-stage=design,setup")
    root = stages_session.root
    xdist = ("-n", "2", "-p", "xdist", "--e2e-out=xdist", f"--basetemp={root}/basetemp-xdist")
    done = Batch.run(stages_session, *args, *xdist)  # not the serial session's junit.xml
    return {"result": run_result(done), "results": stages_session.results("xdist")}


def stage_metrics(document: dict, agents: tuple[str, ...], stages: tuple[str, ...]) -> dict:
    """The metrics of each (agent, stage) of ``agents`` and ``stages``."""
    runs = document["stages"]["runs"]
    return {
        (r["agent"], r["stage"]): r["metrics"]
        for r in runs
        if r["agent"] in agents and r["stage"] in stages
    }


def stage_outcomes(
    session: SharedSession,
    *stages: str,
    agents: tuple[str, ...] = ("reference", "nop", "dir-answers"),
) -> Counter:
    """How many of the stages' items (of ``agents``) passed and failed."""
    found = Counter()
    for agent in agents:
        for name, outcome in session.outcomes(agent, 1).items():
            if any(f"-run-1-{stage}-" in name for stage in stages):
                found[outcome] += 1
    return found


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchStages:
    """The readers of the one stages session (one xdist worker builds it)."""

    def test_design_reference_full_empty_zero_degraded_between(self, stages_session):
        assert stage_outcomes(stages_session, "design") == {"passed": 4, "failure": 5}
        stages_session.lines().fnmatch_lines(
            ["*design/sequence.mmd is not valid Mermaid: Parse error*"]
        )
        runs = stage_runs(stages_session.results(), "design")
        assert runs["reference"]["metrics"]["design_score"] == 1.0
        assert runs["reference"]["metrics"]["design_valid"] == 1.0
        assert runs["nop"]["metrics"]["design_score"] == 0.0
        mine = runs["dir-answers"]
        assert 0 < mine["metrics"]["class_f1"] < 1 and 0 < mine["metrics"]["method_f1"] < 1
        assert mine["items"]["class"]["passed"]  # F1 >= 0.5: Calculator and its methods are there
        assert mine["items"]["sequence"]["valid"] is False
        assert mine["metrics"]["file_f1"] == 0.0  # calc/add.py is not calc/calc/add.py

    def test_setup_reference_full_empty_zero_dropped_dependency_between(self, stages_session):
        assert stage_outcomes(stages_session, "setup") == {"passed": 3, "failure": 3}
        stages_session.lines().fnmatch_lines(
            ["*no dependency file (requirements.txt or pyproject.toml)*"]
        )
        stages_session.lines().fnmatch_lines(["*example with_six.py: exit status 1*"])
        runs = stage_runs(stages_session.results(), "setup")
        rates = {a: r["metrics"]["example_pass_rate"] for a, r in runs.items()}
        assert rates == {"reference": 1.0, "nop": 0.0, "dir-answers": 0.5}
        assert runs["reference"]["details"]["dependencies"] == ["six"]

    def test_written_tests_oracle_coverage_and_mutants(self, stages_session):
        outcomes = stage_outcomes(stages_session, "acceptance-tests", "unit-tests")
        assert outcomes == {"passed": 3, "failure": 3}
        stages_session.lines().fnmatch_lines(
            ["*1 of 7 tests fail on the reference implementation:*"]
        )
        document = stages_session.results()
        acceptance = stage_runs(document, "acceptance-tests")
        unit = stage_runs(document, "unit-tests")
        ref = acceptance["reference"]["metrics"]
        assert ref["test_pass_rate"] == 1.0 and ref["oracle_pass"] == 1.0
        assert ref["statement_coverage"] == 1.0 and ref["mutation_score"] == 1.0
        assert acceptance["nop"]["metrics"]["test_pass_rate"] == 0.0
        assert 0 < acceptance["dir-answers"]["metrics"]["test_pass_rate"] < 1
        mine = unit["dir-answers"]["metrics"]
        assert mine["oracle_pass"] == 1.0 and 0 < mine["statement_coverage"] < 1
        assert mine["mutation_score"] == 1.0  # add-subtracts fails test_add
        summary = document["stages"]["summary"]["unit-tests"]["dir-answers"]
        assert summary["statement_coverage_valid"]["mean"] == mine["statement_coverage"]

    def test_stage_records_cross_xdist_workers(self, stages_session, stages_xdist):
        """The design and setup stages of reference and nop: the same metrics with -n 2 as in
        the serial stages session."""
        serial_outcomes = stage_outcomes(stages_session, "design", "setup", agents=BOTH)
        assert serial_outcomes == {"passed": 5, "failure": 5}
        stages_xdist["result"].assert_outcomes(passed=5, failed=5)
        serial = stage_metrics(stages_session.results(), BOTH, ("design", "setup"))
        parallel = stage_metrics(stages_xdist["results"], BOTH, ("design", "setup"))
        assert parallel == serial and len(serial) == 4
