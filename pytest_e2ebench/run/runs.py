"""One run's identity and context (issue #13.3; docs/plugins.md, "The run context").

A :class:`RunKey` says which run: (task, agent, run index, the folder part a method files the
run under, lifecycle stage). The part is a method's (``methods.RunPart``, the ``RUN_PARTS`` of its
method module: ProjectEval's ``level-<l>[-cascade]``), never a field of the key's own.
It is frozen and hashable (the key of every per-run table of the harness) and crosses process
boundaries as :meth:`RunKey.to_dict` (xdist, the Ray executor). :func:`run_folder` and
:func:`folder_key` map a key to its folder under ``--e2e-out`` and back: they are the only code
that knows the layout, ``<out>/<agent>/<task>[/<part>]/run-<n>[/stage-<stage>]``.

A :class:`RunContext` is built once per run and handed to every stage of the pipeline, to the
agent, the migrator, the judge and the ``pytest_e2ebench_run_finished`` hook: the key, the
task, the settings, the run's folder, its LLM client and sandbox.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Protocol

from .. import methods
from ..contracts import RunRecord
from ..llm.factory import make_llm
from ..stash import OUTAGE, SANDBOX
from .cache import remove
from .settings import IMPLEMENT, STAGES

# (task, agent label, run) in an item's node id: ``...::<task>[<agent>-run-<n>-<item>]``
RUN_IN_ID = re.compile(r"::([^\[]+)\[(.+)-run-(\d+)-")

if TYPE_CHECKING:
    import pytest

    from ..taskmodel.task import Task
    from .settings import Settings

RUN_PREFIX = "run-"
STAGE_PREFIX = "stage-"
LAYOUT = "<out>/<agent>/<task>[/<part>]/run-<n>[/stage-<stage>]"
_FIELDS = ("task", "agent", "run", "part", "stage")


def run_part(task: Task) -> str | None:
    """The folder part of ``task``'s runs: the first a method gives, or None."""
    return next((p for part in methods.parts("RUN_PARTS") if (p := part.of_task(task))), None)


def record_part(record: dict) -> str | None:
    """The folder part of the run ``record`` is the record of, or None."""
    return next((p for part in methods.parts("RUN_PARTS") if (p := part.of_record(record))), None)


class RunAgent(Protocol):
    """What a run's key and context need of its agent (an :class:`~pytest_e2ebench.agents.Agent`,
    whose module imports this one): the label its runs are filed under."""

    label: str


def name_problem(field: str, value: object) -> str | None:
    """Why ``value`` cannot be the folder name ``field`` is stored under, or None."""
    if not isinstance(value, str) or not value:
        return f"{field} must be a non-empty string, got {value!r}"
    if value in (".", "..") or "/" in value or "\0" in value:
        return f"{field} {value!r} cannot be a folder name (no '/', NUL, '.' or '..')"
    return None


def _part_problem(value: object) -> str | None:
    """Why ``value`` cannot be a run's folder part, or None."""
    problem = name_problem("part", value)
    if problem is None and value.startswith((RUN_PREFIX, STAGE_PREFIX)):
        return f"part {value!r} cannot start with {RUN_PREFIX!r} or {STAGE_PREFIX!r}"
    return problem


