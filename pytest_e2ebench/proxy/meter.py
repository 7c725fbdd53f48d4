"""What one run's model calls cost, its budgets, and the log that is its trajectory."""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..llm.accounting import Pricing, sources_label
from .dialects import Usage

LOG_TEXT_LIMIT = 100_000  # characters of one response (or request tail) kept in the log
DEFAULT_ROOM = 1 << 30  # output tokens a budget leaves where it does not bound them


@dataclasses.dataclass(frozen=True)
class Budget:
    """Limits of one run: total tokens (in + out), US dollars, model calls. None: no limit."""

    tokens: int | None = None
    cost_usd: float | None = None
    steps: int | None = None

    def spent(self, tokens: int, cost: float | None, steps: int) -> str | None:
        """Why no further call is allowed, or None while every limit holds."""
        if self.tokens is not None and tokens >= self.tokens:
            return f"the token budget (--e2e-max-tokens={self.tokens}) is spent: {tokens} tokens"
        if self.cost_usd is not None and cost is not None and cost >= self.cost_usd:
            return f"the cost budget (--e2e-max-cost={self.cost_usd:g}) is spent: ${cost:.4f}"
        if self.steps is not None and steps >= self.steps:
            return f"the step limit (--e2e-max-steps={self.steps}) is reached: {steps} calls"
        return None


