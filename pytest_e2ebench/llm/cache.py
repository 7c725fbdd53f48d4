"""Record and replay LLM answers on disk, so a recorded benchmark re-runs offline.

Answers are stored as a *tape* per conversation scope (agent, task, run, role): the n-th call
of a scope replays the n-th recorded answer. Keying by position rather than by the request's
bytes keeps replay exact even when an observation fed back to the model varies (a test run's
timing line); the request's hash is stored too, and a replay whose request differs from the
recorded one is counted as *drift* in the run's notes.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path

from ..run.cache import write_json
from .base import Completion, LLMUnavailable

LLM_CACHE_MODES = ("off", "record", "replay")  # --e2e-llm-cache


class ReplayMiss(LLMUnavailable):
    """Replay found no recorded answer."""


def request_hash(model: str, messages: list[dict], tools: list[dict] | None, extra: dict) -> str:
    """A stable hash of everything that determines the model's answer."""
    blob = json.dumps(
        {"model": model, "messages": messages, "tools": tools, **extra}, sort_keys=True, default=str
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class CachedLLM:
    """Wraps an LLM with a record/replay tape under ``root``."""

    def __init__(self, inner, root: Path, mode: str) -> None:
        if mode not in LLM_CACHE_MODES:
            raise ValueError(mode)
        self.inner = inner
        self.model = inner.model
        self.root = root
        self.mode = mode
        self.drift = 0
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def _path(self, scope: str, index: int) -> Path:
        safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", scope) or "default"
        return self.root / safe / f"{index:05d}.json"

    def complete(
        self, messages: list[dict], *, tools: list[dict] | None = None, scope: str = ""
    ) -> Completion:
        """Answer from the tape when possible; call the model (and record) otherwise."""
        if self.mode == "off":
            return self.inner.complete(messages, tools=tools, scope=scope)
        with self._lock:
            index = self._counters.get(scope, 0)
            self._counters[scope] = index + 1
        path = self._path(scope, index)
        if path.is_file():
            entry = json.loads(path.read_text(encoding="utf-8"))
            # replay needs no --e2e-model: the recorded one stands in for the comparison
            model = self.model or entry.get("model", "")
            if entry.get("request") != request_hash(model, messages, tools, {}):
                self.drift += 1
            return Completion.from_dict({**entry["completion"], "cached": True})
        digest = request_hash(self.model, messages, tools, {})
        if self.mode == "replay":
            raise ReplayMiss(
                f"--e2e-llm-cache=replay: no recorded answer #{index + 1} for {scope!r} in "
                f"{self.root}; record the run first with --e2e-llm-cache=record"
            )
        completion = self.inner.complete(messages, tools=tools, scope=scope)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(
            path, {"request": digest, "model": self.model, "completion": completion.to_dict()}
        )
        return completion
