"""What the reference returns for the planted tests' new inputs: a trusted, cached stage.

The reference is trusted, but it is code: it runs like any project, in the sandbox, through
:func:`..runner.run_suite`, with the task's test settings, against the task's tests with the
recording copies of :func:`.twins.write_recorders` added. What it recorded is kept, by the
content of the tests, the reference and the test tools, in the user's cache
(``$E2EBENCH_CACHE/planting``): every session, agent and run plants from the same entries, and
only the planting differs (a seed per run).
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
import shutil
import tempfile
from pathlib import Path

from ...environment import venv
from ...environment.source import cache_root
from ...environment.web import browser_binaries
from ...errors import AgentFileError, InfrastructureError
from ...isolation.sandbox import Sandbox
from ...methods.stages import testing
from ...run.cache import key_of, locked, write_json
from ...taskmodel import testconf
from ...untrusted import parse
from .. import runner
from . import twins

_MAX_RECORDS = 8 << 20  # bytes of the record file read
STORE_ENV = "E2EBENCH_PLANTING_STORE"
SEED_KEY = "seed.key"  # in the store: the machine's key of the planting seeds
# what the run's progress line says while the entries are recorded (issue 44: not "adapting
# the reference tests", the step before it, which a throttled line used to keep showing)
RECORDING = "recording the reference's values for planted tests"


def store() -> Path:
    """Where recorded entries are kept: ``$E2EBENCH_CACHE/planting``, or the folder
    ``$E2EBENCH_PLANTING_STORE`` names (the project's test suite shares one fresh folder among
    all its sessions, as it does wheels; whoever can write that folder chooses the values)."""
    env = os.environ.get(STORE_ENV)
    return Path(env) if env else cache_root() / "planting"


def run_key(task) -> str:
    """The cache key of a task's entries (and the seed of its recording copies' inputs)."""
    return key_of(
        "planting",
        twins.FORMAT,
        twins.VARIANTS,
        task.tests_hash,
        task.reference_hash,
        venv.fingerprint(),
        task.settings.key(),
        task.excluded,
    )[:24]


def recorded(task, shared: Path, sandbox: Sandbox, timeout: float, progress=None) -> list[dict]:
    """The task's recorded entries (:func:`.twins.entries`); [] for a task without Python tests
    or a reference, or whose reference does not install (its runs then get copied
    honeypots, :func:`..honeypot.plant_pairs`). ``progress`` (the run's callback) hears its two
    steps when they are not cached: the reference installed, the recording copies run."""
    if task.kind == "web" or task.reference_dir is None or not task.tests_dir.exists():
        return []
    if task.slots.get("projecteval") is not None:
        return []  # its tests read the agent's parameter answers: none exist for the reference
    where = store() / run_key(task)
    with locked(where):
        done = where / "entries.json"
        if done.is_file():
            return parse.read_json(where, "entries.json", max_bytes=_MAX_RECORDS)
        say = progress if progress is not None else lambda info: None
        say({"doing": f"{RECORDING} (step 1 of 2: installing the reference)"})
        try:
            project, python = testing.reference_env(task.reference_dir, shared, sandbox, task)
        except InfrastructureError:
            return []  # not cached: the next session tries again
        found, sides_seen = _record(task, project, python, shared, sandbox, timeout, say)
        where.mkdir(parents=True, exist_ok=True)
        if sides_seen is not None:
            write_json(where / "sides.json", sides_seen)
        write_json(done, found)
    return found


def seed(task, run: int) -> int:
    """The planting's seed of ``task``'s run ``run``: the same for every agent and session on
    this machine, so that identical sessions plant the same tests and give the same figures
    (planted tests run the project too: their inputs and a honeypot's failure message reach
    lines the public tests do not, issue 48), and unknown off it: drawn from a key kept in the
    store (mode 0600), never in a task, the code or a record an agent can read."""
    where = store()
    key = where / SEED_KEY
    if not key.is_file():  # made once: a concurrent session's key, if first, stands
        where.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{SEED_KEY}.", dir=where)  # 0600 from the start
        fresh = Path(name)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
        try:
            os.link(fresh, key)
        except FileExistsError:
            pass
        fresh.unlink()
    text = parse.read_data(where, SEED_KEY, max_bytes=256).decode("ascii", "replace").strip()
    digest = hashlib.sha256(f"{text}\0{task.id}\0{task.tests_hash}\0{run}".encode())
    return int(digest.hexdigest()[:16], 16)


def sides(task) -> list[str] | None:
    """Where the reference's values met a test's literals as objects in its recording run
    (``probe/e2ebench_sides.py``), or None: not recorded, not split, or not run to its end
    (then an agent's objects are compared as they answer, with the liar checks)."""
    if task.kind == "web" or task.reference_dir is None:
        return None
    where = store() / run_key(task)
    if not (where / "sides.json").is_file():
        return None
    try:
        found = parse.read_json(where, "sides.json", max_bytes=_MAX_RECORDS)
    except AgentFileError:
        return None
    return [str(k) for k in found] if isinstance(found, list) else None


def _record(task, project: Path, python: Path, shared: Path, sandbox, timeout, say) -> tuple:
    """Run the recording copies on the reference: the entries they recorded, and the run's
    sides (:func:`sides`). ``say``: the run's progress callback."""
    shared.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="planting-", dir=shared) as tmp:
        work = Path(tmp)
        tests = task.copy_tests(work / "tests")
        # the copies' inputs come from a seed of the content: the same entries everywhere
        plan = twins.write_recorders(tests, random.Random(run_key(task)))
        if not plan:
            return [], None
        copies = f"{len(plan)} recording {'copy' if len(plan) == 1 else 'copies'}"
        say({"doing": f"{RECORDING} (step 2 of 2: {copies} of the tests on the reference)"})
        result = runner.run_suite(
            "planting",
            tests=tests,
            venv_python=python,
            repo=project,
            eval_dir=work / "eval",
            timeout=timeout,
            test_timeout=task.test_timeout,
            sandbox=sandbox,
            honeypots=False,
            settings=task.settings,
            deselect=testconf.suite_nodeids(task),
            # as the graded runs have them: the task's test libraries (the split suite's
            # process links them) and Chromium; without them a recording run's tests fail
            # before they reach the project, and it reports no side where they would have
            requires=task.test_requires,
            browser=browser_binaries() if task.browser else None,
        )
        home = work / "eval" / "planting" / "work" / "home"
        try:  # written in the sandbox by the reference's run: bounded, no links
            data = parse.read_data(home, twins.RECORD_FILE, max_bytes=_MAX_RECORDS)
        except AgentFileError:
            data = None
        text = (data or b"").decode("utf-8", "replace")
        found = twins.entries(plan, text, task.copy_tests(work / "clean"))
        shutil.rmtree(work / "eval", ignore_errors=True)
    return found, _sides_of(result)


def _sides_of(result: dict | None) -> list[str] | None:
    """The sides a split recording run that completed reported, else None."""
    if not result or result.get("verdict_mode") != "split" or result.get("status") != "completed":
        return None
    return (result.get("split") or {}).get("sides")
