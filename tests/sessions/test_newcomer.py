"""What a new user tripped over (issue 31), each checked as a user meets it: a benchmark
session in a pytester folder, its terminal output and its files.

Sessions are shared: one module-scoped session grades several small tasks at once, and the
tests read its output.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"

TASK_TOML = """\
id = "{id}"
title = "{id}"
kind = "cli"
language = "python"
created = 2026-11-01
source = "tests"

[tests]
cwd = "project"
"""
# A command-line tool: one test runs it in the run's copy of the project, the other copies the
# project to a temporary folder first (as gradebook's tests do): each takes one branch.
TOOL = """\
import sys

a, b = int(sys.argv[1]), int(sys.argv[2])
if a > b:
    print("big", a - b)
else:
    print("small", b - a)
"""
TOOL_TESTS = """\
import os
import shutil
import subprocess
import sys

import pytest


def run(where, *args):
    done = subprocess.run(
        [sys.executable, "tool.py", *args], cwd=where, capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.mark.requirement("R1")
def test_small_here():
    assert run(os.getcwd(), "1", "3") == "small 2"


@pytest.mark.requirement("R2")
def test_big_in_a_copy(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(os.getcwd(), copy)
    assert run(copy, "5", "2") == "big 3"
"""
# A server its test kills with SIGKILL: coverage cannot save what the server ran.
SERVER = """\
import pathlib
import time

pathlib.Path("ready").write_text("up")
time.sleep(120)
"""
SERVER_TESTS = """\
import os
import subprocess
import sys
import time

import pytest


@pytest.mark.requirement("R1")
def test_serves(tmp_path):
    proc = subprocess.Popen([sys.executable, "server.py"], cwd=os.getcwd())
    deadline = time.monotonic() + 30
    while not os.path.exists("ready") and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    assert open("ready").read() == "up"
"""
TWO_REQUIREMENTS = (
    "# t\n\n## Functional requirements\n\n### R1: One\n\nOne.\n\n### R2: Two\n\nTwo.\n"
)
ONE_REQUIREMENT = "# t\n\n## Functional requirements\n\n### R1: One\n\nOne.\n"


def cli_task(root: Path, task_id: str, files: dict[str, str], tests: str, reqs: str) -> None:
    """A task folder whose reference is ``files`` and whose tests are ``tests``."""
    where = root / task_id
    (where / "reference").mkdir(parents=True)
    (where / "tests").mkdir()
    (where / "task.toml").write_text(TASK_TOML.format(id=task_id))
    (where / "requirements.md").write_text(reqs)
    for name, text in files.items():
        (where / "reference" / name).write_text(text)
    (where / "tests" / f"test_{task_id}.py").write_text(tests)


def load(path: Path) -> dict:
    return json.loads(path.read_text())


# --- 1. coverage follows the program into subprocesses and copies -----------------------------


@pytest.fixture(scope="module")
def coverage_session(tmp_path_factory) -> dict:
    """One reference session: the tool task, the killed server, the bundled gradebook."""
    root = tmp_path_factory.mktemp("cov")
    tasks = root / "tasks"
    cli_task(tasks, "tool", {"tool.py": TOOL}, TOOL_TESTS, TWO_REQUIREMENTS)
    cli_task(tasks, "killed", {"server.py": SERVER}, SERVER_TESTS, ONE_REQUIREMENT)
    shutil.copytree(BUNDLED / "gradebook", tasks / "gradebook")
    done = run_session(root, "--e2e-agent=reference", "--e2e-tasks=tasks")
    assert done.returncode == 0, done.stdout[-3000:]
    return {r["task"]: r for r in load(root / ".e2ebench" / "results.json")["tasks"]}


def run_session(root: Path, *args: str, timeout: float = 900):
    """``python -m pytest ARGS`` in ``root`` (plugin autoload on, as a user runs it)."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.shares_session
class TestBatchCoverageSession:
    """The readers of the one coverage session (one xdist worker runs them all)."""

    @pytest.mark.slow
    @pytest.mark.parametrize("task", ["tool", "gradebook"])
    def test_coverage_counts_the_program_its_tests_run_as_a_subprocess(
        self, coverage_session, task
    ):
        """Run in the run's copy and in a copy of it in a temporary folder: both count."""
        metrics = coverage_session[task]["metrics"]
        assert metrics["impl_rate"] == 1.0
        assert metrics["line_coverage"] is not None and metrics["line_coverage"] > 0.8, metrics
        if task == "tool":  # each test takes one branch: only both together make 100 %
            assert metrics["line_coverage"] == 1.0

    @pytest.mark.slow
    def test_coverage_it_cannot_measure_is_null_with_a_reason_not_zero(self, coverage_session):
        record = coverage_session["killed"]
        assert record["metrics"]["impl_rate"] == 1.0
        assert record["metrics"]["line_coverage"] is None
        note = record["suites"]["extended"]["coverage_note"]
        assert "1 test(s) passed" in note and "could not follow" in note


# --- 2. --e2e-executor=ray from a checkout whose ini turns warnings into errors ----------------

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed: pip install 'pytest-e2ebench[ray]'",
)


def repository_ini() -> str:
    """This repository's [tool.pytest.ini_options] (filterwarnings = error), without testpaths."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    options = dict(options["ini_options"])
    options.pop("testpaths", None)
    options.pop("addopts", None)  # --strict-config would reject the markers' absence: not ours
    lines = [f"{key} = {json.dumps(value)}" for key, value in options.items()]
    return "[tool.pytest.ini_options]\n" + "\n".join(lines) + "\n"


@needs_ray
@pytest.mark.slow
def test_ray_from_a_checkout_with_filterwarnings_error_equals_local(tmp_path, monkeypatch):
    """As `python -m pytest` in the repository: its ini, the plugin imported from the folder."""
    for task_id in ("bankrec", "cfgmerge", "colormixer"):
        shutil.copytree(BUNDLED / task_id, tmp_path / "tasks" / task_id)
    (tmp_path / "pyproject.toml").write_text(repository_ini())
    # `python -m pytest` in a checkout imports the plugin from the checkout's folder, not
    # through the editable install's finder: that is what made the Ray worker warn
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks")
    local = run_session(tmp_path, *args, "--e2e-out=loc", "--e2e-executor=local")
    ray = run_session(tmp_path, *args, "--e2e-out=ray", "--e2e-executor=ray")
    assert "RayTaskError" not in ray.stdout
    assert ray.returncode == local.returncode == 1, ray.stdout[-3000:]
    docs = [
        json.loads((tmp_path / d / "results.json").read_text().replace(f"/{d}/", "/OUT/"))
        for d in ("loc", "ray")
    ]
    assert len(docs[1]["tasks"]) == 6
    assert comparable(docs[0]) == comparable(docs[1])


def comparable(doc: dict) -> list:
    """Each run's verdicts and metrics, times left out."""
    times = {"duration_s"}
    return sorted(
        (
            r["task"],
            r["agent"],
            r["run"],
            json.dumps(r["requirements"], sort_keys=True),
            {k: v for k, v in r["metrics"].items() if k not in times},
        )
        for r in doc["tasks"]
    )


# --- 3. a dir: agent's missing output folder stops the session, or the user chooses ------------


def test_missing_dir_output_stops_at_the_start_naming_the_folders(pytester, tasks):
    tasks.make("calc")
    tasks.make("other")
    (pytester.path / "outs" / "other").mkdir(parents=True)
    result = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no output folder for 1 selected task(s)*outs/calc)*"])
    result.stderr.fnmatch_lines(["*--e2e-missing=empty*--e2e-missing=skip*"])
    assert not (pytester.path / ".e2ebench" / "results.json").exists()
    # under -n the controller, which collects nothing, checks the folders itself
    under_n = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks", "-n", "2")
    assert under_n.ret == pytest.ExitCode.USAGE_ERROR
    under_n.stderr.fnmatch_lines(["*no output folder for 1 selected task(s)*outs/calc)*"])


