"""The OpenAI-compatible client (OpenAI, vLLM, Ollama, llama.cpp server, Gemini's endpoint...).

Retries with exponential backoff on 408/409/429/5xx, timeouts and connection errors are the
``openai`` package's own (``max_retries``); once they are spent the call raises
:class:`~pytest_e2ebench.llm.base.LLMUnavailable`, an infrastructure error.
"""

from __future__ import annotations

from .accounting import Pricing
from .base import Completion, LLMRefused, LLMUnavailable, ToolCall

DEFAULT_TEMPERATURE = 0.2  # E2EDevBench §4.1
DEFAULT_RETRIES = 4
DEFAULT_TIMEOUT = 600.0


class OpenAIChat:
    """Chat completions with function calling through the ``openai`` package."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: str | None,
        pricing: Pricing,
        temperature: float = DEFAULT_TEMPERATURE,
        max_retries: int = DEFAULT_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        import openai  # heavy: imported only when an LLM agent runs

        self.model = model
        self.temperature = temperature
        self.pricing = pricing
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",  # local servers accept any key
            max_retries=max_retries,
            timeout=timeout,
        )

    def complete(
        self, messages: list[dict], *, tools: list[dict] | None = None, scope: str = ""
    ) -> Completion:
        """One chat completion; LLMUnavailable when the endpoint keeps failing."""
        kwargs: dict = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if tools:
            kwargs["tools"] = tools
        try:
            response = self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            mapped = self._unavailable(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        if not isinstance(response, self._openai.types.chat.ChatCompletion):
            # the SDK hands back the body as text when it is not JSON: the endpoint's fault
            raise LLMUnavailable(
                f"{self._client.base_url} answered something that is not a chat completion: "
                f"{str(response)[:200]!r}"
            )
        if not response.choices:
            raise LLMUnavailable(f"{self._client.base_url} answered without choices")
        choice = response.choices[0]
        calls = tuple(
            ToolCall(c.id, c.function.name, c.function.arguments or "{}")
            for c in (choice.message.tool_calls or [])
            if getattr(c, "function", None) is not None
        )
        prompt, completion, cached, written, reasoning = token_counts(response.usage)
        return Completion(
            content=choice.message.content,
            tool_calls=calls,
            finish_reason=choice.finish_reason,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost_usd=self.pricing.cost(self.model, prompt, completion, cached, written),
            co2_g=self.pricing.co2(self.model, prompt - cached + completion),
            cached_prompt_tokens=cached,
            cache_write_prompt_tokens=written,
            reasoning_tokens=reasoning,
            price_source=self.pricing.source(self.model),
        )

    def _unavailable(self, exc: Exception) -> Exception:
        """The error to raise for a failed call (after the client's own retries)."""
        err, url = self._openai, self._client.base_url
        if isinstance(exc, err.APIStatusError):
            if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
                return LLMUnavailable(
                    f"{url} answered {exc.status_code} after retries: {exc.message}"
                )
            return LLMRefused(
                exc.status_code,
                f"{url} refused the request ({exc.status_code}): {exc.message}; "
                "check --e2e-model, the base URL and OPENAI_API_KEY",
            )
        if isinstance(exc, err.APIConnectionError | err.APITimeoutError):
            return LLMUnavailable(f"{url} did not answer after retries: {exc}")
        # Under load the client has been seen to let its transport's timeout escape unwrapped:
        # anything from the HTTP stack is the endpoint's problem, not the model's.
        if type(exc).__module__.split(".")[0].startswith(("httpx", "httpcore")):
            return LLMUnavailable(f"{url} did not answer: {exc!r}")
        return exc


def _count(data, *path: str) -> int:
    """The token count at ``path`` in a usage object of the SDK (or its extra fields), 0 if none."""
    for key in path:
        data = getattr(data, key, None) if not isinstance(data, dict) else data.get(key)
    return data if isinstance(data, int) and not isinstance(data, bool) and data > 0 else 0


def token_counts(usage) -> tuple[int, int, int, int, int]:
    """(prompt, completion, cached, cache-written, reasoning) tokens of a chat completion's
    ``usage``. Cached: ``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM and llama.cpp report
    them there), cheaper where priced so and no forward pass for the CO2 estimate; written to the
    cache: ``prompt_tokens_details.cache_write_tokens`` or ``cache_creation_input_tokens`` (what
    gateways in front of Anthropic report); reasoning: ``completion_tokens_details
    .reasoning_tokens``, part of the completion tokens."""
    prompt, completion = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
    cached = min(prompt, _count(usage, "prompt_tokens_details", "cached_tokens"))
    written = _count(usage, "prompt_tokens_details", "cache_write_tokens") or _count(
        usage, "cache_creation_input_tokens"
    )
    reasoning = _count(usage, "completion_tokens_details", "reasoning_tokens")
    return prompt, completion, cached, min(prompt - cached, written), min(completion, reasoning)
