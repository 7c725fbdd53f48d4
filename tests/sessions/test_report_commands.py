"""Each session's own results.json; ``e2ebench report`` (merging sessions) and ``compare``."""

from __future__ import annotations

import json

import pytest

from pytest_e2ebench.cli import main
from pytest_e2ebench.grading.metrics import METRIC_KEYS
from pytest_e2ebench.grading.stats import sign_test
from pytest_e2ebench.report.results import build, write


def test_each_session_writes_its_own_runs_and_report_merges_sessions(pytester, tasks, results):
    """results.json is the session's runs, whatever the selection (issue 31); every session's
    file stays under sessions/, and `e2ebench report` merges them."""
    tasks.make()
    args = ("--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-runs=2")
    pytester.runpytest(*args).assert_outcomes(passed=6)
    first = results()
    assert first["refreshed"] == ["reference/calc/run-1", "reference/calc/run-2"]
    result = pytester.runpytest(*args, "-k", "run-2 and R1")
    result.assert_outcomes(passed=1, deselected=5)
    doc = results()
    assert [(r["agent"], r["run"]) for r in doc["tasks"]] == [("reference", 2)]
    assert doc["summary"]["reference"]["runs"] == 1
    sessions = sorted((pytester.path / ".e2ebench" / "sessions").glob("*.json"))
    assert len(sessions) == 2 and json.loads(sessions[-1].read_text()) == doc
    merged = pytester.path / "merged.json"
    assert main(["report", *map(str, sessions), "--json", str(merged)]) == 0
    merged_doc = json.loads(merged.read_text())
    assert [(r["agent"], r["run"]) for r in merged_doc["tasks"]] == [
        ("reference", 1),
        ("reference", 2),
    ]
    # under -n too
    result = pytester.runpytest_subprocess(*args, "-n", "2", "-k", "run-1")
    result.assert_outcomes(passed=3)
    assert [r["run"] for r in results()["tasks"]] == [1]


def test_full_session_replaces_the_file(pytester, tasks, results):
    tasks.make()
    pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks")
    pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    assert [r["agent"] for r in results()["tasks"]] == ["reference"]


def _record(agent, task, run, verdicts):
    metrics = dict.fromkeys(METRIC_KEYS)
    metrics["impl_rate"] = sum(verdicts) / len(verdicts)
    # a run's record as results.json holds it (report and compare validate what they read)
    return {
        "task": task,
        "agent": agent,
        "agent_spec": agent,
        "run": run,
        "status": "ok",
        "metrics": metrics,
        "suites": {"original": None, "extended": None, "all": None},
        "notes": [],
        "dir": f"/out/{agent}/{task}/run-{run}",
        "task_meta": {"title": task, "kind": "library", "created": "2026-01-02", "source": ""},
        "requirements": [
            {"id": f"R{i}", "verdict": "implemented" if ok else "not_implemented"}
            for i, ok in enumerate(verdicts, 1)
        ],
    }


def _write(path, records):
    write(path, build(records))
    return str(path)


def test_compare_prints_deltas_ci_and_sign_test(tmp_path, capsys):
    a = _write(
        tmp_path / "a.json",
        [
            _record("old", "t1", 1, [True, False, False, False]),
            _record("old", "t2", 1, [True, True]),
            _record("old", "t3", 1, [False, False]),
        ],
    )
    b = _write(
        tmp_path / "b.json",
        [
            _record("new", "t1", 1, [True, True, True, True]),
            _record("new", "t2", 1, [True, False]),
            _record("new", "t3", 1, [True, True]),
            _record("new", "t4", 1, [True]),
        ],
    )
    assert main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    assert "t1      25.0%   100.0%    +75.0" in out
    assert "t2     100.0%    50.0%    -50.0" in out
    assert "mean delta over 3 tasks: +41.7 points; paired bootstrap 95% CI [" in out
    # requirements: new better on t1 R2-R4 and t3 R1-R2 (5), old better on t2 R2 (1)
    assert f"B better on 5, A better on 1, 2 ties of 8; sign test p = {sign_test(5, 1):.4g}" in out
    assert "only in B (not compared): t4" in out


def test_compare_needs_an_agent_when_a_file_has_several(tmp_path, capsys):
    both = _write(tmp_path / "r.json", [_record("x", "t", 1, [True]), _record("y", "t", 1, [0])])
    with pytest.raises(SystemExit) as exc:
        main(["compare", both, both])
    assert exc.value.code == 2
    assert "r.json: holds agents x, y; choose one with --agent-a" in capsys.readouterr().err
    assert main(["compare", both, both, "--agent-a", "x", "--agent-b", "y"]) == 0
    assert "A better on 1" in capsys.readouterr().out


def test_report_merges_files_and_writes_html(tmp_path, capsys):
    one = _write(tmp_path / "1.json", [_record("x", "t", 1, [True, False])])
    two = _write(tmp_path / "2.json", [_record("y", "t", 1, [True, True])])
    html, merged = tmp_path / "r.html", tmp_path / "all.json"
    assert main(["report", one, two, "--html", str(html), "--json", str(merged)]) == 0
    out = capsys.readouterr().out
    assert "overall  x" in out and "overall  y" in out
    doc = json.loads(merged.read_text())
    assert sorted(doc["summary"]) == ["x", "y"]
    assert doc["summary"]["x"]["impl_rate"]["mean"] == 0.5
    assert 'data-agent="y"' in html.read_text()


def test_report_names_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "other/1", "tasks": []}')
    with pytest.raises(SystemExit):
        main(["report", str(bad)])
    err = capsys.readouterr().err
    assert f"{bad}: schema is 'other/1', not 'e2ebench-results/1'" in err


def test_report_and_compare_validate_what_they_read_against_the_schema(tmp_path, capsys):
    """Issue 41: a file that is results.json in shape but not by its schema (a rate above 1, a
    top-level key no method installed here adds) is refused, naming the file and each value."""
    good = _write(tmp_path / "good.json", [_record("x", "t", 1, [True])])
    document = json.loads((tmp_path / "good.json").read_text())
    document["tasks"][0]["metrics"]["impl_rate"] = 1.5
    document["rubric"] = {"agents": {}}  # a method's section, its plugin not installed here
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    for argv in (["report", str(bad)], ["compare", good, str(bad), "--agent-b", "x"]):
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert f"{bad}: does not match the results.json schema" in err
        assert "tasks/0/metrics/impl_rate: 1.5 is greater than the maximum of 1" in err
        assert "(document): Additional properties are not allowed ('rubric' was unexpected)" in err
    assert main(["report", good]) == 0
