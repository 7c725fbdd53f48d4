"""``--e2e-executor=ray``: every (task, agent, run) pipeline is a Ray task (issue 18).

The pytest session is the driver. When collection is done it submits one Ray task per run the
selected items need, declaring what the run takes (``e2ebench_ray_cpus`` CPUs, the sandbox's
memory limit, and one ``browser`` for a web or app task); each item's setup waits on its run's
future. The task rebuilds the session's configuration in its worker process (the same
arguments from the same folder, as an xdist worker does) and runs the unchanged pipeline of
:class:`~pytest_e2ebench.run.pipeline.Evaluator`, so stage outputs land in the same ``--e2e-out``
layout (a path every node must see: a shared filesystem) and cache, resume and reports work as
with the local executor. The sandbox runs inside the worker process as it runs inside the
pytest process, with the same containment.

Failures keep their meaning: a run's failure (the agent's, or an infrastructure error inside
the pipeline) comes back as data and is never retried; a lost worker or node is retried by Ray
(``e2ebench_ray_retries`` times), then the run is an infrastructure error. Ending the session
(or Ctrl-C) cancels what is outstanding, and a cluster started for the session is stopped.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from ..errors import InfrastructureError, RunFailed
from ..isolation.limits import Limits
from ..stash import AGENTS, EVALUATOR, SETTINGS
from ..taskmodel.task import at_level, load_task
from .evaluation import evaluation_for
from .runs import RunKey
from .settings import IMPLEMENT

INSTALL_HINT = "pip install 'pytest-e2ebench[ray]'"
BROWSER = "browser"  # the custom resource a web or app run reserves: a node runs that many
# What a run needs from the driver's environment on another machine: the endpoint and its key.
FORWARDED_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
CANCEL_GRACE_S = 5.0  # a cancelled run's cleanup (its sandbox, cgroups) before it is killed
LOCAL_OBJECT_STORE = 128 << 20  # records are small: the local cluster needs little shared memory
_STARTED = "e2ebench_started"  # plugin._STARTED: the session start a worker shares


def import_ray():
    """The ``ray`` module, or a usage error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise pytest.UsageError(
            f"--e2e-executor=ray needs Ray, which is not installed here: {INSTALL_HINT} "
            "(or pip install ray); or use --e2e-executor=local"
        ) from None
    return ray


class RemoteInfrastructureError(InfrastructureError):
    """An infrastructure error a run's Ray task reported (message and traceback file kept)."""

    def __init__(self, wire: dict) -> None:
        super().__init__(wire["stage"], "")
        self.args = (wire["message"],)
        self.exc_type = wire["type"]
        self.traceback_file = wire["traceback"]


class RemoteRunFailed(RunFailed):
    """A harness error a run's Ray task reported (message and traceback file kept)."""

    def __init__(self, wire: dict) -> None:
        Exception.__init__(self, wire["message"])
        self.stage = wire["stage"]
        self.exc_type = wire["type"]
        self.traceback_file = wire["traceback"]


def to_wire(result: dict | InfrastructureError | RunFailed) -> dict:
    """A run's outcome as JSON-able data: ``{"record": …}`` or ``{"error": …}``."""
    if isinstance(result, dict):
        return {"record": result}
    return {
        "error": {
            "kind": "harness" if isinstance(result, RunFailed) else "infrastructure",
            "stage": getattr(result, "stage", "harness"),
            "type": getattr(result, "exc_type", type(result).__name__),
            "message": str(result),
            "traceback": getattr(result, "traceback_file", None),
        }
    }


def from_wire(wire: dict) -> dict | InfrastructureError | RunFailed:
    """The inverse of :func:`to_wire`."""
    if "record" in wire:
        return wire["record"]
    error = wire["error"]
    if error["kind"] == "harness":
        return RemoteRunFailed(error)
    return RemoteInfrastructureError(error)


# A Ray worker process serves one session's runs: (session token, its configuration).
_worker_session: tuple[str, pytest.Config] | None = None


