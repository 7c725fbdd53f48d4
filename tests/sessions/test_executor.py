"""--e2e-executor=ray: the same results as local execution, failures keep their meaning,
Ctrl-C and kill -9 leave nothing behind, and a killed session resumes (issue 18).

The tests that need Ray start a local cluster of 2 CPUs for one session (the driver stops it);
they are skipped when Ray is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.containment import ROOT_ATTACKS
from helpers.processes import TASK_IDS, count, descendants, manifests, processes
from helpers.processes import comparable as run_metrics
from helpers.tasks import CALC_CODE
from helpers.xdist import comparable, summaries

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed: pip install 'pytest-e2ebench[ray]'",
)
BUNDLED = Path(__file__).resolve().parents[2] / "benchmark_tasks"
RAY = ("--e2e-executor=ray", "-p", "no:cacheprovider")
GONE_LIMIT = 20.0  # seconds a Ray cluster's processes get to end after its driver did
# After a kill -9 of the driver, Ray's per-node agents (not workers: they run no pipeline) try
# to report the raylet's death to the dead GCS before they exit: measured ~60-80 s.
AGENTS_LIMIT = 150.0

AGENTS = """
import os
import signal
import time
from pathlib import Path

from pytest_e2ebench.agents import Agent, AgentOutcome
from pytest_e2ebench.errors import AgentError


class Scripted(Agent):
    \"\"\"Copies SRC_DIR; "crash-once" kills its worker on the first try, "doomed" on every
    try, "failing" reports an infrastructure error, "sleepy" sleeps.\"\"\"

    def __init__(self, spec):
        self.spec = self.label = spec

    def cache_key(self, task, run):
        return "v1"

    def generate(self, task, run, workspace, ctx):
        log = Path(os.environ["COUNT_FILE"])
        with log.open("a") as fh:
            fh.write(f"{self.spec} {os.getpid()}\\n")
        tries = sum(1 for line in log.read_text().splitlines() if line.split()[0] == self.spec)
        if self.spec == "doomed" or (self.spec == "crash-once" and tries == 1):
            os.kill(os.getpid(), signal.SIGKILL)  # as if the node were lost
        if self.spec == "failing":
            raise AgentError("the agent's tool server went away")
        if self.spec == "sleepy":
            time.sleep(120)
        src = Path(os.environ["SRC_DIR"])
        for path in src.rglob("*"):
            if path.is_file():
                target = workspace / path.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
        return AgentOutcome(steps=1)


def pytest_e2ebench_make_agent(spec, config):
    if spec in ("crash-once", "doomed", "failing", "sleepy"):
        return Scripted(spec)
    return None
"""


def stage_manifests(out: Path) -> dict[str, float]:
    """relative path -> written_at of every stage manifest of every run under ``out``."""
    found = {}
    for path in out.glob("*/*/run-*/*.json"):
        doc = json.loads(path.read_text())
        if isinstance(doc, dict) and "written_at" in doc:
            found[path.relative_to(out).as_posix()] = doc["written_at"]
    return found


def ray_processes_below(pid: int) -> set[int]:
    return descendants(pid, processes()) - {pid}


def ray_agents(pids: set[int]) -> set[int]:
    """The Ray node agents among ``pids`` (dashboard and runtime-env agents)."""
    found = set()
    for pid in pids:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if argv.startswith((b"ray::DashboardAgent", b"ray::RuntimeEnvAgent")):
            found.add(pid)
    return found


def wait_gone(pids: set[int], limit: float) -> set[int]:
    """The pids still alive after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while True:
        alive = pids & set(processes())
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def kill(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_without_ray_the_option_says_how_to_install(pytester, tasks):
    tasks.make()
    pytester.makeconftest("import sys\nsys.modules['ray'] = None  # import ray fails\n")
    result = pytester.runpytest_subprocess(
        "--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-executor=ray"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--e2e-executor=ray needs Ray*pip install 'pytest-e2ebench[[]ray[]]'*--e2e-executor=local*"
        ]
    )


