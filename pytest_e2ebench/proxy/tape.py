"""Record and replay of a run's model calls as they crossed the proxy.

The tape of one run is a folder of numbered answers, ``00000.json``, ``00001.json``, … in the
order they were recorded, each with the request's path and hash, the HTTP status, the content
type and the response body exactly as the upstream sent it. Replay answers a request with the
recorded entry of the same hash not used yet (agents send side calls concurrently, so arrival
order is not stable) and otherwise with the next unused entry in recorded order, counting the
mismatch as drift. The same bytes give the same usage, so the metrics replay exactly.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from ..run.cache import write_json


def request_hash(path: str, body: dict) -> str:
    """A stable hash of a request (its path and JSON body)."""
    blob = json.dumps({"path": path, "body": body}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class Tape:
    """One run's recorded answers under ``root``; ``mode`` is ``record`` or ``replay``."""

    def __init__(self, root: Path, mode: str) -> None:
        if mode not in ("record", "replay"):
            raise ValueError(mode)
        self.root = root
        self.mode = mode
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

    def find(self, digest: str) -> tuple[dict | None, bool]:
        """(the recorded answer for a request, whether it matched by hash); None when spent."""
        with self._lock:
            for index, entry in enumerate(self._entries):
                if index not in self._used and entry.get("request") == digest:
                    self._used.add(index)
                    return entry, True
            for index, entry in enumerate(self._entries):
                if index not in self._used:
                    self._used.add(index)
                    return entry, False
        return None, False

    def add(self, digest: str, path: str, status: int, content_type: str, body: bytes) -> None:
        """Record one answer."""
        with self._lock:
            index = self._next
            self._next += 1
        entry = {
            "request": digest,
            "path": path,
            "status": status,
            "content_type": content_type,
            "body": body.decode("utf-8", errors="surrogateescape"),
        }
        write_json(self.root / f"{index:05d}.json", entry)


def body_bytes(entry: dict) -> bytes:
    """A recorded response body as the bytes it was."""
    return str(entry.get("body", "")).encode("utf-8", errors="surrogateescape")
