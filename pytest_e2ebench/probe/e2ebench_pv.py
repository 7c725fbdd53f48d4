"""Parameter values (ProjectEval's PV) for a task's tests: the ``pv`` fixture (issue #17).

A task's tests load this plugin from their conftest.py (``pytest_plugins = ["e2ebench_pv"]``);
it runs inside the sandboxed test run and imports nothing but pytest and the standard library.
The harness has checked the agent's answers and written them next to the tests as
``e2ebench_pv.json``; ``pv("name")`` returns one, or fails *that test* saying which parameter
is missing or malformed and why. ``project_dir`` is the generated project (read-only);
``loopback_port`` a free TCP port on 127.0.0.1 for a server the test starts.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

PV_FILE = "e2ebench_pv.json"


def _load(start: Path) -> dict:
    for folder in (start, *start.parents):
        candidate = folder / PV_FILE
        if candidate.is_file():
            return json.loads(candidate.read_text(encoding="utf-8"))
    return {}


@pytest.fixture(scope="session")
def _e2ebench_pv_data(request) -> dict:
    return _load(Path(str(request.config.rootpath)) / "tests") or _load(
        Path(str(request.config.rootpath))
    )


def _lookup(data: dict):
    values = data.get("values", {})
    problems = data.get("problems", {})

    def value(name: str) -> str:
        if name in values:
            return values[name]
        why = problems.get(name) or f"no parameter {name!r} was asked for (not in the task's PD)"
        pytest.fail(f"parameter {name!r} unusable: {why}", pytrace=False)

    return value


@pytest.fixture
def pv(_e2ebench_pv_data):
    """``pv("name")``: the agent's value of parameter ``name`` (fails this test if unusable)."""
    return _lookup(_e2ebench_pv_data)


def _in_output(value, name: str, output: str, control: str) -> None:
    """Fail unless ``value(name)`` is in ``output`` and not in ``control``."""
    found = value(name)
    if found not in output:
        pytest.fail(
            f"parameter {name!r} = {found!r:.80} is not in the output:\n{output[-400:]}",
            pytrace=False,
        )
    if found in control:
        pytest.fail(
            f"parameter {name!r} = {found!r:.80} is also in the output of the control run, where "
            "the condition it reports does not hold: it does not tell the two apart (issue 26)",
            pytrace=False,
        )


@pytest.fixture
def pv_in(pv):
    """``pv_in(name, output, control)``: the agent's value of ``name`` is in ``output`` (the
    program's output when the condition holds) and not in ``control`` (its output in a run
    where the condition does not hold). A value that names nothing in particular (one
    letter, a blank) is found in every output and fails the control (docs/projecteval.md)."""
    return lambda name, output, control: _in_output(pv, name, output, control)


@pytest.fixture(scope="session")
def pv_session(_e2ebench_pv_data):
    """``pv`` for session-scoped fixtures (e.g. the app a server fixture starts): an unusable
    value fails every test that uses that fixture."""
    return _lookup(_e2ebench_pv_data)


@pytest.fixture(scope="session")
def project_dir(_e2ebench_pv_data) -> Path:
    """The generated project's folder (copy it to a temporary folder to run it there)."""
    where = _e2ebench_pv_data.get("project_dir")
    if not where:
        pytest.fail("the harness gave no project folder (e2ebench_pv.json missing)", pytrace=False)
    return Path(where)


@pytest.fixture
def loopback_port() -> int:
    """A free TCP port on 127.0.0.1 (the sandbox has its own loopback, nothing else)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
