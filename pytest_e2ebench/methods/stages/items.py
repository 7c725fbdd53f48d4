"""DevEval's stage items: one per graded artefact of a lifecycle stage (docs/stages.md) of one
(task, agent, run), added to the run's requirement items by the stages plugin's
``pytest_e2ebench_run_items``.
"""

from __future__ import annotations

import json

import pytest

from ...agents import Agent
from ...contracts import RECORD_PROPERTY as PROPERTY
from ...errors import InfrastructureError, RunFailed, TaskError
from ...run.record import error_stage_record
from ...stash import EVALUATOR, SETTINGS
from ...taskmodel.task import Task
from ...untrusted.text import printable
from ..toolchain import toolchain_of
from . import IMPLEMENT, StageReferences, item_names


def run_items(collector: pytest.File, task: Task, agent: Agent, run: int) -> list[pytest.Item]:
    """The items of the selected stages other than implement in one run: one per graded
    artefact. A task without the references a stage needs has no items of that stage, nor
    has a web task any (its tests are scenarios, it has no Python dependencies)."""
    stages = [s for s in collector.config.stash[SETTINGS].stages if s != IMPLEMENT]
    if not stages:
        return []
    refs = StageReferences(task.root)
    if refs.problems():
        raise TaskError(str(task.root), refs.problems())
    items = []
    for stage in stages:
        if task.kind == "web" or not refs.has(stage) or not _gradable(task, stage):
            continue
        for artefact in item_names(stage, refs):
            name = f"{task.id}[{agent.label}-run-{run}-{stage}-{artefact}]"
            item = collector.item(StageItem, name, task, agent, run, stage=stage, artefact=artefact)
            item.extra_keyword_matches.add(stage)
            items.append(item)
    return items


def _gradable(task: Task, stage: str) -> bool:
    """A toolchain task's stages besides implement: its design, and the test-writing stages
    its ``[toolchain.stages]`` names (issue 43); the setup stage installs a Python dependency
    file."""
    spec = toolchain_of(task)
    return spec is None or stage == "design" or spec.stage_suite(stage) is not None


class StageItem(pytest.Item):
    """One graded artefact of a lifecycle stage (docs/stages.md) of one (task, agent, run)."""

    def __init__(
        self, *, task: Task, agent: Agent, run: int, stage: str, artefact: str, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.agent = agent
        self.run = run
        self.stage = stage
        self.artefact = artefact
        self.record: dict | None = None

    def setup(self) -> None:
        """Evaluate the stage (cached); a stage that cannot be evaluated is an error."""
        evaluator = self.config.stash[EVALUATOR]
        args = (self.task, self.agent, self.run, self.stage)
        try:
            self.record = evaluator.evaluate(*args)
        except (InfrastructureError, RunFailed) as exc:
            if evaluator.first_delivery(*args):
                where = evaluator.run_dir(*args)
                self.user_properties.append(
                    (PROPERTY, json.dumps(error_stage_record(*args, where, exc)))
                )
            pytest.fail(printable(f"{self.stage}: could not be evaluated: {exc}"), pytrace=False)
        if evaluator.first_delivery(*args):
            self.user_properties.append((PROPERTY, json.dumps(self.record)))

    def runtest(self) -> None:
        """Pass iff the artefact's grade passes; otherwise say why."""
        assert self.record is not None
        graded = self.record["items"].get(self.artefact) or {"passed": False, "message": ""}
        if graded["passed"]:
            return
        lines = [
            f"{self.stage} {self.artefact} not passed ({self.agent.label}, run {self.run}): "
            + (graded.get("message") or "no details")
        ]
        lines += [f"note: {n}" for n in self.record.get("notes", [])]
        lines.append(f"details: {self.record['dir']}")
        pytest.fail(printable("\n".join(lines)), pytrace=False)

    def reportinfo(self):
        return self.path, None, f"{self.name}: {self.stage} {self.artefact}"
