"""The built-in agents that need no model: ``reference``, ``nop`` and ``dir:PATH``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ..errors import AgentError
from ..isolation.intake import SKIP_PATTERNS, IntakeLimits, copy_tree
from ..methods.projecteval import spec_of
from ..methods.projecteval.skeleton import reference_step
from ..methods.stages import reference_artefacts
from ..run.cache import tree_hash
from ..run.runs import RUN_IN_ID
from ..taskmodel.task import Task
from .base import Agent, AgentOutcome, RunContext, safe_label

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.egg-info")


class ReferenceAgent(Agent):
    """The oracle: hands in the task's reference implementation (must score 100 %)."""

    spec = label = "reference"
    receives_materials = False  # the evaluation adds them next to the app

    def cache_key(self, task: Task, run: int) -> str:
        return task.reference_hash

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        if spec_of(task) is not None and ctx.stage in ("checklist", "skeleton"):
            reference_step(task, ctx.stage, workspace)  # ProjectEval's cascade (#17)
            return AgentOutcome()
        if ctx.stage != "implement":
            reference_artefacts(task, ctx.stage, workspace)
            return AgentOutcome()
        if task.reference_dir is None:
            raise AgentError(
                f"task {task.id} has no reference app (an imported feature-list task); "
                "grade other agents' output with it"
            )
        shutil.copytree(task.reference_dir, workspace, ignore=_IGNORE, dirs_exist_ok=True)
        return AgentOutcome()


class NopAgent(Agent):
    """Hands in an empty repository (must score 0 %)."""

    spec = label = "nop"
    receives_materials = False

    def cache_key(self, task: Task, run: int) -> str:
        return "empty"

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        return AgentOutcome()


class DirAgent(Agent):
    """Grades repositories another tool generated.

    The output for (task, run) is ``PATH/<task-id>/run-<n>/`` or else ``PATH/<task-id>/``;
    the artefacts of the other lifecycle stages are read from the same folder, at the paths
    docs/stages.md lists.
    Those folders must be real folders, not links; what is in them is taken in with
    :func:`~pytest_e2ebench.isolation.intake.copy_tree` (no link followed out of the tree, limits).

    A task without a folder is graded as an empty repository, and the run's note says so.
    """

    receives_materials = False  # the output was made elsewhere

    def __init__(self, spec: str, root: Path) -> None:
        self.spec = spec
        self.root = root
        self.label = safe_label(f"dir-{root.name}")

    def source(self, task: Task, run: int) -> Path | None:
        """Where this agent's output for (task, run) is, if anywhere."""
        if self.link(task, run):
            return None  # a link could lead anywhere, e.g. to the task's reference
        for candidate in (self.root / task.id / f"run-{run}", self.root / task.id):
            if candidate.is_dir():
                return candidate
        return None

    def link(self, task: Task, run: int) -> Path | None:
        """The task's or run's folder if it is a symbolic link (never followed)."""
        task_dir = self.root / task.id
        return next((p for p in (task_dir, task_dir / f"run-{run}") if p.is_symlink()), None)

    def cache_key(self, task: Task, run: int) -> str:
        src = self.source(task, run)
        if src is None:
            return "link" if self.link(task, run) else "missing"
        return f"{src}:{tree_hash(src)}"

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        src = self.source(task, run)
        link = self.link(task, run)
        if link is not None:
            return AgentOutcome(
                note=f"{link} is a symbolic link, which is not followed: graded as an empty "
                "repository"
            )
        if src is None:
            return AgentOutcome(
                note=f"no output at {self.root / task.id}: graded as an empty repository"
            )
        report = copy_tree(src, workspace, IntakeLimits(), ignore=SKIP_PATTERNS)
        # The pipeline's own intake of the workspace merges this report into the record.
        return AgentOutcome(details={"intake": report.to_dict()})


BUILTIN_NAMES = ("reference", "nop", "dir:PATH")


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_make_agent(spec: str, config: pytest.Config) -> Agent | None:
    """Make the built-in agents (tried after plugins, so a plugin may override a name)."""
    if spec == "reference":
        return ReferenceAgent()
    if spec == "nop":
        return NopAgent()
    if spec.startswith("dir:"):
        raw = spec[len("dir:") :]
        if not raw:
            raise pytest.UsageError("--e2e-agent=dir: needs a folder, e.g. dir:./agent-outputs")
        root = (config.invocation_params.dir / raw).resolve()
        if not root.is_dir():
            raise pytest.UsageError(
                f"--e2e-agent={spec}: {root} is not a folder; it should hold one folder per task "
                "(<task-id>/ or <task-id>/run-<n>/)"
            )
        return DirAgent(spec, root)
    return None


