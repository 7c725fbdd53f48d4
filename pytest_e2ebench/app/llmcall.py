"""The app judge's LLM calls: counting their cost, reading their JSON answers."""

from __future__ import annotations

import json
import re


def json_answer(text: str | None) -> object:
    """The JSON object in a model's answer (fences and prose around it ignored).

    Raises ValueError saying what is wrong, to be sent back to the model.
    """
    if not text:
        raise ValueError("the answer was empty")
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        return json.loads(match.group(0) if match else text)
    except ValueError as exc:
        raise ValueError(f"the answer is not a JSON object ({exc})") from None


class Asker:
    """Wraps an LLM client and adds up its calls, tokens and cost."""

    def __init__(self, llm) -> None:
        self.llm = llm
        self.calls = 0
        self.sent = 0
        self.generated = 0
        self.cost: float | None = None

    def ask(self, messages: list[dict], *, tools: list[dict] | None = None, scope: str):
        """One completion (an outage raises LLMUnavailable: an infrastructure error)."""
        completion = self.llm.complete(messages, tools=tools, scope=scope)
        self.calls += 1
        self.sent += completion.prompt_tokens
        self.generated += completion.completion_tokens
        if completion.cost_usd is not None:
            self.cost = (self.cost or 0.0) + completion.cost_usd
        return completion

    def totals(self) -> dict:
        """JSON-able counts."""
        return {
            "calls": self.calls,
            "tokens_sent": self.sent,
            "tokens_generated": self.generated,
            "cost_usd": self.cost,
        }
