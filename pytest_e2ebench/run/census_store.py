"""The reference's census shared across sessions: a content-keyed store (issue 27).

Every session that grades an agent other than ``reference`` first needs the census of the
reference's run 1 (:func:`..grading.verdicts.census`: which tests and cases there are, which
skip): a whole pipeline of its own. Within one ``--e2e-out`` folder the stage cache already
reuses that run; this store shares the census between sessions writing to different folders
(the project's own test suite runs dozens of sessions over the same few tasks).

The store is the user's cache (``$E2EBENCH_CACHE/census``), or the folder
``$E2EBENCH_CENSUS_STORE`` names (set empty: off). Its key is derived from the
reference run's plan (:class:`.plan.RunPlan`), as the stage keys are: every field of the plan
except where the run lives and the inputs only of stages graded after the census (the task's
checks, the judge, ProjectEval's similarity), plus the content of the task's folder, its level
and mode, the sandbox mode, the harness's version, code and interpreter. A new field of the plan is
part of the key unless it is added to :data:`AFTER_CENSUS`'s stages alone, so a forgotten
input cannot serve a stale census. An entry is read back through the bounded parser and
checked; anything else is a miss, and the reference is evaluated as without the store.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__, methods
from ..environment.source import cache_root
from ..errors import AgentFileError
from ..grading.verdicts import base_nodeid
from ..untrusted import parse
from .cache import key_of, tree_hash, write_json
from .plan import RunPlan, stage_inputs
from .runs import run_part

if TYPE_CHECKING:
    from ..taskmodel.task import Task

STORE_ENV = "E2EBENCH_CENSUS_STORE"
FORMAT = 1  # of an entry; bump when what is stored or how it is drawn changes
MAX_BYTES = 32 << 20  # an entry's file, read back (a task of ~100,000 cases fits)
# The plan's fields that say where a run lives, not what it is: the reference's run 1 of the
# same task in another --e2e-out folder has the same census.
WHERE = frozenset({"run_dir", "not_before"})
# The stages graded after the census was drawn from the test run (pipeline.Evaluator._verdicts):
# their inputs cannot change it.
AFTER_CENSUS = ("checks", "judge", "similarity")
_ENTRY = frozenset({"cases", "requirements", "skipped"})


def store() -> Path | None:
    """The store's folder: ``$E2EBENCH_CENSUS_STORE``, else the user's cache
    (``$E2EBENCH_CACHE/census``, issue 44: a second session of a new agent on the same tasks
    evaluates no reference again); None when the variable is set empty (off).

    Whoever can write that folder chooses the census, and so every agent's denominators: it
    must be the harness user's alone."""
    env = os.environ.get(STORE_ENV)
    if env is None:
        return cache_root() / "census"
    return Path(env) if env else None


def key_fields() -> tuple[str, ...]:
    """The fields of :class:`RunPlan` in the key: all but :data:`WHERE` (and the methods'
    ``PLAN_WHERE``) and those only the stages of :data:`AFTER_CENSUS` read; a method's field
    (``<slot>.<field>``) when a stage table names it."""
    tables = stage_inputs()
    before = {
        name for table, names in tables.items() if table not in AFTER_CENSUS for name in names
    }
    after_only = {name for table in AFTER_CENSUS for name in tables.get(table, ())} - before
    skipped = WHERE | set(methods.parts("PLAN_WHERE")) | after_only
    core = [f.name for f in dataclasses.fields(RunPlan) if f.name != "methods"]
    named = sorted({name for names in tables.values() for name in names if "." in name})
    return tuple(name for name in (*core, *named) if name not in skipped)


def census_key(plan: RunPlan, task: Task, sandbox_mode: str) -> str:
    """The key of the census of the reference run ``plan`` (its run 1) of ``task``."""
    fields = {name: plan.value(name) for name in key_fields()}
    # the task is what its folder holds (a PyPI-sourced reference: plan.reference_hash and
    # tests_hash), filed under the folder part a method gives its runs (ProjectEval's level)
    about = {
        "id": task.id,
        "kind": task.kind,
        "part": run_part(task),
        "content": tree_hash(task.root),
    }
    harness = (__version__, harness_digest(), sys.executable)
    return key_of("census", FORMAT, harness, sandbox_mode, about, fields)


@functools.cache
def harness_digest() -> str:
    """The content of the harness's own package (an editable install's code changes while its
    version does not), hashed once per process."""
    return tree_hash(Path(__file__).resolve().parents[1])


def load(key: str) -> dict[str, dict] | None:
    """The census stored under ``key``, or None (store off, missing, unreadable or malformed:
    then the reference is evaluated)."""
    where = store()
    if where is None:
        return None
    try:
        doc = parse.read_json(where, f"{key}.json", max_bytes=MAX_BYTES)
    except AgentFileError:
        return None
    return checked(doc, key)


def checked(doc: object, key: str) -> dict[str, dict] | None:
    """``doc``'s census if it is an entry of this format for ``key`` in the shape
    :func:`..grading.verdicts.census` returns, else None."""
    if not isinstance(doc, dict) or set(doc) != {"format", "key", "census"}:
        return None
    if doc["format"] != FORMAT or doc["key"] != key or not isinstance(doc["census"], dict):
        return None
    for base, entry in doc["census"].items():
        if not _entry_ok(base, entry):
            return None
    return doc["census"]


def _entry_ok(base: object, entry: object) -> bool:
    """One test's census entry: its cases (of this base node id), requirements and skips."""
    if not isinstance(base, str) or not isinstance(entry, dict) or set(entry) != _ENTRY:
        return False
    if not all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in entry.values()):
        return False
    cases = entry["cases"]
    return (
        bool(cases)
        and all(base_nodeid(case) == base for case in cases)
        and set(entry["skipped"]) <= set(cases)
    )


def keep(key: str, census: dict[str, dict], *, replace: bool = False) -> None:
    """Store ``census`` under ``key`` unless the store is off or has a valid entry for it
    (``replace``: ``--e2e-rerun``'s census replaces it). Atomic: a concurrent session reads
    the whole entry or none. A store that cannot be written is left alone: the next session
    evaluates the reference again."""
    where = store()
    if where is None or (not replace and load(key) is not None):
        return  # the first census kept stands: every session of the store counts on it
    doc = {"format": FORMAT, "key": key, "census": census}
    if len(json.dumps(doc)) > MAX_BYTES // 2:  # written indented: it would not be read back
        return
    try:
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_json(where / f"{key}.json", doc)
    except OSError:
        pass  # only a cache: the results are the same without it
