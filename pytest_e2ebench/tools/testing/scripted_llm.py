"""A scripted OpenAI-compatible chat-completions server for tests (standard library only).

No model is reachable from the test machines, so tests of anything that talks to an LLM point a
real OpenAI client at a :class:`ScriptedLLM` instead::

    from openai import OpenAI
    from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply, tool_call

    with ScriptedLLM([tool_call("read_file", {"path": "a.py"}), error(500), reply("done")]) as llm:
        client = OpenAI(base_url=llm.base_url, api_key="test", max_retries=0)
        ...
        assert llm.remaining() == 0 and llm.exhausted_hits == 0

The server listens on ``127.0.0.1`` on an ephemeral port and serves, from a daemon thread:

* ``POST /v1/chat/completions``, ``/v1/messages`` (Anthropic), ``/v1/responses`` (OpenAI
  Responses) and ``/v1beta/models/M:generateContent`` (Gemini, or ``streamGenerateContent``):
  each request consumes the next *step* of the script, in order of arrival (one lock
  serialises the choice of step, so concurrent requests are answered in script
  order). Every parsed JSON body is appended to :attr:`ScriptedLLM.requests` in that same order.
  When the script is exhausted the answer is a 500 error ``"script exhausted"`` and
  :attr:`ScriptedLLM.exhausted_hits` is incremented. A step is written as a chat completion
  and answered in the request's API, whole or streamed (``"stream": true``) as that API
  streams (:mod:`.dialects`), so CLI agents' own clients can be driven by a script.
* ``GET /v1/models``: a one-entry model list with the server's ``model`` id.
* anything else: a 404 JSON error.

Steps are built with :func:`reply`, :func:`tool_call`, :func:`tool_calls`, :func:`error` and
:func:`hang`; a bare ``str`` is shorthand for ``reply(str)``, and a callable
``fn(request_body) -> step`` computes the step from the request (see :data:`Step`).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any, TypeAlias

from ...proxy.server import LoopbackServer
from .dialects import error_payload, kind_of, render, streams

__all__ = [
    "ScriptedLLM",
    "Step",
    "error",
    "hang",
    "reply",
    "tool_call",
    "tool_calls",
]

# what a request's prompt is made of, in each API (chat, Messages, Responses)
PROMPT_KEYS = (
    "messages",
    "tools",
    "system",
    "input",
    "instructions",
    "contents",
    "systemInstruction",
)
CREATED = 1_700_000_000  # the fixed ``created`` timestamp of every completion and model

# Default OpenAI error ``type`` and ``code`` per status; other 4xx: "invalid_request_error"
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("not_found_error", None),
    408: ("timeout_error", None),
    409: ("conflict_error", None),
    422: ("invalid_request_error", None),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


@dataclasses.dataclass(frozen=True)
class _Message:
    """An assistant message: text content and/or tool calls."""

    content: str | None
    calls: tuple[tuple[str, str, str | None], ...] = ()  # (name, JSON arguments, explicit id)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # reported as usage.prompt_tokens_details.cached_tokens
    # of the prompt tokens, those written to the prompt cache (Anthropic's
    # cache_creation_input_tokens; usage.prompt_tokens_details.cache_write_tokens in chat form)
    cache_write_tokens: int | None = None
    # of the completion tokens, the reasoning ones (completion_tokens_details.reasoning_tokens)
    reasoning_tokens: int | None = None


@dataclasses.dataclass(frozen=True)
class _Error:
    """An HTTP error answer, repeated for ``times`` consecutive requests."""

    status: int
    message: str
    type: str
    code: str | None
    times: int = 1
    retry_after: float | None = None


@dataclasses.dataclass(frozen=True)
class _Hang:
    """A delay before the request is answered by the step that follows."""

    seconds: float


Step: TypeAlias = "_Message | _Error | _Hang | str | Callable[[dict[str, Any]], Step]"
"""One entry of a script: what :func:`reply`, :func:`tool_call`, :func:`tool_calls`,
:func:`error` and :func:`hang` return, a ``str`` (shorthand for ``reply(str)``), or a callable
that receives the parsed request body and returns one of those (its result may itself be a
callable, which is called in turn; an ``error(..., times=n)`` it returns answers only this one
request)."""


def reply(
    content: str,
    *,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cached_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> _Message:
    """An assistant message with text ``content``; ``finish_reason`` is ``"stop"``.

    Token counts left as ``None`` get the server's deterministic defaults (see
    :class:`ScriptedLLM`); ``cached_tokens`` (of the prompt tokens, served from the server's
    prompt cache) and ``cache_write_tokens`` (of them, written to it) are reported in
    ``usage.prompt_tokens_details`` when given, ``reasoning_tokens`` (of the completion tokens)
    in ``usage.completion_tokens_details``; each API's form carries them as that API does.
    """
    if not isinstance(content, str):
        raise TypeError(f"reply content must be a str, not {type(content).__name__}")
    return _Message(
        content,
        (),
        prompt_tokens,
        completion_tokens,
        cached_tokens,
        cache_write_tokens,
        reasoning_tokens,
    )


def tool_call(
    name: str,
    arguments: dict[str, Any] | str,
    *,
    call_id: str | None = None,
    content: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cached_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> _Message:
    """An assistant message calling one function tool; ``finish_reason`` is ``"tool_calls"``.

    ``arguments`` is JSON-encoded into the call's ``arguments`` string; a ``str`` is sent verbatim
    (to script malformed arguments). Without ``call_id`` the server assigns ``call_<n>``, with
    ``n`` counting from 1 over all calls this server has answered.
    """
    return tool_calls(
        [(name, arguments, call_id)],
        content=content,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cached_tokens=cached_tokens,
        cache_write_tokens=cache_write_tokens,
        reasoning_tokens=reasoning_tokens,
    )


def tool_calls(
    calls: Iterable[
        tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str | None]
    ],
    *,
    content: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cached_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> _Message:
    """An assistant message calling several function tools at once, in the given order.

    Each call is ``(name, arguments)`` or ``(name, arguments, call_id)``, as in :func:`tool_call`.
    """
    encoded: list[tuple[str, str, str | None]] = []
    for call in calls:
        if len(call) == 2:
            name, arguments = call  # type: ignore[misc]
            call_id = None
        elif len(call) == 3:
            name, arguments, call_id = call  # type: ignore[misc]
        else:
            raise ValueError(f"a tool call is (name, arguments[, call_id]), got {call!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool call needs a non-empty str name, got {name!r}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        encoded.append((name, arguments, call_id))
    if not encoded:
        raise ValueError("tool_calls needs at least one call")
    return _Message(
        content,
        tuple(encoded),
        prompt_tokens,
        completion_tokens,
        cached_tokens,
        cache_write_tokens,
        reasoning_tokens,
    )


def error(
    status: int,
    message: str = "scripted failure",
    *,
    times: int = 1,
    retry_after: float | None = None,
    type: str | None = None,
    code: str | None = None,
) -> _Error:
    """Answer ``times`` consecutive requests with HTTP ``status`` and an OpenAI-style error body.

    The body is ``{"error": {"message", "type", "param": null, "code"}}``; ``type`` and ``code``
    default from the status (429: ``rate_limit_error``/``rate_limit_exceeded``, 5xx:
    ``server_error``, ...). ``retry_after`` (seconds, fractions allowed, as the openai client
    accepts) is sent as a ``Retry-After`` header. In the script it counts as ``times`` steps.
    """
    if not 400 <= status <= 599:
        raise ValueError(f"error status must be 4xx or 5xx, got {status}")
    if times < 1:
        raise ValueError(f"times must be at least 1, got {times}")
    if retry_after is not None and retry_after < 0:
        raise ValueError(f"retry_after must not be negative, got {retry_after}")
    default_type, default_code = _ERROR_KINDS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return _Error(
        status,
        message,
        type if type is not None else default_type,
        code if code is not None else default_code,
        times,
        retry_after,
    )


def hang(seconds: float) -> _Hang:
    """Delay the answer to a request by ``seconds`` (to provoke client timeouts).

    Exact semantics: a hang is not an answer of its own. The request that reaches it also takes
    the step right after it (atomically, so a concurrent request cannot slip in between), sleeps
    ``seconds``, then answers with that step; consecutive hangs add up, and a hang at the end of
    the script delays the "script exhausted" error. The step is consumed even when the client
    gives up before the answer. :meth:`ScriptedLLM.stop` cuts running hangs short. A hang counts
    as one step in :meth:`ScriptedLLM.remaining`.
    """
    if seconds < 0:
        raise ValueError(f"hang seconds must not be negative, got {seconds}")
    return _Hang(float(seconds))


def _checked(step: object) -> _Message | _Error | _Hang | Callable[[dict[str, Any]], Step]:
    """``step`` with a bare str turned into a reply; TypeError for anything that is not a step."""
    if isinstance(step, str):
        return reply(step)
    if isinstance(step, _Message | _Error | _Hang) or callable(step):
        return step  # type: ignore[return-value]
    raise TypeError(f"not a script step: {step!r}")


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _error_body(message: str, type_: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


class _Server(LoopbackServer):
    block_on_close = False
    request_queue_size = 128  # the default 5 drops bursts of concurrent connects (1 s SYN retry)
    owner: ScriptedLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: a client that gave up (timeout) makes the late write fail, which is fine."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "ScriptedLLM/1.0"
    sys_version = ""
    timeout = 10  # a client that connects and stalls cannot pin a thread for ever

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing (the default writes every request to stderr)."""

    def _send_json(
        self, status: int, payload: object, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def _not_found(self) -> None:
        message = f"Unknown request URL: {self.command} {self.path}"
        self._send_json(404, _error_body(message, "invalid_request_error", "unknown_url"))

    def do_GET(self) -> None:
        if self._path() != "/v1/models":
            self._not_found()
            return
        model = {"id": self.server.owner.model, "object": "model", "created": CREATED}
        self._send_json(200, {"object": "list", "data": [{**model, "owned_by": "scripted"}]})

    def do_POST(self) -> None:
        kind = kind_of(self._path())
        if kind is None:
            self._not_found()
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
        except (ValueError, UnicodeDecodeError) as exc:
            message = f"request body is not JSON: {exc}"
            self._send_json(400, _error_body(message, "invalid_request_error", None))
            return
        if not isinstance(body, dict):
            message = "request body must be a JSON object"
            self._send_json(400, _error_body(message, "invalid_request_error", None))
            return
        owner = self.server.owner
        delay, status, payload, headers = owner._answer(body)
        if delay > 0:
            owner._stopping.wait(delay)
        if status != 200:
            self._send_json(status, error_payload(kind, status, payload), headers)
            return
        ctype, data = render(kind, payload, streams(kind, self._path(), body))
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_PUT = do_DELETE = do_PATCH = _not_found


class ScriptedLLM:
    """An OpenAI-compatible HTTP server that answers chat completions from a script.

    Use it as a context manager (``start``/``stop``), point a client at :attr:`base_url`, and
    check :attr:`requests`, :meth:`remaining` and :attr:`exhausted_hits` afterwards.

    Every completion has a fixed ``created`` (:data:`CREATED`), an ``id`` of
    ``chatcmpl-scripted-<n>``, the request's ``model`` echoed (or this server's ``model`` when the
    request has none), and ``usage``. Token counts not given in the step default to:

    * ``prompt_tokens``: the length of ``{"messages": ..., "tools": ...}`` (the request's values;
      ``tools`` only when present) as canonical JSON (sorted keys, no whitespace, non-ASCII kept)
      // 4, at least 1, so it does not depend on how the client serialised the body;
    * ``completion_tokens``: ``len(content + JSON of the tool calls' function objects)`` // 4,
      at least 1 (call ids are left out so the count does not depend on arrival order).

    ``total_tokens`` is always their sum.
    """

    requests: list[dict[str, Any]]
    """The parsed JSON body of every ``POST /v1/chat/completions`` request, in the order the
    script served them (exhausted hits included)."""

    exhausted_hits: int
    """How many requests arrived after the script ran out (each answered 500 "script exhausted")."""

    errors: list[BaseException]
    """Exceptions raised by callable steps (or their non-step results); each such request was
    answered with a 500 error naming the exception."""

    def __init__(
        self, script: Sequence[Step] | None = None, *, model: str = "scripted-model"
    ) -> None:
        self.model = model
        self.requests = []
        self.exhausted_hits = 0
        self.errors = []
        self._script: deque[_Message | _Error | _Hang | Callable[[dict[str, Any]], Step]] = deque()
        self._lock = threading.RLock()  # reentrant: a callable step may push() more steps
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._completions = 0
        self._calls = 0
        self.push(*(script or ()))

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> ScriptedLLM:
        """Bind ``127.0.0.1`` on an ephemeral port and serve from a daemon thread; return self."""
        with self._lock:
            if self._server is not None:
                raise RuntimeError("ScriptedLLM is already running")
            self._stopping.clear()
            server = _Server(("127.0.0.1", 0), _Handler)
            server.owner = self
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.02},
                name=f"ScriptedLLM:{server.server_address[1]}",
                daemon=True,
            )
            thread.start()
            self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving, close the listening socket and join the thread; idempotent.

        Requests still inside a :func:`hang` are woken and answered (if their client still
        listens) by their handler threads, which are daemons and are not waited for.
        """
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()

    def __enter__(self) -> ScriptedLLM:
        if self._server is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port the server listens on (RuntimeError when not running)."""
        server = self._server
        if server is None:
            raise RuntimeError("ScriptedLLM is not running; call start() first")
        return int(server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, for ``OpenAI(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script ----------------------------------------------------------------------------------

    def push(self, *steps: Step) -> None:
        """Append steps to the script (thread-safe; allowed while serving)."""
        checked = []
        for step in steps:
            step = _checked(step)
            if isinstance(step, _Error):
                checked.extend([dataclasses.replace(step, times=1)] * step.times)
            else:
                checked.append(step)
        with self._lock:
            self._script.extend(checked)

    def remaining(self) -> int:
        """Steps not yet consumed (an ``error(times=n)`` counts n, a ``hang`` counts 1)."""
        with self._lock:
            return len(self._script)

    # -- answering -------------------------------------------------------------------------------

    def _answer(self, body: dict[str, Any]) -> tuple[float, int, dict[str, Any], dict[str, str]]:
        """Record ``body`` and pick its answer: (delay, status, JSON payload, extra headers)."""
        with self._lock:
            self.requests.append(body)
            delay = 0.0
            step: object = None
            for _ in range(1000):  # bounds a callable that keeps returning callables
                if step is None:
                    if not self._script:
                        self.exhausted_hits += 1
                        return delay, 500, _error_body("script exhausted", "server_error", None), {}
                    step = self._script.popleft()
                if isinstance(step, _Hang):
                    delay += step.seconds
                    step = None
                elif isinstance(step, _Message | _Error):
                    break
                else:
                    try:
                        step = _checked(step(body))  # type: ignore[operator]
                    except Exception as exc:
                        self.errors.append(exc)
                        message = f"scripted step raised {type(exc).__name__}: {exc}"
                        return delay, 500, _error_body(message, "server_error", None), {}
            else:
                exc = RecursionError("callable steps returned callables 1000 times")
                self.errors.append(exc)
                return delay, 500, _error_body(str(exc), "server_error", None), {}
            if isinstance(step, _Error):
                headers = {}
                if step.retry_after is not None:
                    headers["Retry-After"] = format(step.retry_after, "g")
                return delay, step.status, _error_body(step.message, step.type, step.code), headers
            assert isinstance(step, _Message)
            return delay, 200, self._completion(body, step), {}

    def _completion(self, body: dict[str, Any], step: _Message) -> dict[str, Any]:
        """The chat.completion payload for ``step`` (called with the lock held)."""
        self._completions += 1
        message: dict[str, Any] = {"role": "assistant", "content": step.content}
        functions = [{"name": name, "arguments": arguments} for name, arguments, _ in step.calls]
        if step.calls:
            calls = []
            for (_, _, call_id), function in zip(step.calls, functions, strict=True):
                self._calls += 1
                call_id = call_id if call_id is not None else f"call_{self._calls}"
                calls.append({"id": call_id, "type": "function", "function": function})
            message["tool_calls"] = calls
        prompt_tokens = step.prompt_tokens
        if prompt_tokens is None:
            counted = {key: body[key] for key in PROMPT_KEYS if key in body}
            prompt_tokens = max(1, len(_canonical(counted)) // 4)
        completion_tokens = step.completion_tokens
        if completion_tokens is None:
            text = (step.content or "") + (_canonical(functions) if functions else "")
            completion_tokens = max(1, len(text) // 4)
        model = body.get("model")
        return {
            "id": f"chatcmpl-scripted-{self._completions}",
            "object": "chat.completion",
            "created": CREATED,
            "model": model if isinstance(model, str) else self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if step.calls else "stop",
                }
            ],
            "usage": _usage(step, prompt_tokens, completion_tokens),
        }


def _usage(step: _Message, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """The chat completion's ``usage``: the counts, and the details the step gives."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    prompt_details = {
        key: value
        for key, value in (
            ("cached_tokens", step.cached_tokens),
            ("cache_write_tokens", step.cache_write_tokens),
        )
        if value is not None
    }
    if prompt_details:
        usage["prompt_tokens_details"] = prompt_details
    if step.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": step.reasoning_tokens}
    return usage
