"""The execution agent (AppEvalPilot stage 2): an LLM carries out one test case in the browser.

It sees the page as the driver renders it (the accessibility tree, numbered, and a screenshot of
the viewport), acts with one tool per action of :data:`e2ebench_app.ACTIONS`, and ends with
``report`` (Pass / Fail / Uncertain and its evidence). It never hangs the session: a case ends
as Uncertain after ``max_steps`` actions, after three identical actions that change nothing
(stuck), when the model stops using tools twice, or when the browser stops answering. The
action trace and the final screenshot are kept as evidence.

Before each request the conversation is fitted to the model's context (:func:`fit_pages`:
the oldest pages and tool answers shortened first); a request the endpoint refuses as too
large after it accepted the case's first ends the case as Uncertain (``context``): the app's
pages grew the conversation, never an infrastructure error.
"""

from __future__ import annotations

import json
import time

from ...agents.sdagent import CHARS_PER_TOKEN, GROWN, KEEP_RECENT
from ...llm.base import LLMRefused
from ...untrusted.parse import loads_json
from .llmcall import APP_TEXT_RULE, fence
from .session import SessionBroken

RESULTS = ("Pass", "Fail", "Uncertain")
STUCK_REPEATS = 3
OBSERVATION_LIMIT = 12_000  # characters of the accessibility tree shown per step
SYSTEM = (
    "You are a meticulous software tester using a web application in a browser. Carry out the "
    "test case you are given, one action at a time, using the tools. You see the page as an "
    "accessibility tree whose nodes are numbered [n] (act on a node by its number) and as a "
    "screenshot. Follow the case's steps with its exact inputs, then check the expected "
    "result on the page. Finish with the report tool: Pass if the page shows the expected "
    "result, Fail if it does not or a step is impossible because the app lacks something, "
    "Uncertain only if you cannot tell. Put what you saw (text of the page, values) in the "
    "evidence. " + APP_TEXT_RULE
)


def _tool(name: str, description: str, **params: tuple[str, str]) -> dict:
    props = {k: {"type": t, "description": d} for k, (t, d) in params.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": list(params)},
        },
    }


_NODE = ("integer", "the number [n] of the node in the last observation")
TOOLS = [
    _tool("click", "Click a node (button, link, checkbox, any element).", node=_NODE),
    _tool(
        "type",
        "Click a text field and replace its content with text.",
        node=_NODE,
        text=("string", "the text to type"),
    ),
    _tool(
        "select",
        "Choose an option of a drop-down (select) by its label or value.",
        node=_NODE,
        option=("string", "the option's label or value"),
    ),
    _tool("scroll", "Scroll the page.", direction=("string", "down or up")),
    _tool(
        "key",
        "Press a key on the focused element (Enter, Escape, Tab, Backspace, ArrowUp, "
        "ArrowDown, ArrowLeft, ArrowRight, Space, or one character).",
        key=("string", "the key"),
    ),
    _tool("navigate", "Open a page of the app by its path.", url=("string", "e.g. /about.html")),
    _tool("wait", "Wait for the page (timers, animations).", seconds=("number", "at most 5")),
    _tool("read", "Read the full text of a node.", node=_NODE),
    _tool(
        "report",
        "End the test case with its result.",
        result=("string", "Pass, Fail or Uncertain"),
        evidence=("string", "what you saw that decides the result"),
    ),
]


def observation_message(obs: dict, note: str) -> dict:
    """A user message with the page: text and (when there is one) the screenshot."""
    tree = str(obs.get("tree", ""))[:OBSERVATION_LIMIT]
    page = fence(f"Page: {obs.get('title', '')} ({obs.get('url', '')})\n{tree}")
    text = f"{note}\n{page}"
    shot = obs.get("screenshot")
    if not shot:
        return {"role": "user", "content": text}
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{shot}"}},
        ],
    }


