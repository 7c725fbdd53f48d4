"""Live progress: files written by runs, lines printed by the controller."""

from __future__ import annotations

import time

from pytest_e2ebench.run.progress import Monitor, describe, progress_file, writer


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
    from test_llm_agents import ini

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
