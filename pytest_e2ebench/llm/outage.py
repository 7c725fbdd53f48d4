"""An LLM endpoint that is down: refused once at session start, and fast once it goes away.

An outage is the harness's call, never an agent's: the harness asks the endpoint before the
first run (:func:`probe`), and its own client wrapper (:class:`Guarded`) notes the first call
that fails after the client's retries. From then on every call of the session fails at once with
one short line, in every xdist worker (the note is a file under ``--e2e-out`` stamped with the
session's start), and a run during which the endpoint went away is an infrastructure error even
when its agent caught the exception.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

from .base import Completion, LLMUnavailable

OUTAGE_FILE = ".llm-outage.json"  # under --e2e-out
PROBE_TIMEOUT = 2.5  # seconds per attempt: a models list answers at once when the server is up
PROBE_ATTEMPTS = 2
PROBE_PAUSE = 0.5


def probe(base_url: str, api_key: str | None, attempts: int = PROBE_ATTEMPTS) -> str | None:
    """None when the endpoint answers ``GET <base_url>/models``; else why not, in one line.

    Any answer below 500 except 401/403 means a server is there (some serve no models list).
    """
    url = f"{base_url.rstrip('/')}/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    reason = "no attempt"
    for attempt in range(max(1, attempts)):
        if attempt:
            time.sleep(PROBE_PAUSE)
        try:
            with urllib.request.urlopen(
                urllib.request.Request(url, headers=headers), timeout=PROBE_TIMEOUT
            ):
                return None
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                return f"{url} refused the key ({exc.code}): check OPENAI_API_KEY"
            if exc.code < 500:
                return None
            reason = f"{url} answered {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            cause = getattr(exc, "reason", exc)
            reason = f"{url} did not answer ({cause})"
    return reason


class Outage:
    """This session's note that the endpoint is gone (shared by the xdist workers)."""

    def __init__(self, path: Path, session: float) -> None:
        self.path = path
        self.session = session
        self.noted_at: float | None = None  # monotonic time this process noted it

    def current(self) -> dict | None:
        """The note of this session, if any (an older session's note is stale)."""
        try:
            note = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return note if note.get("session") == self.session else None

    def note(self, message: str, scope: str) -> None:
        """Remember the first failure of the session (later ones keep the first note)."""
        self.noted_at = time.monotonic()
        if self.current() is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"session": self.session, "message": message, "scope": scope}))
        os.replace(tmp, self.path)

    def check(self) -> None:
        """LLMUnavailable, in one short line, once the endpoint is known to be gone."""
        note = self.current()
        if note is not None:
            raise LLMUnavailable(
                f"the endpoint is gone (since {note['scope'] or 'an earlier call'}); "
                "not called again this session"
            )

    def since(self, start: float) -> bool:
        """Whether this process noted the outage at or after ``start`` (monotonic)."""
        return self.noted_at is not None and self.noted_at >= start


class Guarded:
    """Wraps the live client: calls fail fast once the session has found the endpoint gone."""

    def __init__(self, inner, outage: Outage) -> None:
        self.inner = inner
        self.model = inner.model
        self.outage = outage

    def complete(
        self, messages: list[dict], *, tools: list[dict] | None = None, scope: str = ""
    ) -> Completion:
        """The inner client's answer; LLMUnavailable at once after an outage."""
        self.outage.check()
        try:
            return self.inner.complete(messages, tools=tools, scope=scope)
        except LLMUnavailable as exc:
            if exc.outage:
                self.outage.note(str(exc).removeprefix("[llm] "), scope)
            raise
