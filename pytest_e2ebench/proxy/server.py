"""The metering proxy: one per run, the only endpoint a CLI agent's sandboxed step reaches.

It listens on the host's ``127.0.0.1`` at an ephemeral port, which the step's network
namespace gets as its one forward (:mod:`pytest_e2ebench.isolation.network`). A model call the agent
makes (any dialect of :mod:`.dialects`) is checked against the run's budget, forwarded to the
user's upstream with the user's key (the agent holds a dummy one), answered back as the
upstream answered, and metered: tokens, cost, latency, one log line per call. An event stream
is relayed piece by piece as the upstream sends it (:class:`Relay`): an agent's client that
gives up on a stream idle for minutes (Codex's default: five) sees the model working, as it
would without the proxy; the whole answer is metered once it has ended. With a tape the call
is recorded, or answered from the recording (whole) without any upstream, matched by its
content (:mod:`.tape`); a request no recording matches stops the agent's step.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..errors import AgentFileError
from ..untrusted.parse import loads_json
from .dialects import RESPONSES, Usage, error_body, prepare, usage
from .meter import Meter, clip, request_tail
from .routes import Route, output_cap, pinned, prompt_estimate, route, with_cap
from .tape import Tape, body_bytes

MAX_REQUEST = 32 << 20  # bytes of one request body
MAX_RESPONSE = 64 << 20  # bytes of one upstream answer
# headers of the agent's request that mean something to the upstream; the rest (its dummy key
# above all) stay behind
PASSED_HEADERS = ("content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta")


class Upstream:
    """Where calls go: a base URL (``https://host/v1``) and the user's key (or None)."""

    def __init__(self, base_url: str, key: str | None, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout = timeout

    def url(self, suffix: str) -> str:
        """The upstream URL of a route's path under the base URL (:mod:`.routes`: built from
        the proxy's table, never from the agent's text)."""
        return f"{self.base_url}/{suffix}"

    def call(
        self, suffix: str, body: bytes, headers: dict[str, str], relay: Relay | None = None
    ) -> tuple[int, str, bytes]:
        """(status, content type, body) of the upstream's answer; OSError when unreachable or
        cut off (``http.client``'s own errors included). ``relay``: an event stream is passed
        on to the agent piece by piece as it arrives, and returned whole as well."""
        sent = {k: v for k, v in headers.items() if k.lower() in PASSED_HEADERS}
        if self.key:
            sent["Authorization"] = f"Bearer {self.key}"
            sent["x-api-key"] = self.key  # Anthropic's header
            sent["x-goog-api-key"] = self.key  # Gemini's
        request = urllib.request.Request(self.url(suffix), data=body, headers=sent, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                ctype = answer.headers.get("Content-Type", "")
                if relay is not None and "text/event-stream" in ctype:
                    return answer.status, ctype, relay.stream(answer.status, ctype, answer)
                return answer.status, ctype, _read(answer)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type", ""), _read(exc)
        except http.client.HTTPException as exc:  # a stream cut short, a garbled status line
            raise OSError(f"the upstream's answer broke off: {exc!r}") from None


class AnswerTooLarge(OSError):
    """The upstream's answer ran over :data:`MAX_RESPONSE` (what the agent asked for)."""

    def __init__(self) -> None:
        super().__init__(f"the upstream's answer is over {MAX_RESPONSE} bytes")


def _read(stream) -> bytes:
    data = stream.read(MAX_RESPONSE + 1)
    if len(data) > MAX_RESPONSE:
        raise AnswerTooLarge
    return data


class Relay:
    """An upstream's event stream passed on to the agent as it arrives (HTTP/1.1 chunked),
    through ``handler``, the agent's connection.

    The agent hanging up does not stop the reading: the upstream goes on generating, and what
    it spent is metered like any answer (an agent cannot make its own call look like the
    upstream's failure by closing the connection). Bounded by :data:`MAX_RESPONSE`."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler
        self.started = False  # the status line and headers went out: nothing else may
        self.complete = False  # the upstream's answer ended as it should
        self.gone = False  # the agent closed its end

    def stream(self, status: int, ctype: str, answer) -> bytes:
        """Send the status and ``answer``'s pieces as they come; the whole answer."""
        handler = self.handler
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        self.started = True
        pieces, size = [], 0
        while piece := answer.read1(1 << 16):
            size += len(piece)
            if size > MAX_RESPONSE:
                raise AnswerTooLarge
            pieces.append(piece)
            self._write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.complete = True
        return b"".join(pieces)

    def end(self) -> None:
        """The stream's last chunk when the upstream's answer came whole; else the connection
        is closed without it, so the agent's client sees a stream cut short."""
        if self.complete:
            self._write(b"0\r\n\r\n")
        else:
            self.handler.close_connection = True

    def _write(self, data: bytes) -> None:
        if self.gone:
            return
        try:
            self.handler.wfile.write(data)
            self.handler.wfile.flush()
        except OSError:
            self.gone = True


class LoopbackServer(ThreadingHTTPServer):
    """A threading HTTP server whose listening socket never blocks in ``accept``.

    ``serve_forever`` selects, then accepts: a client that resets its connection in between
    left the blocking ``accept`` waiting for the next client for ever, and ``shutdown`` with
    it (seen once in the project's own suite: a scripted-LLM fixture's teardown hung). A
    non-blocking socket turns that race into an ``OSError`` the server already ignores."""

    daemon_threads = True

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.setblocking(False)


# Seconds the proxy waits, when the agent's step has ended, for the model calls still running
# (an agent killed at its timeout mid-call): the model goes on generating what the call costs.
DRAIN_SECONDS = 60.0


class MeteringProxy:
    """One run's proxy: ``upstream`` (None when replaying), a :class:`Meter`, an optional
    :class:`Tape`. Use as a context manager; :attr:`base_url` is what the agent is given.

    Leaving the context stops new calls and waits up to ``drain`` seconds for those still
    running, so that what they cost is in the meter the run's record is made from; a call
    still running then is counted in the summary's ``in_flight_at_end``."""

    def __init__(
        self,
        upstream: Upstream | None,
        meter: Meter,
        tape: Tape | None,
        model: str = "",
        drain: float = DRAIN_SECONDS,
        models: tuple[str, ...] = (),
    ) -> None:
        self.upstream = upstream
        self.meter = meter
        self.tape = tape
        self.model = model
        self.models = frozenset(models)  # --e2e-agent-models: the others the agent may call
        self.drain = drain
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._calls = 0  # model calls let through and not yet metered
        self._idle = threading.Condition()
        self._taped = 0  # requests that reached the tape: a miss's number

    def __enter__(self) -> MeteringProxy:
        server = LoopbackServer(("127.0.0.1", 0), _Handler)
        server.proxy = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            with self._idle:
                self._idle.wait_for(lambda: self._calls == 0, timeout=self.drain)
                left = self._calls
            if left:
                self.meter.unfinished(left, self.drain)
            self._server.server_close()
            self._thread.join()
            self._server = None

    @contextlib.contextmanager
    def _call(self):
        """One model call under way (from the budget's check to its metering)."""
        with self._idle:
            self._calls += 1
        try:
            yield
        finally:
            with self._idle:
                self._calls -= 1
                self._idle.notify_all()

    @property
    def port(self) -> int:
        """The port on the host's loopback (the same port inside the step's namespace)."""
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(
        self, target: str, raw: bytes, headers: dict[str, str], relay: Relay | None = None
    ) -> tuple[int, str, bytes]:
        """(status, content type, body) for one POST of the agent's to ``target`` (its path
        and query as sent). With a ``relay``, an event stream from the upstream has already
        gone to the agent through it. Whatever the request holds is the agent's: a refusal
        is a 4xx to it, never an upstream error."""
        found = route(target)
        if isinstance(found, str):
            self.meter.note({"path": target[:200], "status": 404, "refused": found})
            return _refuse("chat", 404, found)
        kind, path = found.kind, target.partition("?")[0]
        try:  # the agent's request: hostile bytes, through the bounded parser
            body = loads_json(raw, f"the agent's request to {path}", max_chars=MAX_REQUEST)
        except AgentFileError:
            body = None
        if not isinstance(body, dict):
            return _refuse(kind, 400, f"{path}: not a JSON object body")
        if kind == RESPONSES and body.get("background"):
            # answered later (fetched with a GET the proxy does not forward), so never metered,
            # yet its output reaches a next call through previous_response_id
            return _refuse(kind, 400, "background responses are not metered: ask in the call")
        body, model, asked = pinned(kind, found, body, self.model, self.models)
        # the agent's call as recorded: its content, what varies by run taken out
        tape = self.tape
        digest = tape.digest(path, kind, prepare(kind, body)) if tape is not None else ""
        cap, ticket = self.meter.grant(model, prompt_estimate(raw), output_cap(kind, body))
        if cap is None:
            self.meter.note({"path": path, "status": 400, "refused": ticket[0]})
            return _refuse(kind, 400, f"refused by the benchmark's proxy: {ticket[0]}")
        if self.meter.budget.tokens is not None or self.meter.budget.cost_usd is not None:
            body = with_cap(kind, body, cap)  # the answer fits what the budget leaves
        call = _Call(kind, found, model, asked, digest, path)
        with self._call():
            try:
                return self._forward(call, prepare(kind, body), headers, relay)
            finally:
                self.meter.release(ticket)

    def _forward(self, call: _Call, body, headers, relay) -> tuple[int, str, bytes]:
        """The answer of an allowed call, from the tape or the upstream, metered in the
        dialect the upstream was called in."""
        started = time.monotonic()
        path = call.route.upstream_path(call.model)
        result = self._fetch(path, body, call, headers, relay)
        if result is None:
            return _refuse(call.kind, 502, "the benchmark's proxy could not reach the model")
        status, ctype, data, replayed = result
        found = usage(call.kind, data, ctype) if status < 300 else Usage()
        entry = {
            "dialect": call.kind,
            "path": path,
            "status": status,
            "latency_s": round(time.monotonic() - started, 3),
            "replayed": replayed,
            "request_tail": request_tail(body),
            "response": clip(data.decode("utf-8", errors="replace")),
        }
        if call.asked and call.asked != call.model:
            entry["asked_model"] = call.asked[:120]  # sent to the run's model instead
        self.meter.add(entry, call.model, found, status < 300)
        return status, ctype, data

    def _replay(self, path: str, body: dict, call: _Call):
        """(status, content type, body, True) of the recorded answer to a call; None when
        none matches it (a miss: noted in the meter, which ends the agent's step)."""
        with self._idle:
            self._taped += 1
            number = self._taped
        entry, matched = self.tape.find(call.digest)
        if entry is None and self.tape.match == "position":
            self._fail(path, f"no recorded answer left in {self.tape.root}")  # as before
            return None
        if entry is None:
            self.meter.replay_miss(path, self.tape.miss(number, call.path, body))
            return None
        self.meter.replayed(matched)
        return entry["status"], entry["content_type"], body_bytes(entry), True

    def _fetch(self, path, body, call: _Call, headers, relay=None):
        """(status, content type, body, replayed) from the tape or the upstream; None when
        neither can answer (noted in the meter)."""
        if self.tape is not None and self.tape.mode == "replay":
            return self._replay(path, body, call)
        if self.upstream is None:
            self._fail(path, "no upstream (--e2e-llm-base-url) is set")
            return None
        try:
            sent = json.dumps(body).encode()
            status, ctype, data = self.upstream.call(path, sent, headers, relay)
        except OSError as exc:
            why = f"{self.upstream.url(path)}: {exc}"
            if _shaped(exc):  # a call the agent shaped: the run's note, unless the model is down
                self.meter.failed_call({"path": path, "status": 504, "error": why})
            else:
                self._fail(path, why)
            return None
        if self.tape is not None and status < 500:
            self.tape.add(call.digest, path, status, ctype, data, body)
        return status, ctype, data, False

    def _fail(self, path: str, why: str) -> None:
        self.meter.upstream_errors.append(why)
        self.meter.note({"path": path, "status": 502, "error": why})


@dataclasses.dataclass(frozen=True)
class _Call:
    """One allowed call: its dialect, route, the model called and the one asked, its tape
    digest (of the agent's request as it came, before the proxy's cap), the path it asked."""

    kind: str
    route: Route
    model: str
    asked: str
    digest: str
    path: str


def _shaped(exc: OSError) -> bool:
    """Whether an upstream failure follows from how the agent asked: its call timed out (a
    huge ``max_tokens`` on a slow model) or answered more than :data:`MAX_RESPONSE`."""
    # urllib wraps a connection's timeout in URLError(reason=TimeoutError); a read's is bare
    return isinstance(exc, TimeoutError | AnswerTooLarge) or isinstance(
        getattr(exc, "reason", None), TimeoutError
    )


def request_length(header: str | None) -> int | None:
    """The body's length a request states: 0 when it states none, None unless it is a plain
    decimal number (``-1``, ``+5``, ``1_0``, `` 7`` and ``0x10`` are refused)."""
    if header is None:
        return 0
    return int(header) if header.isascii() and header.isdigit() else None


def _message(text: str) -> bytes:
    return json.dumps({"error": {"message": text}}).encode()


def _refuse(kind: str, status: int, message: str) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(error_body(kind, status, message)).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: agents' clients reuse connections
    server_version = "e2ebench-proxy/1"
    timeout = 900

    def log_message(self, format, *args) -> None:
        """Quiet: the meter's log is the record."""

    def _send(self, status: int, ctype: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        proxy = self.server.proxy  # type: ignore[attr-defined]
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            # agents list models before they start; answered here (replay has no upstream)
            listing = {"object": "list", "data": [{"id": proxy.model, "object": "model"}]}
            self._send(200, "application/json", json.dumps(listing).encode())
            return
        self._send(404, "application/json", b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        length = request_length(self.headers.get("Content-Length"))
        if length is None or length > MAX_REQUEST:
            # A negative length made ``read`` take everything until the agent closed its
            # socket, gigabytes into the harness's memory; a word, a traceback per request.
            status, what = (400, "a bad Content-Length") if length is None else (413, "too large")
            self._send(status, "application/json", _message(f"request: {what}"))
            self.close_connection = True
            return
        raw = self.rfile.read(length)
        headers = dict(self.headers.items())
        proxy = self.server.proxy  # type: ignore[attr-defined]
        relay = Relay(self)
        answered = proxy.answer(self.path, raw, headers, relay)
        if relay.started:  # streamed already (whole, or cut off: then ``answered`` is a refusal)
            relay.end()
            return
        self._send(*answered)
