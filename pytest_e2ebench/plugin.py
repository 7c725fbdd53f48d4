"""pytest-e2ebench's entry point: options, hooks and wiring; the work happens elsewhere.

Without ``--e2e-agent`` the plugin only keeps the benchmark tasks out of the project's own
test run. With it, pytest collects the task folders under ``--e2e-tasks`` and nothing else.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from . import hookspecs, judge, methods, migrate, options
from .agents import builtin, clitools, llm_agents, make_agents
from .agents.builtin import check_missing, precheck_missing
from .collect import RequirementItem, TaskFile, implement_first
from .dist import REPLACED, RunScheduling
from .errors import E2EBenchWarning
from .isolation import mounts
from .isolation.sandbox import MODES, Sandbox, SandboxUnavailable, resolve_mode
from .llm import factory
from .llm.factory import require_endpoint
from .llm.outage import OUTAGE_FILE, Outage, probe
from .probe import compile_probe
from .report.terminal import Reporter
from .run.executor import RayExecutor
from .run.pipeline import Evaluator
from .run.runs import RunKey
from .stash import AGENTS, EVALUATOR, OUTAGE, SANDBOX, SETTINGS
from .taskmodel.task import stray_dirs

TASK_FILE = "task.toml"
_STARTED = "e2ebench_started"
_SANDBOX_MODE = "e2ebench_sandbox_mode"  # the controller's probed mode, for its workers


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """The harness's options, then the built-in methods', each added by its own plugin (a
    method plugin registered now gets ``pytest_addoption`` at once, with this parser)."""
    options.addoption(parser)
    for module, name in builtin_methods():
        if not pluginmanager.is_registered(module):
            pluginmanager.register(module, name)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requirement(*ids): the requirement(s) a benchmark item or reference test checks"
    )
    _register_builtins(config)
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

    config.stash[AGENTS] = make_agents(config, settings.agents)
    _check_llm_stages(config, settings)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        compile_probe()
        _sweep_mounts(config)
        _warn_stray_dirs(config, settings.tasks)
        if settings.missing == "stop" and config.getoption("numprocesses", None):
            precheck_missing(config, config.stash[AGENTS], settings.tasks, settings.runs)
        if not config.option.collectonly:
            # first: a dead endpoint stops the session before anything slower is set up
            _refuse_dead_endpoint(config, settings, config.stash[AGENTS])
    _hold_session(config)
    config.stash[SANDBOX] = _sandbox(config, settings)
    started = workerinput[_STARTED] if workerinput and _STARTED in workerinput else time.time()
    config.stash[EVALUATOR] = Evaluator(config, settings, started)
    if settings.executor == "ray" and workerinput is None:
        _ray_executor(config, settings)

    config.stash[OUTAGE] = Outage(settings.out / OUTAGE_FILE, started)
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(settings.tasks)]  # only benchmark tasks, not testpaths
    # One malformed task is that task's collection error, not the end of the session: the
    # other tasks run (issue 31); the error is reported and the exit status says so.
    config.option.continue_on_collection_errors = True
    if workerinput is not None:
        # Node ids stay as collected (dist.RunScheduling keeps a run together): a worker of
        # --dist loadgroup would append the group to each id.
        config.option.loadgroup = False
    if workerinput is None:
        config.pluginmanager.register(Reporter(config, settings), "e2ebench-reporter")


def _register_builtins(config: pytest.Config) -> None:
    """The harness's own plugins: the methods, the judges, migrators, LLM client and agents."""

    # Registered last is called first: the built-ins head the list of agent names. The
    # methods are built-in plugins of the same hooks (docs/architecture.md, "Where to add").
    for module, name in (
        *builtin_methods(),
        (judge, "e2ebench-judges"),
        (migrate, "e2ebench-migrators"),
        (factory, "e2ebench-llm"),
        (llm_agents, "e2ebench-llm-agents"),
        (clitools, "e2ebench-cli-agents"),
        (builtin, "e2ebench-builtin-agents"),
    ):
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, name)


