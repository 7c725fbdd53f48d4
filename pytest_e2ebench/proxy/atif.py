"""A CLI agent's run as an ATIF trajectory (Agent Trajectory Interchange Format v1.8, issue 42).

The proxy's log (``<run>/agent/proxy.jsonl``, :mod:`.meter`) holds, per model call, the
newest input items of the request and the whole answer. Read in the API of each call
(:mod:`.dialects`), the answers become the agent's steps (its text and tool calls) and the next
request's tool results become their observations, paired by the call's id (by order for
Gemini, whose calls have none). Per step: tokens, cost and the call's latency; at the end, the
run's totals. What a proxy cannot see is not there: the observations of the last step (the
agent ran its tools after its last call, and told no model), and whatever the agent did
without a model. The document is plain JSON (the harness does not depend on the ``atif``
package; the project's tests validate it with its models).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ..errors import AgentFileError
from ..untrusted import parse
from .dialects import CHAT, GEMINI, MESSAGES, RESPONSES

SCHEMA_VERSION = "ATIF-v1.8"
MAX_LOG = 256 << 20  # bytes of a proxy log read
ATIF_FILE = "trajectory.atif.json"
PROXY_NOTE = "from the metering proxy's log: the last step's observations are not in it"


def _json(text) -> object:
    try:  # the model's answer and the agent's request: hostile, through the bounded parser
        return parse.loads_json(text, "a logged model call")
    except AgentFileError:
        return None


def _events(response: str) -> list[dict]:
    """The JSON objects of an answer: the body, each element of a JSON array, or each
    ``data:`` line of an event stream."""
    whole = _json(response)
    if isinstance(whole, dict):
        return [whole]
    if isinstance(whole, list):
        return [e for e in whole if isinstance(e, dict)]
    found = []
    for line in response.splitlines():
        if line.startswith("data:"):
            event = _json(line[5:].strip())
            if isinstance(event, dict):
                found.append(event)
    return found


def _arguments(value) -> dict:
    data = _json(value) if isinstance(value, str) else value
    return data if isinstance(data, dict) else {"raw": str(value)[:2000]}


def _chat(events: list[dict]) -> tuple[str, list[dict]]:
    text, calls = [], {}
    for event in events:
        for choice in event.get("choices") or ():
            part = choice.get("message") or choice.get("delta") or {}
            text.append(str(part.get("content") or ""))
            for n, call in enumerate(part.get("tool_calls") or ()):
                slot = calls.setdefault(call.get("index", n), {"id": "", "name": "", "args": ""})
                function = call.get("function") or {}
                slot["id"] = call.get("id") or slot["id"]
                slot["name"] = function.get("name") or slot["name"]
                slot["args"] += str(function.get("arguments") or "")
    return "".join(text), [calls[k] for k in sorted(calls)]


def _responses(events: list[dict]) -> tuple[str, list[dict]]:
    final = [e.get("response") for e in events if isinstance(e.get("response"), dict)]
    output = (final[-1] if final else events[-1] if events else {}).get("output") or []
    text, calls = [], []
    for item in output:
        if item.get("type") == "message":
            text += [str(c.get("text") or "") for c in item.get("content") or ()]
        elif item.get("type") == "function_call":
            calls.append(
                {
                    "id": item.get("call_id", ""),
                    "name": item.get("name", ""),
                    "args": item.get("arguments", ""),
                }
            )
    return "".join(text), calls


def _messages(events: list[dict]) -> tuple[str, list[dict]]:
    text, blocks = [], {}
    for event in events:
        for n, block in enumerate(event.get("content") or ()):  # a whole answer
            blocks[n] = {"type": block.get("type"), **block}
        if event.get("type") == "content_block_start":
            blocks[event.get("index", len(blocks))] = dict(event.get("content_block") or {})
        if event.get("type") == "content_block_delta":
            block = blocks.setdefault(event.get("index", 0), {"type": "text", "text": ""})
            delta = event.get("delta") or {}
            block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
            block["partial"] = str(block.get("partial") or "") + str(
                delta.get("partial_json") or ""
            )
    calls = []
    for n in sorted(blocks):
        block = blocks[n]
        if block.get("type") == "text":
            text.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use":
            args = block.get("partial") or block.get("input") or {}
            calls.append({"id": block.get("id", ""), "name": block.get("name", ""), "args": args})
    return "".join(text), calls


def _gemini(events: list[dict]) -> tuple[str, list[dict]]:
    text, calls = [], []
    for event in events:
        for candidate in event.get("candidates") or ():
            for part in (candidate.get("content") or {}).get("parts") or ():
                if "text" in part:
                    text.append(str(part["text"]))
                if isinstance(part.get("functionCall"), dict):
                    call = part["functionCall"]
                    calls.append(
                        {"id": "", "name": call.get("name", ""), "args": call.get("args") or {}}
                    )
    return "".join(text), calls


_ANSWERS = {CHAT: _chat, RESPONSES: _responses, MESSAGES: _messages, GEMINI: _gemini}


def _results(kind: str, tail) -> list[tuple[str, str]]:
    """(call id, result text) of the tool results a request carries (its newest items)."""
    found = []
    for item in tail if isinstance(tail, list) else ():
        if not isinstance(item, dict):
            continue
        if kind == CHAT and item.get("role") == "tool":
            found.append((str(item.get("tool_call_id", "")), _text(item.get("content"))))
        elif kind == RESPONSES and item.get("type") == "function_call_output":
            found.append((str(item.get("call_id", "")), _text(item.get("output"))))
        elif kind == MESSAGES and isinstance(item.get("content"), list):
            found += [
                (str(b.get("tool_use_id", "")), _text(b.get("content")))
                for b in item["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            ]
        elif kind == GEMINI:
            found += [
                ("", json.dumps(p["functionResponse"].get("response"))[:100_000])
                for p in item.get("parts") or ()
                if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
            ]
    return found


def _text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(str(v.get("text", "")) if isinstance(v, dict) else str(v) for v in value)
    return json.dumps(value)[:100_000]


def trajectory(log: Path, agent: str, version: str, model: str, summary: dict) -> dict:
    """The ATIF document of the calls in the proxy log ``log`` (harness-written, bounded)."""
    data = parse.read_data(log.parent, log.name, max_bytes=MAX_LOG) or b""
    steps: list[dict] = []
    pending: dict[str, dict] = {}  # call id (or "#n" for Gemini) -> its step's observation
    for line in data.decode("utf-8", "replace").splitlines():
        entry = _json(line)
        if not isinstance(entry, dict) or entry.get("dialect") not in _ANSWERS:
            continue
        kind = entry["dialect"]
        for call_id, result in _results(kind, _json(entry.get("request_tail") or "")):
            key = call_id or next((k for k in pending if k.startswith("#")), "")
            target = pending.pop(key, None)
            if target is not None:
                target["results"].append({"source_call_id": call_id or None, "content": result})
        if not steps:
            steps.append(_prompt_step(entry))
        steps.append(_agent_step(len(steps) + 1, kind, entry, pending))
    return document(steps, agent, version, model, summary, PROXY_NOTE)


def _prompt_step(entry: dict) -> dict:
    """The run's first step: what the agent sent first (its task, as the proxy saw it)."""
    tail = entry.get("request_tail") or ""
    return {"step_id": 1, "source": "user", "message": str(tail)[:100_000]}


