"""Work over agent data in a child interpreter, with a time and a memory bound (issue 40, item 5).

Some steps of the harness read what an agent made with the harness's own code and no size
bound would make them cheap: parsing and indexing its project, comparing its code with the
reference, finding its tests. A project of 24 modules of 2 MB of one-line functions held a
session in the static migration for 25 minutes at 1 GB of the harness's memory. :func:`call`
runs such a step -- a top-level function, named by its module and name -- in a child
interpreter of its own (nothing of the harness's threads or state is shared), under
``RLIMIT_AS`` of ``memory`` bytes, ended after ``seconds``, and returns the function's result as
JSON carries it.

Whose failure is whose:

* the child ran past its time, a signal ended it (the kernel's end of a child the input drove
  there: a stack overflowed, an allocation killed), or the function raised ``MemoryError`` or
  ``RecursionError`` (what a hostile input makes harness code raise): :class:`OverBound`, the
  agent's failure; its ``why`` names the bound, for the caller's note in the run's record;
* the child failed otherwise (the function raised anything else, the interpreter did not
  start, no result came back): :class:`~pytest_e2ebench.errors.InfrastructureError` of the
  caller's stage with the tail of the child's log, the harness's.

The arguments go to the child pickled in a harness folder (the harness's data, never the
agent's); the result comes back as JSON in the same folder, read through the bounded parser
(:data:`MAX_RESULT_BYTES`: a result is the harness's, its size the input's). A child costs about
0.3 s of start-up: callers keep small inputs in their own process (:func:`small_tree`).
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import AgentFileError, InfrastructureError
from .parse import read_json

SECONDS = 60.0
MEMORY_BYTES = 2 << 30
MAX_RESULT_BYTES = 64 << 20
_BOOT = "from pytest_e2ebench.untrusted.child import main; main()"
_CALL, _RESULT, _LOG = "call.pickle", "result.json", "child.log"


class OverBound(Exception):
    """A bounded step stopped at a bound its input drove it to: the agent's failure.

    ``why`` names the bound (``over its time bound (60 s)``, ``over its memory bound (2 GiB)``,
    ``nested too deep``, ``ended by signal 11``); ``step`` is the caller's name of the step."""

    def __init__(self, step: str, why: str) -> None:
        self.step, self.why = step, why
        super().__init__(f"{step} stopped, {why}")


def size(memory: int) -> str:
    """``2 GiB``, ``256 MiB``: a memory bound as a note says it."""
    if memory >= 1 << 30:
        return f"{memory / (1 << 30):g} GiB"
    return f"{memory / (1 << 20):g} MiB"


def call(
    function: Callable,
    *args,
    step: str,
    stage: str,
    seconds: float = SECONDS,
    memory: int = MEMORY_BYTES,
):
    """``function(*args)`` in a child interpreter under the bounds; its result through JSON
    (tuples and sets come back as lists).

    ``function`` is a module-level function (the child imports it by name); ``args`` pickle.
    ``step`` names the step in :class:`OverBound`; ``stage`` is the stage of the
    :class:`~pytest_e2ebench.errors.InfrastructureError` of a child that failed otherwise.
    """
    name = getattr(function, "__qualname__", "")
    module = sys.modules.get(function.__module__)
    if not name.isidentifier() or getattr(module, name, None) is not function:
        raise TypeError(f"{function!r} is not a module-level function a child can import")
    with tempfile.TemporaryDirectory(prefix="e2ebench-child-") as tmp:
        where = Path(tmp)
        called = (function.__module__, name, args, memory)
        (where / _CALL).write_bytes(pickle.dumps(called))
        status = _run(where, seconds, step)
        return _answer(where, status, step, stage, memory)


def _run(where: Path, seconds: float, step: str) -> int:
    """The child's exit status (negative: the signal that ended it); OverBound after
    ``seconds``. In the harness's working folder (relative paths mean what they mean here)
    but in safe-path mode (``-P``: no folder but the harness's own path is on its path)."""
    command = [sys.executable, "-P", "-c", _BOOT, str(where)]
    # this package's own folder first: the child runs the code the harness runs
    path = [str(Path(__file__).resolve().parents[2]), *(p for p in sys.path if p)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(path))}
    with (where / _LOG).open("wb") as log:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        try:
            return child.wait(seconds)
        except subprocess.TimeoutExpired:
            raise OverBound(step, f"over its time bound ({seconds:g} s)") from None
        finally:
            if child.poll() is None:  # over the bound, or the harness itself interrupted
                child.kill()
                child.wait()


def _answer(where: Path, status: int, step: str, stage: str, memory: int):
    """The child's result, or what its end means: the agent's bound, or the harness's bug."""
    if status < 0:  # a signal: the kernel's end of a child its input drove there
        raise OverBound(step, f"ended by signal {-status}")
    if status == 0:
        try:
            report = read_json(where, _RESULT, max_bytes=MAX_RESULT_BYTES)
        except AgentFileError as exc:  # the harness's result, over its size: the input's
            raise OverBound(step, f"its result unreadable ({exc.problem})") from None
        if isinstance(report, dict) and report.get("bound") == "memory":
            raise OverBound(step, f"over its memory bound ({size(memory)})")
        if isinstance(report, dict) and report.get("bound") == "recursion":
            raise OverBound(step, "nested too deep")
        if isinstance(report, dict) and "value" in report:
            return report["value"]
    tail = (where / _LOG).read_text(errors="replace")[-1500:]
    raise InfrastructureError(stage, f"{step} failed in its child (status {status}):\n{tail}")


def small_tree(
    root: Path, *, max_bytes: int, max_files: int, suffixes=(".py",), names=None
) -> bool:
    """Whether the files of ``root`` ending in ``suffixes`` (and passing ``names``, a test of a
    file's name, when given) are at most ``max_files`` of ``max_bytes`` together: counted
    without following links, stopping at the first bound passed."""
    total = files = 0
    for folder, _, found in os.walk(root):
        for name in found:
            if not name.endswith(tuple(suffixes)) or (names is not None and not names(name)):
                continue
            files += 1
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
            if files > max_files or total > max_bytes:
                return False
    return True


def main() -> None:
    """The child: ``-c BOOT FOLDER``; the call in ``FOLDER/call.pickle``, its result (or the
    bound it hit) in ``FOLDER/result.json``. Any other exception ends the child with its
    traceback in the log: the harness's failure."""
    where = Path(sys.argv[1])
    module, name, args, memory = pickle.loads((where / _CALL).read_bytes())  # the harness's file
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:  # under the bound from here on: the function's imports, its work, its result's text
        function = getattr(importlib.import_module(module), name)
        text = json.dumps({"value": function(*args)}, default=list)
    except MemoryError:
        text = '{"bound": "memory"}'
    except RecursionError:
        text = '{"bound": "recursion"}'
    (where / _RESULT).write_text(text, encoding="utf-8")
