"""``vanilla``: one completion that returns every file of the project (E2EDev's baseline)."""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path

from ..taskmodel.task import Task
from .base import Agent, AgentOutcome, RunContext
from .kinds import PYTHON_KINDS, check_delivery, delivery
from .trajectory import write_atif

PROMPT_VERSION = 2  # 2: the instructions depend on the task's kind (issue #13.4)
SYSTEM = (
    "You write complete Python projects in one answer. Reply with every file of the project "
    "the user's requirements document describes (a pyproject.toml and the package it names), "
    "each as a heading line `### FILE: <relative path>` followed by the file's content in one "
    "fenced code block. Write nothing else."
)
# web and app tasks: what to deliver comes from kinds.delivery
KIND_SYSTEM = (
    "You write complete projects in one answer. {delivery} Reply with every file of the "
    "project the user's requirements document describes, each as a heading line "
    "`### FILE: <relative path>` followed by the file's content in one fenced code block. "
    "Write nothing else."
)
# For the lifecycle stages besides implement; the stage's own instruction is in the brief.
STAGE_SYSTEM = (
    "You write the files one stage of a software project's lifecycle asks for, in one answer. "
    "Reply with each file as a heading line `### FILE: <relative path>` followed by the file's "
    "content in one fenced code block. Write nothing else."
)
# A file: its heading and opening fence, its body, and a closing fence alone on its line.
# One regular expression for all three (``(?P<body>.*?)\n```\s*$``) scanned from each
# heading to the end of the answer when no fence closed it: 20,000 headings without one
# (500 KB) held the harness 46 s, quadratic in the answer. The closing fences are found once.
_OPENING = re.compile(r"^###\s*FILE:\s*(?P<path>\S+)\s*\n```[^\n]*\n", re.MULTILINE)
_CLOSING = re.compile(r"\n```[ \t\r\f\v]*(?=\n|\Z)")


def parse_files(text: str) -> dict[str, str]:
    """The files of a vanilla answer, by relative path (later duplicates win)."""
    text = text or ""
    closings = [(m.start(), m.end()) for m in _CLOSING.finditer(text)]
    starts = [start for start, _ in closings]
    files: dict[str, str] = {}
    position = 0
    while (opening := _OPENING.search(text, position)) is not None:
        index = bisect.bisect_left(starts, opening.end())
        if index == len(starts):  # no fence closes it, nor any heading after it
            break
        start, end = closings[index]
        files[opening["path"]] = text[opening.end() : start] + "\n"
        position = end
    return files


def system_prompt(task: Task) -> str:
    """The instructions for ``task``'s kind (Python projects keep their original wording)."""
    if task.kind in PYTHON_KINDS:
        return SYSTEM
    return KIND_SYSTEM.format(delivery=delivery(task))


class VanillaAgent(Agent):
    """One LLM call, no tools: the model writes the whole project at once."""

    spec = label = "vanilla"
    uses_llm = True

    def __init__(self, settings) -> None:
        self.settings = settings

    def cache_key(self, task: Task, run: int) -> str:
        s = self.settings
        return json.dumps([self.spec, PROMPT_VERSION, s.model, s.temperature])

    def generate(self, task: Task, run: int, workspace: Path, ctx: RunContext) -> AgentOutcome:
        llm = ctx.llm()
        staged = ctx.stage != "implement"
        user = task.requirements_text + (f"\n\n{ctx.brief}" if staged else "")
        messages = [
            {"role": "system", "content": STAGE_SYSTEM if staged else system_prompt(task)},
            {"role": "user", "content": user},
        ]
        completion = llm.complete(messages, scope=f"{ctx.scope}/vanilla")
        (ctx.artifacts / "trajectory.jsonl").write_text(
            json.dumps({"step": 1, "role": "vanilla", "completion": completion.to_dict()}) + "\n"
        )
        files = parse_files(completion.content or "")
        skipped = []
        root = workspace.resolve()
        for rel, body in files.items():
            target = (root / rel).resolve()
            if root not in target.parents:
                skipped.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")
        note = None if files else "the answer contained no '### FILE:' blocks"
        if skipped:
            note = f"ignored files outside the repository: {', '.join(skipped)}"
        problems = [] if staged or not files else check_delivery(task, workspace)
        if problems:
            note = "; ".join([*([note] if note else []), "delivery check: " + "; ".join(problems)])
        return AgentOutcome(
            tokens_sent=completion.prompt_tokens,
            tokens_generated=completion.completion_tokens,
            cost_usd=completion.cost_usd,
            co2_g=completion.co2_g,
            steps=1,
            note=note,
            details={
                "files": sorted(files),
                "cached_prompt_tokens": completion.cached_prompt_tokens,
                "cache_write_prompt_tokens": completion.cache_write_prompt_tokens,
                "reasoning_tokens": completion.reasoning_tokens,
                "price_source": completion.price_source,
                "trajectory": str(ctx.artifacts / "trajectory.jsonl"),
                "atif": str(write_atif(ctx.artifacts / "trajectory.jsonl", "vanilla", llm.model)),
                **({"delivery": problems} if problems else {}),
            },
        )
