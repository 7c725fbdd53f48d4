"""Test cases from a feature list, written by an LLM (RealDevWorld §3.2, AppEvalPilot stage 1).

One call asks for 15-20 concrete cases, each tied to one feature; the answer is parsed strictly
(:func:`parse_cases`). A malformed answer is asked again once, with what was wrong; a second
malformed answer is an infrastructure error (the model did not do the harness's job, the app is
not to blame). The pipeline caches the cases as a stage keyed by the requirements and the model.
"""

from __future__ import annotations

from ...errors import InfrastructureError
from .llmcall import Asker, json_answer

RETRIES = 1
TEXT_LIMIT = 1000  # characters of one field of a case
SYSTEM = (
    "You are a QA engineer. From a web application's requirements document and its feature "
    "list, write concrete test cases that a tester can carry out in a browser by clicking, "
    "typing, selecting, pressing keys and reading the page. Each case checks one feature, "
    "names the exact inputs to use and the observable result that proves it works. Answer with "
    'one JSON object and nothing else: {"cases": [{"feature": "F1", "case": "<what to do, '
    'step by step>", "expected": "<what the page must then show>"}, ...]}.'
)


def parse_cases(text: str | None, features: list[str], bounds: tuple[int, int]) -> list[dict] | str:
    """The cases of one answer, numbered per feature (``F1-1``), or what is wrong with it."""
    try:
        data = json_answer(text)
    except ValueError as exc:
        return str(exc)
    raw = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return 'the object has no "cases" list'
    low, high = bounds
    if not low <= len(raw) <= high:
        return f"write between {low} and {high} cases, not {len(raw)}"
    cases, problems, counts = [], [], dict.fromkeys(features, 0)
    for index, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            problems.append(f"case {index} is not an object")
            continue
        feature = entry.get("feature")
        fields = {k: entry.get(k) for k in ("case", "expected")}
        if feature not in counts:
            problems.append(
                f"case {index}: feature {feature!r} is not one of {', '.join(features)}"
            )
            continue
        bad = [k for k, v in fields.items() if not isinstance(v, str) or not v.strip()]
        if bad:
            problems.append(f"case {index}: {' and '.join(bad)} must be non-empty text")
            continue
        counts[feature] += 1
        cases.append(
            {
                "id": f"{feature}-{counts[feature]}",
                "feature": feature,
                **{k: v.strip()[:TEXT_LIMIT] for k, v in fields.items()},
            }
        )
    missing = [f for f, n in counts.items() if not n]
    if missing and not problems:
        problems.append(f"features without a case: {', '.join(missing)}")
    if problems:
        return "; ".join(problems[:8])
    return sorted(cases, key=lambda c: (features.index(c["feature"]), c["id"]))


def generate_cases(llm, task, bounds: tuple[int, int], scope: str) -> dict:
    """``{"cases": [...], "calls", "tokens_sent", "tokens_generated", "cost_usd"}``."""
    features = [r.id for r in task.requirements]
    listing = "\n".join(f"{r.id}: {r.title}" for r in task.requirements)
    user = (
        f"# Requirements document\n\n{task.requirements_text}\n\n# Features\n\n{listing}\n\n"
        f"Write {bounds[0]}-{bounds[1]} test cases in all, at least one per feature."
    )
    asker = Asker(llm)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    for _attempt in range(RETRIES + 1):
        completion = asker.ask(messages, scope=f"{scope}/cases")
        parsed = parse_cases(completion.content, features, bounds)
        if isinstance(parsed, list):
            return {"cases": parsed, **asker.totals()}
        messages += [
            completion.message(),
            {"role": "user", "content": f"Invalid answer: {parsed}. Answer again with the JSON."},
        ]
    raise InfrastructureError(
        "cases", f"the model wrote no valid test cases for {task.id} (twice): {parsed}"
    )
