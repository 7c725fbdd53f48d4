"""The SDAgent workflows of E2EDevBench (§3.2) on the shared tool layer.

* ``sdagent-single`` — one engineer reads the requirements, implements, writes tests, runs
  them and debugs until they pass;
* ``sdagent-dt`` — a developer implements every feature without tests, then a tester writes
  tests from the requirements, runs and debugs them;
* ``sdagent-ddt`` — a designer writes DESIGN.md first, then developer, then tester.

One step is one LLM call. The step limit (``--e2e-max-steps``, 200) counts across roles; each
role may use an equal share of what is left, and a role that submits early leaves its unused
steps to the next. The step at which the first test file is written is recorded (E2EDevBench
Fig. 4). Every call is written to ``agent/trajectory.jsonl``.

What real models do wrong ends a role, never the harness (issue 19): a role that answers
:data:`STALL_STEPS` times in a row without a tool call, or repeats the same call with the same
result :data:`REPEAT_STEPS` times, is stalled (results compared with their timings, timestamps,
addresses, pids and temporary paths masked: :func:`steady`); an endpoint that refuses a request
(HTTP 400) after accepting the role's earlier ones has run out of context. Either is the agent's
failure, in the run's note. Before each call the conversation is fitted to the model's context
(``e2ebench_context_tokens``) by :func:`fit_context`.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from ..environment import venv
from ..llm.accounting import sources_label
from ..llm.base import LLMRefused
from ..taskmodel.task import Task
from ..taskmodel.testindex import is_test_module
from .base import Agent, AgentOutcome, RunContext
from .kinds import check_delivery, delivery, tooling
from .tools import Toolbox
from .trajectory import write_atif

PROMPT_VERSION = 3  # 3: what to deliver depends on the task's kind (issue #13.4)
DELIVERY_RETRIES = 2  # submits the delivery check turns back before it lets one through
STALL_STEPS = 3  # answers in a row without a tool call that end a role
REPEAT_STEPS = 4  # the same calls with the same results, in a row, that end a role
CHARS_PER_TOKEN = 3  # a conservative estimate for code and JSON
# what an endpoint answers a request whose content it will not take (400; TGI's 422; a proxy's
# 413): after accepted steps, the conversation the agent's own output grew, the agent's end
GROWN = (400, 413, 422)
KEEP_RECENT = 6  # the last messages are never shortened
# What differs between two runs of the same command without saying anything about the work, in
# the order they are masked (issue 42: five identical `python -m pytest` calls went unnoticed as
# stalled because pytest said "no tests ran in 0.03s", then "in 0.05s"): temporary paths
# (/tmp/pytest-of-u/pytest-7/…, tempfile's tmpk3j_x2), dates and times of day, durations
# ("0.03s", "1.2 seconds", "12 ms", "0:00:01"), hex addresses (0x7f3a…), process ids.
VOLATILE = (
    (re.compile(r"(?:/private)?(?:/var)?/tmp/[^\s'\"):,]*|/dev/shm/[^\s'\"):,]*"), "<tmp>"),
    (re.compile(r"\btmp[a-z0-9_]{6,}\b"), "<tmp>"),
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2}\b)?"
        ),
        "<date>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (
        re.compile(
            r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ns|us|µs|μs|ms|msecs?|s|secs?|seconds?|"
            r"milliseconds?|microseconds?|nanoseconds?|min|mins|minutes?|h|hrs?|hours?)(?!\w)"
        ),
        "<duration>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "0x<addr>"),
    (re.compile(r"\b(pid|PID|process)([\s:=#]*)\d+\b"), r"\1\2<pid>"),
)
BASE = (
    "You work alone in a fresh repository (the current directory) through tools. The user "
    "gives you a requirements document; it is all you know about the project. {delivery} "
    "{tooling} Use only the tools; call submit when your part is done."
)
ROLES = {
    "engineer": "You are the only engineer. Implement every requirement, write pytest tests "
    "for them under tests/, run them with `python -m pytest`, and fix the code until they pass.",
    "designer": "You are the designer. Do not write code. Write DESIGN.md: the modules, their "
    "public classes and functions with signatures, data formats and error handling, mapped to "
    "the requirement ids.",
    "developer": "You are the developer. Implement every requirement{design}. Do not write "
    "tests; a tester comes after you.",
    "tester": "You are the tester. Write pytest tests under tests/ that check every "
    "requirement, run them with `python -m pytest`, and fix the code where the tests show it "
    "is wrong.",
}
WORKFLOWS = {
    "sdagent-single": ("engineer",),
    "sdagent-dt": ("developer", "tester"),
    "sdagent-ddt": ("designer", "developer", "tester"),
}


class SDAgent(Agent):
    """A tool-using agent running one of the SDAgent workflows."""

    uses_llm = True

    def __init__(self, spec: str, settings) -> None:
        self.spec = self.label = spec
        self.roles = WORKFLOWS[spec]
        self.settings = settings

    def cache_key(self, task: Task, run: int) -> str:
        s = self.settings
        return json.dumps([self.spec, PROMPT_VERSION, s.model, s.temperature, s.max_steps])

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        llm = ctx.llm()
        env = venv.agent_env(ctx.artifacts / "venv", ctx.artifacts / "logs")
        tools = Toolbox(
            workspace,
            env,
            ctx.artifacts / "logs",
            command_timeout=min(300.0, ctx.settings.agent_timeout),
            sandbox=ctx.sandbox,
            extra_writable=(ctx.artifacts / "venv", ctx.artifacts / "home"),
        )
        state = _State(ctx.artifacts / "trajectory.jsonl", ctx.settings.max_steps)
        summaries: list[str] = []
        for index, role in enumerate(self.roles):
            share = (state.max_steps - state.steps) // (len(self.roles) - index)
            summary = self._role(llm, role, task, tools, state, share, summaries, ctx)
            summaries.append(f"{role}: {summary or '(no summary)'}")
        if state.steps >= state.max_steps:
            state.notes.append("stopped at the step limit")
        problems = check_delivery(task, workspace) if ctx.stage == "implement" else []
        if problems:
            state.notes.append("delivery check: " + "; ".join(problems))
        return AgentOutcome(
            tokens_sent=state.prompt_tokens,
            tokens_generated=state.completion_tokens,
            cost_usd=state.cost,
            co2_g=state.co2,
            steps=state.steps,
            note="; ".join(state.notes) or None,
            details={
                "roles": state.roles,
                "first_test_step": state.first_test_step,
                # of tokens_sent, those the server took from its prompt cache
                "cached_prompt_tokens": state.cached_tokens,
                # of tokens_sent, those the server wrote to its prompt cache; of
                # tokens_generated, those the model reasoned with (docs/agents.md "Cost")
                "cache_write_prompt_tokens": state.cache_write_tokens,
                "reasoning_tokens": state.reasoning_tokens,
                "price_source": sources_label(state.price_sources),
                "trajectory": str(state.path),
                "atif": str(write_atif(state.path, self.label, getattr(llm, "model", ""))),
                "replay_drift": getattr(llm, "drift", 0),
            },
        )

    def _role(self, llm, role, task, tools, state, budget, summaries, ctx) -> str | None:
        """Run one role until it submits, spends its ``budget`` of steps, stalls or is refused."""
        messages = self._opening(role, task, summaries, ctx)
        checked = role == self.roles[-1] and ctx.stage == "implement"
        rejected = used = 0
        tools.submitted = None
        state.roles.append({"role": role, "steps": 0, "submitted": False})
        watch = _Watch()
        while used < budget and tools.submitted is None:
            before = len(tools.written)
            dropped = fit_context(messages, ctx.settings.context_tokens * CHARS_PER_TOKEN)
            try:
                completion, observations = tools.step(llm, messages, scope=f"{ctx.scope}/{role}")
            except LLMRefused as exc:
                if exc.status not in GROWN or used == 0:
                    raise  # the first request refused: the endpoint or its settings
                state.notes.append(
                    f"{role}: the endpoint refused step {used + 1} after accepting the earlier "
                    f"ones ({exc.status}; the conversation may exceed the model's context): {exc}"
                )
                break
            used += 1
            watch.see(observations)
            new_files = tools.written[before:]
            _record_step(state, role, used, completion, observations, dropped, new_files)
            _progress(state, role, ctx)
            if checked and tools.submitted is not None and rejected < DELIVERY_RETRIES:
                if _turn_back(task, tools, messages, used < budget):
                    rejected += 1
                    state.roles[-1]["delivery_rejected"] = rejected
            stalled = watch.stalled(role)
            if stalled:
                state.notes.append(stalled)
                break
        state.roles[-1]["submitted"] = tools.submitted is not None
        return tools.submitted

    def _opening(self, role, task, summaries, ctx) -> list[dict]:
        """A role's first messages: its system prompt, the requirements and the work so far."""
        design = " following DESIGN.md" if "designer" in self.roles else ""
        base = BASE.format(delivery=delivery(task), tooling=tooling(task))
        system = f"{base}\n\n{ROLES[role].format(design=design)}"
        user = f"# Requirements document\n\n{task.requirements_text}"
        if ctx.stage != "implement":
            user += f"\n\n{ctx.brief}"  # the stage's instruction and its inputs
        if summaries:
            user += "\n\n# Work so far\n\n" + "\n".join(summaries)
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]