def _drop_images(messages: list[dict]) -> None:
    """Only the newest screenshot stays in the conversation (they are large)."""
    for msg in messages:
        if isinstance(msg.get("content"), list):
            msg["content"] = [
                part if part.get("type") == "text" else {"type": "text", "text": "(screenshot)"}
                for part in msg["content"]
            ]


PAGE_DROPPED = "[an earlier page or answer, dropped to fit the model's context"
# a screenshot as the model counts it, not by its bytes: OpenAI's high-detail 1024x768 image is
# 765 tokens (4 tiles of 170 and 85 more; its vision guide's cost calculation)
IMAGE_CHARS = 765 * CHARS_PER_TOKEN


def fit_pages(messages: list[dict], budget: int) -> int:
    """Shorten the oldest pages (user messages) and tool answers until the conversation's text
    fits ``budget`` characters; the system prompt, the case's first page and the last
    :data:`KEEP_RECENT` messages stay whole. Returns how many were shortened now."""
    size = sum(_chars(m) for m in messages)
    dropped = 0
    for message in messages[2 : max(2, len(messages) - KEEP_RECENT)]:
        if size <= budget:
            break
        if message.get("role") not in ("user", "tool"):
            continue
        chars = _chars(message)
        if chars < 200 or str(message.get("content")).startswith(PAGE_DROPPED):
            continue
        note = f"{PAGE_DROPPED}: {chars} characters]"
        message["content"] = note
        size -= chars - len(note)
        dropped += 1
    return dropped


def _chars(message: dict) -> int:
    """A message's characters: its text (a screenshot as :data:`IMAGE_CHARS`) and its tool
    calls' arguments."""
    content = message.get("content") or ""
    if isinstance(content, list):
        size = sum(len(str(p["text"])) if "text" in p else IMAGE_CHARS for p in content)
    else:
        size = len(str(content))
    return size + sum(
        len(c["function"]["arguments"] or "") for c in message.get("tool_calls") or []
    )


class _Ended(Exception):
    """The case is over: its result, the evidence and why it ended (``report``, ...)."""

    def __init__(self, result: str, evidence: str, ended: str) -> None:
        super().__init__(ended)
        self.result, self.evidence, self.ended = result, evidence, ended


