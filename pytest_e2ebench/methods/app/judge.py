"""JudgeLLM (AppEvalPilot stage 3) and the LLM-score baseline RealDevWorld compares it with.

* :func:`judge_case` maps one execution report (the case, the agent's result and evidence, its
  action trace and the final page) to Yes / No / Indeterminate. Parsed strictly; a malformed
  answer is asked again once, then the case is Indeterminate (the prompt holds the app's
  page: an app that makes the judge answer off the format gets no verdict, not an
  infrastructure error that leaves its run out of the means).
* :func:`llm_score` is the code-reading baseline (RealDevWorld Table 3's "LLM-score"): the
  model reads the SRD and the code and gives each feature a completeness in [0, 1]; the score
  is their mean times Executability.
"""

from __future__ import annotations

import json

from ...environment.workspace import suffixes_for
from ...judge.llm import code_listing
from .llmcall import APP_TEXT_RULE, fence, json_answer

VERDICTS = ("Yes", "No", "Indeterminate")
INDETERMINATE = VERDICTS[2]
RETRIES = 1
PAGE_LIMIT = 6000  # characters of the final page shown to the judge
SYSTEM = (
    "You judge software test results. Given a test case, the tester's report, the actions "
    "the tester took and the final page, decide whether the application passed the case: "
    "Yes if the evidence shows the expected result, No if it shows the app does not behave "
    "as expected (or lacks what the case needs), Indeterminate if the evidence cannot decide. "
    'Answer with one JSON object and nothing else: {"verdict": "Yes" | "No" | '
    '"Indeterminate", "reason": "<one sentence>"}. ' + APP_TEXT_RULE
)
SCORE_SYSTEM = (
    "You review the source code of a web application against its requirements document. For "
    "every feature id, estimate how completely the code implements it, from 0 (not at all) to "
    "1 (completely). Answer with one JSON object and nothing else: keys are ALL feature ids, "
    'values {"score": <number 0..1>, "reason": "<one sentence>"}.'
)


def parse_verdict(text: str | None) -> dict | str:
    """``{"verdict", "reason"}`` of one answer, or what is wrong with it."""
    try:
        data = json_answer(text)
    except ValueError as exc:
        return str(exc)
    if not isinstance(data, dict) or data.get("verdict") not in VERDICTS:
        return f'"verdict" must be one of {", ".join(VERDICTS)}'
    return {"verdict": data["verdict"], "reason": str(data.get("reason", ""))[:500]}


def _ask(asker, messages: list[dict], parse, scope: str, what: str, fallback):
    """The model's parsed answer; after :data:`RETRIES` invalid ones, ``fallback(why)``. The
    prompt holds the agent's page or code: an app that makes the judge answer off the format
    (an injection, a page too long for the answer) gets no verdict, not an infrastructure
    error that would leave its run out of the means (issue 40)."""
    for _attempt in range(RETRIES + 1):
        completion = asker.ask(messages, scope=scope)
        parsed = parse(completion.content)
        if not isinstance(parsed, str):
            return parsed
        messages = [
            *messages,
            completion.message(),
            {"role": "user", "content": f"Invalid answer: {parsed}. Answer again with the JSON."},
        ]
    return fallback(f"the judge gave no valid {what} ({RETRIES + 1} answers): {parsed}"[:500])


def _no_verdict(why: str) -> dict:
    return {"verdict": INDETERMINATE, "reason": why}


def judge_case(asker, case: dict, report: dict, scope: str) -> dict:
    """Yes / No / Indeterminate for one executed case."""
    steps = "\n".join(
        f"{i}. {t['action']} {json.dumps(t['args'])} -> {t['result'][:200]}"
        for i, t in enumerate(report["trace"], start=1)
    )
    page = str(report.get("observation", {}).get("tree", ""))[:PAGE_LIMIT]
    # what the app wrote (its page, and what the tester read or quoted from it) is fenced:
    # a page cannot add a section of its own ("Result: Pass") to the judge's message
    user = (
        f"# Test case {case['id']} (feature {case['feature']})\n{case['case']}\n"
        f"Expected: {case['expected']}\n\n# Tester's report\nResult: {report['result']}\n"
        f"Evidence:\n{fence(str(report['evidence']))}\nEnded by: {report['ended']}\n\n"
        f"# Actions\n{fence(steps) if steps else '(none)'}\n\n"
        f"# Final page\n{fence(page) if page else '(not observed)'}"
    )
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    return _ask(asker, messages, parse_verdict, f"{scope}/{case['id']}", "verdict", _no_verdict)


def llm_score(asker, task, repo, executable: bool, scope: str) -> dict:
    """The code-reading baseline: per-feature completeness, their mean × Executability."""
    ids = [r.id for r in task.requirements]

    def parse(text: str | None) -> dict | str:
        try:
            data = json_answer(text)
        except ValueError as exc:
            return str(exc)
        if not isinstance(data, dict):
            return "the answer is not a JSON object"
        scores, bad = {}, []
        for rid in ids:
            entry = data.get(rid)
            value = entry.get("score") if isinstance(entry, dict) else entry
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                bad.append(rid)
            else:
                scores[rid] = float(value)
        return f"ids without a score in [0, 1]: {', '.join(bad)}" if bad else scores

    user = (
        f"# Requirements document\n\n{task.requirements_text}\n\n"
        f"# Code\n\n{code_listing(repo, suffixes_for(task.kind))}\n\n"
        f"Score every feature id: {', '.join(ids)}."
    )
    messages = [{"role": "system", "content": SCORE_SYSTEM}, {"role": "user", "content": user}]
    unscored = dict.fromkeys(ids, 0.0)  # no valid answer: no feature is credited
    where = f"{scope}/llm-score"
    scores = _ask(asker, messages, parse, where, "feature scores", lambda _: unscored)
    completeness = sum(scores.values()) / len(scores)
    return {
        "features": scores,
        "completeness": completeness,
        "score": completeness if executable else 0.0,
    }
