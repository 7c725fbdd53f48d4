"""Root conftest: what the project's own tests need (pytester is loaded by the ini's addopts).

Nothing here touches a benchmark session a user runs from the repository's root, or with
``--e2e-tasks`` pointing into it (the README's main job, ``pytest --e2e-agent=reference``):
the scheduler, the stores in temporary folders, the order of items and the skips are the
project's own test run's (issue 44: under them ``-n 2`` graded one task at a time and every
session recorded the decoys' values again, about 90 minutes against 18 from another folder).
"""

import ast
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from pytest_e2ebench.environment.backend import STORE_ENV
from pytest_e2ebench.environment.source import CACHE_ENV, cache_root
from pytest_e2ebench.evaluation.planting.values import STORE_ENV as PLANTING_ENV
from pytest_e2ebench.run.census_store import STORE_ENV as CENSUS_ENV

_MADE: list[str] = []  # the wheel store this process made (pytest_configure)
_MADE_ENV: list[str] = []  # variables this process set (pytest_configure)
MEMORY_TMP = Path("/dev/shm")
MEMORY_TMP_ENV = "E2EBENCH_SUITE_TMPFS"  # 0: pytest's temporary folders stay where pytest puts them
MEMORY_TMP_FREE = 8 << 30  # bytes free in the tmpfs and in memory for it to be used


def _benchmark(config) -> bool:
    """Whether this session grades agents (``--e2e-agent`` or its ini twin): a user's run."""
    return bool(config.getoption("e2e_agent", None) or config.getini("e2ebench_agent"))


def pytest_addoption(parser):
    parser.addoption(
        "--selfcheck",
        action="store_true",
        help="also run the full self-check of every bundled task (tests marked 'selfcheck': "
        "3 reference runs, the empty repository and every mutant; adds 15-20 min on 2 cores)",
    )

    parser.addoption(
        "--cli-agents",
        action="store_true",
        help="run every built-in CLI agent in tests/sessions/test_cli_agents.py (default: "
        "claude-code and codex; the PyPI agents' first installs take 7-10 min on 2 cores)",
    )
    parser.addoption(
        "--model",
        action="store_true",
        help="also run the tests marked 'model' against a real local model: the one "
        "E2EBENCH_MODEL_BASE_URL and E2EBENCH_MODEL_NAME name, else llama-server with the "
        "model of `e2ebench model fetch` (fetched on first use, cached)",
    )


def pytest_collection_modifyitems(config, items):
    if _benchmark(config):
        return
    skips = {}
    if not config.getoption("--selfcheck"):
        skips["selfcheck"] = "the full self-check of the bundled tasks: run with --selfcheck"
    if not (config.getoption("--model") or os.environ.get("E2EBENCH_MODEL_BASE_URL")):
        skips["model"] = "needs a real model: run with --model or set E2EBENCH_MODEL_BASE_URL"
    for item in items:
        for marker, reason in skips.items():
            # the marker, not a keyword: a checkout in a folder named "model" has that keyword
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
    # The tests that run benchmark sessions first (a stable sort: each file keeps its order):
    # under -n 2 the long ones start at once instead of one worker finishing them alone at the
    # end while the other idles (docs/testing.md).
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent under -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n`` (xdist's ``load``): the tests of a class marked ``shares_session`` (the
    readers of one shared benchmark session, ``helpers.batch.Batch``) go to one worker, so
    the session is run once; a named one (``shares_session("calc_session")``) groups every
    marked class of that name in every file. Every other test is handed out one at a time,
    as with ``load``. The controller collects nothing, so the marks are read from the test
    files' source (:func:`session_groups`). (xdist's own ``loadgroup`` tags node ids in a way
    pytest 9 no longer honours, so it groups nothing.)"""
    if config.getvalue("dist") != "load" or _benchmark(config):
        return None  # an explicit --dist other than load, or a user's run: not ours
    from xdist.scheduler import LoadScopeScheduling

    root = Path(str(config.rootpath))

    class BatchScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            parts = nodeid.split("::")
            if len(parts) > 2:
                group = session_groups(root / parts[0]).get(parts[1])
                if group is not None:
                    return group or "::".join(parts[:2])
            return nodeid

    return BatchScheduling(config, log)


@functools.cache
def session_groups(path: Path) -> dict[str, str]:
    """The classes of a test file marked ``shares_session``: name -> the mark's group name
    ("" for an unnamed mark: the class is its own group)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for mark in node.decorator_list:
            call = mark if isinstance(mark, ast.Call) else None
            target = call.func if call is not None else mark
            if isinstance(target, ast.Attribute) and target.attr == "shares_session":
                args = call.args if call is not None else []
                name = args[0].value if args and isinstance(args[0], ast.Constant) else ""
                found[node.name] = str(name)
    return found