def _record_step(state, role, used, completion, observations, dropped, new_files) -> None:
    """Count one step (tokens, cost, the first test file written) and log it to the trajectory."""
    state.add(completion)
    state.roles[-1]["steps"] = used
    if state.first_test_step is None and any(is_test_module(Path(rel)) for rel in new_files):
        state.first_test_step = state.steps
    state.log(role, completion, observations, dropped)


def _progress(state, role, ctx) -> None:
    """Tell the run's progress where the agent is."""
    ctx.progress(
        {
            "role": role,
            "step": state.steps,
            "max_steps": state.max_steps,
            "tokens": state.prompt_tokens + state.completion_tokens,
            "cost_usd": state.cost,
        }
    )


def _turn_back(task, tools, messages, steps_left: bool) -> bool:
    """Refuse a submission the delivery check finds fault with, while the role has steps left.

    Returns whether it was turned back (the role is told what to fix and goes on).
    """
    problems = check_delivery(task, tools.workspace)
    if not (problems and steps_left):
        return False
    tools.submitted = None
    messages.append(
        {
            "role": "user",
            "content": "Not submitted, the delivery check found: "
            + "; ".join(problems)
            + ". Fix this, then call submit again.",
        }
    )
    return True


class _Watch:
    """A role's stall signs: answers without a tool call, and the same calls repeated."""

    def __init__(self) -> None:
        self.idle = self.repeats = 0
        self.last: str | None = None

    def see(self, observations: list[dict]) -> None:
        """Count one step's tool calls."""
        self.idle = 0 if observations else self.idle + 1
        same = json.dumps([[o["name"], o["arguments"], steady(o["output"])] for o in observations])
        self.repeats = self.repeats + 1 if observations and same == self.last else 0
        self.last = same

    def stalled(self, role: str) -> str | None:
        """The note that ends the role, if it has stalled."""
        if self.idle >= STALL_STEPS:
            return f"{role}: stalled, {self.idle} answers in a row without a tool call"
        if self.repeats + 1 >= REPEAT_STEPS:
            return (
                f"{role}: stalled, the same tool call(s) with the same result "
                f"{self.repeats + 1} times in a row"
            )
        return None


