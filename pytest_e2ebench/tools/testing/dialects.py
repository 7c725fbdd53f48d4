"""The scripted server's answers in each API a CLI agent speaks (for :mod:`.scripted_llm`).

A script step is written once, as a chat completion (text and/or function calls); these
functions turn that chat completion into what the agent's own client expects:

* OpenAI chat completions, whole or streamed (``chat.completion.chunk`` events, then a usage
  chunk and ``[DONE]``);
* Anthropic Messages (``text`` and ``tool_use`` content blocks; streamed as ``message_start``,
  ``content_block_*``, ``message_delta``, ``message_stop``);
* OpenAI Responses (``message`` and ``function_call`` output items; streamed as
  ``response.created``, ``response.output_item.added``/``done``, ``response.completed``).

Errors are given the shape of each API (:func:`error_payload`).
"""

from __future__ import annotations

import json
import re
from typing import Any

CHAT, MESSAGES, RESPONSES, GEMINI = "chat", "messages", "responses", "gemini"
PATHS = {"/v1/chat/completions": CHAT, "/v1/messages": MESSAGES, "/v1/responses": RESPONSES}
_GEMINI = re.compile(r"^/v1(beta)?/models/[^/:]+:(stream)?[gG]enerateContent$")


def kind_of(path: str) -> str | None:
    """The API of a request path (query removed), or None."""
    if path in PATHS:
        return PATHS[path]
    return GEMINI if _GEMINI.match(path) else None


def streams(kind: str, path: str, body: dict) -> bool:
    """Whether the request asks for a stream (Gemini says so in its path)."""
    return "streamGenerateContent" in path if kind == GEMINI else bool(body.get("stream"))


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    lines = []
    for name, data in events:
        if name:
            lines.append(f"event: {name}")
        lines.append("data: " + (data if isinstance(data, str) else json.dumps(data)))
        lines.append("")
    return ("\n".join(lines) + "\n").encode()


def _parts(chat: dict) -> tuple[dict, str | None, list[dict], dict]:
    choice = chat["choices"][0]
    message = choice["message"]
    return choice, message.get("content"), message.get("tool_calls") or [], chat["usage"]


def _details(usage: dict) -> tuple[int, int, int]:
    """(cached, cache-written, reasoning) tokens of a scripted chat completion's usage."""
    prompt = usage.get("prompt_tokens_details") or {}
    completion = usage.get("completion_tokens_details") or {}
    return (
        prompt.get("cached_tokens", 0),
        prompt.get("cache_write_tokens", 0),
        completion.get("reasoning_tokens", 0),
    )


def _arguments(call: dict) -> Any:
    try:
        return json.loads(call["function"]["arguments"])
    except ValueError:
        return {}  # a scripted malformed call: the API's object form cannot carry it


def render(kind: str, chat: dict, stream: bool) -> tuple[str, bytes]:
    """(content type, body) of the scripted chat completion ``chat`` in ``kind``'s API."""
    if kind == MESSAGES:
        message = anthropic_message(chat)
        if stream:
            return "text/event-stream", _sse(anthropic_events(message))
        return "application/json", json.dumps(message).encode()
    if kind == RESPONSES:
        response = responses_object(chat)
        if stream:
            return "text/event-stream", _sse(responses_events(response))
        return "application/json", json.dumps(response).encode()
    if kind == GEMINI:
        answer = gemini_response(chat)
        if stream:
            return "text/event-stream", _sse([(None, answer)])
        return "application/json", json.dumps(answer).encode()
    if stream:
        return "text/event-stream", _sse(chat_chunks(chat))
    return "application/json", json.dumps(chat).encode()