def test_last_failed_checks_only_the_folders_it_reruns(pytester, tasks):
    """Issue 44: ``--lf`` after a session that left a task out stopped with "no output folder
    for 1 selected task(s)": the check counted the tasks --lf would not run, in one process
    and under ``-n`` alike."""
    from helpers.batch import CALC_MUTANT

    tasks.make("calc")
    tasks.make("other")
    tasks.reference(pytester.path / "outs" / "calc", CALC_MUTANT)  # R2 fails
    first = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks", "--e2e-missing=skip")
    first.assert_outcomes(passed=2, failed=1, deselected=3)
    for extra in ((), ("-n", "2")):
        again = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks", "--lf", *extra)
        assert again.ret == pytest.ExitCode.TESTS_FAILED, again.stderr.str()
        outcomes = again.parseoutcomes()
        assert (outcomes.get("failed"), outcomes.get("passed")) == (1, None), outcomes


def test_missing_dir_output_skip_and_the_ini_twin(pytester, tasks):
    tasks.make("calc")
    (pytester.path / "outs").mkdir()
    pytester.makeini("[pytest]\ne2ebench_missing = skip\n")
    result = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(["*--e2e-missing=skip: left out*outs/calc*"])
    result.assert_outcomes(deselected=3)
    pytester.makeini("[pytest]\ne2ebench_missing = maybe\n")
    bad = pytester.runpytest("--e2e-agent=dir:outs", "--e2e-tasks=tasks")
    bad.stderr.fnmatch_lines(["*e2ebench_missing='maybe': use one of stop, empty, skip*"])