def _worker_config(session: dict) -> pytest.Config:
    """The session's configuration, rebuilt once in this worker process from its arguments."""
    global _worker_session
    if _worker_session is not None and _worker_session[0] == session["token"]:
        return _worker_session[1]
    if _worker_session is not None:
        _worker_session[1]._ensure_unconfigure()
        _worker_session = None
    from _pytest.config import _prepareconfig

    os.chdir(session["dir"])
    os.environ.update(session["env"])
    # As an xdist worker: the plugin sees workerinput, so it neither reports nor submits.
    # This process imported the plugin to unpickle the task, so pytest cannot rewrite its
    # asserts and warns; a project ini with filterwarnings=error (this repository's) made that
    # warning fail every run (issue 31). The worker runs no test: the warning is moot here.
    args = [*session["args"], "--capture=no", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    config = _prepareconfig(args, plugins=None)
    config.workerinput = {"workerid": f"ray-{os.getpid()}", _STARTED: session["started"]}
    config.workeroutput = {}
    config._do_configure()
    config.stash[EVALUATOR].announce = False
    _worker_session = (session["token"], config)
    return config


def run_pipeline(session: dict, task_root: str, run_key: dict, stages: list[str], selected) -> dict:
    """The Ray task of one run (``run_key``: a RunKey's ``to_dict``): each stage's outcome as
    :func:`to_wire` data.

    Never raises for a run's own failure: Ray retries only what it sees as a lost worker.
    """

    config = _worker_config(session)
    evaluator = config.stash[EVALUATOR]
    run = RunKey.from_dict(run_key)
    # as collected: at the session's ProjectEval level and mode (#17), which the key repeats
    task = at_level(load_task(Path(task_root)), config.stash[SETTINGS])
    agent = next(a for a in config.stash[AGENTS] if a.label == run.agent)
    if selected is not None:
        evaluator.selected = {run: set(selected)}
    if not evaluator.implement_runs:
        for root, raw in session.get("implements", ()):
            other = RunKey.from_dict(raw)
            runs = evaluator.implement_runs.setdefault(other.task, [])
            by_label = next(a for a in config.stash[AGENTS] if a.label == other.agent)
            runs.append(
                (at_level(load_task(Path(root)), config.stash[SETTINGS]), by_label, other.run)
            )
    outcomes = {}
    for stage in stages:
        key = run.for_stage(stage)
        # e2e stage mode: an earlier stage may have been evaluated for this one already
        if key not in evaluator._done:
            evaluator._done[key] = evaluator.outcome(task, agent, run.run, stage)
        outcomes[stage] = to_wire(evaluator._done[key])
    return outcomes


class RayExecutor:
    """The driver's side: submits the runs, hands each item its run's outcome, cancels."""

    def __init__(self, config: pytest.Config, settings) -> None:
        self.config = config
        self.settings = settings
        self.ray = import_ray()
        self._refs: dict[RunKey, object] = {}
        self._outcomes: dict[RunKey, dict] = {}
        self._remote = None
        self._unavailable: str | None = None  # why the cluster could not be had

    def _connect(self) -> None:
        ray = self.ray
        if ray.is_initialized():
            return
        common = {"log_to_driver": False, "include_dashboard": False}
        if self.settings.ray_address:
            ray.init(address=self.settings.ray_address, **common)
        else:
            local = {"resources": {BROWSER: self.settings.ray_browsers}}
            local["object_store_memory"] = LOCAL_OBJECT_STORE
            try:
                ray.init(**local, **common)
            except Exception:  # noqa: BLE001 - Ray gives its raylet 30 s: a loaded machine
                ray.shutdown()  # what the first try started
                ray.init(**local, **common)
        self._remote = ray.remote(run_pipeline)

    def session(self) -> dict:
        """What a worker needs to rebuild this session: arguments, folder, start, environment."""
        evaluator = self.config.stash[EVALUATOR]
        params = self.config.invocation_params
        return {
            "token": f"{socket.gethostname()}-{os.getpid()}-{evaluator.started_at}",
            "args": list(params.args),
            "dir": str(params.dir),
            "started": evaluator.started_at,
            "env": {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ},
            # issue 26: a worker settles these before a stage reveals their task's reference
            "implements": [
                [str(task.root), RunKey.of(task, agent, run).to_dict()]
                for runs in evaluator.implement_runs.values()
                for task, agent, run in runs
            ],
        }

    def submit(self, items) -> None:
        """One Ray task per run the items need, in the items' order, with its resources."""
        runs: dict[RunKey, tuple] = {}
        for item in items:
            if not hasattr(item, "task") or not hasattr(item, "run"):
                continue
            key = RunKey.of(item.task, item.agent, item.run)
            stage = getattr(item, "stage", IMPLEMENT)
            task, stages = runs.setdefault(key, (item.task, set()))[:2]
            stages.add(stage)
        if not runs:
            return
        try:
            self._connect()
        except Exception as exc:  # noqa: BLE001 - Ray raises several kinds; each run says it
            where = self.settings.ray_address or "a local cluster"
            self._unavailable = f"could not start or join the Ray cluster ({where}): {exc}"
            return
        evaluator = self.config.stash[EVALUATOR]
        session = self.session()
        browsers = self.ray.cluster_resources().get(BROWSER, 0)
        for key, (task, stages) in runs.items():
            ordered = [s for s in self.settings.stages if s in stages]
            selected = evaluator.selected.get(key) if evaluator.selected is not None else None
            web = evaluation_for(task).uses_browser
            if web and browsers < 1:
                continue  # outcome() says how to offer the resource
            options = {
                "num_cpus": self.settings.ray_cpus,
                # the sandbox's cap on all of a run's processes (limits.Limits.memory)
                "memory": Limits().memory,
                "resources": {BROWSER: 1} if web else {},
                "max_retries": self.settings.ray_retries,
                "retry_exceptions": False,  # a run's own failure is data, never retried
            }
            self._refs[key] = self._remote.options(**options).remote(
                session,
                str(task.root),
                key.to_dict(),
                ordered,
                sorted(selected) if selected is not None else None,
            )

    def outcome(self, task, agent, run: int, stage: str) -> dict | InfrastructureError | RunFailed:
        """Wait for the run's Ray task: the stage's record or settled failure.

        Raises InfrastructureError when the task was lost (beyond its retries) or could not run.
        """
        key = RunKey.of(task, agent, run)
        if self._unavailable is not None:
            raise InfrastructureError("executor", self._unavailable)
        if key not in self._outcomes:
            ref = self._refs.get(key)
            if ref is None:
                if evaluation_for(task).uses_browser:
                    raise InfrastructureError(
                        "executor",
                        f"no node of the Ray cluster offers the {BROWSER!r} resource a web or "
                        f"app run needs; start its nodes with ray start --resources="
                        f"'{{\"{BROWSER}\": 1}}' (or set ini e2ebench_ray_browsers for the "
                        "local cluster)",
                    )
                raise InfrastructureError("executor", "the run was not submitted to Ray")
            try:
                self._outcomes[key] = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                raise InfrastructureError(
                    "executor",
                    f"the run's Ray task did not complete (tried "
                    f"{self.settings.ray_retries + 1} times at most): {type(exc).__name__}: "
                    f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}",
                ) from exc
            finally:
                self._refs.pop(key, None)
        wire = self._outcomes[key].get(stage)
        if wire is None:
            raise InfrastructureError("executor", f"the run's Ray task did not evaluate {stage}")
        return from_wire(wire)

    def close(self) -> None:
        """Cancel the outstanding runs (their cleanup gets a grace, then they are killed) and
        stop the cluster this session started (or leave the one it joined)."""
        ray = self.ray
        if self._remote is None and self._unavailable is None:
            return  # nothing was submitted: no cluster was started or joined
        try:
            pending = list(self._refs.values()) if ray.is_initialized() else []
            for ref in pending:
                ray.cancel(ref)  # KeyboardInterrupt in the worker: the pipeline cleans up
            deadline = time.monotonic() + CANCEL_GRACE_S
            while pending and time.monotonic() < deadline:
                _, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
            for ref in pending:
                ray.cancel(ref, force=True)  # the worker dies; its sandbox dies with it
            self._refs.clear()
        finally:
            ray.shutdown()  # also what a failed start left running