def gemini_response(chat: dict) -> dict:
    """A chat completion as a Gemini ``GenerateContentResponse``."""
    _, content, calls, usage = _parts(chat)
    parts: list[dict] = [{"text": content}] if content else []
    for call in calls:
        parts.append({"functionCall": {"name": call["function"]["name"], "args": _arguments(call)}})
    cached, _, reasoning = _details(usage)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": usage["prompt_tokens"],
            # Gemini counts the thoughts apart from the candidates' tokens
            "candidatesTokenCount": usage["completion_tokens"] - reasoning,
            "cachedContentTokenCount": cached,
            **({"thoughtsTokenCount": reasoning} if reasoning else {}),
            "totalTokenCount": usage["total_tokens"],
        },
        "modelVersion": chat["model"],
    }


def chat_chunks(chat: dict) -> list[tuple[str | None, Any]]:
    """A chat completion as the stream of chunks an OpenAI client reassembles."""
    choice, content, calls, usage = _parts(chat)
    head = {k: chat[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    delta: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)]
    chunks: list[tuple[str | None, Any]] = [
        (None, {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        (
            None,
            {
                **head,
                "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            },
        ),
        (None, {**head, "choices": [], "usage": usage}),
        (None, "[DONE]"),
    ]
    return chunks


def anthropic_message(chat: dict) -> dict:
    """A chat completion as an Anthropic Messages response."""
    _, content, calls, usage = _parts(chat)
    blocks: list[dict] = []
    if content:
        blocks.append({"type": "text", "text": content})
    for call in calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": "toolu_" + call["id"],
                "name": call["function"]["name"],
                "input": _arguments(call),
            }
        )
    cached, written, _ = _details(usage)
    return {
        "id": "msg_" + chat["id"],
        "type": "message",
        "role": "assistant",
        "model": chat["model"],
        "content": blocks,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage["prompt_tokens"] - cached - written,
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": written,
            "output_tokens": usage["completion_tokens"],
        },
    }


def anthropic_events(message: dict) -> list[tuple[str | None, Any]]:
    """An Anthropic message as its event stream."""
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": empty},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def responses_object(chat: dict) -> dict:
    """A chat completion as an OpenAI Responses ``response`` object."""
    _, content, calls, usage = _parts(chat)
    output: list[dict] = []
    if content:
        output.append(
            {
                "type": "message",
                "id": "msg_" + chat["id"],
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": content, "annotations": []}],
            }
        )
    for call in calls:
        output.append(
            {
                "type": "function_call",
                "id": "fc_" + call["id"],
                "call_id": call["id"],
                "status": "completed",
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            }
        )
    cached, _, reasoning = _details(usage)
    return {
        "id": "resp_" + chat["id"],
        "object": "response",
        "created_at": chat["created"],
        "status": "completed",
        "model": chat["model"],
        "output": output,
        "usage": {
            "input_tokens": usage["prompt_tokens"],
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": usage["total_tokens"],
        },
    }


def responses_events(response: dict) -> list[tuple[str | None, Any]]:
    """A Responses object as its event stream."""
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": pending})
    ]
    for index, item in enumerate(response["output"]):
        added = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []  # a text delta needs its item announced first (codex)
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": added},
            )
        )
        if item["type"] == "message":
            delta = {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": index,
                "content_index": 0,
                "delta": item["content"][0]["text"],
            }
            events.append(("response.output_text.delta", delta))
        done = {"type": "response.output_item.done", "output_index": index, "item": item}
        events.append(("response.output_item.done", done))
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return events


def error_payload(kind: str, status: int, body: dict) -> dict:
    """An OpenAI-style error ``body`` in ``kind``'s shape."""
    if kind == GEMINI:
        message = body.get("error", {}).get("message", "")
        return {"error": {"code": status, "message": message, "status": "UNAVAILABLE"}}
    if kind != MESSAGES:
        return body
    message = body.get("error", {}).get("message", "")
    kind_name = (
        "rate_limit_error"
        if status == 429
        else ("api_error" if status >= 500 else "invalid_request_error")
    )
    return {"type": "error", "error": {"type": kind_name, "message": message}}
