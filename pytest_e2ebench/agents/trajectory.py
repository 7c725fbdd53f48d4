"""A built-in LLM agent's run (sdagent, vanilla) as an ATIF trajectory (issue 42).

Their ``agent/trajectory.jsonl`` holds each step: the role, the model's answer (text, tool
calls, tokens, cost) and what each tool call returned, so the ATIF document
(:func:`..proxy.atif.document`) has every observation, the last step's too.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..errors import AgentFileError
from ..proxy.atif import ATIF_FILE, document, timestamp
from ..untrusted import parse

MAX_LOG = 256 << 20
NOTE = "from the harness's log of the agent's steps: every tool call with its result"


def write_atif(log: Path, agent: str, model: str) -> Path:
    """``trajectory.atif.json`` beside the agent's step log ``log``; its path."""
    data = parse.read_data(log.parent, log.name, max_bytes=MAX_LOG) or b""
    steps, totals = [], {"prompt_tokens": 0, "completion_tokens": 0, "cached_prompt_tokens": 0}
    cost: float | None = 0.0
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            entry = parse.loads_json(line, "a step of the agent's log")
        except AgentFileError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("completion"), dict):
            step = _step(len(steps) + 1, entry, model)
            steps.append(step)
            for key, field in (("prompt_tokens", "prompt_tokens"),
                               ("completion_tokens", "completion_tokens"),
                               ("cached_prompt_tokens", "cached_tokens")):  # fmt: skip
                totals[key] += step["metrics"][field] or 0
            spent = step["metrics"]["cost_usd"]
            cost = None if cost is None or spent is None else cost + spent
    out = log.parent / ATIF_FILE
    doc = document(steps, agent, __version__, model, {**totals, "cost_usd": cost}, NOTE)
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def _step(number: int, entry: dict, model: str) -> dict:
    completion = entry["completion"]
    seconds = entry.get("seconds")
    step = {
        "step_id": number,
        "timestamp": timestamp(entry.get("time")),
        "source": "agent",
        "model_name": model or None,
        "message": str(completion.get("content") or ""),
        "metrics": {
            "prompt_tokens": completion.get("prompt_tokens"),
            "completion_tokens": completion.get("completion_tokens"),
            "cached_tokens": completion.get("cached_prompt_tokens"),
            "cost_usd": completion.get("cost_usd"),
            "extra": {"latency_s": seconds if isinstance(seconds, int | float) else None},
        },
        "extra": {"role": entry.get("role"), "context_dropped": entry.get("context_dropped")},
    }
    calls = [o for o in entry.get("observations") or () if isinstance(o, dict)]
    if calls:
        step["tool_calls"] = [
            {"tool_call_id": str(o.get("id")), "function_name": str(o.get("name")),
             "arguments": _arguments(o.get("arguments"))}
            for o in calls
        ]  # fmt: skip
        step["observation"] = {
            "results": [
                {"source_call_id": str(o.get("id")), "content": str(o.get("output"))} for o in calls
            ]  # fmt: skip
        }
    return step


def _arguments(text) -> dict:
    try:
        data = parse.loads_json(text or "{}", "a tool call's arguments")
    except AgentFileError:
        data = None
    return data if isinstance(data, dict) else {"raw": str(text)[:2000]}