def builtin_methods() -> tuple[tuple[object, str], ...]:
    """The methods, as (plugin module, plugin name) pairs: the built-in ones (DevEval's stages,
    ProjectEval, RealDevWorld's apps) and those installed in the ``pytest_e2ebench.methods``
    entry-point group, all through :func:`pytest_e2ebench.methods.registered`."""

    return tuple(
        (methods.plugin_module(module), methods.PLUGIN_PREFIX + name)
        for name, module in methods.registered()
    )


def builtin_report_sections() -> list:
    """The methods' report sections (built-in and installed), for ``e2ebench report`` and
    ``compare`` (no pytest session) and for the schema they are validated against."""
    return methods.report_sections()


def _sandbox(config: pytest.Config, settings):

    if settings.sandbox not in MODES:
        raise pytest.UsageError(
            f"{options.source(config, 'sandbox')}={settings.sandbox}: use one of {', '.join(MODES)}"
        )
    workerinput = getattr(config, "workerinput", None) or {}
    if _SANDBOX_MODE in workerinput:  # resolved by the controller (its warning shown there)
        return Sandbox(mode=workerinput[_SANDBOX_MODE])
    try:
        mode, warning = resolve_mode(settings.sandbox)
    except SandboxUnavailable as exc:
        raise pytest.UsageError(str(exc)) from None
    if warning and not hasattr(config, "workerinput"):
        config.issue_config_time_warning(E2EBenchWarning(warning), stacklevel=2)
    return Sandbox(mode=mode)


def _ray_executor(config: pytest.Config, settings) -> None:
    """--e2e-executor=ray: the session drives a Ray cluster (executor.py, docs/scaling.md)."""
    if config.getoption("numprocesses", None):
        raise pytest.UsageError(
            f"{options.source(config, 'executor')}=ray runs the runs on the Ray cluster: drop "
            "-n (xdist workers would each submit them), or use --e2e-executor=local with -n"
        )

    config.stash[EVALUATOR].executor = RayExecutor(config, settings)


def pytest_collection_finish(session: pytest.Session) -> None:
    """--e2e-executor=ray: the selected items' runs are submitted at once, in their order."""
    evaluator = session.config.stash.get(EVALUATOR, None)
    if evaluator is not None and evaluator.executor is not None:
        if not session.config.option.collectonly:
            evaluator.executor.submit(session.items)


def pytest_unconfigure(config: pytest.Config) -> None:
    """--e2e-executor=ray: cancel what is outstanding (Ctrl-C) and stop the session's cluster."""
    evaluator = config.stash.get(EVALUATOR, None)
    if evaluator is not None and evaluator.executor is not None:
        evaluator.executor.close()


def _check_llm_stages(config: pytest.Config, settings) -> None:

    for name, hook in (
        ("judge", config.hook.pytest_e2ebench_judge_modes),
        ("migrate", config.hook.pytest_e2ebench_migrate_modes),
    ):
        # the built-ins' modes and those plugins announce (docs/plugins.md)
        modes = list(dict.fromkeys(m for found in hook(config=config) for m in found))
        if getattr(settings, name) not in modes:
            raise pytest.UsageError(
                f"{options.source(config, name)}={getattr(settings, name)}: use one of "
                f"{', '.join(modes)}"
            )
    if settings.judge in ("llm", "both"):
        require_endpoint(settings, f"--e2e-judge={settings.judge}")
    if settings.migrate == "llm":
        require_endpoint(settings, "--e2e-migrate=llm")


def _warn_stray_dirs(config: pytest.Config, tasks: Path) -> None:
    """A folder under --e2e-tasks without task.toml is said, not skipped silently."""

    for path in stray_dirs(tasks):
        config.issue_config_time_warning(
            E2EBenchWarning(
                f"{path}: no {TASK_FILE}, so it is not a benchmark task and is skipped; add "
                f"{TASK_FILE} (see docs/writing-a-task.md) or move the folder out of --e2e-tasks"
            ),
            stacklevel=2,
        )


