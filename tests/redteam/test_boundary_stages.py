"""Issue 26, class 6: the test-writing stages and ProjectEval's values must not hand over
the answer.

Two batched sessions (one per method), each a subprocess that writes results.json, read by
parametrized asserts:

* DevEval stages, ``-n 2``, two runs: a ``dir:`` answer whose unit test asserts the
  reference's file hashes (run 1) fails the oracle and has no mutation score, an honest one
  (run 2) passes both; a plugin agent with a memory on the host (the model of "its own
  service") stores the reference the unit-tests stage shows it and hands it in at implement:
  every implement stage of the session runs first, so it scores 0 in both runs. The
  reference agent stays at 100 %.
* ProjectEval (gradebook): a ``print("E")`` program answering "E" for both messages fails
  both message requirements; the reference passes all three.

Plus the logic in-process: the variant keeps behaviour and changes every file's bytes, locals
are renamed only where that is safe, and no bundled test compares a parameter value with an
output without a control.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.stages import MUTANTS  # the calc task's add-subtracts mutant
from helpers.tasks import TaskFactory

from pytest_e2ebench.methods.stages.variants import VARIANT_NOTE, variant_source, write_variant

ROOT = Path(__file__).resolve().parents[2]
HONEST_UNIT = (
    "from calc import add, mul, sub\n\n"
    "def test_calc():\n    assert add(1, 2) == 3 and sub(5, 3) == 2 and mul(3, 4) == 12\n"
)
# The memory agent: a plugin agent (harness zone) whose memory is a host folder, as an agent
# with its own service or a provider's memory would have. It logs when it implements and
# when it is shown the reference.
MEMORY_AGENT = """
import os
import shutil
import time
from pathlib import Path

from pytest_e2ebench.agents import Agent, AgentOutcome

MEMORY = Path(os.environ["E2E_TEST_MEMORY"])


class MemoryAgent(Agent):
    spec = label = "memory"

    def __init__(self, spec, config):
        pass

    def cache_key(self, task, run):
        return f"memory-{run}"

    def generate(self, task, run, workspace, ctx):
        MEMORY.mkdir(parents=True, exist_ok=True)
        log = MEMORY / "log.txt"
        if ctx.stage == "implement":
            with log.open("a") as fh:
                fh.write(f"{time.time():.6f} implement run-{run}\\n")
            if (MEMORY / "src").is_dir():
                shutil.copytree(MEMORY / "src", workspace, dirs_exist_ok=True)
        else:
            shown = ctx.inputs / "src"
            with log.open("a") as fh:
                fh.write(f"{time.time():.6f} shown run-{run} {shown.is_dir()}\\n")
            if shown.is_dir() and not (MEMORY / "src").exists():
                shutil.copytree(shown, MEMORY / "src")
        return AgentOutcome()


def pytest_e2ebench_make_agent(spec, config):
    return MemoryAgent(spec, config) if spec == "memory" else None
"""
# ProjectEval: a program that prints one letter whatever happens, and answers that letter
ECHO_PROGRAM = 'print("E")\n'
ECHO_PARAMETERS = {"entry": "gradebook.py", "missing_file_message": "E", "bad_header_message": "E"}


def _pytest(where: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """A benchmark session in ``where`` (its own interpreter: the venv of this checkout)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, **(env or {})},
    )


def _stage_answers(base: Path, reference: Path) -> None:
    """dir: answers: run 1 asserts the reference's file hashes, run 2 tests behaviour."""
    hashes = {
        p.relative_to(reference).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(reference.rglob("*.py"))
    }
    hash_test = textwrap.dedent(
        f"""\
        import hashlib
        from pathlib import Path

        import calc

        HASHES = {hashes!r}


        def test_it_is_the_reference():
            root = Path(calc.__file__).parent.parent
            for rel, digest in HASHES.items():
                assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == digest
        """
    )
    for run, text in ((1, hash_test), (2, HONEST_UNIT)):
        path = base / "calc" / f"run-{run}" / "tests" / "unit" / "test_mine.py"
        path.parent.mkdir(parents=True)
        path.write_text(text)


