"""The one generate step: the agent writes into an empty workspace, and intake takes it in.

The run's implement stage, DevEval's lifecycle stages (``stages/run.py``) and ProjectEval's
cascade steps (``projecteval/cascade.py``) all ask the agent through :func:`generate`; what
differs between them is the :class:`Ask` (the task as asked, its folder, stage, brief and
inputs). The step is cached by a key derived from the run's plan and the ask.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..agents import AgentOutcome
from ..environment import diff
from ..environment.workspace import take_in
from ..isolation.intake import IntakeLimits
from ..taskmodel.task import MATERIALS_DIR
from .cache import tree_hash
from .settings import IMPLEMENT

if TYPE_CHECKING:
    from ..taskmodel.task import Task
    from .plan import Steps


class LeadIn(Protocol):
    """Steps a method runs before a run's own generate step (ProjectEval's cascade: checklist,
    then skeleton), from ``pytest_e2ebench_lead_in``: what the code step is then asked."""

    task: Task  # the task as the code step asks it (its brief carries the lead-in's output)
    ended: str | None  # why the lead-in stopped before the code: an empty repository, noted

    @property
    def key(self) -> str:
        """Part of the code step's cache key (what the lead-in gave it)."""

    def prepare(self, workspace: Path, agent) -> None:
        """Put the lead-in's output into the code step's workspace."""

    def total(self, code_run: dict) -> dict:
        """The code step's agent data with the lead-in's cost, tokens and time added."""

    def finish(self, record: dict, code_run: dict) -> None:
        """Add the lead-in's steps to the run's record."""


@dataclasses.dataclass(frozen=True)
class Ask:
    """What one generate step asks the agent for, and where its answer goes."""

    task: Task  # the task as asked: its brief is what the agent reads
    folder: Path  # the step's folder: repo/ and repo.json go there
    stage: str = IMPLEMENT  # ctx.stage of the agent (a lifecycle stage, a cascade step)
    brief: str = ""  # the stage's instruction and inputs as text (ctx.brief)
    inputs: Path | None = None  # the folder the stage is given (ctx.inputs)
    scope: str = ""  # the conversations' name in the LLM cache when not the run's
    given: str = ""  # what else the agent is given, hashed (ProjectEval's cascade key)
    # fills the empty workspace before the agent runs (materials, a skeleton)
    prepare: Callable[[Path], None] | None = None
    ended: str | None = None  # not asked: graded as an empty repository with this note
    # the task's materials, handed to the agent in the workspace: removed after intake when
    # left as handed (they are the task's input, not the project)
    drop_materials: Path | None = None


def generate(steps: Steps, ask: Ask) -> dict:
    """The agent's answer to ``ask`` in ``ask.folder/repo`` (taken in): its cached data, or
    generated now. The data: the agent's outcome, ``duration_s``, ``intake``, ``repo_hash``."""
    agent, run = steps.ctx.agent, steps.plan.run
    stage = steps.stage(
        "repo",
        folder=ask.folder,
        agent_key=agent.cache_key(ask.task, run),
        requirements=ask.task.requirements_text,
        stage=ask.stage,
        inputs=tree_hash(ask.inputs) if ask.inputs is not None else "",
        given=ask.given,
    )
    data = stage.load()
    if data is not None:
        return data
    workspace = stage.reset()
    if ask.prepare is not None:
        ask.prepare(workspace)
    given = diff.snapshot(workspace)  # what the agent starts from: its diff is against it
    ctx = steps.ctx
    if (ask.folder, ask.stage, ask.brief, ask.inputs, ask.scope) != (
        ctx.run_dir,
        ctx.stage,
        ctx.brief,
        ctx.inputs,
        ctx.scope_name,
    ):
        ctx = dataclasses.replace(
            ctx,
            run_dir=ask.folder,
            stage=ask.stage,
            brief=ask.brief,
            inputs=ask.inputs,
            scope_name=ask.scope,
        )
    ctx.clear_artifacts()  # an earlier attempt's leftovers are the agent's
    start = time.monotonic()
    if ask.ended:
        outcome = AgentOutcome(note=ask.ended)  # graded as empty
    else:
        ctx.progress({"doing": f"the agent at work ({ask.stage} stage)"})
        outcome = agent.generate(ask.task, run, workspace, ctx)
    # the run's line goes on (Evaluator.outcome ends it, whatever happens)
    ctx.progress({"doing": "taking in the agent's project"})
    steps.no_outage_since(start)  # an endpoint that went away is not the agent's
    duration = round(time.monotonic() - start, 3)
    steps.now("intake")
    data = take_in_outcome(workspace, outcome, ask, given)
    return stage.commit({**data, "duration_s": duration})


def take_in_outcome(workspace: Path, outcome, ask: Ask, given: diff.Snapshot | None = None) -> dict:
    """Intake of what the agent wrote (``intake.copy_tree``'s limits), the diff of the project
    against ``given`` (the workspace it started from; ``details.diff`` names it), the handed
    materials removed if left as handed, and the repository's hash (taken now: installing the
    project later adds build files to the folder)."""
    if isinstance(outcome, dict):  # the form of earlier versions
        outcome = AgentOutcome.from_dict(outcome)
    data = outcome.to_dict()
    earlier = data["details"].pop("intake", None)  # the dir: agent's copy
    intake = take_in(workspace, IntakeLimits(), earlier)
    if given is not None:  # before the materials go: left as handed, they are no change
        data["details"]["diff"] = str(diff.write(ask.folder, given, workspace))
    handed = workspace / MATERIALS_DIR
    if (
        ask.drop_materials is not None
        and handed.is_dir()
        and tree_hash(handed) == tree_hash(ask.drop_materials)
    ):
        # left as handed they go (nor are they a package setuptools' discovery trips over)
        shutil.rmtree(handed)
    return {**data, "intake": intake.to_dict(), "repo_hash": tree_hash(workspace)}
