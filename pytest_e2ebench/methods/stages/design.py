"""The software-design stage: Mermaid class and sequence diagrams and an architecture file tree.

Graded two ways (DevBench, arXiv:2403.08604, Table 1; issue 16):

* deterministically: each diagram must parse with Mermaid's own parser as the right diagram type
  (:mod:`.mermaid`), and the names it declares are compared with the reference design's —
  F1 of class names, of ``Class.method`` names and of sequence participants; the file tree's
  file paths likewise;
* by DevEval's pairwise LLM judge (``--e2e-judge=llm|both``), through the
  ``pytest_e2ebench_judge_design`` hook: the answer against a baseline answer (the task's
  ``design/baseline/`` if it has one, else its reference design), on "general principles" and
  on "faithfulness" to the requirements, **asked twice with the order swapped**; a verdict that
  does not survive the swap is a tie.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import InfrastructureError
from ...isolation.intake import read_text
from ...untrusted.parse import loads_json
from . import ARCHITECTURE, CLASS_DIAGRAM, SEQUENCE_DIAGRAM, mermaid

MAX_DESIGN_BYTES = 256 << 10  # per design file
# Mermaid's own ``maxTextSize``: it renders nothing longer. Its parser takes quadratic time on
# some texts (a long run of blanks), so a longer diagram is not parsed at all.
MAX_DIAGRAM_CHARS = 50_000
PASS_F1 = 0.5  # an artefact item passes when it parses and its name F1 reaches this (ours)
FILES = {"class": CLASS_DIAGRAM, "sequence": SEQUENCE_DIAGRAM, "architecture": ARCHITECTURE}
EXPECTED_TYPE = {"class": "classDiagram", "sequence": "sequence"}
CRITERIA = ("general_principles", "faithfulness")
UNREADABLE = f"missing (or a link, or over {MAX_DESIGN_BYTES >> 10} KiB)"
_TREE_PREFIX = re.compile(r"^[\s│├└─|`+\-\\*]*")
_MERMAID_FENCE = re.compile(r"^```+\s*mermaid[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_FENCE = re.compile(r"^```+[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def read_design(root: Path) -> dict[str, str | None]:
    """The three design files of ``root`` (None when missing, a link or too large).

    A file may be Markdown around the design (as DevEval's ``UML_class.md`` and
    ``architecture_design.md`` are): then the first fenced block is the design.
    """
    found = {name: read_text(root, rel, MAX_DESIGN_BYTES) for name, rel in FILES.items()}
    return {name: None if text is None else fenced(text) for name, text in found.items()}


def fenced(text: str) -> str:
    """The first fenced code block of ``text`` (a ```mermaid one first), or ``text`` itself."""
    match = _MERMAID_FENCE.search(text) or _FENCE.search(text)
    return match.group(1) if match else text


def tree_files(text: str) -> set[str]:
    """File paths of an architecture file tree (``tree`` drawing, indented, or plain paths).

    A line's depth is where its name starts; a name ending in ``/``, or followed by a deeper
    line, is a folder, the rest are files; ``# comments`` are dropped.
    """
    entries: list[tuple[int, str]] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip() or line.strip().startswith("```"):
            continue
        indent = len(_TREE_PREFIX.match(line).group(0))
        name = line[indent:].strip()
        if name:
            entries.append((indent, name))
    files: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indent, folder) of the open folders
    for index, (indent, name) in enumerate(entries):
        while stack and stack[-1][0] >= indent:
            stack.pop()
        deeper = index + 1 < len(entries) and entries[index + 1][0] > indent
        path = "/".join([*(folder for _, folder in stack), name.rstrip("/")])
        if name.endswith("/") or deeper:
            stack.append((indent, name.rstrip("/")))
        else:
            files.add(path.removeprefix("./"))
    return files


def f1(found: set[str], expected: set[str]) -> float:
    """F1 of two name sets (0 when either is empty, 1 when both are)."""
    if not found and not expected:
        return 1.0
    hits = len(found & expected)
    if not hits:
        return 0.0
    precision, recall = hits / len(found), hits / len(expected)
    return 2 * precision * recall / (precision + recall)


