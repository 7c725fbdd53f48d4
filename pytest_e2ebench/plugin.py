"""pytest-e2ebench's entry point: options, hooks and wiring; the work happens elsewhere.

Without ``--e2e-agent`` the plugin only keeps the benchmark tasks out of the project's own
test run. With it, pytest collects the task folders under ``--e2e-tasks`` and nothing else.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from . import options
from .stash import AGENTS, EVALUATOR, SANDBOX, SETTINGS

TASK_FILE = "task.toml"
_STARTED = "e2ebench_started"
_LOADGROUP = "e2ebench_loadgroup"


def pytest_addoption(parser: pytest.Parser) -> None:
    options.addoption(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requirement(*ids): the requirement(s) a benchmark item or reference test checks"
    )
    # pytest-xdist registers it too; repeated here so --strict-markers holds with -p no:xdist.
    config.addinivalue_line("markers", "xdist_group(name): run these items on one xdist worker")
    from . import judge, migrate
    from .agents import builtin, llm_agents
    from .llm import factory

    # Registered last is called first: the built-ins head the list of agent names.
    for module, name in (
        (judge, "e2ebench-judges"),
        (migrate, "e2ebench-migrators"),
        (factory, "e2ebench-llm"),
        (llm_agents, "e2ebench-llm-agents"),
        (builtin, "e2ebench-builtin-agents"),
    ):
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, name)
    settings = options.resolve(config)
    config.stash[SETTINGS] = settings
    if not settings.active:
        _refuse_tasks_without_agent(config, settings.tasks)
        return
    if not settings.tasks.is_dir():
        raise pytest.UsageError(
            f"--e2e-tasks={settings.tasks}: no such folder; point --e2e-tasks (or ini "
            f"e2ebench_tasks) at a folder of task folders"
        )
    from .agents import make_agents
    from .pipeline import Evaluator

    config.stash[SANDBOX] = _sandbox(config, settings)
    config.stash[AGENTS] = make_agents(config, settings.agents)
    _check_llm_stages(settings)
    workerinput = getattr(config, "workerinput", None)
    started = workerinput[_STARTED] if workerinput and _STARTED in workerinput else time.time()
    config.stash[EVALUATOR] = Evaluator(config, settings, started)
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(settings.tasks)]  # only benchmark tasks, not testpaths
    if getattr(config.option, "dist", "no") == "load":
        # Keep a run's items on one worker. xdist's loadgroup renames node ids, which pytest
        # 9.2 no longer allows; there, keep each task file on one worker instead.
        loadgroup_works = pytest.version_tuple < (9, 2)
        config.option.dist = "loadgroup" if loadgroup_works else "loadfile"
    if workerinput and workerinput.get(_LOADGROUP):
        # Workers re-parse the command line, which does not say loadgroup: tell xdist here.
        config.option.loadgroup = True
    if workerinput is None:
        from .report.terminal import Reporter

        config.pluginmanager.register(Reporter(config, settings), "e2ebench-reporter")


def _sandbox(config: pytest.Config, settings):
    from .errors import E2EBenchWarning
    from .sandbox import MODES, Sandbox, SandboxUnavailable, resolve_mode

    if settings.sandbox not in MODES:
        raise pytest.UsageError(
            f"e2ebench_sandbox={settings.sandbox}: use one of {', '.join(MODES)}"
        )
    try:
        mode, warning = resolve_mode(settings.sandbox)
    except SandboxUnavailable as exc:
        raise pytest.UsageError(str(exc)) from None
    if warning and not hasattr(config, "workerinput"):
        config.issue_config_time_warning(E2EBenchWarning(warning), stacklevel=2)
    return Sandbox(mode=mode)


def _check_llm_stages(settings) -> None:
    from .judge import MODES as JUDGES
    from .llm.factory import require_endpoint

    if settings.judge not in JUDGES:
        raise pytest.UsageError(f"--e2e-judge={settings.judge}: use one of {', '.join(JUDGES)}")
    if settings.judge != "tests":
        require_endpoint(settings, f"--e2e-judge={settings.judge}")
    if settings.migrate == "llm":
        require_endpoint(settings, "--e2e-migrate=llm")


def _refuse_tasks_without_agent(config: pytest.Config, tasks: Path) -> None:
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return
    for arg in config.args:
        path = Path(arg.split("::")[0])
        path = path if path.is_absolute() else config.invocation_params.dir / path
        if path.resolve().is_relative_to(tasks):
            raise pytest.UsageError(
                f"{arg}: benchmark tasks run only with an agent, e.g. "
                f"pytest --e2e-agent=reference {arg}"
            )


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist controller: workers share the session start (so --e2e-rerun works across them)."""
    evaluator = node.config.stash.get(EVALUATOR, None)
    if evaluator is not None:
        node.workerinput[_STARTED] = evaluator.started_at
        node.workerinput[_LOADGROUP] = node.config.option.dist == "loadgroup"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    tasks = settings.tasks
    inside = collection_path.is_relative_to(tasks)
    if not settings.active:
        return True if inside else None
    if not inside:
        # Only the tasks folder (and the folders leading to it) are collected.
        return None if tasks.is_relative_to(collection_path) else True
    if collection_path.is_dir():
        # A task's reference/, tests/ ... are never collected (nor their conftest.py imported).
        return True if (collection_path.parent / TASK_FILE).is_file() else None
    return collection_path.name != TASK_FILE


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    settings = parent.config.stash.get(SETTINGS, None)
    if (
        settings is not None
        and settings.active
        and file_path.name == TASK_FILE
        and file_path.is_relative_to(settings.tasks)
    ):
        from .collect import TaskFile

        return TaskFile.from_parent(parent, path=file_path)
    return None