@pytest.fixture(scope="module")
def stage_session(tmp_path_factory) -> dict:
    """One -n 2 session: reference, the dir: answers and the memory agent, two runs each."""
    where = tmp_path_factory.mktemp("stages")
    factory = TaskFactory(where)
    root = factory.make()
    factory.write(root / "mutants.toml", MUTANTS)
    _stage_answers(where / "answers", root / "reference")
    (where / "conftest.py").write_text(MEMORY_AGENT)
    (where / "pytest.ini").write_text("[pytest]\ne2ebench_tasks = tasks\n")
    memory = where / "memory"
    done = _pytest(
        where,
        "--e2e-agent=reference,dir:answers,memory",
        "--e2e-runs=2",
        "--e2e-stage=implement,unit-tests",
        "-n",
        "2",
        "-p",
        "xdist",
        env={"E2E_TEST_MEMORY": str(memory)},
    )
    document = json.loads((where / ".e2ebench" / "results.json").read_text())
    log = [line.split() for line in (memory / "log.txt").read_text().splitlines()]
    return {"done": done, "results": document, "log": log}


def _unit(session: dict, agent: str, run: int) -> dict:
    (record,) = [
        r
        for r in session["results"]["stages"]["runs"]
        if (r["agent"], r["run"], r["stage"]) == (agent, run, "unit-tests")
    ]
    return record


def _implement(session: dict, agent: str, run: int) -> dict:
    (record,) = [r for r in session["results"]["tasks"] if (r["agent"], r["run"]) == (agent, run)]
    return record["metrics"]


@pytest.mark.shares_session
class TestBatchStages:
    """The readers of the one stage session (one xdist worker runs them all)."""

    @pytest.mark.slow
    def test_a_test_of_the_reference_bytes_fails_the_oracle(self, stage_session):
        record = _unit(stage_session, "dir-answers", 1)
        assert record["status"] == "ok", record
        assert record["metrics"]["oracle_pass"] == 0.0
        assert record["metrics"]["test_pass_rate"] == 0.0
        assert record["metrics"]["mutation_score"] is None  # counted only for passing tests
        failures = record["details"]["variant_failures"]
        assert [f.split("::")[-1] for f in failures] == ["test_it_is_the_reference"]
        assert "behaviour-preserving variant" in record["items"]["oracle"]["message"]

    @pytest.mark.slow
    @pytest.mark.parametrize(
        ("agent", "run"), [("dir-answers", 2), ("reference", 1), ("reference", 2)]
    )
    def test_honest_written_tests_pass_on_the_variant_and_kill_the_mutant(
        self, stage_session, agent, run
    ):
        metrics = _unit(stage_session, agent, run)["metrics"]
        assert metrics["oracle_pass"] == 1.0 and metrics["mutation_score"] == 1.0

    @pytest.mark.slow
    @pytest.mark.parametrize("run", [1, 2])
    def test_an_agent_with_memory_cannot_carry_the_reference_into_implement(
        self, stage_session, run
    ):
        assert _implement(stage_session, "memory", run)["impl_rate"] == 0.0
        assert _implement(stage_session, "reference", run)["impl_rate"] == 1.0

    @pytest.mark.slow
    def test_every_implement_stage_ran_before_the_reference_was_shown(self, stage_session):
        log = stage_session["log"]
        implemented = [float(t) for t, what, *_ in log if what == "implement"]
        shown = [float(t) for t, what, *_ in log if what == "shown"]
        assert len(implemented) == 2 and len(shown) == 2, log
        assert max(implemented) < min(shown), log
        assert all(rest == ["True"] for _, what, _run, *rest in log if what == "shown")  # modular


@pytest.fixture(scope="module")
def projecteval_session(tmp_path_factory) -> dict:
    """gradebook with the reference and a print("E") program answering "E"."""
    where = tmp_path_factory.mktemp("projecteval")
    shutil.copytree(ROOT / "benchmark_tasks" / "gradebook", where / "tasks" / "gradebook")
    answer = where / "answers" / "gradebook"
    answer.mkdir(parents=True)
    (answer / "gradebook.py").write_text(ECHO_PROGRAM)
    (answer / "parameters.json").write_text(json.dumps(ECHO_PARAMETERS))
    (where / "pytest.ini").write_text("[pytest]\ne2ebench_tasks = tasks\n")
    done = _pytest(where, "--e2e-agent=reference,dir:answers")
    document = json.loads((where / ".e2ebench" / "results.json").read_text())
    return {"done": done, "records": {r["agent"]: r for r in document["tasks"]}}


