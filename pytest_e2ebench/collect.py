"""Collection: a task's ``task.toml`` becomes one item per (agent, run, requirement).

The item's setup evaluates its run (once per process, shared by all items of the run); an
infrastructure problem there makes the item an *error*. The call phase passes when the
requirement is implemented and fails with the failing tests otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from .agents import Agent
from .contracts import RECORD_PROPERTY as PROPERTY
from .errors import InfrastructureError, RunFailed, TaskError
from .grading.verdicts import IMPLEMENTED
from .run.settings import IMPLEMENT
from .stash import AGENTS, EVALUATOR, SETTINGS
from .taskmodel.task import Requirement, Task, at_level, fetch_reference, load_task
from .untrusted.text import printable

# The user property that carries a run's record to the reporter, as JSON text (what
# --junitxml writes into its <property value="…">, and what a script reading it can parse).
MAX_LISTED_FAILURES = 10
# An item's name is "<task>[<agent>-run-<n>-<requirement>]"; without the requirement, its run.
# ``<task>[<agent>-run-<n>-<requirement, feature or stage artefact>]``
_RUN_OF_ITEM = re.compile(r"^(.*::[a-z0-9][a-z0-9_-]*\[.+?-run-\d+)-[^\]]+\]$")


def item_name(task: Task, agent: Agent, run: int, req: Requirement) -> str:
    """The name of the item of ``req`` in ``run`` of ``agent`` (the last part of its id)."""
    return f"{task.id}[{agent.label}-run-{run}-{req.id}]"


def run_scope(nodeid: str) -> str | None:
    """The part of a requirement item's node id that names its run; None for other ids."""
    match = _RUN_OF_ITEM.match(nodeid)
    return match[1] if match else None


def implement_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with every requirement (implement) item before the other stages' items,
    each group in its order: the test-writing stages show the task's reference (modular
    mode), and an agent remembering across runs must not have seen it when it implements
    (issue 26). Under xdist a run's items stay on one worker, so the stage runner also
    settles the other runs' implement stages first (Evaluator.settle_implements)."""
    first = [i for i in items if isinstance(i, RequirementItem)]
    return first + [i for i in items if not isinstance(i, RequirementItem)]


class TaskFile(pytest.File):
    """A ``task.toml``: validates the task and yields its items: one per requirement of each
    (agent, run), and those a method adds to the run (hook ``pytest_e2ebench_run_items``)."""

    def collect(self) -> Iterator[pytest.Item]:
        task = load_task(self.path.parent)
        settings = self.config.stash[SETTINGS]
        task = at_level(task, settings)
        for req in task.requirements:
            for tag in req.tags:
                self.config.addinivalue_line("markers", f"{tag}: requirements tagged {tag!r}")
        for agent in self.config.stash[AGENTS]:
            for run in range(1, settings.runs + 1):
                # Under -n a run's items (every stage's) share one worker: see
                # dist.RunScheduling.
                if IMPLEMENT in settings.stages:
                    for req in task.requirements:
                        name = item_name(task, agent, run, req)
                        item = self.item(RequirementItem, name, task, agent, run, requirement=req)
                        item.extra_keyword_matches.add(IMPLEMENT)
                        yield item
                hook = self.config.hook.pytest_e2ebench_run_items
                for items in hook(collector=self, task=task, agent=agent, run=run):
                    yield from items or ()

    def item(self, cls, name: str, task: Task, agent: Agent, run: int, **kwargs):
        """An item ``cls`` of this task file named ``name`` (the last part of its id), for
        (task, agent, run); ``kwargs`` go to its constructor."""
        # The id is given as text: pytest 9.2 parses "calc[…]" as name and parameters, as it
        # parses the ids --lf reads back (a derived id would not match).
        return cls.from_parent(
            self,
            name=name,
            nodeid=f"{self.nodeid}::{name}",
            task=task,
            agent=agent,
            run=run,
            **kwargs,
        )

    def repr_failure(self, excinfo, style=None):
        """A malformed task shows its problems, not a traceback."""
        if isinstance(excinfo.value, TaskError | InfrastructureError):
            return str(excinfo.value)  # a reference that could not be fetched: the network
        return super().repr_failure(excinfo)