def pytest_e2ebench_agent_names(config: pytest.Config) -> list[str]:
    """Names of the built-in agents, for help and error messages."""
    return list(BUILTIN_NAMES)


def missing_outputs(selected) -> dict[DirAgent, dict[str, Path]]:
    """Per ``dir:`` agent, the tasks of ``selected`` ((agent, task id, run) triples) it has
    no output folder for (id -> folder); a link is not missing: it has its own note."""
    found: dict[DirAgent, dict[str, Path]] = {}
    for agent, task_id, run in selected:
        if not isinstance(agent, DirAgent):
            continue
        folders = (agent.root / task_id / f"run-{run}", agent.root / task_id)
        if not any(p.is_dir() or p.is_symlink() for p in folders):
            found.setdefault(agent, {})[task_id] = agent.root / task_id
    return found


def check_missing(config: pytest.Config, items: list, mode: str) -> list[str]:
    """``--e2e-missing``: what to do with selected tasks a ``dir:`` agent has no output for.

    A misnamed folder must not look like an agent that wrote nothing (issue 31): ``stop``
    raises a usage error naming the folders; ``skip`` removes those items (deselected);
    ``empty`` grades them as empty repositories. Returns the lines to say once, at the start.
    """
    failed = last_failed(config)
    considered = [i for i in items if hasattr(i, "agent")]
    if failed is not None:  # --lf: only what it will run (it deselects after this hook)
        considered = [i for i in considered if i.nodeid in failed]
    missing = missing_outputs((i.agent, i.task.id, i.run) for i in considered)
    if not missing:
        return []
    listing = _listing(missing)
    if mode == "stop":
        if hasattr(config, "workerinput"):
            return []  # under -n the controller checked before starting its workers
        _stop(missing)
    if mode == "skip":
        gone = [i for i in items if i.agent in missing and i.task.id in missing[i.agent]]
        drop = set(map(id, gone))
        items[:] = [i for i in items if id(i) not in drop]
        config.hook.pytest_deselected(items=gone)
        return [f"--e2e-missing=skip: left out, having no output folder: {listing}"]
    return [f"--e2e-missing=empty: graded as empty repositories (no output folder): {listing}"]


def last_failed(config: pytest.Config) -> set[str] | None:
    """With ``--lf``, the node ids it reruns (pytest's cache), or None: no ``--lf``, or no
    failure on record (then ``--lf`` runs everything)."""
    if not getattr(config.option, "lf", False) or getattr(config, "cache", None) is None:
        return None
    failed = config.cache.get("cache/lastfailed", {})
    return set(failed) if isinstance(failed, dict) and failed else None


def _listing(missing: dict[DirAgent, dict[str, Path]]) -> str:
    where = {a.spec: sorted(str(p) for p in tasks.values()) for a, tasks in missing.items()}
    return "; ".join(f"{spec}: {', '.join(paths)}" for spec, paths in where.items())


def _stop(missing: dict[DirAgent, dict[str, Path]]) -> None:
    count = sum(map(len, missing.values()))
    raise pytest.UsageError(
        f"no output folder for {count} selected task(s) ({_listing(missing)}). Fix the folder "
        "names, or choose: --e2e-missing=empty grades them as empty repositories (0 %), "
        "--e2e-missing=skip leaves them out (ini e2ebench_missing)"
    )


def precheck_missing(config: pytest.Config, agents, tasks: Path, runs: int) -> None:
    """``--e2e-missing=stop`` under ``-n``: the controller collects nothing, so it checks the
    task folders before the workers start. ``-k`` is applied to task ids only: a word that
    names no task (a requirement id, say) is taken to select every task."""
    from _pytest.mark.expression import Expression

    ids = sorted(p.parent.name for p in tasks.glob("*/task.toml"))
    keyword = config.option.keyword
    if keyword:
        expression = Expression.compile(keyword)

        def matches(task_id: str) -> bool:
            def word(name: str, **_) -> bool:
                name = name.lower()
                return name in task_id.lower() or not any(name in i.lower() for i in ids)

            return expression.evaluate(word)

        ids = [i for i in ids if matches(i)]
    selected = [(a, i, r) for a in agents for i in ids for r in range(1, runs + 1)]
    failed = last_failed(config)
    if failed is not None:  # --lf: the runs of the failed items only
        again = {m.groups() for m in map(RUN_IN_ID.search, failed) if m is not None}
        selected = [(a, i, r) for a, i, r in selected if (i, a.label, str(r)) in again]
    missing = missing_outputs(selected)
    if missing:
        _stop(missing)
