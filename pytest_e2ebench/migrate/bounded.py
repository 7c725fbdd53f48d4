"""The static migration in a child process with a time and a memory bound (issue 40, item 5).

The static migrator parses and indexes the agent's project: its input is hostile. A project of
24 modules of 2 MB of one-line functions held a session in "adapting the reference tests" for
25 minutes at 1 GB before an outside timeout killed it. Here the migration runs in a child
interpreter of its own (nothing of the harness's threads or state is shared), under
``RLIMIT_AS`` of :data:`MEMORY_BYTES`, ended after :data:`SECONDS`. A migration over either
bound, one the project's code drove into ``RecursionError``, or a child a signal ended is the
agent's: the reference tests run as written, and the record's notes name the step and the
bound. A child that fails otherwise is the harness's (an infrastructure error with its log).
The task goes to the child pickled in a harness folder (the harness's data, never the
agent's); the report comes back as JSON in the same folder.
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InfrastructureError
from .static import migrate

SECONDS = 60.0  # a normal project's static migration takes well under a second
MEMORY_BYTES = 2 << 30
# a project this small is migrated in the harness's process (measured here: one module of
# 2 MB of one-line functions took 3.3 s, one of 500 KB 0.3 s)
SMALL_BYTES = 256 << 10
SMALL_FILES = 400
_AGENTS = (MemoryError, RecursionError)  # what a hostile project can make the migrator raise
_BOOT = "from pytest_e2ebench.migrate.bounded import main; main()"


def bounded_migrate(task, repo: Path, out: Path, seconds: float = SECONDS) -> dict:
    """:func:`.static.migrate` of ``task`` for ``repo`` into ``out``, bounded. A project of at
    most :data:`SMALL_BYTES` of Python in :data:`SMALL_FILES` files is migrated here (well under
    a second; a child costs 0.3 s of start-up, per run), any other in a child with the bounds."""
    if _small(repo):
        return migrate(task, repo, out)
    with tempfile.TemporaryDirectory(prefix="e2ebench-migrate-") as tmp:
        where = Path(tmp)
        (where / "task.pickle").write_bytes(pickle.dumps(task))
        command = [sys.executable, "-c", _BOOT, str(where), str(repo), str(out)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with (where / "child.log").open("wb") as log:
            child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                     preexec_fn=_limits)  # fmt: skip
            try:
                child.wait(seconds)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                return _as_written(task, out, f"over its time bound ({seconds:g} s)")
        return _answer(task, out, where, child.returncode)


def _small(repo: Path) -> bool:
    """Whether the project's Python files are few and small (counted without following links,
    stopping at the first bound passed)."""
    size = files = 0
    for folder, _, names in os.walk(repo):
        for name in names:
            if name.endswith(".py"):
                files += 1
                try:
                    size += os.lstat(os.path.join(folder, name)).st_size
                except OSError:
                    continue
                if files > SMALL_FILES or size > SMALL_BYTES:
                    return False
    return True


def _answer(task, out: Path, where: Path, status: int) -> dict:
    """The child's report, or what its end means: the agent's bound, or the harness's bug."""
    found = where / "report.json"
    if status == 0 and found.is_file():
        report = json.loads(found.read_text(encoding="utf-8"))
        if "bound" in report:
            return _as_written(task, out, report["bound"])
        return report
    if status < 0:  # a signal: the kernel's end of a child the project's code drove there
        return _as_written(task, out, f"ended by signal {-status}")
    tail = (where / "child.log").read_text(errors="replace")[-1500:]
    raise InfrastructureError("migrate", f"the static migrator failed (status {status}):\n{tail}")


def _as_written(task, out: Path, why: str) -> dict:
    """The reference tests as written: what the agent's project leaves of the migration."""
    shutil.rmtree(out, ignore_errors=True)
    task.copy_tests(out)
    note = f"the static migration of the project stopped, {why}: the tests run as written"
    return {"migrator": "static", "over_bound": note, "changed": {}, "unparsable": {}}


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def main() -> None:
    """The child: ``-c BOOT FOLDER REPO OUT``; its report in ``FOLDER/report.json``."""
    where, repo, out = (Path(a) for a in sys.argv[1:4])
    task = pickle.loads((where / "task.pickle").read_bytes())  # the harness's own file
    try:
        report = migrate(task, repo, out)
    except _AGENTS as exc:
        memory = f"over its memory bound ({MEMORY_BYTES >> 30} GiB)"
        report = {"bound": memory if isinstance(exc, MemoryError) else "nested too deep"}
    (where / "report.json").write_text(json.dumps(report, default=list), encoding="utf-8")
