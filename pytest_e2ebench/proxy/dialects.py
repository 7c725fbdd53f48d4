"""The LLM APIs the metering proxy speaks, and where each puts its token counts.

Every dialect is recognised by its request path; a response (a JSON body, or a server-sent
event stream when the agent asked to stream) is read for usage the way that API reports it:

* OpenAI chat completions (``/chat/completions``): ``usage.prompt_tokens``,
  ``completion_tokens``, ``prompt_tokens_details.cached_tokens``,
  ``completion_tokens_details.reasoning_tokens``, and the cache writes a gateway in front of
  Anthropic reports (``prompt_tokens_details.cache_write_tokens``, litellm's
  ``cache_creation_input_tokens``); a stream reports usage in its last chunk only when asked
  (``stream_options.include_usage``), which the proxy adds;
* OpenAI Responses (``/responses``): ``response.usage.input_tokens``, ``output_tokens``,
  ``input_tokens_details.cached_tokens``, ``output_tokens_details.reasoning_tokens`` (in the
  ``response.completed`` event when streaming);
* Anthropic Messages (``/messages``): ``usage.input_tokens`` (the uncached part),
  ``cache_read_input_tokens``, ``cache_creation_input_tokens`` (the cache writes),
  ``output_tokens``; a stream gives the input in ``message_start`` and the running output count
  in ``message_delta``;
* Gemini (``…:generateContent``, ``…:streamGenerateContent``): ``usageMetadata``
  (``promptTokenCount``, ``candidatesTokenCount``, ``cachedContentTokenCount``,
  ``thoughtsTokenCount``: reasoning, billed as output and outside ``candidatesTokenCount``).
"""

from __future__ import annotations

import dataclasses
import re

from ..errors import AgentFileError
from ..untrusted.parse import loads_json

CHAT, RESPONSES, MESSAGES, GEMINI = "chat", "responses", "messages", "gemini"
_GEMINI_PATH = re.compile(r"/models/(?P<model>[^/:]+):(?P<verb>stream)?[gG]enerateContent$")


@dataclasses.dataclass
class Usage:
    """Tokens of one model call: ``prompt`` counts every input token, ``cached`` those of them
    served from the provider's prompt cache and ``cache_write`` those written to it;
    ``completion`` counts every output token, ``reasoning`` those of them the model thought."""

    prompt: int = 0
    completion: int = 0
    cached: int = 0
    cache_write: int = 0
    reasoning: int = 0

    def to_dict(self) -> dict:
        """JSON-able form."""
        return dataclasses.asdict(self)


def dialect(path: str) -> str | None:
    """The API a request path belongs to (query string already removed), or None."""
    if path.endswith("/chat/completions"):
        return CHAT
    if path.endswith("/responses"):
        return RESPONSES
    if path.endswith("/messages"):
        return MESSAGES
    if _GEMINI_PATH.search(path):
        return GEMINI
    return None


def request_model(kind: str, path: str, body: dict) -> str:
    """The model a request asks for (Gemini names it in the path)."""
    if kind == GEMINI:
        match = _GEMINI_PATH.search(path)
        return match.group("model") if match else ""
    model = body.get("model")
    return model if isinstance(model, str) else ""


def prepare(kind: str, body: dict) -> dict:
    """The request as forwarded: a streamed chat completion asks for its usage."""
    if kind == CHAT and body.get("stream"):
        options = body.get("stream_options")
        options = dict(options) if isinstance(options, dict) else {}
        options["include_usage"] = True
        return {**body, "stream_options": options}
    return body


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _events(body: bytes, content_type: str) -> list[dict]:
    """The JSON objects of a response: the body itself, or each ``data:`` line of a stream."""
    text = body.decode("utf-8", errors="replace")
    if "text/event-stream" not in content_type:
        try:  # the model's answer is the agent's side: hostile, bounded
            data = loads_json(text, "the model's answer")
        except AgentFileError:
            return []
        if isinstance(data, list):  # Gemini's non-SSE stream is one JSON array
            return [d for d in data if isinstance(d, dict)]
        return [data] if isinstance(data, dict) else []
    found = []
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                data = loads_json(line[5:].strip(), "the model's streamed answer")
            except AgentFileError:
                continue  # "[DONE]"
            if isinstance(data, dict):
                found.append(data)
    return found


def usage(kind: str, body: bytes, content_type: str) -> Usage:
    """What one response says it cost, in tokens (zeros where it says nothing)."""
    found = Usage()
    for event in _events(body, content_type):
        if kind == CHAT:
            _openai(found, event.get("usage"), "prompt_tokens", "completion_tokens")
        elif kind == RESPONSES:
            _openai(
                found,
                _get(event, "response", "usage") or event.get("usage"),
                "input_tokens",
                "output_tokens",
            )
        elif kind == MESSAGES:
            _anthropic(found, _get(event, "message", "usage") or event.get("usage"))
        elif kind == GEMINI:
            _gemini(found, event.get("usageMetadata"))
    return found


def _openai(found: Usage, data, prompt_key: str, completion_key: str) -> None:
    if not isinstance(data, dict):
        return
    found.prompt = _int(data.get(prompt_key))
    found.completion = _int(data.get(completion_key))
    details = data.get("prompt_tokens_details") or data.get("input_tokens_details")
    found.cached = min(found.prompt, _int(_get(details, "cached_tokens")))
    written = _int(_get(details, "cache_write_tokens")) or _int(
        data.get("cache_creation_input_tokens")
    )
    found.cache_write = min(found.prompt - found.cached, written)
    out = data.get("completion_tokens_details") or data.get("output_tokens_details")
    found.reasoning = min(found.completion, _int(_get(out, "reasoning_tokens")))


def _anthropic(found: Usage, data) -> None:
    """message_start carries the input, message_delta a running output count (latest wins)."""
    if not isinstance(data, dict):
        return
    if "input_tokens" in data:
        cached = _int(data.get("cache_read_input_tokens"))
        created = _int(data.get("cache_creation_input_tokens"))
        found.prompt = _int(data.get("input_tokens")) + cached + created
        found.cached = cached
        found.cache_write = created
    if "output_tokens" in data:
        found.completion = _int(data.get("output_tokens"))


def _gemini(found: Usage, data) -> None:
    if not isinstance(data, dict):
        return
    found.prompt = _int(data.get("promptTokenCount"))
    found.reasoning = _int(data.get("thoughtsTokenCount"))
    found.completion = _int(data.get("candidatesTokenCount")) + found.reasoning
    found.cached = min(found.prompt, _int(data.get("cachedContentTokenCount")))


def error_body(kind: str, status: int, message: str) -> dict:
    """An error in the shape the agent's client expects for its API."""
    if kind == MESSAGES:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if kind == GEMINI:
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}