def test_executor_option_and_its_ini_twin_are_checked(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\ne2ebench_executor = spark\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini option e2ebench_executor='spark': use one of local, ray*"])
    result = pytester.runpytest(
        "--e2e-agent=reference", "--e2e-tasks=tasks", "-n", "2", "--e2e-executor=ray"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--e2e-executor=ray runs the runs on the Ray cluster: drop -n*"])


@needs_ray
@pytest.mark.slow
def test_ray_gives_the_results_of_local_execution_on_bundled_tasks(pytester):
    """The check test_xdist makes for -n 2, for a local Ray cluster (3 bundled Python tasks)."""
    for task_id in ("semverkit", "csvq", "bankrec"):
        shutil.copytree(BUNDLED / task_id, pytester.path / "tasks" / task_id)
    pytester.makeini("[pytest]\ne2ebench_executor = ray\n")  # the ini twin
    args = ("--e2e-agent=reference,nop", "--e2e-tasks=tasks", "-p", "no:cacheprovider")
    local = pytester.runpytest_subprocess(*args, "--e2e-out=loc", "--e2e-executor=local")
    ray = pytester.runpytest_subprocess(*args, "--e2e-out=ray", "-v")
    assert ray.parseoutcomes() == local.parseoutcomes()
    assert ray.parseoutcomes()["passed"] > 0 and ray.parseoutcomes()["failed"] > 0
    # messages quote the run folder: the two output folders have names of one length
    docs = [
        json.loads((pytester.path / d / "results.json").read_text().replace(f"/{d}/", "/OUT/"))
        for d in ("loc", "ray")
    ]
    assert len(docs[1]["tasks"]) == 6
    assert comparable(docs[0]) == comparable(docs[1])
    assert summaries(docs[0]) == summaries(docs[1])
    # the same --e2e-out layout: the local session's stages serve a ray session unchanged
    before = stage_manifests(pytester.path / "loc")
    again = pytester.runpytest_subprocess(*args, "--e2e-out=loc")
    assert again.parseoutcomes() == local.parseoutcomes()
    assert stage_manifests(pytester.path / "loc") == before
    again_doc = (pytester.path / "loc" / "results.json").read_text().replace("/loc/", "/OUT/")
    assert comparable(json.loads(again_doc)) == comparable(docs[0])


@needs_ray
@pytest.mark.slow
def test_a_lost_worker_is_retried_and_a_failing_agent_is_not(pytester, tasks, monkeypatch):
    tasks.make()
    src = tasks.reference(pytester.path / "src", CALC_CODE)
    pytester.makeconftest(AGENTS)
    log = pytester.path / "tries.txt"
    monkeypatch.setenv("COUNT_FILE", str(log))
    monkeypatch.setenv("SRC_DIR", str(src))
    pytester.makeini("[pytest]\ne2ebench_ray_retries = 1\n")
    result = pytester.runpytest_subprocess(
        "--e2e-agent=crash-once,failing,doomed", "--e2e-tasks=tasks", *RAY
    )
    result.assert_outcomes(passed=3, errors=6)
    tries: dict[str, int] = {}
    for line in log.read_text().splitlines():
        tries[line.split()[0]] = tries.get(line.split()[0], 0) + 1
    # crash-once: lost, retried, graded; failing: its own failure, tried once; doomed: lost on
    # both of its 1 + e2ebench_ray_retries tries, then an infrastructure error
    assert tries == {"crash-once": 2, "failing": 1, "doomed": 2}
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of calc[[]failing-run-1-R1[]]*",
            "infrastructure error*[[]agent[]] the agent's tool server went away",
            "*ERROR at setup of calc[[]doomed-run-1-R1[]]*",
            "infrastructure error*[[]executor[]] the run's Ray task did not complete (tried 2 "
            "times at most): WorkerCrashedError*",
        ]
    )