class _Play:
    """One case being played: the conversation, the action trace, the last observation and
    what tells a stuck agent (the same action leaving the page as it was)."""

    def __init__(self, asker, session, case: dict, max_steps: int, scope: str, budget: int):
        self.asker, self.session, self.case = asker, session, case
        self.max_steps, self.scope, self.budget = max_steps, scope, budget
        self.asked = 0  # requests the endpoint answered
        self.trace: list[dict] = []
        self.obs: dict | None = None
        self.messages: list[dict] = []
        self.last_key, self.unchanged = "", 0

    def begin(self) -> None:
        """Reset the app, observe its first page, and give the model the case."""
        opened = self.session.command("reset")
        if "error" in opened:  # e.g. the first page did not load within the command limit
            raise SessionBroken(f"the app's first page did not open: {opened['error']}")
        self.obs = self.session.command("observe")
        case = self.case
        self.messages = [
            {"role": "system", "content": SYSTEM},
            observation_message(
                self.obs,
                f"Test case {case['id']} (feature {case['feature']}):\n{case['case']}\n"
                f"Expected: {case['expected']}\n\nThe app is open:",
            ),
        ]

    def play(self) -> None:
        """Ask and act until the case ends (raises :class:`_Ended`)."""
        nudged = False
        while True:
            completion = self.ask()
            self.messages.append(completion.message())
            if not completion.tool_calls:
                if nudged:
                    raise _Ended("Uncertain", "the agent stopped using the tools", "no_tool")
                nudged = True
                self.messages.append(
                    {"role": "user", "content": "Use a tool; finish with the report tool."}
                )
                continue
            notes = [note for call in completion.tool_calls if (note := self.call(call))]
            self.observe(notes)

    def ask(self):
        """The model's next answer, the conversation fitted to its context first. A request
        refused as too large after accepted ones ends the case: the app's pages grew it."""
        fit_pages(self.messages, self.budget)
        try:
            completion = self.asker.ask(
                self.messages, tools=TOOLS, scope=f"{self.scope}/{self.case['id']}"
            )
        except LLMRefused as exc:
            if exc.status not in GROWN or not self.asked:
                raise  # the case's first request: the endpoint or its settings
            why = f"the endpoint refused request {self.asked + 1} ({exc.status}; the app's pages"
            raise _Ended(
                "Uncertain", f"{why} may exceed the model's context): {exc}", "context"
            ) from None
        self.asked += 1
        return completion

    def call(self, call) -> str | None:
        """Answer one tool call (an action in the browser, or the report); the note the
        next observation carries, None for a call with malformed arguments."""
        try:
            args = loads_json(call.arguments or "{}", "the arguments")
            if not isinstance(args, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            answer = f"invalid arguments ({exc}); give a JSON object"
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": answer})
            return None
        if call.name == "report":
            result = args.get("result")
            if result in RESULTS:
                raise _Ended(result, str(args.get("evidence", "")), "report")
            answer = f"result must be one of {', '.join(RESULTS)}"
        else:
            answer = self.act(call.name, args)
        self.messages.append({"role": "tool", "tool_call_id": call.id, "content": fence(answer)})
        return f"{call.name}: {fence(answer[:300])}"

    def act(self, name: str, args: dict) -> str:
        """One browser action, traced; the driver's answer."""
        if len(self.trace) >= self.max_steps:
            raise _Ended("Uncertain", f"no report within {self.max_steps} actions", "step_limit")
        outcome = self.session.command("act", action={"action": name, **args})
        answer = str(outcome.get("result") or outcome.get("error") or "")[:2000]
        self.trace.append(
            {"action": name, "args": args, "ok": bool(outcome.get("ok")), "result": answer[:300]}
        )
        return answer

    def observe(self, notes: list[str]) -> None:
        """The page after the actions; a case whose same action changes nothing
        :data:`STUCK_REPEATS` times in a row ends as stuck."""
        before = self.obs.get("tree")
        self.obs = self.session.command("observe")
        key = json.dumps(self.trace[-1:], sort_keys=True)
        if self.obs.get("tree") != before:
            self.unchanged = 0
        elif key == self.last_key:
            self.unchanged += 1
        else:
            self.unchanged = 1
        self.last_key = key
        if self.unchanged >= STUCK_REPEATS:
            raise _Ended(
                "Uncertain", f"the same action {STUCK_REPEATS} times changed nothing", "stuck"
            )
        _drop_images(self.messages)
        self.messages.append(observation_message(self.obs, "\n".join(notes) + "\nThe page now:"))


def run_case(asker, session, case: dict, *, max_steps: int, scope: str, budget: int) -> dict:
    """Carry out ``case``; ``{"result", "evidence", "trace", "steps", "ended", "observation"}``.
    ``budget``: the characters of conversation the model takes (:func:`fit_pages`).

    ``ended`` says why the case ended: ``report``, ``step_limit``, ``stuck``, ``no_tool``,
    ``context`` or ``browser``. ``observation`` is the last one (its screenshot is the case's
    evidence).
    """
    began = time.monotonic()
    play = _Play(asker, session, case, max_steps, scope, budget)
    try:
        play.begin()
        play.play()
    except _Ended as end:
        result, evidence, ended = end.result, end.evidence, end.ended
    except SessionBroken as exc:
        result, evidence, ended = "Uncertain", f"the browser stopped answering: {exc}", "browser"
    return {
        "result": result,
        "evidence": evidence[:2000],
        "ended": ended,
        "steps": len(play.trace),
        "trace": play.trace,
        "observation": play.obs or {},
        "duration_s": round(time.monotonic() - began, 3),
    }