def grade(answer_root: Path, reference_root: Path, work: Path, sandbox) -> dict:
    """The deterministic grade of the design in ``answer_root`` against ``reference_root``."""
    answer, reference = read_design(answer_root), read_design(reference_root)
    parsed = _parse_diagrams(answer, reference, work, sandbox)
    items: dict[str, dict] = {}
    for name, expected_type in EXPECTED_TYPE.items():
        ref = parsed[f"reference-{name}"]
        if not ref.ok:
            raise InfrastructureError(
                "design", f"the task's reference {FILES[name]} does not parse: {ref.error}"
            )
        items[name] = _diagram_item(name, expected_type, parsed.get(f"answer-{name}"), ref)
    items["architecture"] = _tree_item(answer["architecture"], reference["architecture"])
    return {"items": items, "metrics": design_metrics(items)}


def _parse_diagrams(answer: dict, reference: dict, work: Path, sandbox) -> dict:
    """Every diagram parsed by Mermaid, ``answer-<name>`` and ``reference-<name>``; an answer
    over Mermaid's size limit is not parsed at all."""
    mine, theirs = {}, {}
    too_long = {}
    for name in EXPECTED_TYPE:
        text = answer[name]
        if text is not None and len(text) > MAX_DIAGRAM_CHARS:
            why = f"over Mermaid's maxTextSize ({len(text)} > {MAX_DIAGRAM_CHARS} characters)"
            too_long[f"answer-{name}"] = mermaid.Parsed(ok=False, error=why)
        elif text is not None:
            mine[f"answer-{name}"] = text
        theirs[f"reference-{name}"] = reference[name] or ""
    # the agent's diagrams in a parser of their own: one that never finishes is their failure,
    # and cannot keep the reference's from being parsed
    return {
        **mermaid.parse(theirs, work / "reference", sandbox),
        **mermaid.parse(mine, work / "answer", sandbox, untrusted=True),
        **too_long,
    }


def _diagram_item(name: str, expected_type: str, got, ref) -> dict:
    """One diagram's item: valid Mermaid of the right type, and its names' F1 against the
    reference's (classes and methods, or participants)."""
    if got is None:
        return _item(False, 0.0, f"{FILES[name]} is {UNREADABLE}")
    if not got.ok or got.type != expected_type:
        why = got.error or f"a {got.type} diagram, not a {expected_type} diagram"
        return _item(False, 0.0, f"{FILES[name]} is not valid Mermaid: {why}")
    if name == "class":
        scores = {
            "class_f1": f1(set(got.classes), set(ref.classes)),
            "method_f1": f1(set(got.methods), set(ref.methods)),
        }
        score = (scores["class_f1"] + scores["method_f1"]) / 2
        missing = sorted(set(ref.classes) - set(got.classes))
    else:
        scores = {"participant_f1": f1(set(got.participants), set(ref.participants))}
        score = scores["participant_f1"]
        missing = sorted(set(ref.participants) - set(got.participants))
    return _item(True, score, _shortfall(name, score, missing), **scores)


def _tree_item(answer: str | None, reference: str | None) -> dict:
    """The architecture file tree's item: its files' F1 against the reference's."""
    if answer is None:
        return _item(False, 0.0, f"{ARCHITECTURE} is {UNREADABLE}")
    got_files, ref_files = tree_files(answer), tree_files(reference or "")
    score = f1(got_files, ref_files)
    missing = sorted(ref_files - got_files)
    return _item(
        bool(got_files),
        score,
        _shortfall("architecture", score, missing) if got_files else "no file in the tree",
        file_f1=score,
    )


def _item(valid: bool, score: float, message: str, **scores: float) -> dict:
    return {
        "valid": valid,
        "score": round(score, 4),
        "passed": valid and score >= PASS_F1,
        "message": message,
        **{k: round(v, 4) for k, v in scores.items()},
    }


