"""``cmd:COMMAND``: any command-line agent, run in the workspace with a wall-clock limit.

``{requirements}`` in COMMAND becomes the path of a copy of the requirements document (outside
the workspace) and ``{workspace}`` the repository folder; the command runs with bash in the
workspace. For a lifecycle stage other than implement (docs/stages.md), ``{stage}`` is its name
(also in ``$E2EBENCH_STAGE``) and ``{inputs}`` a read-only folder with the earlier stages'
outputs; the stage's instruction is in ``brief.md`` beside the requirements (so for the steps
of ProjectEval's cascade, docs/projecteval.md). Its exit status
and duration are recorded; a non-zero exit is the agent's result, not an infrastructure error.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

from ..task import Task
from .base import Agent, AgentOutcome, RunContext, safe_label

# What a command sees (docs/agents.md, docs/sandbox.md): said when it fails, e.g. a script
# kept in the host's /tmp is not there (exit status 127).
SEES = (
    "it sees its workspace, the requirements document, /usr and a few /etc files read-only, "
    "and a private, empty /tmp; not the host's /tmp, home or checkout, so keep the agent's "
    "files under /usr/local or pass them in the command"
)


class CommandAgent(Agent):
    """Runs a shell command that writes the project into the workspace."""

    def __init__(self, spec: str, command: str, timeout: float) -> None:
        self.spec = spec
        self.command = command
        self.timeout = timeout
        digest = hashlib.sha256(command.encode()).hexdigest()[:8]
        self.label = safe_label(f"cmd-{command.split()[0] if command.split() else 'x'}-{digest}")

    def cache_key(self, task: Task, run: int) -> str:
        return self.command

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        requirements = ctx.artifacts / "requirements.md"
        requirements.write_text(task.requirements_text, encoding="utf-8")
        command = self.command.replace("{requirements}", shlex.quote(str(requirements)))
        command = command.replace("{workspace}", shlex.quote(str(workspace)))
        command = command.replace("{stage}", shlex.quote(ctx.stage))
        readable = []
        if ctx.inputs is not None:
            (ctx.artifacts / "brief.md").write_text(ctx.brief, encoding="utf-8")
            command = command.replace("{inputs}", shlex.quote(str(ctx.inputs)))
            readable.append(ctx.inputs)
        env = dict(os.environ, E2EBENCH_TASK=task.id, E2EBENCH_RUN=str(run))
        env["E2EBENCH_STAGE"] = ctx.stage
        done = ctx.sandbox.run(
            ["bash", "-c", command],
            cwd=workspace,
            env=env,
            timeout=self.timeout,
            log=ctx.artifacts / "cmd.log",
            writable=[workspace, ctx.artifacts],
            readable=readable,
            network=True,  # a command-line agent calls its model over the network
        )
        note = None
        if done.timed_out:
            note = f"the command was killed after {self.timeout:g} s"
        elif done.returncode != 0:
            last = done.tail(1)[:300]
            note = (
                f"the command exited with status {done.returncode}"
                + (f" ({last})" if last else "")
                + f"; it runs sandboxed: {SEES} (log: {ctx.artifacts / 'cmd.log'})"
            )
        return AgentOutcome(
            note=note,
            details={
                "exit_status": done.returncode,
                "timed_out": done.timed_out,
                "wall_time_s": round(done.duration_s, 3),
                "log": str(ctx.artifacts / "cmd.log"),
            },
        )
