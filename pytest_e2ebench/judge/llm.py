"""The LLM judge of E2EDevBench (§3.1.2): three independent votes per requirement.

Each vote is one LLM call given the requirements document, the generated code and the test
results — never the reference implementation — and must answer with a JSON object that
classifies **every** requirement id; an answer that misses ids or is not valid JSON is asked
again (up to ``RETRIES`` times). A requirement is ``implemented`` only if all three votes say
so, ``not_implemented`` only if all three say not, and ``inconclusive`` otherwise (it stays in
the denominator of impl_rate). Not-implemented requirements get a failure class from
E2EDevBench's taxonomy, by majority of the votes.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..environment.workspace import PYTHON_SUFFIXES, code_files, suffixes_for
from ..grading.verdicts import IMPLEMENTED, INCONCLUSIVE, NOT_IMPLEMENTED, judge_by_tests
from ..isolation.intake import read_text
from ..untrusted.parse import loads_json

VOTES = 3
# what the code shown is, for the kinds that are not Python projects
KIND_NOTES = {
    "web": " (a static web app: its HTML, CSS and JavaScript files)",
    "app": " (a web app: its HTML, CSS, JavaScript and Python files)",
}
RETRIES = 3
CODE_BUDGET = 60_000  # characters of source shown to the judge
FAILURE_CLASSES = (
    "missing_component",
    "incomplete_stub",
    "incorrect_logic",
    "wrong_output_format",
    "wrong_api_signature",
    "upstream_failure",
)
SYSTEM = (
    "You are a strict reviewer deciding, for every requirement of a software project, whether "
    "the given code implements it. Use the code and the test results. Answer with one JSON "
    "object and nothing else: keys are ALL requirement ids; each value is "
    '{"verdict": "implemented" | "not_implemented", "failure_class": one of '
    f"{', '.join(FAILURE_CLASSES)} (only when not implemented), "
    '"reason": one sentence}.'
)


def code_listing(repo: Path, suffixes: tuple[str, ...] = PYTHON_SUFFIXES) -> str:
    """The project's code files (``suffixes``), within :data:`CODE_BUDGET` characters."""
    parts, used = [], 0
    for rel in code_files(repo, suffixes):
        # Read at most the budget (a larger file is not shown anyway), never through a link:
        # the judge must not see a file from outside the project.
        text = read_text(repo, rel, CODE_BUDGET)
        if text is None:
            text = f"[not shown: larger than the code budget of {CODE_BUDGET}, or a link]"
        chunk = f"### {rel}\n{text}\n"
        if used + len(chunk) > CODE_BUDGET:
            parts.append(
                f"### {rel}\n[not shown: the code budget of {CODE_BUDGET} characters is used]\n"
            )
            continue
        parts.append(chunk)
        used += len(chunk)
    return "".join(parts) or "(the repository has no code)"


def _results(task, tests: list[dict]) -> str:
    lines = []
    for req in task.requirements:
        mine = [t for t in tests if req.id in t.get("requirements", [])]
        passed = sum(t["outcome"] in ("passed", "xpassed") for t in mine)
        lines.append(f"{req.id}: {passed}/{len(mine)} tests passed")
        for t in [t for t in mine if t["outcome"] not in ("passed", "xpassed")][:3]:
            first = (t.get("message") or "").strip().splitlines()[:1]
            lines.append(f"  {t['outcome']}: {t['nodeid']} {first[0][:160] if first else ''}")
    return "\n".join(lines)


def parse_vote(text: str | None, ids: list[str]) -> dict[str, dict] | str:
    """The votes of one answer by id, or a problem description to send back."""
    if not text:
        return "the answer was empty"
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        data = loads_json(match.group(0) if match else text, "the answer")
    except ValueError as exc:
        return f"the answer is not a JSON object ({exc})"
    if not isinstance(data, dict):
        return "the answer is not a JSON object"
    votes, problems = {}, []
    for rid in ids:
        entry = data.get(rid)
        verdict = entry.get("verdict") if isinstance(entry, dict) else entry
        if verdict not in (IMPLEMENTED, NOT_IMPLEMENTED):
            problems.append(rid)
            continue
        cls = entry.get("failure_class") if isinstance(entry, dict) else None
        votes[rid] = {
            "verdict": verdict,
            "failure_class": cls if cls in FAILURE_CLASSES else None,
            "reason": entry.get("reason", "") if isinstance(entry, dict) else "",
        }
    if problems:
        return f"these ids are missing or have no valid verdict: {', '.join(problems)}"
    return votes