class RequirementItem(pytest.Item):
    """One requirement of one task, as implemented by one agent in one run."""

    def __init__(
        self, *, task: Task, agent: Agent, run: int, requirement: Requirement, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.agent = agent
        self.run = run
        self.requirement = requirement
        self.record: dict | None = None
        self.add_marker(pytest.mark.requirement(requirement.id))
        for tag in requirement.tags:
            self.add_marker(getattr(pytest.mark, tag))
        if self.config.pluginmanager.hasplugin("timeout"):
            # A run's agent, build and test stages have their own limits (e2ebench_agent_timeout,
            # --e2e-timeout) and happen in the first item's setup: a per-test limit meant for
            # quick tests (pytest-timeout's `timeout`) would cut a long agent run short.
            self.add_marker(pytest.mark.timeout(0))

    def setup(self) -> None:
        """Evaluate the run (cached); a run that cannot be evaluated is an error, not a failure.

        Whatever ended it (an infrastructure problem, or any other exception: RunFailed), the
        run still delivers one record, with status "error".
        """
        evaluator = self.config.stash[EVALUATOR]
        failure: InfrastructureError | RunFailed | None = None
        try:
            self.record = evaluator.evaluate(self.task, self.agent, self.run)
        except (InfrastructureError, RunFailed) as exc:
            failure = exc
        if failure is not None:
            # Failed outside the except block: one line, without the exception's chain.
            if evaluator.first_delivery(self.task, self.agent, self.run):
                # the task as the run had it (its fetched reference, when it got that far)
                task = fetch_reference(self.task, download=False)
                record = evaluator.error_record(task, self.agent, self.run, failure)
                self.user_properties.append((PROPERTY, json.dumps(record)))
            what = (
                "harness error (a bug of the harness or a plugin; the run is not graded)"
                if isinstance(failure, RunFailed)
                else "infrastructure error (not the agent's fault)"
            )
            pytest.fail(printable(f"{what}: {failure}"), pytrace=False)
        # The whole record travels once per run and process; the reporter merges by key.
        if evaluator.first_delivery(self.task, self.agent, self.run):
            self.user_properties.append((PROPERTY, json.dumps(self.record)))

    def runtest(self) -> None:
        """Pass iff the requirement is implemented; otherwise list its failing tests."""
        assert self.record is not None
        verdict = next(r for r in self.record["requirements"] if r["id"] == self.requirement.id)
        if verdict["verdict"] == IMPLEMENTED:
            return
        # the project's messages, a peer's titles, the agent's file names: no terminal control
        lines = printable(self._explain(verdict)).split("\n")
        # --tb: line (and no) is one line per requirement, short the verdict and where the
        # details are; long and auto the whole explanation (issue 31)
        style = getattr(self.config.option, "tbstyle", "auto")
        if style in ("line", "no"):
            lines = lines[:1]
        elif style == "short":
            lines = [*lines[:2], *(x for x in lines if x.startswith("details: "))]
        pytest.fail("\n".join(lines), pytrace=False)

    def _explain(self, verdict: dict) -> str:
        req = self.requirement
        title = printable(req.title, lines=False)
        lines = [f"{req.id} not implemented ({self.agent.label}, run {self.run}): {title}"]
        if verdict["failing"] or not verdict["tests"]:
            lines.append(
                f"{verdict['tests'] - verdict['passed']} of {verdict['tests']} tests did not pass:"
            )
        else:  # a judge other than the tests decided (--e2e-judge)
            lines.append(f"the judge decided so; all {verdict['tests']} tests passed")
        for test in verdict["failing"][:MAX_LISTED_FAILURES]:
            message = test["message"].strip().split("\n")
            first = f" — {message[0][:200]}" if message else ""
            nodeid = printable(test["nodeid"], lines=False)
            lines.append(f"  {test['outcome'].upper():7} {nodeid}{first}")
            lines.extend(f"          {m[:200]}" for m in message[1:3])
            properties = test.get("properties", {})
            if "screenshot" in properties:
                lines.append(f"          screenshot: {properties['screenshot']}")
            if "trace" in properties:  # an app task's case: what the browser agent did
                lines.append(f"          trace: {properties['trace']}")
            if properties.get("console"):
                console = properties["console"].splitlines()
                lines.append(f"          browser console ({len(console)} lines, last first):")
                lines.extend(f"            {c[:200]}" for c in reversed(console[-3:]))
        hidden = len(verdict["failing"]) - MAX_LISTED_FAILURES
        if hidden > 0:
            lines.append(f"  … and {hidden} more")
        for note in self.record.get("notes", []):
            lines.append(f"note: {note}")
        lines.append(f"details: {self.record['dir']}")
        trajectory = (self.record.get("agent_run") or {}).get("details", {}).get("trajectory")
        if trajectory:
            lines.append(f"trajectory: {trajectory}")
        return "\n".join(lines)

    def reportinfo(self):
        return self.path, None, printable(f"{self.name}: {self.requirement.title}", lines=False)
