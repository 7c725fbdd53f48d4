"""What an agent may ask the proxy: an allow-list of request targets, the run's model, and the
output cap a budget leaves a call (issue 40).

The proxy is a model boundary, not a relay. A request target is taken only when it is exactly
one of the dialects' paths (:data:`PATHS`, Gemini's model path) with at most the query keys its
clients use (:data:`QUERY`); anything else (a fragment, a dot segment, a percent-escape, a
control character, another path, another query) is the agent's 404 and never reaches the
upstream, whose URL is built from the table, never from the agent's text. The model the
upstream is asked for is the run's (or one the user allowed for the agent). A call's worst case
in tokens is its prompt's estimate plus its output cap: a budget lowers the cap to what is
left, counting the calls in flight (:meth:`.meter.Meter.grant`).
"""

from __future__ import annotations

import dataclasses
import re

from .dialects import CHAT, GEMINI, MESSAGES, RESPONSES

MAX_TARGET = 512  # characters of a request target
# the agent's path -> (dialect, the path under the upstream's base URL)
PATHS = {
    "/v1/chat/completions": (CHAT, "chat/completions"),
    "/v1/responses": (RESPONSES, "responses"),
    "/v1/messages": (MESSAGES, "messages"),
}
_GEMINI = re.compile(
    r"/(?:v1|v1beta)/models/(?P<model>[A-Za-z0-9][A-Za-z0-9._-]{0,127})"
    r":(?P<verb>generateContent|streamGenerateContent)"
)
# query keys the clients send, and their values: Claude Code's ``?beta=true``, Gemini's SSE
QUERY = {"beta": ("true",), "alt": ("sse",)}
DEFAULT_CAP = 32_768  # output tokens assumed for a call that names no cap
BYTES_PER_TOKEN = 3  # a prompt's token estimate: its JSON's bytes / 3 (tokens are ~4 chars)
# where each dialect's request names its output cap
_CAPS = {
    CHAT: ("max_completion_tokens", "max_tokens"),
    RESPONSES: ("max_output_tokens",),
    MESSAGES: ("max_tokens",),
}


@dataclasses.dataclass(frozen=True)
class Route:
    """An allowed request: its dialect, the path under the upstream's base, the query kept,
    and (Gemini) the model its path names and its verb."""

    kind: str
    suffix: str
    query: str = ""
    model: str = ""
    verb: str = ""

    def upstream_path(self, model: str) -> str:
        """The path under the upstream's base, for ``model`` where the path names it."""
        path = f"models/{model}:{self.verb}" if self.kind == GEMINI else self.suffix
        return f"{path}?{self.query}" if self.query else path


def route(target: str) -> Route | str:
    """The route of a request target (path and query as sent), or why it is refused."""
    if len(target) > MAX_TARGET or not all("!" <= c <= "~" for c in target):
        return "a request target of control, space or non-ASCII characters, or too long"
    if "#" in target or "%" in target or "\\" in target:
        return "a request target with a fragment, an escape or a backslash"
    path, _, query = target.partition("?")
    kept = _query(query)
    if kept is None:
        return f"a query the API does not take ({query[:80]!r})"
    if path in PATHS:
        kind, suffix = PATHS[path]
        return Route(kind, suffix, kept)
    found = _GEMINI.fullmatch(path)
    if found:
        return Route(GEMINI, "", kept, found["model"], found["verb"])
    return f"{path[:120]}: not an API path of the benchmark's proxy"


def _query(query: str) -> str | None:
    """The query's allowed ``key=value`` pairs, joined; None when any other is there."""
    if not query:
        return ""
    pairs = query.split("&")
    keys = [p.partition("=")[0] for p in pairs]
    if len(set(keys)) != len(keys):
        return None
    for key, _, value in (p.partition("=") for p in pairs):
        if value not in QUERY.get(key, ()):
            return None
    return query


def pinned(kind: str, route_: Route, body: dict, model: str, allowed: frozenset[str]):
    """(body, the model called, the model asked) with the run's ``model`` in place of any
    the agent asked that is neither it nor in ``allowed``; unchanged without a run model."""
    asked = route_.model if kind == GEMINI else body.get("model")
    asked = asked if isinstance(asked, str) else ""
    if not model or asked == model or asked in allowed:
        return body, asked or model, asked
    if kind == GEMINI:
        return body, model, asked
    return {**body, "model": model}, model, asked


def output_cap(kind: str, body: dict) -> int:
    """The output cap a request names (the smallest of its dialect's fields), else
    :data:`DEFAULT_CAP`."""
    found = [_cap_value(body, field) for field in _CAPS.get(kind, ())]
    if kind == GEMINI:
        config = body.get("generationConfig")
        found.append(_cap_value(config, "maxOutputTokens") if isinstance(config, dict) else None)
    caps = [c for c in found if c is not None]
    return min(caps) if caps else DEFAULT_CAP


def _cap_value(data: dict, field: str) -> int | None:
    value = data.get(field)
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def with_cap(kind: str, body: dict, cap: int) -> dict:
    """``body`` asking for at most ``cap`` output tokens (never more than it asked)."""
    if kind == GEMINI:
        config = body.get("generationConfig")
        config = dict(config) if isinstance(config, dict) else {}
        config["maxOutputTokens"] = min(cap, _cap_value(config, "maxOutputTokens") or cap)
        return {**body, "generationConfig": config}
    fields = _CAPS[kind]
    field = next((f for f in fields if _cap_value(body, f) is not None), fields[-1])
    return {**body, field: min(cap, _cap_value(body, field) or cap)}


def prompt_estimate(raw: bytes) -> int:
    """Tokens a request's prompt may cost, from its size (:data:`BYTES_PER_TOKEN`)."""
    return len(raw) // BYTES_PER_TOKEN + 1