def steady(text: str) -> str:
    """``text`` with what changes between identical runs masked (:data:`VOLATILE`), for
    comparing one tool result with the last (the observation itself is kept as it was)."""
    for pattern, mask in VOLATILE:
        text = pattern.sub(mask, text)
    return text


def fit_context(messages: list[dict], budget: int) -> int:
    """Shorten the oldest tool results until the conversation's text fits ``budget`` characters.

    The policy: the system prompt, the requirements and the last :data:`KEEP_RECENT` messages
    stay whole; older tool results (native ``tool`` messages and the user messages that carry
    results of calls written as text) are replaced, oldest first, by a line saying how much was
    dropped. Returns how many were shortened now (recorded in the trajectory).
    """
    size = sum(_size(m) for m in messages)
    dropped = 0
    for message in messages[2 : max(2, len(messages) - KEEP_RECENT)]:
        if size <= budget:
            break
        content = message.get("content") or ""
        if len(content) < 200 or not _is_result(message) or content.startswith(_DROPPED):
            continue
        note = f"{_DROPPED}: {len(content)} characters]"
        message["content"] = note
        size -= len(content) - len(note)
        dropped += 1
    return dropped


_DROPPED = "[tool output dropped to fit the model's context"


def _is_result(message: dict) -> bool:
    content = message.get("content") or ""
    return message.get("role") == "tool" or (
        message.get("role") == "user" and content.startswith("[") and " result]" in content[:40]
    )


def _size(message: dict) -> int:
    calls = message.get("tool_calls") or []
    return len(message.get("content") or "") + sum(
        len(c["function"]["arguments"] or "") for c in calls
    )


class _State:
    """Counters across roles, and the trajectory file."""

    def __init__(self, path: Path, max_steps: int) -> None:
        self.path = path
        self.max_steps = max_steps
        self.steps = 0
        self.prompt_tokens = 0
        self.cached_tokens = self.cache_write_tokens = self.reasoning_tokens = 0
        self.completion_tokens = 0
        self.price_sources: set[str | None] = set()
        self.cost: float | None = None
        self.co2: float | None = None
        self.first_test_step: int | None = None
        self.roles: list[dict] = []
        self.notes: list[str] = []  # why roles ended early, and the step limit
        self.mark = time.monotonic()  # the end of the last step logged
        path.write_text("")

    def add(self, completion) -> None:
        self.steps += 1
        self.prompt_tokens += completion.prompt_tokens
        self.cached_tokens += completion.cached_prompt_tokens
        self.cache_write_tokens += completion.cache_write_prompt_tokens
        self.reasoning_tokens += completion.reasoning_tokens
        self.price_sources.add(completion.price_source)
        self.completion_tokens += completion.completion_tokens
        if completion.cost_usd is not None:
            self.cost = (self.cost or 0.0) + completion.cost_usd
        if completion.co2_g is not None:
            self.co2 = (self.co2 or 0.0) + completion.co2_g

    def log(self, role: str, completion, observations: list[dict], dropped: int = 0) -> None:
        now = time.monotonic()
        line = {
            "step": self.steps,
            "time": time.time(),
            "seconds": round(now - self.mark, 3),  # the model's call and the step's tools
            "role": role,
            "completion": completion.to_dict(),
            "observations": observations,
            "context_dropped": dropped,  # older tool outputs shortened before this call
        }
        self.mark = now
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
