"""A scripted stand-in for the app judge's three LLM roles (for :class:`ScriptedLLM`).

:func:`app_judge_script` returns a step function that answers, by the request's system prompt:

* the test-case writer: the given cases, as JSON;
* the execution agent: a *plan* per case, carried out against what the browser really shows.
  Each step names its target by the accessible name it must find in the latest observation
  (``("type", "Your name", "Ann")``, ``("click", "Greet")``), so an app without that control
  makes the step impossible and the agent reports Fail; after the last step it reports Pass iff
  every text of the case's ``expect`` is on the page;
* JudgeLLM: Yes for a Pass report, No for Fail, Indeterminate otherwise (the report's lines as
  the harness wrote them: the app's own text, fenced, is ignored, as a model is told to).

Nothing here knows the app: the verdicts come from the pages the sandboxed browser returns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from ...methods.app.llmcall import unfenced
from .scripted_llm import reply, tool_call

# A name may hold quotes (``checkbox "Mark "Tea" as completed"``): it ends at the line's end or
# before the node's properties (`` value='…'``, `` focused=True``).
_NODE = re.compile(r'^\s*\[(\d+)\] (\S+)(?: "(.*?)"(?=$| [a-z]+=))?')


def _app_text(text: str) -> str:
    """The app's text inside a fence (``pytest_e2ebench.methods.app.llmcall.fence``), or
    ``text``."""
    lines = text.split("\n")
    if len(lines) >= 2 and lines[0].startswith("<app-text ") and lines[-1].startswith("</app-"):
        return "\n".join(lines[1:-1])
    return text


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content or ""


_TEXT_ROLES = ("StaticText", "LabelText")
# A target ``role:name`` names a node of that role (``textbox:Focus``, ``checkbox:Buy milk``).
_ROLE = re.compile(r"^[A-Za-z]+:")


def find_node(tree: str, name: str, role: str | None = None) -> int | None:
    """The number of the first node whose accessible name contains ``name`` (and role).

    A control is preferred to text that merely mentions the name (a label).
    """
    found = []
    for line in tree.splitlines():
        match = _NODE.match(line)
        if match and name.lower() in (match[3] or "").lower():
            if role is None or match[2] == role:
                found.append((match[2] in _TEXT_ROLES, int(match[1])))
    return min(found)[1] if found else None


PLAN_KEYS = ("steps", "expect", "absent", "order")


def _check(tree: str, case: dict) -> str | None:
    """What the page lacks for ``case`` (None: it shows everything expected)."""
    missing = [t for t in case.get("expect", []) if t not in tree]
    if missing:
        return f"the page lacks {missing}"
    present = [t for t in case.get("absent", []) if t in tree]
    if present:
        return f"the page still shows {present}"
    order = case.get("order", [])
    places = [tree.find(t) for t in order]
    if any(p < 0 for p in places) or places != sorted(places):
        return f"the page does not show {order} in this order"
    return None


def app_judge_script(tasks: dict[str, Sequence[dict]]) -> Callable[[dict], object]:
    """The step function for apps whose requirements contain a key of ``tasks``.

    Each case is ``{"feature", "case", "expected"}`` (what the case writer answers) plus its
    plan: ``steps`` (``(action, target, *value)``: ``click``/``read`` take a target name,
    ``type`` and ``select`` a target and a value (a target ``role:name`` also needs that
    role), ``give_up`` a reason (the case ends as Uncertain), ``key`` a key, ``wait``
    seconds, ``scroll`` a direction, ``navigate`` a path), and what the final page must show:
    ``expect`` (texts), ``absent`` (texts it must not show), ``order`` (texts in this order).
    """
    by_text = {c["case"]: c for cases in tasks.values() for c in cases}
    if len(by_text) != sum(len(cases) for cases in tasks.values()):
        raise ValueError("two cases have the same text: the tester finds a plan by its case")

    def step(body: dict):
        messages = body["messages"]
        system = messages[0]["content"]
        if "QA engineer" in system:
            return _write_cases(tasks, messages)
        if "judge software test results" in system:
            return _judge_report(messages)
        return _play_case(by_text, messages)

    return step


def _write_cases(tasks: dict[str, Sequence[dict]], messages: list[dict]):
    """The case writer's answer: the cases of the app whose requirements hold their key, without
    their plans."""
    user = _text(messages[1])
    cases = next(c for marker, c in tasks.items() if marker in user)
    answer = [{k: v for k, v in c.items() if k not in PLAN_KEYS} for c in cases]
    return reply(json.dumps({"cases": answer}))


def _judge_report(messages: list[dict]):
    """The judge's verdict: the result the tester's report states."""
    # the tester's report as the harness wrote it: the app's text (fenced) claims nothing
    user = unfenced(_text(messages[1]))
    verdict = (
        "Yes" if "Result: Pass" in user else "No" if "Result: Fail" in user else "Indeterminate"
    )
    return reply(json.dumps({"verdict": verdict, "reason": "from the report"}))


def _play_case(by_text: dict[str, dict], messages: list[dict]):
    """The tester's next call: the next step of the case's plan, then its report on the page."""
    first = _text(messages[1])
    plan = next(c for text, c in by_text.items() if f":\n{text}\nExpected:" in first)
    done = sum(1 for m in messages if m["role"] == "tool")
    # the page as last observed (after the "Page:" line: the note above it may quote the case)
    tree = _text(messages[-1]).rpartition("\nPage: ")[2].partition("\n")[2]
    last_tool = [m for m in messages if m["role"] == "tool"][-1:]
    answer = _app_text(last_tool[0]["content"]) if last_tool else ""
    if answer.startswith(("there is no node", "unknown")):
        return tool_call("report", {"result": "Fail", "evidence": answer})
    steps = plan.get("steps", [])
    if done < len(steps):
        return _step_call(steps[done], tree)
    problem = _check(tree, plan)
    if problem:
        return tool_call("report", {"result": "Fail", "evidence": problem})
    return tool_call("report", {"result": "Pass", "evidence": "the page shows what is expected"})


def _step_call(planned: Sequence[str], tree: str):
    """The tool call of one planned step on the page ``tree`` (a report if it cannot be made)."""
    action, *rest = planned
    if action == "give_up":  # the action set cannot do what the case needs
        return tool_call("report", {"result": "Uncertain", "evidence": rest[0]})
    if action in ("click", "read", "type", "select"):
        role, _, name = rest[0].rpartition(":") if _ROLE.match(rest[0]) else ("", "", rest[0])
        node = find_node(tree, name, role or None)
        if node is None:
            evidence = f"no control named {rest[0]!r} on the page"
            return tool_call("report", {"result": "Fail", "evidence": evidence})
        args = {"node": node}
        if action == "type":
            args["text"] = rest[1]
        if action == "select":
            args["option"] = rest[1]
        return tool_call(action, args)
    key = {"key": "key", "wait": "seconds", "scroll": "direction", "navigate": "url"}[action]
    return tool_call(action, {key: rest[0]})
