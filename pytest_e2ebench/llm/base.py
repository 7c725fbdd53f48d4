"""What an LLM is to an agent: messages in, one completion out."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from ..errors import InfrastructureError


class LLMUnavailable(InfrastructureError):
    """The endpoint could not answer (after retries): an infrastructure error, not the model's.

    ``outage`` is False when the endpoint answered but refused one request (a 4xx): the
    session goes on calling it for other runs.
    """

    def __init__(self, message: str, *, outage: bool = True) -> None:
        self.outage = outage
        super().__init__("llm", message)


class LLMRefused(LLMUnavailable):
    """The endpoint refused a request (a 4xx other than 408/409/429), after which retrying the
    same request cannot help. ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message, outage=False)
        self.status = status


@dataclasses.dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; ``arguments`` is the raw JSON text it wrote."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict:
        """The OpenAI message form of this call."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclasses.dataclass(frozen=True)
class Completion:
    """One answer of the model, with what it cost."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None = None
    co2_g: float | None = None
    cached: bool = False
    # of ``prompt_tokens``, those the server took from its prompt cache (no forward pass)
    cached_prompt_tokens: int = 0
    # of ``prompt_tokens``, those the server wrote to its prompt cache (a price of their own)
    cache_write_prompt_tokens: int = 0
    # of ``completion_tokens``, those the model reasoned with (priced as completion tokens)
    reasoning_tokens: int = 0
    price_source: str | None = None  # which price table priced the call ("user", "shipped …")

    def message(self) -> dict:
        """The assistant message to append to the conversation."""
        msg: dict = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        return msg

    def to_dict(self) -> dict:
        """JSON-able form (for the cache and trajectories)."""
        data = dataclasses.asdict(self)
        data["tool_calls"] = [dataclasses.asdict(c) for c in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Completion:
        """Inverse of :meth:`to_dict`."""
        calls = tuple(ToolCall(**c) for c in data.get("tool_calls", []))
        return cls(**{**data, "tool_calls": calls})


class LLM(Protocol):
    """The interface agents use. ``scope`` names the conversation (for the replay cache)."""

    model: str

    def complete(
        self, messages: list[dict], *, tools: list[dict] | None = None, scope: str = ""
    ) -> Completion:
        """Ask the model for the next message of the conversation."""
        ...
