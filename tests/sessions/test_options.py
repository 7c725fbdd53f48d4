"""Options, ini twins, and misuse that must fail early with the fix."""

from __future__ import annotations


def test_help_lists_the_option_group(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*benchmark LLM agents on whole projects (pytest-e2ebench)*",
            "*--e2e-agent=NAME*",
            "*--e2e-runs=N*",
            "*--e2e-tasks=PATH*",
            "*--e2e-out=DIR*",
            "*--e2e-rerun*",
            "*--e2e-timeout=SECONDS*",
            "*e2ebench_agent*",
        ]
    )


def test_unknown_agent_lists_the_choices(pytester, tasks):
    tasks.make()
    result = pytester.runpytest("--e2e-agent=gpt-magic", "--e2e-tasks=tasks")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["ERROR: --e2e-agent=gpt-magic: unknown agent; choose one of reference, nop, dir:PATH*"]
    )


def test_dir_agent_needs_an_existing_folder(pytester, tasks):
    tasks.make()
    result = pytester.runpytest("--e2e-agent=dir:nowhere", "--e2e-tasks=tasks")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --e2e-agent=dir:nowhere: */nowhere is not a folder*"])


def test_missing_tasks_folder(pytester):
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=missing")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --e2e-tasks=*missing: no such folder*"])


def test_bad_runs_and_timeout(pytester, tasks):
    tasks.make()
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-runs=0")
    result.stderr.fnmatch_lines(["ERROR: --e2e-runs=0: must be 1 or more"])
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks", "--e2e-timeout=-1")
    result.stderr.fnmatch_lines(["ERROR: --e2e-timeout=-1: must be a positive number of seconds"])


def test_a_bad_ini_value_is_named_as_the_ini_option(pytester, tasks):
    tasks.make()
    pytester.makeini(
        "[pytest]\ne2ebench_tasks = tasks\ne2ebench_runs = 0\ne2ebench_judge = vibes\n"
    )
    result = pytester.runpytest("--e2e-agent=nop")
    result.stderr.fnmatch_lines(["ERROR: ini option e2ebench_runs=0: must be 1 or more"])
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-runs=1")
    result.stderr.fnmatch_lines(["ERROR: ini option e2ebench_judge=vibes: use one of *"])
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-runs=1", "--e2e-judge=vibes")
    result.stderr.fnmatch_lines(["ERROR: --e2e-judge=vibes: use one of *"])


def test_an_agent_named_twice_is_refused_plainly(pytester, tasks):
    tasks.make()
    result = pytester.runpytest("--e2e-agent=reference,reference", "--e2e-tasks=tasks")
    result.stderr.fnmatch_lines(
        ["ERROR: --e2e-agent: 'reference' is named twice; name each agent once (--e2e-runs=N*"]
    )


def test_duplicate_agent_labels_are_refused(pytester, tasks):
    tasks.make()
    (pytester.path / "a" / "out").mkdir(parents=True)
    (pytester.path / "b" / "out").mkdir(parents=True)
    result = pytester.runpytest("--e2e-agent=dir:a/out,dir:b/out", "--e2e-tasks=tasks")
    result.stderr.fnmatch_lines(["ERROR: --e2e-agent: 'dir:a/out' and 'dir:b/out' both map*"])


def test_ini_twins_configure_the_run(pytester, tasks):
    tasks.make()
    pytester.makeini(
        """
        [pytest]
        e2ebench_agent = nop
        e2ebench_tasks = tasks
        e2ebench_runs = 2
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "tasks/calc/task.toml::calc[[]nop-run-1-R1[]]",
            "tasks/calc/task.toml::calc[[]nop-run-2-R3[]]",
            "6 tests collected*",
        ]
    )


def test_cli_overrides_ini(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\ne2ebench_agent = nop\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--collect-only", "-q", "--e2e-agent=reference")
    result.stdout.fnmatch_lines(["tasks/calc/task.toml::calc[[]reference-run-1-R1[]]"])
