"""Live progress: files written by runs, lines printed by the controller."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from pytest_e2ebench.run.progress import STILL_ENV, Monitor, describe, progress_file, writer


def test_writer_and_monitor_round_trip(tmp_path):
    out = tmp_path / "out"
    path = progress_file(out, out / "sdagent-dt" / "semverkit" / "run-2")
    report = writer(path)
    report({"role": "tester", "step": 34, "max_steps": 200, "tokens": 12000, "cost_usd": 0.4123})
    lines: list[str] = []
    monitor = Monitor(out / "progress", lines.append)
    assert monitor.poll() == [
        "[e2ebench] sdagent-dt semverkit run-2: tester step 34/200 · 12000 tokens · $0.4123"
    ]
    assert monitor.poll() == []  # unchanged: nothing new to say
    report({"done": True})
    assert not path.exists()


def test_writer_throttles_to_one_write_a_second(tmp_path):
    path = tmp_path / "progress" / "a--t--run-1.json"
    report = writer(path)
    report({"step": 1})
    report({"step": 2})
    assert '"step": 1' in path.read_text()


def test_describe_without_llm_fields():
    assert describe({"run": "cmd-x--task--run-1"}) == "[e2ebench] cmd-x task run-1:"


def test_monitor_thread_prints_and_stops(tmp_path):
    folder = tmp_path / "progress"
    writer(folder / "a--t--run-1.json")({"role": "developer", "step": 1})
    lines: list[str] = []
    monitor = Monitor(folder, lines.append, every=0.05)
    monitor.start()
    for _ in range(100):
        if lines:
            break
        time.sleep(0.05)
    monitor.stop()
    monitor.stop()
    assert lines == ["[e2ebench] a t run-1: developer step 1"]


def test_writer_shows_changed_lines_at_most_every_few_seconds(tmp_path):
    shown: list[str] = []
    report = writer(tmp_path / "a--t--run-1.json", shown.append, every=3600)
    report({"role": "developer", "step": 1})
    report({"role": "developer", "step": 2})  # within the interval: not shown
    assert shown == ["[e2ebench] a t run-1: developer step 1"]


def test_a_plain_session_shows_live_progress(pytester, tasks):
    """Without -n or -s the run's line still reaches the terminal (past output capturing)."""
    from helpers.llm import ini

    from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, tool_call

    tasks.make()
    ini(pytester)
    with ScriptedLLM() as llm:
        # an empty delivery is turned back twice (agents/kinds.py), then accepted
        llm.push(*[tool_call("submit", {"summary": "nothing"})] * 3)
        result = pytester.runpytest_subprocess(
            "--e2e-agent=sdagent-single", f"--e2e-llm-base-url={llm.base_url}"
        )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        ["[[]e2ebench[]] sdagent-single calc run-1 (1/1): engineer step 1/200 · * tokens · $*"]
    )
    assert "Captured stdout" not in result.stdout.str()


# --- issue 44: no silent minute ------------------------------------------------------------

STILL = 2  # E2EBENCH_PROGRESS_SECONDS of the sessions below: a line moves at least this often
SLACK = 3.0  # seconds a loaded machine may add to it
SLOW_TEST = "import time\n\n\ndef test_takes_its_time():\n    time.sleep({seconds})\n"


def _timed_session(pytester, *args: str) -> list[tuple[float, str]]:
    """A benchmark session in a child process: each line of its output and when it came."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    lines = []
    with pytester.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        for raw in proc.stdout:
            lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
    return lines


def _longest_silence(lines: list[tuple[float, str]], run: str) -> float:
    """The longest time between two progress lines of ``run`` (from its first to its last)."""
    times = [at for at, line in lines if line.startswith(f"[e2ebench] {run}")]
    assert len(times) > 2, [line for _, line in lines]
    return max(later - earlier for earlier, later in zip(times, times[1:], strict=False))


@pytest.mark.slow
def test_every_long_step_names_itself_and_no_line_stands_still(pytester, tasks, monkeypatch):
    """A run's steps each say what they are (the decoy recording as such, not as the migration
    before it), and while one goes on its line moves at least every E2EBENCH_PROGRESS_SECONDS:
    under -n (the controller prints the workers' files) and in a plain session (the run's own
    heartbeat thread prints past output capturing). The project's own tests take 8 s."""
    from helpers.tasks import CALC_CODE, CALC_TESTS

    # tests of its own: the reference's values for them are recorded in this session
    tasks.make(tests={"test_calc.py": f"{CALC_TESTS}\n# the progress test's own task\n"})
    for name, seconds in (("outputs", 8), ("later", 7)):
        project = tasks.reference(pytester.path / name / "calc", CALC_CODE)
        tasks.write(project / "tests" / "test_slow.py", SLOW_TEST.format(seconds=seconds))
    monkeypatch.setenv(STILL_ENV, str(STILL))
    distributed = _timed_session(pytester, "--e2e-agent=dir:outputs", "--e2e-tasks=tasks", "-n1")
    text = [line for _, line in distributed]
    own = "running the project's own tests (suite 2 of 2, then its coverage) · * s*"
    pytest.LineMatcher(text).fnmatch_lines(
        [
            "[[]e2ebench[]] dir-outputs calc run-1: recording the reference's values for "
            "planted tests (step 2 of 2: * recording copies of the tests on the reference)*",
            f"[[]e2ebench[]] dir-outputs calc run-1: {own}",
        ]
    )
    recording = [line for line in text if "recording the reference's values" in line]
    assert not [line for line in recording if "adapting" in line]
    assert _longest_silence(distributed, "dir-outputs calc run-1") <= STILL + SLACK
    # a plain session: the reference's census and its values come from the first one's cache
    plain = _timed_session(pytester, "--e2e-agent=dir:later", "--e2e-tasks=tasks")
    lines = pytest.LineMatcher([line for _, line in plain])
    lines.fnmatch_lines([f"[[]e2ebench[]] dir-later calc run-1 (1/1): {own}"])
    assert _longest_silence(plain, "dir-later calc run-1") <= STILL + SLACK


def test_a_step_is_said_again_with_its_time_until_the_run_is_done(tmp_path, monkeypatch):
    monkeypatch.setenv(STILL_ENV, "1")
    shown: list[str] = []
    path = tmp_path / "progress" / "a--t--run-1.json"
    report = writer(path, shown.append)
    report({"doing": "building its environment"})
    deadline = time.monotonic() + 10
    while len(shown) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert shown[0] == "[e2ebench] a t run-1: building its environment"
    assert [re.sub(r"\d+ s$", "N s", line) for line in shown[1:3]] == [
        "[e2ebench] a t run-1: building its environment · N s"
    ] * 2
    report({"done": True})
    said = len(shown)
    time.sleep(1.2)  # more than a heartbeat's period
    assert len(shown) == said and not path.exists()
