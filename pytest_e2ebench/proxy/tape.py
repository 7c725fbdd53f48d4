"""Record and replay of a run's model calls as they crossed the proxy.

The tape of one run is a folder of numbered answers, ``00000.json``, ``00001.json``, … in the
order they were recorded, each with the request's path, its content hash (:func:`content_hash`)
and newest input (for a miss's note), the HTTP status, the content type and the response body
exactly as the upstream sent it. The same bytes give the same usage, so the metrics replay
exactly.

Replay matches a request to a recorded answer by its **normalised content**: the request with
what varies from one run of the same agent on the same task to the next taken out
(:func:`normalised`). Measured by recording claude-code's run of one task twice and diffing
the requests: ``metadata.user_id`` (a device id and a session id), the run's output folder in
the prompt, the system prompt's working directory and memory folder (also written with
dashes), and "Today's date"; codex's (the same done with codex) its ``prompt_cache_key`` and
``client_metadata`` (session, turn and installation ids), the ids of its input items, the
output folder, ``<current_date>`` and, in each command's output it sends back, a random
"Chunk ID" and the "Wall time". Agents
send side calls concurrently, so arrival order is not stable: an unused recording of the same
content answers first, then a used one (the agent asked the same thing again).

A request no recording matches is a **miss**: with ``match="content"`` (the default,
``--e2e-replay-match``) nothing answers it, and the run is an error that names it (the agent
or its task changed since the recording: the recorded run cannot be replayed). With
``match="position"`` (the lenient mode the proxy had before) it gets the next unused answer in
recorded order, counted as drift.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path

from ..run.cache import write_json
from .dialects import CHAT, GEMINI, MESSAGES, RESPONSES

REPLAY_MATCHES = ("content", "position")  # --e2e-replay-match
# top-level fields of a request that vary by run and never change the answer, per dialect
VARYING_FIELDS = {
    MESSAGES: ("metadata",),  # metadata.user_id: {"device_id", "account_uuid", "session_id"}
    # codex: prompt_cache_key is its session's id; client_metadata its installation's, the
    # session's, the turn's and the window's
    RESPONSES: ("prompt_cache_key", "client_metadata", "metadata", "user", "safety_identifier"),
    CHAT: ("user", "metadata", "prompt_cache_key", "safety_identifier"),
    GEMINI: (),
}
# keys whose values are the ids of a message, a call or its result: renumbered by first use
ID_KEYS = ("id", "tool_use_id", "call_id", "tool_call_id")
# text that varies by run inside any string of a request (the system prompt, tool output)
VARYING_TEXT = (
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    # a command's timing line: pytest's "3 passed in 0.41s", "real 0m1.2s", "took 35 ms"
    (re.compile(r"\b\d+(\.\d+)?\s?(ms|s|seconds)\b"), "<duration>"),
    (re.compile(r"/tmp/tmp[A-Za-z0-9_]{6,}"), "/tmp/<tmp>"),
    (re.compile(r"Chunk ID: [0-9a-f]+"), "Chunk ID: <id>"),  # codex's exec_command output
)
NEWEST_CHARS = 300  # of a request's newest input, kept with its recording for a miss's note


def request_hash(path: str, body: dict) -> str:
    """A stable hash of a request (its path and JSON body, as it came)."""
    blob = json.dumps({"path": path, "body": body}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def normalised(kind: str, body: dict, places: dict[str, str]) -> dict:
    """``body`` without what varies by run: the dialect's :data:`VARYING_FIELDS` dropped,
    ids renumbered in order of first use (:data:`ID_KEYS`), the run's own folders (``places``:
    path -> placeholder, also as the dash-joined names some agents make of them) and
    :data:`VARYING_TEXT` replaced in every string."""
    kept = {k: v for k, v in body.items() if k not in VARYING_FIELDS.get(kind, ())}
    swaps = []
    for path, name in sorted(places.items(), key=lambda p: -len(p[0])):
        swaps += [(path, name), (re.sub(r"[^A-Za-z0-9]", "-", path), name)]
    ids: dict[str, str] = {}

    def text(value: str) -> str:
        for old, new in swaps:
            value = value.replace(old, new)
        for pattern, new in VARYING_TEXT:
            value = pattern.sub(new, value)
        return value

    def walk(value, key: str = ""):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and key in ID_KEYS:
            return ids.setdefault(value, f"<id-{len(ids) + 1}>")
        return text(value) if isinstance(value, str) else value

    return walk(kept)


def content_hash(path: str, kind: str, body: dict, places: dict[str, str]) -> str:
    """The hash replay matches a request by: its path and :func:`normalised` body."""
    return request_hash(path, normalised(kind, body, places))


def newest_input(body: dict) -> str:
    """The newest item of a request's conversation, clipped: what a miss's note shows."""
    for key in ("messages", "input", "contents"):
        items = body.get(key)
        if isinstance(items, list) and items:
            return json.dumps(items[-1], ensure_ascii=False)[:NEWEST_CHARS]
        if isinstance(items, str):
            return items[:NEWEST_CHARS]
    return ""


class Tape:
    """One run's recorded answers under ``root``; ``mode`` is ``record`` or ``replay``;
    ``match`` (replay) is ``content`` or ``position`` (:data:`REPLAY_MATCHES`)."""

    def __init__(
        self, root: Path, mode: str, match: str = "content", places: dict[str, str] | None = None
    ) -> None:
        if mode not in ("record", "replay") or match not in REPLAY_MATCHES:
            raise ValueError((mode, match))
        self.root = root
        self.mode = mode
        self.match = match
        self.places = dict(places or {})  # the run's own folders: path -> placeholder
        self._lock = threading.Lock()
        self._next = 0
        self._entries: list[dict] = []
        self._used: set[int] = set()
        if mode == "replay":
            for path in sorted(root.glob("*.json")):
                self._entries.append(json.loads(path.read_text(encoding="utf-8")))
        else:
            root.mkdir(parents=True, exist_ok=True)
            for stale in root.glob("*.json"):
                stale.unlink()  # a new recording replaces the run's old one

    def __len__(self) -> int:
        return len(self._entries)

    def digest(self, path: str, kind: str, body: dict) -> str:
        """The :func:`content_hash` of a request of this run."""
        return content_hash(path, kind, body, self.places)

    def find(self, digest: str) -> tuple[dict | None, bool]:
        """(the recorded answer for a request of content hash ``digest``, whether it matched
        by content); None when nothing may answer it (a miss, or a spent tape)."""
        with self._lock:
            same = [i for i, e in enumerate(self._entries) if e.get("content") == digest]
            fresh = [i for i in same if i not in self._used]
            if same:
                index = fresh[0] if fresh else same[-1]
                self._used.add(index)
                return self._entries[index], True
            if self.match == "position":
                for index, entry in enumerate(self._entries):
                    if index not in self._used:
                        self._used.add(index)
                        return entry, False
        return None, False

    def miss(self, number: int, path: str, body: dict) -> str:
        """The note of request ``number`` (counted from 1) that no recording matches."""
        dated = any("content" not in e for e in self._entries)
        why = (
            "the tape was recorded before replay matched by content: record it again"
            if dated
            else "the agent or its task changed since it was recorded; record it again"
        )
        return (
            f"--e2e-llm-cache=replay: request {number} to {path} matches no recorded request "
            f"of {len(self._entries)} in {self.root} (its newest input: "
            f"{newest_input(body)!r}); {why}, or replay by position with "
            "--e2e-replay-match=position"
        )

    def add(
        self, digest: str, path: str, status: int, content_type: str, body: bytes, request: dict
    ) -> None:
        """Record one answer (``digest``: the request's :func:`content_hash`)."""
        with self._lock:
            index = self._next
            self._next += 1
        entry = {
            "content": digest,
            "path": path,
            "newest_input": newest_input(request),
            "status": status,
            "content_type": content_type,
            "body": body.decode("utf-8", errors="surrogateescape"),
        }
        write_json(self.root / f"{index:05d}.json", entry)


def body_bytes(entry: dict) -> bytes:
    """A recorded response body as the bytes it was."""
    return str(entry.get("body", "")).encode("utf-8", errors="surrogateescape")