def _index_error(field: str, value: object) -> str | None:
    """Why ``value`` is not a positive integer, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return f"{field} must be a positive integer, got {value!r}"
    return None


@dataclasses.dataclass(frozen=True)
class RunKey:
    """Which run: the task id, the agent's label, the run index (from 1), the folder part a
    method files it under (None for most: ``methods.RunPart``) and the lifecycle stage
    (``implement`` for the run itself)."""

    task: str
    agent: str
    run: int
    part: str | None = None
    stage: str = IMPLEMENT

    def __post_init__(self) -> None:
        problems = [
            name_problem("task", self.task),
            name_problem("agent", self.agent),
            _index_error("run", self.run),
            None if self.part is None else _part_problem(self.part),
            None
            if self.stage in STAGES
            else f"stage must be one of {', '.join(STAGES)}, got {self.stage!r}",
        ]
        problems = [p for p in problems if p]
        if problems:
            raise ValueError(f"not a run key: {'; '.join(problems)}")

    @classmethod
    def of(cls, task: Task, agent: RunAgent, run: int, stage: str = IMPLEMENT) -> RunKey:
        """The key of ``agent``'s run ``run`` of ``task`` (in its method's part, if any)."""
        return cls(task.id, agent.label, run, run_part(task), stage)

    @classmethod
    def of_record(cls, record: dict) -> RunKey:
        """The key of a run record or stage record (results.json's ``tasks`` and ``stages``)."""
        stage = record.get("stage", IMPLEMENT)
        return cls(record["task"], record["agent"], record["run"], record_part(record), stage)

    def to_dict(self) -> dict:
        """JSON-able form: every field, always."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: dict) -> RunKey:
        """The inverse of :meth:`to_dict`; ``part`` and ``stage`` may be left out."""
        if not isinstance(data, dict):
            raise ValueError(f"a run key is a dict, got {type(data).__name__}")
        missing = [k for k in _FIELDS[:3] if k not in data]
        unknown = sorted(set(data) - set(_FIELDS))
        if missing or unknown:
            raise ValueError(
                "a run key has task, agent and run (and optionally part and stage): "
                + "; ".join(
                    [f"missing {', '.join(missing)}"] * bool(missing)
                    + [f"unknown {', '.join(unknown)}"] * bool(unknown)
                )
            )
        return cls(**data)

    def for_stage(self, stage: str) -> RunKey:
        """The key of the same run's lifecycle stage ``stage``."""
        return dataclasses.replace(self, stage=stage)

    @property
    def name(self) -> str:
        """``agent/task/run-N`` (``agent/task/<part>/run-N``; ``…/stage-S`` for a stage): how
        results.json names the run (its folder relative to ``--e2e-out``)."""
        return run_folder(PurePath(), self).as_posix()

    @property
    def scope(self) -> str:
        """The name of this run's conversations in the LLM record/replay cache: its whole
        :attr:`name`. (Earlier, a level's or a stage's tape was named by the last three parts
        of its folder, without the agent, so two agents with a role of the same name shared one
        tape, and the second was answered with the first one's recording.)"""
        return self.name

    @property
    def slug(self) -> str:
        """The run's name in one path component (``agent--task--run-N``): progress files."""
        return "--".join(run_folder(PurePath(), self).parts)


def run_folder(out: PurePath, key: RunKey) -> Path:
    """The folder of the run ``key`` under ``out`` (see :data:`LAYOUT`)."""
    folder = out / key.agent / key.task
    if key.part is not None:
        folder = folder / key.part
    folder = folder / f"{RUN_PREFIX}{key.run}"
    if key.stage != IMPLEMENT:
        folder = folder / f"{STAGE_PREFIX}{key.stage}"
    return folder


def _number(part: str, prefix: str) -> int | None:
    digits = part[len(prefix) :] if part.startswith(prefix) else ""
    return int(digits) if digits.isascii() and digits.isdigit() and digits[0] != "0" else None


def folder_key(out: PurePath, folder: PurePath) -> RunKey:
    """The inverse of :func:`run_folder`: the key of the run whose folder is ``folder``.

    Raises ValueError naming the folder when it is not a run's folder under ``out``.
    """
    try:
        parts = list(PurePath(folder).relative_to(out).parts)
    except ValueError:
        raise ValueError(f"{folder} is not a run folder: it is not inside {out}") from None
    stage = IMPLEMENT
    if len(parts) in (4, 5) and parts[-1].startswith(STAGE_PREFIX):
        stage = parts.pop()[len(STAGE_PREFIX) :]
    part = parts.pop(2) if len(parts) == 4 else None
    run = _number(parts[-1], RUN_PREFIX) if len(parts) == 3 else None
    try:
        if run is None:
            raise ValueError("its parts do not match the layout")
        key = RunKey(parts[1], parts[0], run, part, stage)
    except ValueError as exc:
        raise ValueError(
            f"{folder} is not a run folder ({exc}); a run's folder is {LAYOUT}"
        ) from None
    if run_folder(PurePath(out), key) != PurePath(folder):  # e.g. stage-implement
        raise ValueError(f"{folder} is not a run folder; a run's folder is {LAYOUT}")
    return key


def run_folders(out: Path, agent: str = "*") -> list[tuple[RunKey, Path]]:
    """The runs found under ``out`` (of ``agent``'s label, or every agent's), with their
    folders, stages included; folders that are not runs' are passed over."""
    found = []
    for pattern in (f"{RUN_PREFIX}*", f"*/{RUN_PREFIX}*"):
        for folder in out.glob(f"{agent}/*/{pattern}"):
            for candidate in (folder, *folder.glob(f"{STAGE_PREFIX}*")):
                try:
                    found.append((folder_key(out, candidate), candidate))
                except ValueError:
                    continue
    return sorted(found, key=lambda pair: str(pair[1]))


@dataclasses.dataclass
class RunContext:
    """Everything about one run the harness hands to its stages, agent, migrator and judge.

    Built once per run by the harness (``Evaluator.context``); plugins read it and never
    build one. The first seven fields are those of earlier versions (positional); ``key`` is
    derived from ``run_dir`` when left out.
    """

    config: pytest.Config
    settings: Settings
    run_dir: Path
    progress: Callable[[dict], None] = lambda info: None
    # DevEval's lifecycle stages (docs/stages.md): which one this run is for, the stage's
    # instruction with the earlier stages' outputs as text (for LLM agents), and the folder
    # holding those outputs (for command-line agents). Empty for the implement stage.
    stage: str = IMPLEMENT
    brief: str = ""
    inputs: Path | None = None
    key: RunKey = None  # type: ignore[assignment]  # set in __post_init__ when left out
    task: Task | None = None
    agent: RunAgent | None = None  # the agents.Agent of the run
    # The run's record once it is built (the pytest_e2ebench_run_finished hook sees it).
    record: dict | None = None
    # the conversations' name in the LLM cache when it is not the run's own (ProjectEval's
    # cascade steps: agent, task, level and step)
    scope_name: str = ""

    def __post_init__(self) -> None:
        if self.key is None:
            self.key = folder_key(self.settings.out, self.run_dir)

    def clear_artifacts(self) -> None:
        """Called before each attempt of the agent. What an earlier attempt left in
        ``<run_dir>/agent/`` is the agent's (writable to ``cmd:`` agents and to agents' shells):
        a link planted there in place of requirements.md or the agent's venv would have the
        harness write through it. Removed, never followed."""

        remove(self.run_dir / "agent")

    @property
    def artifacts(self) -> Path:
        """``<run_dir>/agent/``: trajectories, logs, the agent's own tools (not graded)."""
        path = self.run_dir / "agent"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def repo(self) -> Path:
        """``<run_dir>/repo``: the generated project as taken in (read it as data, bounded)."""
        return self.run_dir / "repo"

    @property
    def run_record(self) -> RunRecord | None:
        """``record`` typed (:class:`~pytest_e2ebench.contracts.RunRecord`), None before it is
        built: what ``pytest_e2ebench_run_finished`` implementations read."""
        return None if self.record is None else RunRecord.from_dict(self.record)

    @property
    def scope(self) -> str:
        """``<agent>/<task>/run-<n>``: names this run's conversations in the LLM cache."""
        return self.scope_name or self.key.scope

    @property
    def out(self) -> Path:
        """``--e2e-out``: the folder of every run, and of the shared environments."""
        return self.settings.out

    @property
    def sandbox(self):
        """The session's :class:`~pytest_e2ebench.isolation.sandbox.Sandbox`: run generated code in
        it."""
        return self.config.stash[SANDBOX]

    @property
    def outage(self):
        """The session's LLM outage note (:class:`~pytest_e2ebench.llm.outage.Outage`), or None."""
        return self.config.stash.get(OUTAGE, None)

    def llm(self):
        """A new LLM client for this run (the ``pytest_e2ebench_make_llm`` hook's, wrapped in
        the record/replay cache), as agents and judges use it."""

        return make_llm(self.config, self.settings)