class Meter:
    """Totals of one run's calls, appended to a JSON-lines log as they happen (thread-safe)."""

    def __init__(self, log: Path, pricing: Pricing, budget: Budget) -> None:
        self.log = log
        self.pricing = pricing
        self.budget = budget
        self.steps = 0
        self.prompt = self.completion = self.cached = 0
        self.cache_write = self.reasoning = 0  # of the prompt and completion tokens
        self.price_sources: set[str | None] = set()  # the tables that priced the calls
        self.cost: float | None = 0.0
        self.latency = 0.0
        self.refused = 0
        self.upstream_errors: list[str] = []
        self.failed_calls: list[str] = []  # calls the agent shaped that timed out or ran over
        self.exceeded: str | None = None
        self.drift = 0  # replayed answers given by position (--e2e-replay-match=position)
        self.matched = 0  # replayed answers whose recorded request had the same content
        self.replay_misses: list[str] = []  # requests no recording matched: the run's error
        self.in_flight_at_end = 0  # calls still running when the step's proxy closed
        # what the calls in flight may still cost at worst (tokens, dollars, calls): granted
        # before a call goes out, given back when it is metered (issue 40: 24 concurrent calls
        # went out against a budget checked only after answers)
        self.reserved = [0, 0.0, 0]
        self.by_model: dict[str, dict[str, int]] = {}  # tokens per model called
        self._count = 0  # log lines written: every request, answered or not
        self._lock = threading.Lock()
        # called once when a budget is spent (the runner ends the agent's step with it)
        self.on_exceeded: Callable[[], None] | None = None
        # called at a replay's first miss: the rest of the run cannot be replayed either
        self.on_miss: Callable[[], None] | None = None
        log.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        os.close(os.open(log, flags, 0o644))

    def allow(self) -> str | None:
        """None when a next call may go out; else the reason (kept as :attr:`exceeded`)."""
        with self._lock:
            why = self._why("")
            if why is not None:
                self.refused += 1
        if why is not None:
            self._spent(why)
        return why

    def grant(self, model: str, prompt: int, cap: int) -> tuple[int | None, tuple]:
        """The output cap a next call of ``model`` may have (``prompt``: its estimate, ``cap``:
        what it asks), and the reservation to give back in :meth:`add`; (None, why) when no
        call fits what the budgets leave beside the calls in flight."""
        with self._lock:
            why = self._why("")
            room = cap if why is None else 0
            tokens, cost, steps = self.budget.tokens, self.budget.cost_usd, self.budget.steps
            if steps is not None and self.steps + self.reserved[2] >= steps:
                why = why or self.budget.spent(0, None, self.steps + self.reserved[2])
            if why is None and tokens is not None:
                room = min(room, tokens - self.prompt - self.completion - self.reserved[0] - prompt)
            if why is None and cost is not None and self.cost is not None:
                room = min(room, self._cost_room(model, prompt, cost))
            if why is None and room < 1:
                why = self._no_room(prompt)
            if why is not None:
                self.refused += 1
                ticket: tuple = (0, 0.0, 0)
            else:
                worst = self.pricing.worst(model, prompt, room) or 0.0
                ticket = (prompt + room, worst, 1)
                self.reserved = [a + b for a, b in zip(self.reserved, ticket, strict=True)]
        if why is not None:
            self._spent(why)
            return None, (why,)
        return room, ticket

    def _no_room(self, prompt: int) -> str:
        """Why a call does not fit (the lock held): the budget that leaves it no room."""
        tokens, cost = self.budget.tokens, self.budget.cost_usd
        if tokens is not None:
            left = tokens - self.prompt - self.completion - self.reserved[0]
            if left - prompt < 1:
                return (
                    f"the token budget (--e2e-max-tokens={tokens}) leaves no room for this call: "
                    f"{max(left, 0)} tokens left beside the calls in flight, its prompt ~{prompt}"
                )
        return f"the cost budget (--e2e-max-cost={cost:g}) leaves no room for this call"

    def _cost_room(self, model: str, prompt: int, budget: float) -> int:
        """Output tokens of ``model`` the cost budget leaves after ``prompt`` input tokens."""
        left = budget - self.cost - self.reserved[1]
        base = self.pricing.worst(model, prompt, 0)
        each = self.pricing.worst(model, 0, 1_000_000)
        if base is None or each is None or each <= 0:
            return DEFAULT_ROOM  # no price: the cost is unknown, as :meth:`add` records
        return int((left - base) / each * 1_000_000)

    def release(self, ticket: tuple) -> None:
        """Give back a call's reservation (an answer metered, or none came)."""
        with self._lock:
            self.reserved = [a - b for a, b in zip(self.reserved, ticket, strict=True)]

    def _why(self, model: str) -> str | None:
        """Why no further call may go out (the lock held); ``model``: the call just counted."""
        why = self.budget.spent(self.prompt + self.completion, self.cost, self.steps)
        if why is None and self.cost is None and self.budget.cost_usd is not None:
            why = self.exceeded or (
                f"the cost budget (--e2e-max-cost={self.budget.cost_usd:g}) cannot be kept: "
                f"model {model[:80]!r} has no price (add it to e2ebench_prices)"
            )
        return why

    def _spent(self, why: str) -> None:
        first = self.exceeded is None
        self.exceeded = self.exceeded or why
        if first and self.on_exceeded is not None:
            self.on_exceeded()

    def add(self, entry: dict, model: str, found: Usage, ok: bool) -> None:
        """Count one answered call (``ok``: a 2xx answer, a step) and log ``entry``.

        ``model`` is the name the agent's request gave. A call of no tokens costs nothing,
        whatever it names; one with tokens under a model without a price makes the run's
        cost unknown, and under ``--e2e-max-cost`` spends the budget: before, one call naming
        a model of no price (refused by the upstream, even) made the cost None and switched
        the cost budget off for the rest of the run."""
        cost, source = 0.0, None
        if found.prompt or found.completion:
            cost = self.pricing.cost(
                model, found.prompt, found.completion, found.cached, found.cache_write
            )
            source = self.pricing.source(model)
        with self._lock:
            if ok:
                self.steps += 1
            self.prompt += found.prompt
            self.completion += found.completion
            self.cached += found.cached
            self.cache_write += found.cache_write
            self.reasoning += found.reasoning
            self.price_sources.add(source)
            self.cost = None if cost is None or self.cost is None else self.cost + cost
            self.latency += entry.get("latency_s", 0.0)
            used = self.by_model.setdefault(model[:120], {"calls": 0, "prompt": 0, "completion": 0})
            used["calls"] += 1 if ok else 0
            used["prompt"] += found.prompt
            used["completion"] += found.completion
            # the counts first: the HTML report shows each line's first 400 characters
            self._write({"model": model, **found.to_dict(), "cost_usd": cost, **entry})
            why = self._why(model)
        if why is not None:
            self._spent(why)

    def unfinished(self, calls: int, waited: float) -> None:
        """``calls`` model calls still ran when the proxy closed, ``waited`` seconds after the
        agent's step ended: what they cost is not in the totals, and the summary says so."""
        with self._lock:
            self.in_flight_at_end = calls
            self._write(
                {
                    "status": 0,
                    "in_flight": calls,
                    "error": (
                        f"{calls} call(s) still waiting for the model {waited:g} s after the step "
                        "ended: not metered"
                    ),
                }
            )

    def failed_call(self, entry: dict) -> None:
        """A call that failed at the upstream for how the agent asked it (logged, listed)."""
        with self._lock:
            self.failed_calls.append(str(entry.get("error", ""))[:300])
            self._write(entry)

    def replayed(self, matched: bool) -> None:
        """Count a call answered from the tape, by content or (``matched`` False) position."""
        with self._lock:
            self.matched += 1 if matched else 0
            self.drift += 0 if matched else 1

    def replay_miss(self, path: str, why: str) -> None:
        """A replayed call no recording matches (logged, listed; the first ends the step)."""
        with self._lock:
            self.replay_misses.append(why)
            first = len(self.replay_misses) == 1
            self._write({"path": path, "status": 502, "replay_miss": why})
        if first and self.on_miss is not None:
            self.on_miss()

    def note(self, entry: dict) -> None:
        """Log a call that was not answered by the model (refused, upstream down)."""
        with self._lock:
            self._write(entry)

    def _write(self, entry: dict) -> None:
        entry = {"n": self._lines(), "time": round(time.time(), 3), **entry}
        line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        # never through a link put in the log's place
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(self.log, flags, 0o644), "ab") as out:
            out.write(line.encode("utf-8"))

    def _lines(self) -> int:
        self._count += 1
        return self._count

    def summary(self) -> dict:
        """The run's totals, JSON-able (for the record's ``agent_run.details.proxy``)."""
        with self._lock:
            return {
                "requests": self._count,
                "steps": self.steps,
                "prompt_tokens": self.prompt,
                "completion_tokens": self.completion,
                "cached_prompt_tokens": self.cached,
                "cache_write_prompt_tokens": self.cache_write,
                "reasoning_tokens": self.reasoning,
                "cost_usd": None if self.cost is None else round(self.cost, 6),
                "price_source": sources_label(self.price_sources),  # docs/agents.md "Cost"
                "latency_s": round(self.latency, 3),
                "refused": self.refused,
                "budget_exceeded": self.exceeded,
                "upstream_errors": list(self.upstream_errors),
                "failed_calls": list(self.failed_calls),
                "replay_drift": self.drift,
                "replay_matched": self.matched,
                "replay_misses": list(self.replay_misses),
                "in_flight_at_end": self.in_flight_at_end,
                "models": {m: dict(v) for m, v in sorted(self.by_model.items())},
                "log": str(self.log),
            }


def clip(text: str) -> str:
    """``text`` cut to :data:`LOG_TEXT_LIMIT` characters, saying so."""
    if len(text) <= LOG_TEXT_LIMIT:
        return text
    return text[:LOG_TEXT_LIMIT] + f"… [{len(text) - LOG_TEXT_LIMIT} characters cut]"


def request_tail(body: dict) -> str:
    """The newest part of a request (the last two messages or input items): what the agent
    fed back to the model since its previous call, for the trajectory."""
    for key in ("messages", "input", "contents"):
        items = body.get(key)
        if isinstance(items, list):
            return clip(json.dumps(items[-2:], ensure_ascii=False))
        if isinstance(items, str):
            return clip(items)
    return ""
