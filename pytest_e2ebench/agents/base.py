"""What an agent is to the harness."""

from __future__ import annotations

import abc
import dataclasses
import re
from pathlib import Path

from ..run.runs import RunContext
from ..taskmodel.task import Task


@dataclasses.dataclass
class AgentOutcome:
    """What an agent reports about one run besides the files it wrote.

    Cost fields stay ``None`` for agents that make no LLM calls ("does not apply").
    """

    tokens_sent: int | None = None
    tokens_generated: int | None = None
    cost_usd: float | None = None
    co2_g: float | None = None
    steps: int | None = None
    note: str | None = None
    details: dict = dataclasses.field(default_factory=dict)  # agent-specific, JSON-able

    def to_dict(self) -> dict:
        """JSON-able form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> AgentOutcome:
        """The inverse of :meth:`to_dict`; keys it does not know are kept in ``details``."""
        names = {f.name for f in dataclasses.fields(cls)}
        known = {k: v for k, v in data.items() if k in names}
        details = {**known.pop("details", {}), **{k: v for k, v in data.items() if k not in names}}
        return cls(**known, details=details)


class Agent(abc.ABC):
    """Builds a project for a task into an empty workspace.

    ``spec`` is the name the user typed (``dir:./out``); ``label`` is a short, path- and
    node-id-safe form of it used for output folders, item ids and reports.

    An agent must use only ``task.requirements_text`` (and ``task.id``): the reference
    implementation and tests are the harness's, not the agent's. The oracle agent is the one
    exception.
    """

    spec: str
    label: str
    # App tasks' supplementary materials are put into the workspace (``materials/``) before
    # generate(); agents that hand in output made elsewhere (dir:, reference, nop) opt out.
    receives_materials: bool = True
    #: True for agents that call the LLM endpoint: a session with one asks the endpoint once
    #: before the first run and stops at once when it does not answer.
    uses_llm: bool = False

    @abc.abstractmethod
    def cache_key(self, task: Task, run: int) -> str:
        """A string that changes whenever this agent's output for (task, run) could change."""

    @abc.abstractmethod
    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        """Write the project for ``task`` into the empty folder ``workspace``.

        Raise :class:`~pytest_e2ebench.errors.AgentError` (or another InfrastructureError) for
        problems that are not the agent's fault; they make the items errors.
        """


def safe_label(text: str) -> str:
    """Make ``text`` usable as a folder name and inside a pytest node id."""
    label = re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-.")
    return label or "agent"