# --- 5, 7, 9. one session: a malformed task, --tb=line, the summary's columns and files ------


@pytest.fixture(scope="module")
def plain_session(tmp_path_factory):
    """reference and nop on a calc task's R2, beside a task whose task.toml does not parse."""
    from helpers.tasks import TaskFactory

    root = tmp_path_factory.mktemp("plain")
    factory = TaskFactory(root)
    factory.make("calc")
    broken = factory.make("broken")
    (broken / "task.toml").write_text('id = "broken"\ntitle = "unclosed\n')
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-k", "R2", "--tb=line")
    args += ("--junitxml=junit.xml", "--e2e-html=report.html")
    return run_session(root, *args, "-q")


@pytest.mark.shares_session
class TestBatchPlainSession:
    """The readers of the one plain session (one xdist worker runs them all)."""

    @pytest.mark.slow
    def test_a_malformed_task_is_its_own_collection_error_and_the_rest_run(self, plain_session):
        out = plain_session.stdout
        assert "1 failed, 1 passed" in out and "1 error" in out, out[-2000:]
        assert "ERROR collecting tasks/broken/task.toml" in out
        assert "Interrupted" not in out
        assert plain_session.returncode == pytest.ExitCode.TESTS_FAILED

    @pytest.mark.slow
    def test_tb_line_is_one_line_per_requirement(self, plain_session):
        out = plain_session.stdout
        assert "R2 not implemented (nop, run 1): Subtraction" in out
        assert "tests did not pass:" not in out  # the list of failing tests is --tb=long's
        assert "impl by task quarter" not in out

    @pytest.mark.slow
    def test_summary_shows_tokens_sent_and_generated_and_names_its_files(self, plain_session):
        out = plain_session.stdout
        header = next(line for line in out.splitlines() if line.startswith("task "))
        assert "tok_in" in header and "tok_out" in header and "exec" not in header
        for named in (
            "results: ",
            "this session's results, kept: ",
            "html report: ",
            "junit xml: ",
        ):
            assert out.count(named) == 1, named  # each file once, also under -q

    # 6. long work says what it does (its progress count is further down)

    @pytest.mark.slow
    def test_each_run_says_its_environment_build_and_test_run_with_its_place(self, plain_session):
        import re

        out = plain_session.stdout
        for doing in ("building its environment", "running the reference tests"):
            assert re.search(rf"\[e2ebench\] \w+ calc run-1 \([12]/2\): {doing}", out), out[:3000]


# --- 8. a first LLM-agent run without a model: e2ebench demo-model -----------------------------


