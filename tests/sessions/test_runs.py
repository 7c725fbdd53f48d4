"""One run's identity and context (issue #13.3; docs/plugins.md, "The run context")."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path, PurePath

import pytest

from pytest_e2ebench.run.runs import RunContext, RunKey, folder_key, run_folder

OUT = Path("/srv/bench/.e2ebench")

KEYS = [
    RunKey("calc", "reference", 1),
    RunKey("semver.kit-2", "sdagent-dt", 3),
    RunKey("zähler-ü", "cmd-my_agent.v2+x", 12),
    RunKey("level-2", "run-1", 1),  # parts that look like layout words are still names
    RunKey("pe-task", "vanilla", 2, part="level-3"),
    RunKey("stage-x", "dir-out", 1, stage="design"),
    RunKey("dev.eval", "vanilla", 4, part="level-1", stage="unit-tests"),
    RunKey("pe-task", "vanilla", 2, part="level-1-cascade"),
    RunKey("level-1-cascade", "cmd-x", 1, part="level-2-cascade"),
]


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.name)
def test_a_key_survives_json_pickle_and_its_folder(key):
    assert RunKey.from_dict(json.loads(json.dumps(key.to_dict()))) == key
    assert pickle.loads(pickle.dumps(key)) == key
    assert folder_key(OUT, run_folder(OUT, key)) == key
    assert hash(key) == hash(RunKey.from_dict(key.to_dict()))


def test_the_folder_layout_is_the_one_of_earlier_versions():
    """Resume and caching of existing out folders depend on these exact paths."""
    assert run_folder(OUT, RunKey("calc", "reference", 1)) == OUT / "reference/calc/run-1"
    assert run_folder(OUT, RunKey("t", "a", 2, part="level-3")) == OUT / "a/t/level-3/run-2"
    assert run_folder(OUT, RunKey("t", "a", 2, stage="setup")) == OUT / "a/t/run-2/stage-setup"
    cascade = RunKey("t", "a", 2, part="level-1-cascade")  # ProjectEval's cascade (#17)
    assert run_folder(OUT, cascade) == OUT / "a/t/level-1-cascade/run-2"
    key = RunKey("calc", "sdagent-dt", 2)
    assert (key.name, key.scope, key.slug) == (
        "sdagent-dt/calc/run-2",
        "sdagent-dt/calc/run-2",
        "sdagent-dt--calc--run-2",
    )
    # the LLM cache's tapes are named by the whole run, agent included: two agents with a role
    # of the same name (sdagent-dt's and sdagent-ddt's developer) never share one
    assert RunKey("t", "a", 2, part="level-3").scope == "a/t/level-3/run-2"
    assert RunKey("t", "a", 2, stage="design").scope == "a/t/run-2/stage-design"
    assert RunKey("t", "b", 2, part="level-3").scope != RunKey("t", "a", 2, part="level-3").scope


def test_of_record_names_runs_as_results_json_does():
    record = {"task": "t", "agent": "a", "run": 1, "level": 2, "status": "ok"}
    # the part of a record is its method's (ProjectEval's RunPart reads level and mode)
    assert RunKey.of_record(record) == RunKey("t", "a", 1, part="level-2")
    assert RunKey.of_record({**record, "stage": "design"}).stage == "design"
    cascade = RunKey.of_record({**record, "projecteval_mode": "cascade"})
    assert cascade == RunKey("t", "a", 1, part="level-2-cascade")
    assert RunKey.of_record({"task": "t", "agent": "a", "run": 1}).part is None
    with pytest.raises(ValueError, match="part 'run-2' cannot start with 'run-' or 'stage-'"):
        RunKey("t", "a", 1, part="run-2")


@pytest.mark.parametrize(
    "folder, why",
    [
        ("reference/calc", "do not match the layout"),
        ("reference/calc/run-0", "do not match the layout"),
        ("reference/calc/run-01", "do not match the layout"),
        ("reference/calc/run-x", "do not match the layout"),
        ("reference/calc/run-1/repo", "do not match the layout"),
        ("reference/calc/run-1/run-2", "part 'run-1' cannot start with"),
        ("reference/calc/a/b/run-1", "do not match the layout"),
        ("reference/calc/run-1/stage-deploy", "stage must be one of design, setup"),
        ("reference/calc/run-1/stage-implement", "is not a run folder;"),
        ("progress", "do not match the layout"),
        (".shared/web-venv-0123/run-1/x/y", "do not match the layout"),
    ],
)
def test_a_folder_that_is_not_a_run_is_refused_clearly(folder, why):
    with pytest.raises(ValueError, match="is not a run folder") as info:
        folder_key(OUT, OUT / folder)
    message = str(info.value)
    assert why in message and str(OUT / folder) in message
    assert "<out>/<agent>/<task>[/<part>]/run-<n>[/stage-<stage>]" in message


def test_a_folder_outside_the_out_folder_is_refused():
    with pytest.raises(ValueError, match=r"/elsewhere/a/t/run-1 is not a run folder: it is not"):
        folder_key(OUT, PurePath("/elsewhere/a/t/run-1"))


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"task": "", "agent": "a", "run": 1}, "task must be a non-empty string"),
        ({"task": "a/b", "agent": "a", "run": 1}, "cannot be a folder name"),
        ({"task": "t", "agent": "..", "run": 1}, "cannot be a folder name"),
        ({"task": "t", "agent": "a", "run": 0}, "run must be a positive integer"),
        ({"task": "t", "agent": "a", "run": True}, "run must be a positive integer"),
        ({"task": "t", "agent": "a", "run": "1"}, "run must be a positive integer"),
        ({"task": "t", "agent": "a", "run": 1, "part": "a/b"}, "part 'a/b' cannot be a folder"),
        ({"task": "t", "agent": "a", "run": 1, "level": 2}, "unknown level"),
        ({"task": "t", "agent": "a", "run": 1, "stage": "deploy"}, "stage must be one of"),
        ({"task": "t", "agent": "a"}, "missing run"),
        ({"task": "t", "agent": "a", "run": 1, "seed": 3}, "unknown seed"),
    ],
)
def test_from_dict_refuses_what_is_not_a_key(fields, message):
    with pytest.raises(ValueError, match=message):
        RunKey.from_dict(fields)


def test_a_context_made_by_hand_derives_its_key_from_its_folder(pytestconfig):
    """Earlier versions built RunContext(config, settings, run_dir): it still works."""

    class Settings:
        out = OUT

    ctx = RunContext(pytestconfig, Settings(), OUT / "a" / "t" / "run-2")
    assert ctx.key == RunKey("t", "a", 2) and ctx.scope == "a/t/run-2"
    with pytest.raises(ValueError, match="is not a run folder"):
        RunContext(pytestconfig, Settings(), OUT / "a" / "t")


CTX_PLUGIN = '''
"""A third-party plugin that reads the run context in every hook that is about a run."""
import json
import os
import os

from pytest_e2ebench.run.runs import RunContext, folder_key


def _note(hook, ctx, **more):
    assert isinstance(ctx, RunContext)
    with open(os.environ["CTX_SEEN"], "a") as fh:
        entry = {
            "hook": hook,
            "key": ctx.key.to_dict(),
            "name": ctx.key.name,
            "scope": ctx.scope,
            "task": ctx.task.id,
            "agent": ctx.agent.label,
            "dir": str(ctx.run_dir),
            "from_dir": folder_key(ctx.out, ctx.run_dir).to_dict(),
            **more,
        }
        fh.write(json.dumps(entry) + "\\n")


def pytest_e2ebench_migrate_tests(config, task, repo, out, mode, ctx):
    _note("migrate", ctx)


def pytest_e2ebench_judge_requirements(config, task, repo, tests, mode, run_dir, ctx):
    _note("judge", ctx, run_dir=str(run_dir))


def pytest_e2ebench_run_finished(config, record, run_record, ctx):
    _note("finished", ctx, record_is_ctx_record=ctx.record is record, record_dir=record["dir"])
'''


def test_a_plugin_hook_receives_the_run_context_and_reads_the_key(
    pytester, tasks, results, monkeypatch
):
    tasks.make()
    pytester.makepyfile(e2e_ctxplugin=CTX_PLUGIN)
    # the plugin's folder, then the harness's copy under test (a worktree's, when set)
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), *inherited]))
    seen = pytester.path / "seen.jsonl"
    monkeypatch.setenv("CTX_SEEN", str(seen))
    result = pytester.runpytest_subprocess(
        "-p", "e2e_ctxplugin", "--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-runs=2"
    )
    result.assert_outcomes(passed=6)
    entries = [json.loads(line) for line in seen.read_text().splitlines()]
    assert sorted((e["hook"], e["key"]["run"]) for e in entries) == [
        ("finished", 1),
        ("finished", 2),
        ("judge", 1),
        ("judge", 2),
        ("migrate", 1),
        ("migrate", 2),
    ]
    document = results()
    dirs = {r["run"]: r["dir"] for r in document["tasks"]}
    for entry in entries:
        run = entry["key"]["run"]
        assert entry["key"] == {
            "task": "calc",
            "agent": "reference",
            "run": run,
            "part": None,
            "stage": "implement",
        }
        assert entry["key"] == entry["from_dir"]  # the folder and the key agree
        assert (entry["task"], entry["agent"], entry["dir"]) == ("calc", "reference", dirs[run])
        assert entry["name"] == entry["scope"] == f"reference/calc/run-{run}"
        assert entry["name"] in document["refreshed"]
    finished = [e for e in entries if e["hook"] == "finished"]
    assert all(e["record_is_ctx_record"] and e["record_dir"] == e["dir"] for e in finished)
    judged = [e for e in entries if e["hook"] == "judge"]
    assert all(e["run_dir"] == e["dir"] for e in judged)


def test_an_agent_whose_label_is_no_folder_name_is_refused_at_start(pytester, tasks):
    tasks.make()
    pytester.makeconftest(
        """
        from pytest_e2ebench.agents import Agent

        class Nested(Agent):
            spec, label = "nested", "team/agent"

            def cache_key(self, task, run):
                return ""

            def generate(self, task, run, workspace, ctx):
                raise AssertionError("never run")

        def pytest_e2ebench_make_agent(spec, config):
            return Nested() if spec == "nested" else None
        """
    )
    result = pytester.runpytest_subprocess("--e2e-agent=nested", "--e2e-tasks=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--e2e-agent=nested: the agent's label 'team/agent' cannot be a folder name*safe_label*"]
    )


def test_progress_names_a_run_by_its_key(tmp_path):
    from pytest_e2ebench.run.progress import Monitor, progress_file, writer

    out = tmp_path / "out"
    keys = [RunKey("calc", "sdagent-dt", 2), RunKey("pe", "vanilla", 1, part="level-3")]
    keys.append(RunKey("dev", "vanilla", 1, stage="design"))
    for key in keys:
        path = progress_file(out, key)
        assert path == progress_file(out, run_folder(out, key))  # the folder names it too
        writer(path, key=key)({"step": 1})
    assert sorted(p.name for p in (out / "progress").iterdir()) == [
        "sdagent-dt--calc--run-2.json",  # as earlier versions named it
        "vanilla--dev--run-1--stage-design.json",
        "vanilla--pe--level-3--run-1.json",
    ]
    assert sorted(Monitor(out / "progress", print).poll()) == [
        "[e2ebench] sdagent-dt calc run-2: step 1",
        "[e2ebench] vanilla dev run-1 stage-design: step 1",
        "[e2ebench] vanilla pe level-3 run-1: step 1",
    ]


def test_run_folders_finds_the_runs_of_an_out_folder(tmp_path):
    from pytest_e2ebench.run.runs import run_folders

    out = tmp_path / "out"
    keys = [
        RunKey("calc", "reference", 1),
        RunKey("calc", "reference", 2, stage="design"),
        RunKey("pe", "reference", 1, part="level-2"),
        RunKey("calc", "vanilla", 1),
    ]
    for key in keys:
        run_folder(out, key).mkdir(parents=True)
    for stray in ("progress/x", "reference/calc/run-1/repo", ".shared/web-venv-1", "llm-cache/a"):
        (out / stray).mkdir(parents=True, exist_ok=True)
    found = run_folders(out, "reference")
    assert sorted(k.name for k, _ in found) == sorted(
        [k.name for k in keys if k.agent == "reference"] + ["reference/calc/run-2"]
    )
    assert all(run_folder(out, key) == folder for key, folder in found)
    assert len(run_folders(out)) == 5