def _shortfall(name: str, score: float, missing: list[str]) -> str:
    if score >= PASS_F1 and not missing:
        return ""
    listed = ", ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
    return f"{name}: name F1 {score:.2f} (pass at {PASS_F1}); missing: {listed or 'none'}"


def design_metrics(items: dict[str, dict]) -> dict:
    """The stage's numbers: validity, each F1, and the mean artefact score."""
    metrics = {
        "design_valid": sum(i["valid"] for i in items.values()) / len(items),
        "design_score": sum(i["score"] for i in items.values()) / len(items),
    }
    for key in ("class_f1", "method_f1", "participant_f1", "file_f1"):
        values = [i[key] for i in items.values() if key in i]
        metrics[key] = values[0] if values else 0.0
    return {k: round(v, 4) for k, v in metrics.items()}


# --- DevEval's pairwise judge -------------------------------------------------------------

SYSTEM = (
    "You are a software architect comparing two software designs written for the same "
    "requirements document. Each design has a Mermaid class diagram, a Mermaid sequence "
    "diagram and an architecture file tree. Judge only the criterion you are given. Answer with "
    'one JSON object and nothing else: {"better": 1 | 2 | 0, "reason": one sentence}, where 0 '
    "means they are equally good."
)
CRITERION_TEXT = {
    "general_principles": "general design principles: cohesion, low coupling, clear "
    "responsibilities, a structure that is easy to extend and test",
    "faithfulness": "faithfulness: how completely and accurately the design covers what the "
    "requirements document asks for, without inventing what it does not",
}


def _shown(design: dict[str, str | None]) -> str:
    return "\n\n".join(f"### {FILES[k]}\n{design.get(k) or '(missing)'}" for k in FILES)


def parse_preference(text: str | None) -> int | None:
    """1, 2 or 0 from a judge's answer (None when it says none of them)."""
    if not text:
        return None
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        value = loads_json(match.group(0) if match else text, "the answer").get("better")
    except (ValueError, AttributeError):
        return None
    return value if value in (0, 1, 2) else None


def swap_outcome(first: int | None, second: int | None) -> str:
    """``win``, ``loss`` or ``tie`` of the answer from the judge's two preferences.

    ``first`` was asked with the answer as design 1, ``second`` with it as design 2: the answer
    wins only if it is preferred in both orders (issue 16: inconsistent verdicts are ties).
    """
    if first == 1 and second == 2:
        return "win"
    if first == 2 and second == 1:
        return "loss"
    return "tie"  # equal, inconsistent across the swap, or unreadable


def pairwise(llm, requirements: str, answer: dict, baseline: dict, scope: str) -> dict:
    """Ask ``llm`` each criterion twice (answer first, then baseline first)."""
    outcomes = {}
    for criterion in CRITERIA:
        asked = []
        for order, (one, two) in enumerate(((answer, baseline), (baseline, answer))):
            user = (
                f"# Criterion\n{CRITERION_TEXT[criterion]}\n\n# Requirements document\n"
                f"{requirements}\n\n# Design 1\n{_shown(one)}\n\n# Design 2\n{_shown(two)}"
            )
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
            completion = llm.complete(messages, scope=f"{scope}/design-judge/{criterion}/{order}")
            asked.append(parse_preference(completion.content))
        outcomes[criterion] = {"asked": asked, "outcome": swap_outcome(*asked)}
    return {"criteria": outcomes, **win_rates(o["outcome"] for o in outcomes.values())}


def win_rates(outcomes) -> dict:
    """DevEval's win rate with ties (wins / all) and without (wins / decided)."""
    outcomes = list(outcomes)
    wins, losses = outcomes.count("win"), outcomes.count("loss")
    decided = wins + losses
    return {
        "wins": wins,
        "losses": losses,
        "ties": len(outcomes) - decided,
        "win_rate": wins / len(outcomes) if outcomes else None,
        "win_rate_no_ties": wins / decided if decided else None,
    }
