"""The static migration in a child process with a time and a memory bound (issue 40, item 5).

The static migrator parses and indexes the agent's project: its input is hostile. A project of
24 modules of 2 MB of one-line functions held a session in "adapting the reference tests" for
25 minutes at 1 GB before an outside timeout killed it. Here the migration runs in a child
interpreter of its own (:func:`pytest_e2ebench.untrusted.child.call`), under ``RLIMIT_AS`` of
:data:`MEMORY_BYTES`, ended after :data:`SECONDS`. A migration over either bound, one the
project's code drove into ``RecursionError``, or a child a signal ended is the agent's: the
reference tests run as written, and the record's notes name the step and the bound. A child
that fails otherwise is the harness's (an infrastructure error with its log).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..untrusted import child
from .static import migrate

SECONDS = 60.0  # a normal project's static migration takes well under a second
MEMORY_BYTES = 2 << 30
# a project this small is migrated in the harness's process (measured here: one module of
# 2 MB of one-line functions took 3.3 s, one of 500 KB 0.3 s)
SMALL_BYTES = 256 << 10
SMALL_FILES = 400
STEP = "the static migration of the project"


def bounded_migrate(task, repo: Path, out: Path, seconds: float = SECONDS) -> dict:
    """:func:`.static.migrate` of ``task`` for ``repo`` into ``out``, bounded. A project of at
    most :data:`SMALL_BYTES` of Python in :data:`SMALL_FILES` files is migrated here (well under
    a second; a child costs 0.3 s of start-up, per run), any other in a child with the bounds."""
    if _small(repo):
        return migrate(task, repo, out)
    try:
        bounds = {"seconds": seconds, "memory": MEMORY_BYTES}
        return child.call(migrate, task, repo, out, step=STEP, stage="migrate", **bounds)
    except child.OverBound as over:
        return _as_written(task, out, over.why)


def _small(repo: Path) -> bool:
    """Whether the project's Python files are few and small (counted without following links,
    stopping at the first bound passed)."""
    return child.small_tree(repo, max_bytes=SMALL_BYTES, max_files=SMALL_FILES)


def _as_written(task, out: Path, why: str) -> dict:
    """The reference tests as written: what the agent's project leaves of the migration."""
    shutil.rmtree(out, ignore_errors=True)
    task.copy_tests(out)
    note = f"{STEP} stopped, {why}: the tests run as written"
    return {"migrator": "static", "over_bound": note, "changed": {}, "unparsable": {}}