def _agent_step(number: int, kind: str, entry: dict, pending: dict) -> dict:
    text, calls = _ANSWERS[kind](_events(str(entry.get("response") or "")))
    step = {
        "step_id": number,
        "timestamp": timestamp(entry.get("time")),
        "source": "agent",
        "model_name": entry.get("model") or None,
        "message": text,
        "metrics": {
            "prompt_tokens": entry.get("prompt", 0),
            "completion_tokens": entry.get("completion", 0),
            "cached_tokens": entry.get("cached", 0),
            "cost_usd": entry.get("cost_usd"),
            "extra": {"latency_s": entry.get("latency_s"), "status": entry.get("status")},
        },
    }
    if calls:
        step["tool_calls"] = [
            {"tool_call_id": c["id"] or f"{number}-{n}", "function_name": c["name"],
             "arguments": _arguments(c["args"])}
            for n, c in enumerate(calls)
        ]  # fmt: skip
        observation = {"results": []}
        step["observation"] = observation
        for n, call in enumerate(calls):
            pending[call["id"] or f"#{number}-{n}"] = observation
    return step


def timestamp(value) -> str | None:
    """An epoch time as ATIF's ISO 8601 timestamp, None when it is not a number."""
    if not isinstance(value, int | float):
        return None
    return dt.datetime.fromtimestamp(value, dt.UTC).isoformat()


def document(steps: list[dict], agent: str, version: str, model: str, summary: dict, notes: str):
    """An ATIF document of ``steps`` (dicts of ATIF's step fields) and the run's totals."""
    for step in steps:  # an observation with no result came back after the log ended
        if step.get("observation") == {"results": []}:
            del step["observation"]
    return {
        "schema_version": SCHEMA_VERSION,
        "agent": {"name": agent, "version": version or "unknown", "model_name": model or None},
        "steps": steps,
        "notes": notes,
        "final_metrics": {
            "total_prompt_tokens": summary.get("prompt_tokens"),
            "total_completion_tokens": summary.get("completion_tokens"),
            "total_cached_tokens": summary.get("cached_prompt_tokens"),
            "total_cost_usd": summary.get("cost_usd"),
            "total_steps": len(steps),
        },
    }


def write(log: Path, out: Path, agent: str, version: str, model: str, summary: dict) -> Path:
    """Write :func:`trajectory` of ``log`` to ``out`` (a JSON file)."""
    document = trajectory(log, agent, version, model, summary)
    out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