@pytest.mark.shares_session
class TestBatchProjectEvalEcho:
    """The readers of the one ProjectEval session with the echo program (on one xdist worker)."""

    @pytest.mark.slow
    @pytest.mark.parametrize("requirement", ["R1", "R2", "R3"])
    def test_a_value_that_matches_every_output_passes_no_requirement(
        self, projecteval_session, requirement
    ):
        records = projecteval_session["records"]
        verdicts = {r["id"]: r["verdict"] for r in records["dir-answers"]["requirements"]}
        assert verdicts[requirement] == "not_implemented", projecteval_session["done"].stdout[
            -3000:
        ]
        reference = {r["id"]: r["verdict"] for r in records["reference"]["requirements"]}
        assert reference[requirement] == "implemented"

    @pytest.mark.slow
    def test_the_echo_program_fails_on_the_control_run(self, projecteval_session):
        assert "also in the output of the control run" in projecteval_session["done"].stdout


SAMPLE = '''\
"""Module doc."""
import os

LIMIT = 3


def scale(values, factor=2):
    """Each value times factor, at most LIMIT of them."""
    result = []  # collected here
    for index, value in enumerate(values):
        if index >= LIMIT:
            break
        result.append(value * factor)
    return result


def peek():
    return sorted(locals())


def closure(n):
    total = n
    return lambda k: k + total


class Box:
    def first(self):
        item = 1
        return item

    def second(self):
        return self.first() + 1
'''


def _namespace(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<variant>", "exec"), namespace)  # noqa: S102 - our own sample
    return namespace


def test_the_variant_behaves_the_same_and_is_written_differently():
    variant = variant_source(SAMPLE)
    assert variant != SAMPLE and variant.endswith(VARIANT_NOTE)
    old, new = _namespace(SAMPLE), _namespace(variant)
    assert new["scale"]([1, 2, 3, 4]) == old["scale"]([1, 2, 3, 4]) == [2, 4, 6]
    assert new["scale"]([1], factor=5) == [5]  # parameters keep their names
    assert new["peek"]() == old["peek"]() and new["closure"](1)(2) == 3
    assert new["Box"]().second() == 2
    assert new["scale"].__doc__.endswith(old["scale"].__doc__)
    tree = ast.parse(variant)
    renamed = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "result" not in renamed and "item" not in renamed  # plain locals: renamed
    assert "total" in renamed  # a closure's: left alone


def test_every_file_of_the_variant_differs_even_an_empty_one(tmp_path):
    reference = TaskFactory(tmp_path).reference(
        tmp_path / "ref", {"add": "def add(a, b):\n    return a + b\n"}
    )
    (reference / "calc" / "empty.py").write_text("")
    (reference / "README.md").write_text("# calc\n")
    variant = write_variant(reference, tmp_path / "variant")
    for path in reference.rglob("*"):
        if path.is_file():
            other = variant / path.relative_to(reference)
            assert other.read_bytes() != path.read_bytes(), path.name


def test_a_file_that_does_not_parse_still_changes_and_keeps_its_text():
    text = "print 'python 2'\n"
    assert variant_source(text) == text + VARIANT_NOTE


def test_no_bundled_test_compares_a_parameter_value_with_an_output_without_a_control():
    """``assert pv(...) in output`` passes for a value found in every output ("E"): bundled
    tasks use ``pv_in(name, output, control)`` instead (docs/projecteval.md)."""
    found = []
    for path in sorted((ROOT / "benchmark_tasks").glob("*/tests/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                isinstance(op, ast.In | ast.NotIn) for op in node.ops
            ):
                left = node.left
                if isinstance(left, ast.Call) and getattr(left.func, "id", "") in (
                    "pv",
                    "pv_session",
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"use pv_in(name, output, control) at {found}"