def pytest_configure(config):
    # One wheel store for every benchmark session of this suite run (the controller makes it,
    # xdist workers and the sessions' subprocesses inherit it): a project built by one test is
    # reused by the next test with the same content (issue 27). Fresh per suite run, so a test
    # that reads a build's own log sees a real build the first time its content appears.
    # The same for the values the planted tests' new inputs record on each reference
    # (planting/values.py): one recording per task content per suite run. And for the census
    # of each reference's run 1 (run/census_store.py): a session grading another agent on the
    # calc task reads it instead of evaluating the reference again (E2EBENCH_CENSUS_STORE=
    # set empty before the run keeps that store off, each session evaluating its reference).
    if hasattr(config, "workerinput") or _benchmark(config):
        return
    _memory_basetemp(config)
    # The user's tool cache ($E2EBENCH_CACHE: Mermaid's parser from npm, the CDN files, fetched
    # references, the CLI agents), asked before pytester moves HOME, as for uv's: without it
    # every session's fresh HOME installed Mermaid from npm again (about 16 s of CPU each,
    # 7 % of a full run's CPU; issue 27). Tests of an empty cache set their own.
    if CACHE_ENV not in os.environ:
        os.environ[CACHE_ENV] = str(cache_root())
        _MADE_ENV.append(CACHE_ENV)
    stores = (
        (STORE_ENV, "e2e-wheels-"),
        (PLANTING_ENV, "e2e-planting-"),
        (CENSUS_ENV, "e2e-census-"),
    )
    for env, prefix in stores:
        if env not in os.environ:
            os.environ[env] = tempfile.mkdtemp(prefix=prefix)
            _MADE.append((env, os.environ[env]))


def _memory_basetemp(config) -> None:
    """pytest's temporary folders on a tmpfs (``/dev/shm``) when it and memory have room.

    The suite creates, copies and removes about 1,400 virtual environments and run folders;
    on ext4 each file's creation, journal entry and unlink cost kernel CPU that a tmpfs does not
    (the same 67 session tests, -n 3: sys time 19-21 s on tmpfs, 22-41 s and 10-25 % more wall
    on ext4; issue 27). Only pytest's root moves (``PYTEST_DEBUG_TEMPROOT``, read by its
    ``tmp_path_factory``; numbered folders and retention as usual): not when the user chose one
    (``--basetemp``, that variable, ``TMPDIR``) or set ``E2EBENCH_SUITE_TMPFS=0``, nor when
    the tmpfs or memory has less than 8 GiB free (a full run holds well under that at once:
    docs/testing.md).
    """
    if config.option.basetemp or os.environ.get(MEMORY_TMP_ENV, "1") == "0":
        return
    if "PYTEST_DEBUG_TEMPROOT" in os.environ or "TMPDIR" in os.environ:
        return
    try:
        room = os.statvfs(MEMORY_TMP)
        usable = os.access(MEMORY_TMP, os.W_OK | os.X_OK) and MEMORY_TMP.is_dir()
    except OSError:
        return
    if not usable or room.f_bavail * room.f_frsize < MEMORY_TMP_FREE:
        return
    if not _is_tmpfs(MEMORY_TMP) or _memory_available() < MEMORY_TMP_FREE:
        return
    os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_TMP)
    _MADE_ENV.append("PYTEST_DEBUG_TEMPROOT")


def _is_tmpfs(path: Path) -> bool:
    """Whether ``path`` is the mount point of a tmpfs (/proc/mounts)."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(fields[1:3] == [str(path), "tmpfs"] for fields in map(str.split, mounts))


def _memory_available() -> int:
    """MemAvailable of /proc/meminfo in bytes (0 where there is none)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def pytest_unconfigure(config):
    for env in _MADE_ENV:
        os.environ.pop(env, None)
    _MADE_ENV.clear()
    for env, store in _MADE:
        shutil.rmtree(store, ignore_errors=True)
        os.environ.pop(env, None)
    _MADE.clear()