@pytest.mark.slow
def test_demo_model_command_serves_a_model_that_writes_the_reference(pytester, tasks, results):
    import re
    import signal
    import subprocess
    import sys
    import time

    tasks.make("calc")
    server = subprocess.Popen(
        [sys.executable, "-m", "pytest_e2ebench.cli", "demo-model", "--tasks", "tasks"],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = server.stdout.readline()
        command = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/v1", first).group(0)
        assert "--e2e-agent=vanilla --e2e-model=demo-model" in command and url in command
        result = pytester.runpytest(
            "--e2e-agent=vanilla",
            "--e2e-model=demo-model",
            f"--e2e-llm-base-url={url}",
            "--e2e-tasks=tasks",
        )
        result.assert_outcomes(passed=3)
        metrics = results()["tasks"][0]["metrics"]
        assert metrics["tokens_sent"] > 0 and metrics["tokens_generated"] > 0
    finally:
        server.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10
        while server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if server.poll() is None:
            server.kill()
        server.wait()
        server.stdout.close()
    assert server.returncode == 0


def test_without_a_model_the_advice_names_the_demo_model(pytester, tasks):
    tasks.make("calc")
    result = pytester.runpytest("--e2e-agent=vanilla", "--e2e-tasks=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*e2ebench demo-model*"])


# --- 6. how far the session is --------------------------------------------------------------


def test_under_n_the_progress_lines_say_how_many_runs_are_done(tmp_path):
    """The controller counts the runs from a worker's item ids and adds the count."""
    from pytest_e2ebench.run.progress import Monitor
    from pytest_e2ebench.run.runs import RUN_IN_ID

    agents, runs, reqs = ("x", "dir-o"), (1, 2), ("R1", "R2")
    ids = [f"tasks/t/task.toml::t[{a}-run-{r}-{q}]" for a in agents for r in runs for q in reqs]
    assert len({RUN_IN_ID.search(i).groups() for i in ids}) == 4
    (tmp_path / "run.json").write_text(json.dumps({"run": "x--t--run-1", "doing": "building"}))
    lines: list[str] = []
    monitor = Monitor(tmp_path, lines.append, every=0.05, status=lambda: "1/4 runs done")
    monitor.start()
    deadline = time.monotonic() + 5
    while not lines and time.monotonic() < deadline:
        time.sleep(0.05)
    monitor.stop()
    assert lines == ["[e2ebench] x t run-1: building [1/4 runs done]"]


# --- 4. the README's main job from the repository's root (issue 44) -----------------------------


@pytest.mark.slow
def test_the_main_job_from_the_root_is_the_plugins_not_the_test_suites(tmp_path):
    """From the root, the repository's conftest once replaced the plugin's xdist scheduler (one
    run's items on both workers, the second waiting on the run's lock) and put the decoy
    values' store in a temporary folder (recorded again every session). Now each run's items
    go to one worker, two runs to two, and the values stay in the user's cache."""
    import os
    import re
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.endswith("_STORE")}
    env["E2EBENCH_CACHE"] = str(tmp_path / "cache")
    args = ["--e2e-agent=reference", "-k", "semverkit", "--e2e-runs=2", "-n", "2", "-v"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args,
         f"--e2e-out={tmp_path / 'out'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    workers: dict[str, set[str]] = {}
    for worker, run in re.findall(r"\[(gw\d)\].*?semverkit\[reference-run-(\d)-", done.stdout):
        workers.setdefault(run, set()).add(worker)
    assert sorted(workers) == ["1", "2"], done.stdout[-3000:]
    assert all(len(w) == 1 for w in workers.values()) and workers["1"] != workers["2"], workers
    assert list((tmp_path / "cache" / "planting").glob("*/entries.json")), "no values kept"


def test_help_for_the_agent_option_names_every_built_in_agent(pytester):
    """Issue 44: ``--help`` named reference, nop and dir:PATH only."""
    from pytest_e2ebench.agents.clitools.specs import SPECS
    from pytest_e2ebench.agents.llm_agents import LLM_AGENT_NAMES

    text = " ".join(pytester.runpytest("--help").stdout.str().split())
    start = text.index("--e2e-agent=")
    about = text[start : text.index("Without it only", start)]
    for name in ("reference", "nop", "dir:PATH", "cmd:COMMAND", *LLM_AGENT_NAMES, *SPECS):
        assert name in about, (name, about)