def _refuse_dead_endpoint(config: pytest.Config, settings, agents) -> None:
    """Ask the endpoint once, before any run, when the session will call it (issue 12.2).

    Only for the built-in client: a plugin's client (``pytest_e2ebench_make_llm``) may not
    talk to ``--e2e-llm-base-url`` at all.
    """

    clients = config.hook.pytest_e2ebench_make_llm.get_hookimpls()
    live = settings.base_url and settings.llm_cache != "replay"
    live = live and all(impl.plugin is factory for impl in clients)
    needed = (
        any(agent.uses_llm for agent in agents)
        or settings.judge in ("llm", "both")
        or settings.migrate == "llm"
    )
    if not (live and needed):
        return
    import os

    reason = probe(settings.base_url, os.environ.get("OPENAI_API_KEY"))
    if reason is not None:
        raise pytest.UsageError(
            f"the LLM endpoint cannot be used, nothing was run: {reason}; start it or point "
            "--e2e-llm-base-url (or $OPENAI_BASE_URL) at one that answers"
        )


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
        # and the sandbox mode the controller probed on this machine: no probe per worker
        node.workerinput[_SANDBOX_MODE] = node.config.stash[SANDBOX].mode


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With benchmark tasks, ``--dist load`` keeps each run's items together on one worker."""
    settings = config.stash.get(SETTINGS, None)
    if settings is None or not settings.active:
        return None

    return RunScheduling(config, log) if config.getvalue("dist") in REPLACED else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``-m TAG``: the runs' metrics are over the requirements selected (issue 12.8); every
    implement item runs before any other stage's (issue 26: no stage reveals a reference
    while an implement stage of the session is still to run; see ``settle_implements``);
    ``--e2e-missing``: a ``dir:`` agent's selected tasks without output (issue 31)."""
    evaluator = config.stash.get(EVALUATOR, None)
    if evaluator is None:
        return

    if not config.option.collectonly:
        lines = check_missing(config, items, config.stash[SETTINGS].missing)
        runs = {(i.task.id, i.agent.label, i.run) for i in items if hasattr(i, "agent")}
        evaluator.session_runs = runs
        tr = config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None and not hasattr(config, "workerinput"):
            for line in lines:
                tr.write_line(line, yellow=True)

    if config.option.markexpr:
        evaluator.select(item for item in items if isinstance(item, RequirementItem))
    items[:] = implement_first(items)
    runs = {
        RunKey.of(i.task, i.agent, i.run): (i.task, i.agent, i.run)
        for i in items
        if isinstance(i, RequirementItem)
    }
    evaluator.implement_runs = {}
    for key, run in runs.items():
        evaluator.implement_runs.setdefault(key.task, []).append(run)


def _sweep_mounts(config: pytest.Config) -> None:
    """The sandboxes' mounts (only root mounts them) and the temporary folders a killed
    session left on the host."""
    swept = mounts.sweep()
    if swept:
        config.issue_config_time_warning(
            E2EBenchWarning(
                f"removed {len(swept)} sandbox mount(s) and temporary folder(s) a session that "
                f"was killed left behind "
                f"({', '.join(swept[:3])}{' ...' if len(swept) > 3 else ''})"
            ),
            stacklevel=2,
        )


def _hold_session(config: pytest.Config) -> None:
    """Nothing of the session outlives it (issue 40): this process's temporary folders are made
    in one folder of its own (the next session sweeps it after a SIGKILL), and SIGTERM ends the
    session as Ctrl-C does. pytest leaves SIGTERM to its default action: the process ended at
    once, and every running sandbox's mounts and folders, and an xdist controller's workers
    with their sandboxes, were left behind."""
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminated)
        config.add_cleanup(lambda: signal.signal(signal.SIGTERM, previous))
    where, before = mounts.hold_session()
    config.add_cleanup(lambda: mounts.leave_session(where, before))  # first: SIGTERM still handled


def _terminated(signum, frame) -> None:
    """SIGTERM: unwind as a KeyboardInterrupt (every sandbox's cleanup runs, the runs never
    run are named in results.json); another SIGTERM does not cut the unwinding short."""
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    raise KeyboardInterrupt


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
        return TaskFile.from_parent(parent, path=file_path)
    return None
