"""The LLM layer: one OpenAI-compatible client, accounting, and a record/replay cache.

Agents talk to an :class:`LLM` (``complete(messages, tools=...) -> Completion``). The default
implementation is :class:`~pytest_e2ebench.llm.client.OpenAIChat`, built on the ``openai``
package; a plugin may supply another through the ``pytest_e2ebench_make_llm`` hook.
"""

from .accounting import Pricing, co2_grams
from .base import LLM, Completion, LLMUnavailable, ToolCall

__all__ = ["LLM", "Completion", "LLMUnavailable", "Pricing", "ToolCall", "co2_grams"]
