"""A built-in CLI agent's run: its proxy, its sandboxed step, its metered outcome."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import threading
from pathlib import Path

from ...errors import AgentError
from ...llm.accounting import Pricing
from ...llm.outage import probe
from ...proxy import Budget, Meter, MeteringProxy, Tape, Upstream, atif
from ...taskmodel.task import Task
from ..base import Agent, AgentOutcome, RunContext, safe_label
from ..cmd import agent_environment
from .install import install, pinned
from .specs import PROMPT, SPECS, CLISpec

_TAPE_SCOPE = re.compile(r"[^A-Za-z0-9_.=-]+")


class CLIAgent(Agent):
    """``claude-code``, ``codex``, ``mini-swe-agent`` … (``NAME@VERSION`` pins another)."""

    uses_llm = True

    def __init__(self, spec: str, cli: CLISpec, version: str, settings) -> None:
        self.spec = spec
        self.cli = cli
        self.version = version
        self.settings = settings
        self.label = safe_label(spec.replace("@", "-"))

    def cache_key(self, task: Task, run: int) -> str:
        s = self.settings
        return json.dumps(
            [
                self.cli.name,
                self.version,
                s.model,
                s.max_steps,
                s.max_tokens,
                s.max_cost,
                "clitools-v1",
            ]
        )

    def agent_spec(self) -> dict:
        """``agent_spec`` of the record: name, version, model, how the install was checked."""
        return {
            "name": self.cli.name,
            "version": self.version,
            "model": self.settings.model,
            "package": f"{self.cli.kind}:{self.cli.package}",
            "lock": "pinned" if pinned(self.cli, self.version) else "locked at first use",
            "api": self.cli.api,
        }

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        tool = install(self.cli, self.version)
        requirements = ctx.artifacts / "requirements.md"
        requirements.write_text(task.requirements_text, encoding="utf-8")
        home = ctx.artifacts / "home"
        home.mkdir(exist_ok=True)
        meter = Meter(ctx.artifacts / "proxy.jsonl", self._pricing(), self._budget())
        stop = threading.Event()
        meter.on_exceeded = stop.set  # the budget ends the agent's step at once
        meter.on_miss = stop.set  # so does a replay's request that no recording matches
        tape, models = self._tape(task, run, ctx), getattr(self.settings, "agent_models", ())
        with MeteringProxy(
            self._upstream(), meter, tape, model=self.settings.model, models=models
        ) as proxy:
            prompt = PROMPT.format(requirements=requirements, workspace=workspace)
            launch = self.cli.launch(
                tool, proxy.base_url, self.settings.model, prompt, self.settings.max_steps
            )
            env, _ = agent_environment(())  # the allow-list of every command-line agent
            env.update({k: v.replace("{home}", str(home)) for k, v in launch.env.items()})
            env.update(HOME=str(home), E2EBENCH_TASK=task.id, E2EBENCH_RUN=str(run))
            for relative, text in launch.files.items():
                (home / relative).parent.mkdir(parents=True, exist_ok=True)
                (home / relative).write_text(text, encoding="utf-8")
            argv = [
                a.replace("{home}", str(home)).replace("{requirements}", str(requirements))
                for a in launch.argv
            ]
            (ctx.artifacts / "command.txt").write_text(shlex.join(argv) + "\n")
            done = self._sandbox(ctx).run(
                argv,
                cwd=workspace,
                env=env,
                timeout=self.settings.agent_timeout,
                log=ctx.artifacts / "cmd.log",
                # Its home, not the whole artifacts folder: the proxy writes the run's log
                # there while the agent runs (an agent that could write the folder forged its
                # trajectory, or put a link in the log's place for the harness to write through)
                writable=[workspace, home],
                readable=[tool, ctx.artifacts],
                network=False,  # the proxy is all it reaches
                forward=(proxy.port,),
                stop=stop,
            )
        outcome = self._outcome(meter, done, ctx)
        # the run as an ATIF trajectory, beside the proxy's log it is read from (issue 42)
        where = ctx.artifacts / atif.ATIF_FILE
        named = (self.cli.name, self.version, self.settings.model)
        atif.write(meter.log, where, *named, meter.summary())
        outcome.details["atif"] = str(where)
        return outcome

    def _sandbox(self, ctx: RunContext):
        """The run's sandbox, with the agent's own address-space limit if it needs one."""
        if self.cli.address_space is None:
            return ctx.sandbox
        limits = dataclasses.replace(ctx.sandbox.limits, address_space=self.cli.address_space)
        return dataclasses.replace(ctx.sandbox, limits=limits)

    def _outcome(self, meter: Meter, done, ctx: RunContext) -> AgentOutcome:
        summary = meter.summary()
        if summary["replay_misses"]:
            # the recorded run cannot be replayed: no model answered, so there is no score
            # of the agent's to give (as an LLM agent's replay miss, llm/cache.py)
            missed = len(summary["replay_misses"])
            raise AgentError(
                f"{self.cli.name}: {summary['replay_misses'][0]} ({missed} request(s) missed; "
                f"log: {meter.log})"
            )
        if summary["upstream_errors"]:
            raise AgentError(
                f"{self.cli.name}: the model could not be reached through the proxy: "
                f"{summary['upstream_errors'][0]} (log: {meter.log})"
            )
        note = None
        if summary["budget_exceeded"]:
            note = f"{summary['budget_exceeded']}; the agent was stopped"
        elif done.timed_out:
            note = f"{self.cli.name} was killed after {self.settings.agent_timeout:g} s"
        elif done.returncode != 0:
            note = (
                f"{self.cli.name} exited with status {done.returncode} "
                f"({done.tail(1)[:300]}); log: {ctx.artifacts / 'cmd.log'}"
            )
        unmetered = None
        if summary["in_flight_at_end"]:
            unmetered = f"{summary['in_flight_at_end']} model call(s) still ran when the step ended"
            unmetered += " (not metered)"
        note = "; ".join(filter(None, (note, self._failed_calls(summary), unmetered))) or None
        return AgentOutcome(
            tokens_sent=summary["prompt_tokens"],
            tokens_generated=summary["completion_tokens"],
            cost_usd=summary["cost_usd"],
            steps=summary["steps"],
            note=note,
            details={
                "agent_spec": self.agent_spec(),
                "proxy": summary,
                "cached_prompt_tokens": summary["cached_prompt_tokens"],
                "cache_write_prompt_tokens": summary["cache_write_prompt_tokens"],
                "reasoning_tokens": summary["reasoning_tokens"],
                "price_source": summary["price_source"],
                "trajectory": str(meter.log),
                "exit_status": done.returncode,
                "timed_out": done.timed_out,
                "wall_time_s": round(done.duration_s, 3),
                "log": str(ctx.artifacts / "cmd.log"),
            },
        )

    def _pricing(self) -> Pricing:
        s = self.settings
        return Pricing.parse(list(s.prices), list(s.model_params), list(s.co2))

    def _budget(self) -> Budget:
        s = self.settings
        return Budget(tokens=s.max_tokens, cost_usd=s.max_cost, steps=s.max_steps)

    def _failed_calls(self, summary: dict) -> str | None:
        """The note of calls the agent shaped that failed at the upstream (timed out, too
        large); an infrastructure error when the upstream does not answer now either."""
        failed = summary["failed_calls"]
        if not failed:
            return None
        s = self.settings
        down = probe(s.base_url, os.environ.get(s.llm_key_env), attempts=1) if s.base_url else None
        if down is not None:
            raise AgentError(f"{self.cli.name}: the model does not answer: {down} ({failed[0]})")
        return (
            f"{len(failed)} model call(s) of the agent failed at the upstream, which answers "
            f"(timed out or too large): {failed[0]}"
        )

    def _upstream(self) -> Upstream | None:
        s = self.settings
        if s.llm_cache == "replay" or not s.base_url:
            return None
        return Upstream(s.base_url, os.environ.get(s.llm_key_env), s.llm_timeout)

    def _tape(self, task: Task, run: int, ctx: RunContext) -> Tape | None:
        mode = self.settings.llm_cache
        if mode == "off":
            return None
        scope = f"{self.label}_{task.id}_run-{run}_{ctx.stage}_proxy"
        # the output folder is in the agent's prompt and its workspace's path: a moved one
        # (another --e2e-out, a copy on another machine) replays the same requests
        places = {str(self.settings.out.resolve()): "<out>", str(self.settings.out): "<out>"}
        root = self.settings.out / "llm-cache" / _TAPE_SCOPE.sub("_", scope)
        return Tape(root, mode, self.settings.replay_match, places)


def make(spec: str, settings) -> CLIAgent | None:
    """The agent for ``NAME`` or ``NAME@VERSION``, or None when NAME is no built-in CLI agent."""
    name, _, version = spec.partition("@")
    cli = SPECS.get(name)
    if cli is None:
        return None
    return CLIAgent(spec, cli, version or cli.version, settings)