@needs_ray
@pytest.mark.slow
def test_ctrl_c_cancels_the_runs_and_leaves_no_process(pytester, tasks, monkeypatch):
    tasks.make("calc")
    tasks.make("other")
    src = tasks.reference(pytester.path / "src", CALC_CODE)
    pytester.makeconftest(AGENTS)
    log = pytester.path / "tries.txt"
    monkeypatch.setenv("COUNT_FILE", str(log))
    monkeypatch.setenv("SRC_DIR", str(src))
    command = [sys.executable, "-m", "pytest", "--e2e-agent=sleepy", "--e2e-tasks=tasks", *RAY]
    proc = subprocess.Popen(
        command,
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    below: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while not (log.exists() and len(log.read_text().splitlines()) == 2):
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.monotonic() < deadline, "the runs did not start"
            time.sleep(0.1)
        below = ray_processes_below(proc.pid)
        workers = {int(line.split()[1]) for line in log.read_text().splitlines()}
        assert workers <= below  # the runs' workers belong to the session's cluster
        os.kill(proc.pid, signal.SIGINT)
        output = proc.communicate(timeout=60)[0].decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        left = wait_gone(below, GONE_LIMIT)
        kill(left)
    assert "KeyboardInterrupt" in output, output
    assert not left, f"processes of the session outlived it: {sorted(left)}"


@needs_ray
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_kill_9_of_the_driver_then_the_same_command_does_not_redo_finished_runs(
    pytester, tasks, results
):
    for task_id in TASK_IDS:
        tasks.make(task_id)
    out = pytester.path / "out"
    for task_id in TASK_IDS:
        tasks.reference(out / task_id, CALC_CODE)
    args = ("--e2e-agent=dir:out", "--e2e-tasks=tasks", *RAY)
    killed = pytester.path / "killed"
    command = [sys.executable, "-m", "pytest", *args, "--e2e-out=killed"]
    log = pytester.path / "killed.log"
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            command,
            cwd=pytester.path,
            stdin=subprocess.DEVNULL,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    below: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        while not 1 <= count(killed, "judge.json") < len(TASK_IDS):
            below |= ray_processes_below(proc.pid)
            assert proc.poll() is None, f"the session ended before the kill:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no run finished in time:\n{log.read_text()}"
            time.sleep(0.01)
        below |= ray_processes_below(proc.pid)
        agents = ray_agents(below)
        os.kill(proc.pid, signal.SIGKILL)  # the driver alone: its cluster must follow it
        proc.wait()
        killed_at = time.monotonic()
        # the raylet, the GCS and the workers (with the runs' sandboxes) follow at once
        left = wait_gone(below - agents, GONE_LIMIT)
        kill(left)
    except BaseException:
        kill(below)
        raise
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    finished = count(killed, "judge.json")
    assert 1 <= finished < len(TASK_IDS), f"{finished} of {len(TASK_IDS)} runs done at the kill"
    before = manifests(killed)

    again = pytester.runpytest_subprocess(*args, "--e2e-out=killed", timeout=300)
    again.assert_outcomes(passed=12)
    after = manifests(killed)
    assert {path: after.get(path) for path in before} == before  # finished stages not redone
    assert count(killed, "judge.json") == len(TASK_IDS)
    local = pytester.runpytest_subprocess(*args[:2], "--e2e-out=local", timeout=300)
    local.assert_outcomes(passed=12)
    assert run_metrics(results("killed")) == run_metrics(results("local"))
    assert not left, f"processes of the killed driver's cluster outlived it: {sorted(left)}"
    left = wait_gone(agents, AGENTS_LIMIT - (time.monotonic() - killed_at))
    kill(left)
    assert not left, f"Ray's agents outlived the killed driver by {AGENTS_LIMIT:g} s"


@needs_ray
@pytest.mark.slow
@pytest.mark.parametrize("attack", ["umount_hiding_mounts", "use_capabilities"])
def test_containment_holds_when_the_pipeline_runs_in_a_ray_worker(arena, attack):  # noqa: F811
    """Two of test_containment's class-1 attacks, graded by a Ray worker: the sandbox runs
    inside whatever process executes the pipeline."""
    code = ROOT_ATTACKS[attack].replace("{TASKS}", str(arena.root / "tasks"))
    arena.submit(attack=code)
    arena.grade(*RAY, subprocess=True)
    arena.assert_r1_fails()
    arena.check()
