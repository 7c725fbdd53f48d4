"""``cmd:COMMAND``: any command-line agent, run in the workspace with a wall-clock limit.

``{requirements}`` in COMMAND becomes the path of a copy of the requirements document (outside
the workspace) and ``{workspace}`` the repository folder; the command runs with bash in the
workspace. For a lifecycle stage other than implement (docs/stages.md), ``{stage}`` is its name
(also in ``$E2EBENCH_STAGE``) and ``{inputs}`` a read-only folder with the earlier stages'
outputs; the stage's instruction is in ``brief.md`` beside the requirements (so for the steps
of ProjectEval's cascade, docs/projecteval.md). Its exit status
and duration are recorded; a non-zero exit is the agent's result, not an infrastructure error.

Its environment is an allow-list (:func:`agent_environment`): ``PATH``, ``TERM``, ``TZ``, the
locale, ``HOME`` (the run's own ``<run_dir>/agent/home/``, empty at each attempt: the harness's
home is not in the sandbox), the ``E2EBENCH_*`` variables of the run, and the variables the
user names with ``--e2e-agent-env`` (ini ``e2ebench_agent_env``): never the harness's other
keys and tokens. It has network in a namespace of its own (docs/sandbox.md); a named variable
that is a URL on the host's loopback (its model endpoint) has that one port forwarded there.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..taskmodel.task import Task
from .base import Agent, AgentOutcome, RunContext, safe_label

# What a command sees (docs/agents.md, docs/sandbox.md): said when it fails, e.g. a script
# kept in the host's /tmp is not there (exit status 127).
SEES = (
    "it sees its workspace, the requirements document, /usr and a few /etc files read-only, "
    "and a private, empty /tmp; not the host's /tmp, home or checkout, so keep the agent's "
    "files under /usr/local or pass them in the command; its environment holds PATH, "
    "TERM, TZ, the locale, E2EBENCH_*, what --e2e-agent-env names, and HOME, a writable "
    "folder of the run's own (<run>/agent/home)"
)
# What every command-line agent gets of the harness's environment (besides LC_*).
BASE_ENV = ("PATH", "HOME", "TERM", "TZ", "LANG", "LANGUAGE")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def agent_environment(
    names: Sequence[str], source: Mapping[str, str] | None = None
) -> tuple[dict[str, str], tuple[int, ...]]:
    """The allow-listed environment of a ``cmd:`` agent, and the host loopback ports to forward.

    ``names`` are the variables the user allowed (``--e2e-agent-env``); a value that is a URL on
    127.0.0.1 or localhost names a port the agent's namespace gets a forward to.
    """
    source = os.environ if source is None else source
    env = {k: v for k, v in source.items() if k in BASE_ENV or k.startswith("LC_") or k in names}
    ports = []
    for name in names:
        port = loopback_port(env.get(name, ""))
        if port is not None:
            ports.append(port)
    return env, tuple(dict.fromkeys(ports))


def loopback_port(value: str) -> int | None:
    """The port of ``value`` when it is an http(s)/ws(s) URL on the host's loopback."""
    try:
        url = urllib.parse.urlsplit(value.strip())
        port = url.port
    except ValueError:
        return None
    if url.scheme not in DEFAULT_PORTS or url.hostname not in LOOPBACK_HOSTS:
        return None
    return port or DEFAULT_PORTS[url.scheme]


class CommandAgent(Agent):
    """Runs a shell command that writes the project into the workspace."""

    def __init__(
        self, spec: str, command: str, timeout: float, env_names: Sequence[str] = ()
    ) -> None:
        self.spec = spec
        self.command = command
        self.timeout = timeout
        self.env_names = tuple(env_names)
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
        env, forward = agent_environment(self.env_names)
        env.update(E2EBENCH_TASK=task.id, E2EBENCH_RUN=str(run), E2EBENCH_STAGE=ctx.stage)
        # the harness's HOME (/root) does not exist in the sandbox: tools that keep a config
        # or a cache there (git, npm, pip, most agents' CLIs) get one of the run's own, fresh
        # at each attempt (clear_artifacts) and writable as the rest of agent/
        env["HOME"] = str(ctx.artifacts / "home")
        (ctx.artifacts / "home").mkdir(exist_ok=True)
        done = ctx.sandbox.run(
            ["bash", "-c", command],
            cwd=workspace,
            env=env,
            timeout=self.timeout,
            log=ctx.artifacts / "cmd.log",
            writable=[workspace, ctx.artifacts],
            readable=readable,
            network=True,  # a command-line agent calls its model over the network
            forward=forward,  # and reaches the host's loopback only at its endpoint's port
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