def aggregate(votes: list[dict[str, dict]], ids: list[str]) -> tuple[dict, dict]:
    """Unanimity per requirement, and the majority failure class of the not-implemented ones."""
    verdicts, classes = {}, {}
    for rid in ids:
        said = [v[rid]["verdict"] for v in votes]
        if all(s == IMPLEMENTED for s in said):
            verdicts[rid] = IMPLEMENTED
        elif all(s == NOT_IMPLEMENTED for s in said):
            verdicts[rid] = NOT_IMPLEMENTED
            named = Counter(v[rid]["failure_class"] for v in votes if v[rid]["failure_class"])
            classes[rid] = named.most_common(1)[0][0] if named else None
        else:
            verdicts[rid] = INCONCLUSIVE
    return verdicts, classes


def cohen_kappa(a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa of two binary raters; None when undefined (no items, or chance = 1)."""
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


def llm_verdicts(ctx, repo: Path, tests: list[dict]) -> dict:
    """Three votes, re-asked when malformed; verdicts, classes, agreement with the tests."""

    task = ctx.task
    llm = ctx.llm()
    ids = [r.id for r in task.requirements]
    user = _prompt(task, repo, tests, ids)
    usage = _Usage()
    votes = [
        _vote(llm, user, ids, f"{ctx.scope}/judge/vote-{n}", usage) for n in range(1, VOTES + 1)
    ]
    verdicts, classes = aggregate(votes, ids)
    by_tests = {v["id"]: v["verdict"] == IMPLEMENTED for v in judge_by_tests(task, tests)}
    decided = [rid for rid in ids if verdicts[rid] != INCONCLUSIVE]
    agree = [by_tests[rid] == (verdicts[rid] == IMPLEMENTED) for rid in decided]
    return {
        "verdicts": verdicts,
        "failure_classes": classes,
        "class_counts": dict(Counter(c for c in classes.values() if c)),
        "votes": votes,
        "calls": usage.asked,
        "agreement": sum(agree) / len(agree) if agree else None,
        "kappa": cohen_kappa(
            [by_tests[r] for r in decided], [verdicts[r] == IMPLEMENTED for r in decided]
        ),
        "tokens_sent": usage.sent,
        "tokens_generated": usage.generated,
        "cost_usd": usage.cost,
    }


def _prompt(task, repo: Path, tests: list[dict], ids: list[str]) -> str:
    """The judge's question: the requirements, the code, the test results, the ids to classify."""
    # the files of the task's kind: a web app's HTML/CSS/JS, not "no Python code" (#13.4)
    code = code_listing(repo, suffixes_for(task.kind))
    return (
        f"# Requirements document\n\n{task.requirements_text}\n\n"
        f"# Code{KIND_NOTES.get(task.kind, '')}\n\n{code}\n\n"
        f"# Test results\n\n{_results(task, tests)}\n\nClassify every id: {', '.join(ids)}."
    )


class _Usage:
    """The judge's calls, tokens and cost across its votes."""

    def __init__(self) -> None:
        self.asked = self.sent = self.generated = 0
        self.cost: float | None = None

    def add(self, completion) -> None:
        """Count one call."""
        self.asked += 1
        self.sent += completion.prompt_tokens
        self.generated += completion.completion_tokens
        if completion.cost_usd is not None:
            self.cost = (self.cost or 0.0) + completion.cost_usd


def _vote(llm, user: str, ids: list[str], scope: str, usage: _Usage) -> dict[str, dict]:
    """One vote, asked again (up to :data:`RETRIES` times) while the answer is malformed; a vote
    of no verdicts when no answer was valid."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    for _ in range(RETRIES + 1):
        completion = llm.complete(messages, scope=scope)
        usage.add(completion)
        parsed = parse_vote(completion.content, ids)
        if isinstance(parsed, dict):
            return parsed
        messages += [
            completion.message(),
            {
                "role": "user",
                "content": f"Invalid answer: {parsed}. Answer again "
                "with one JSON object classifying every id.",
            },
        ]
    return {
        rid: {"verdict": None, "failure_class": None, "reason": "no valid answer"} for rid in ids
    }
