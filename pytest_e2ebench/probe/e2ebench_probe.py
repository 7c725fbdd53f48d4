"""Record per-test outcomes and requirement tags as JSON lines (loaded with ``-p``).

One line per finished test, appended and flushed as the run goes, so a run that is killed part
way still leaves the results it had. The output file is named by ``E2EBENCH_PROBE_OUT``.
"""

import hashlib
import hmac
import json
import os

import pytest

_OUT = os.environ.get("E2EBENCH_PROBE_OUT", "")


def _read_key() -> bytes:
    """The signing key, from the pipe the harness passed (read once, then closed)."""
    fd = os.environ.pop("E2EBENCH_PROBE_KEY_FD", "")
    if not fd.isdigit():
        return b""
    chunks = []
    try:
        while chunk := os.read(int(fd), 4096):
            chunks.append(chunk)
        os.close(int(fd))
    except OSError:
        return b""
    return b"".join(chunks)


# Every line is signed with a key the harness passes through a pipe, read here before the
# project under test is imported: lines the project appends to the file itself do not verify.
# (Code that goes looking for this module's memory can still find the key; see
# docs/sandbox.md.)
_KEY = _read_key()
_MESSAGE_LINES = 8
_MESSAGE_CHARS = 800
_state: dict = {"tags": {}, "phases": {}, "out": None}


def _emit(record: dict) -> None:
    # One file, opened once and created here (it must not exist before): a process left over
    # from a killed session cannot write into the results of the next one.
    if not _OUT:
        return
    if _state["out"] is None:
        _state["out"] = open(_OUT, "x", encoding="utf-8")  # noqa: SIM115 - kept for the session
    body = json.dumps(record, sort_keys=True)
    mac = hmac.new(_KEY, body.encode(), hashlib.sha256).hexdigest()
    _state["out"].write(json.dumps({"mac": mac, "body": body}) + "\n")
    _state["out"].flush()


def _message(report) -> str:
    """The error lines ('E   ...') of a failure, else its last line; kept short."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    if not lines:
        lines = [ln for ln in text.strip().splitlines()[-2:]]
    return "\n".join(lines[:_MESSAGE_LINES])[:_MESSAGE_CHARS]


def pytest_configure(config):
    config.addinivalue_line("markers", "requirement(*ids): requirements this test checks")


def pytest_collection_modifyitems(items):
    for item in items:
        ids = []
        for mark in item.iter_markers("requirement"):
            ids.extend(str(a) for a in mark.args)
        _state["tags"][item.nodeid] = ids


def pytest_collectreport(report):
    if report.failed:
        _emit({"kind": "collect_error", "nodeid": report.nodeid, "message": _message(report)})


def pytest_runtest_logreport(report):
    phases = _state["phases"].setdefault(report.nodeid, {})
    phases[report.when] = report
    if report.when != "teardown":
        return
    setup, call, teardown = phases.get("setup"), phases.get("call"), report
    wasxfail = hasattr(call, "wasxfail") or hasattr(setup, "wasxfail")
    if setup is not None and setup.failed:
        outcome, source = "error", setup
    elif setup is not None and setup.skipped:
        outcome, source = "skipped", setup
    elif call is not None and call.failed:
        outcome, source = "failed", call
    elif call is not None and call.skipped:
        outcome, source = ("skipped" if not wasxfail else "xfailed"), call
    elif teardown.failed:
        outcome, source = "error", teardown
    else:
        outcome, source = ("passed" if not wasxfail else "xpassed"), call
    _emit(
        {
            "kind": "test",
            "nodeid": report.nodeid,
            "outcome": outcome,
            "when": getattr(source, "when", "call"),
            "message": ""
            if outcome in ("passed", "xpassed") or source is None
            else _message(source),
            "duration": sum(getattr(r, "duration", 0.0) for r in phases.values()),
            "requirements": _state["tags"].get(report.nodeid, []),
            # e.g. a failing web scenario's screenshot and browser console
            "properties": {
                str(k): str(v)[:2000] for k, v in getattr(source, "user_properties", ())
            },
        }
    )
    del _state["phases"][report.nodeid]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    _emit({"kind": "end", "exitstatus": int(exitstatus)})
    if _state["out"] is not None:
        _state["out"].close()


class _MissingMeta(type):
    """Any use of a missing name fails the test that uses it, saying which name."""

    def __call__(cls, *args, **kwargs):
        pytest.fail(f"missing: {cls.qualified}", pytrace=False)

    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        pytest.fail(f"missing: {cls.qualified}", pytrace=False)


def missing(qualified):
    """A stand-in for a name the generated project lacks (bound by test migration).

    It is an exception class, so ``pytest.raises(Name)`` and ``except Name`` still parse;
    calling it or reading its attributes fails with ``missing: <name>``.
    """
    return _MissingMeta(qualified.rsplit(".", 1)[-1], (Exception,), {"qualified": qualified})
