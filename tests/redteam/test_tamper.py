"""Verdicts the code under test cannot set (issue 11, classes 7 and 9).

Projects that forge their results from inside the test process (patching pytest, signing lines
with the probe's key found in memory, ending the process early with made-up results) score 0
and are reported as tampered; projects that make reference tests skip do not gain pass rate.
Honest projects are never marked tampered.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import textwrap
from pathlib import Path

import pytest
from helpers.batch import Batch, batch_folder
from helpers.tasks import CALC_CODE, CALC_TESTS, PYPROJECT

from pytest_e2ebench.evaluation import honeypot, tamper
from pytest_e2ebench.evaluation.runner import read_probe
from pytest_e2ebench.grading.metrics import suite_metrics
from pytest_e2ebench.grading.verdicts import effective_tests, sink_tampered
from pytest_e2ebench.isolation.sandbox import resolve_mode
from pytest_e2ebench.probe import PROBE_DIR
from pytest_e2ebench.taskmodel.skips import scan
from pytest_e2ebench.taskmodel.task import load_task

# The evidence layers of the one-process run (the suites that cannot run split): a split run
# keeps these attacks away from pytest, so it leaves nothing for them to catch (issue 39).
pytestmark = pytest.mark.usefixtures("inprocess_verdicts")

needs_bwrap = pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)
WRONG_ADD = "def add(a, b):\n    return 0\n"

# Each patches pytest from the package's __init__ (imported while the tests are collected).
PATCHES = {
    "call_and_report": (
        "import _pytest.runner\n"
        "_orig = _pytest.runner.call_and_report\n"
        "def _forged(item, when, log=True, **kwargs):\n"
        "    report = _orig(item, when, log=False, **kwargs)\n"
        "    report.outcome, report.longrepr = 'passed', None\n"
        "    if log:\n"
        "        item.ihook.pytest_runtest_logreport(report=report)\n"
        "    return report\n"
        "_pytest.runner.call_and_report = _forged\n"
    ),
    "from_item_and_call": (
        "import _pytest.reports\n"
        "_orig = _pytest.reports.TestReport.from_item_and_call\n"
        "def _forged(item, call):\n"
        "    report = _orig(item, call)\n"
        "    report.outcome, report.longrepr = 'passed', None\n"
        "    return report\n"
        "_pytest.reports.TestReport.from_item_and_call = staticmethod(_forged)\n"
    ),
    "runtest": "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n",
}
# Reaches the probe without gc or frames (no audit event): pytest's assertion-rewriting hook in
# sys.meta_path holds the config, whose plugin manager holds the probe; empties the probe's
# watch, then forges every outcome as call_and_report does above. The watch sees nothing; the
# planted honeypots that pass are what gives it away.
BLIND = (
    "import sys\n"
    "for hook in list(sys.meta_path):\n"
    "    config = getattr(hook, 'config', None)\n"
    "    if config is not None:\n"
    "        watch = config.pluginmanager.get_plugin('e2ebench_probe')._WATCH\n"
    "        for name in ('getters', 'pins', 'key_pins'):\n"
    "            getattr(watch, name).clear()\n"
    "        watch._flat = ()\n"
) + PATCHES["call_and_report"]
# Finds the probe through the garbage collector and signs passing lines with its own key.
GC_KEY = """\
import gc, hashlib, hmac, json, os, types
probe = next(o for o in gc.get_objects()
             if isinstance(o, types.ModuleType) and o.__name__ == "e2ebench_probe")
def forge(nodeid):
    body = json.dumps({"kind": "test", "nodeid": nodeid, "outcome": "passed",
                       "requirements": ["R1"], "seq": probe._state["seq"]}, sort_keys=True)
    mac = hmac.new(probe._KEY, body.encode(), hashlib.sha256).hexdigest()
    # through the probe's own descriptor (the harness's pipe), out of its sequence
    os.write(probe._state["out"], (json.dumps({"mac": mac, "body": body}) + "\\n").encode())
for case in ("1-2-3", "0-0-0", "-1-1-0"):
    forge(f"tests/test_calc.py::test_add[{case}]")
"""
# Reports every test it can find in the test files as passed, as the probe would, then ends
# the process with status 0 before pytest runs anything.
EARLY_EXIT = """\
import ast, gc, os, pathlib, types
probe = next(o for o in gc.get_objects()
             if isinstance(o, types.ModuleType) and o.__name__ == "e2ebench_probe")
ids = []
for path in sorted(pathlib.Path("tests").rglob("test_*.py")):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            ids.append(f"{path.as_posix()}::{node.name}")
if FORGE:
    probe._emit({"kind": "collected", "nodeids": ids})
    for nodeid in ids:
        probe._emit({"kind": "test", "nodeid": nodeid, "outcome": "passed", "requirements": []})
    probe._emit({"kind": "end", "exitstatus": 0})
os._exit(0)
"""
# Finds the probe through gc and signs records the harness took as its own facts: a browser
# that failed (a run with no browser was then an infrastructure error, out of the mean) or a
# record of a shape the probe never writes (the harness's reading of it raised TypeError).
SIGNED = """\
import gc, types
probe = next(o for o in gc.get_objects()
             if isinstance(o, types.ModuleType) and o.__name__ == "e2ebench_probe")
probe._emit(RECORD)
"""
SIGNED_RECORDS = {
    "browser-error": {"kind": "web", "browser_error": "chromedriver did not start"},
    "odd-record": {"kind": "collected", "nodeids": 5},
}
SKIPS = "import pytest\n\ndef add(a, b):\n    pytest.skip('not on this machine')\n"
# Projects of one package whose name the static migration wrote into the suite's imports as
# it was (`from <name> import add`): a name of the standard library (the finder never maps it,
# so the suite imported the harness's own `operator`, whose add, sub and mul pass every
# test), and a name that is code, which ran as a line of the suite's own module, where the
# audit hook takes its `gc` search for the harness's (neither package has any right code).
NOTHING = "def add(a, b):\n    return None\n\n\nsub = mul = add\n"
NAMED_LIKE = {
    "stdlib-name": "operator",
    "code-name": "operator import add; getattr(__import__('gc'),'get_objects')(); from operator",
}


def _assert_tampered(run: dict, *names: str) -> None:
    assert run["containment"]["tampered"] is True, run["containment"]
    assert "tampered" in run["test_run"]["containment"]
    assert {r["verdict"] for r in run["requirements"]} == {"not_implemented"}
    assert run["metrics"]["impl_rate"] == 0.0 and run["metrics"]["pass_rate"] == 0.0
    evidence = " ".join(run["containment"]["evidence"])
    for name in names:
        assert name in evidence, evidence


# --- whole sessions, graded through dir: --------------------------------------------------


def _submissions() -> dict[str, tuple[dict[str, str] | None, dict[str, str]]]:
    """Every whole-session variant: its code (None: no calc package) and the files added."""
    forged = dict(CALC_CODE, add="from . import forge  # noqa\n\n" + WRONG_ADD)
    init = "from . import forge  # noqa\n" + "".join(f"from .{m} import {m}\n" for m in CALC_CODE)
    made = {
        f"patch-{patch}": (
            dict(CALC_CODE, add=WRONG_ADD),
            {"calc/forge.py": text, "calc/__init__.py": init},
        )
        for patch, text in PATCHES.items()
    }
    made["gc-key"] = (forged, {"calc/forge.py": GC_KEY})
    made["blind-watch"] = (
        dict(CALC_CODE, add=WRONG_ADD),
        {"calc/forge.py": BLIND, "calc/__init__.py": init},
    )
    for forge in (True, False):
        made[f"early-exit-{forge}"] = (
            forged,
            {"calc/forge.py": EARLY_EXIT.replace("FORGE", str(forge))},
        )
    made["skips"] = (dict(CALC_CODE, add=SKIPS), {})
    for variant, record in SIGNED_RECORDS.items():
        made[variant] = (forged, {"calc/forge.py": SIGNED.replace("RECORD", repr(record))})
    # a build requirement whose marker nests 492 parentheses (998 characters, within the
    # bound of 1,000): packaging's parser recursed past Python's limit in the harness
    deep = "a; " + "(" * 492 + "os_name=='a'" + ")" * 492
    pyproject = PYPROJECT.format(name="calc").replace('"setuptools>=61"', f'"{deep}"')
    made["deep-marker"] = (CALC_CODE, {"pyproject.toml": pyproject})
    # the same browser failure signed from the agent's own tests (a suite nothing cross-checks)
    browser = SIGNED.replace("RECORD", repr(SIGNED_RECORDS["browser-error"]))
    made["own-tests-browser-error"] = (
        CALC_CODE,
        {"tests/conftest.py": browser, "tests/test_own.py": "def test_own():\n    pass\n"},
    )
    # `import *` in a circle: the migration's index recursed until RecursionError, and the
    # run was a harness error, out of the mean
    made["star-cycle"] = (
        dict(CALC_CODE, add="from calc import *  # noqa\n"),
        {
            "calc/__init__.py": "from calc.add import *  # noqa\nfrom .sub import sub\nfrom .mul import mul\n"
        },
    )
    for variant, name in NAMED_LIKE.items():  # no packaging: the package alone, all wrong
        made[variant] = (None, {f"{name}/__init__.py": NOTHING})
    made["honest"] = (CALC_CODE, {})
    return made


VARIANTS = sorted(_submissions())


@pytest.fixture(scope="module")
def tamper_batch(request, tmp_path_factory):
    """Every whole-session variant graded as its own run of one session (run n: VARIANTS[n-1])."""
    with batch_folder(request, tmp_path_factory, "tamper") as root:
        batch = Batch(root)
        batch.tasks.make()
        submissions = _submissions()
        for n, variant in enumerate(VARIANTS, 1):
            code, files = submissions[variant]
            out = batch.variant("calc", n)
            if code is not None:
                batch.tasks.reference(out, code)
            for rel, text in files.items():
                batch.tasks.write(out / rel, text)
        batch.run("--e2e-agent=dir:out", "--e2e-tasks=tasks", f"--e2e-runs={len(VARIANTS)}")
        yield batch


def _graded(batch: Batch, variant: str) -> dict:
    return batch.record("calc", VARIANTS.index(variant) + 1)


# --- whole sessions, graded through dir: one session, one run per variant ------------------


@pytest.mark.slow
@needs_bwrap
@pytest.mark.shares_session
class TestBatchTamper:
    """The readers of one session (a ``TestBatch`` class: one xdist worker runs them all)."""

    @pytest.mark.parametrize("patch", sorted(PATCHES))
    def test_a_package_patching_pytest_is_tampered(self, tamper_batch, patch):
        _assert_tampered(_graded(tamper_batch, f"patch-{patch}"), patch)

    def test_a_project_that_blinds_the_watch_is_caught_by_the_honeypots(self, tamper_batch):
        run = _graded(tamper_batch, "blind-watch")
        _assert_tampered(run, "hidden tests that the reference fails passed")

    def test_lines_signed_with_the_key_found_through_gc_are_tampered(self, tamper_batch):
        # the probe's audit hook reports the gc search itself before a forged line arrives
        _assert_tampered(_graded(tamper_batch, "gc-key"), "gc.get_objects")

    @pytest.mark.parametrize("variant", sorted(SIGNED_RECORDS))
    def test_signed_records_of_a_browser_or_an_odd_shape_are_tampered_not_an_error(
        self, tamper_batch, variant
    ):
        run = _graded(tamper_batch, variant)
        assert run["status"] == "ok" and not run.get("error"), run.get("error")
        _assert_tampered(run, "gc.get_objects")

    def test_a_requirement_nested_past_the_parsers_recursion_is_the_agents_failure(
        self, tamper_batch
    ):
        run = _graded(tamper_batch, "deep-marker")
        assert run["status"] == "ok" and not run.get("error"), run.get("error")
        assert run["metrics"]["impl_rate"] == 0.0
        assert "nested" in " ".join(run["notes"]), run["notes"]

    def test_a_browser_failure_signed_by_the_agents_own_tests_is_no_error(self, tamper_batch):
        run = _graded(tamper_batch, "own-tests-browser-error")
        assert run["status"] == "ok" and not run.get("error"), run.get("error")
        assert run["metrics"]["impl_rate"] == 1.0  # its code is right: graded as such

    @pytest.mark.parametrize("forge", [True, False], ids=["forged-results", "no-results"])
    def test_exiting_0_early_is_tampered(self, tamper_batch, forge):
        run = _graded(tamper_batch, f"early-exit-{forge}")
        _assert_tampered(run)
        evidence = " ".join(run["containment"]["evidence"])
        # forged: the planted honeypots it reported passed, or (when the planting put them in
        # classes, whose ids its forgery gets wrong) the gc search for the probe it made first
        wanted = ("hidden tests that the reference fails passed", "gc.get_objects")
        assert any(w in evidence for w in wanted) if forge else "status 0" in evidence, evidence

    def test_skips_from_the_project_count_as_not_passed(self, tamper_batch):
        run = _graded(tamper_batch, "skips")
        assert [r["verdict"] for r in run["requirements"]] == [
            "not_implemented",
            "implemented",
            "implemented",
        ]
        metrics = run["metrics"]
        assert metrics["skipped"] == 0 and metrics["failed"] == 3
        assert metrics["pass_rate"] == pytest.approx(4 / 7)  # not 4 / 4
        assert run["suites"]["extended"]["unexpected_skips"] == 3
        assert run["containment"]["tampered"] is False

    @pytest.mark.parametrize("variant", sorted(NAMED_LIKE))
    def test_a_package_named_like_a_module_of_the_harness_or_like_code_scores_nothing(
        self, tamper_batch, variant
    ):
        run = _graded(tamper_batch, variant)
        assert run["metrics"]["impl_rate"] == 0.0 and run["metrics"]["pass_rate"] == 0.0, run
        assert run["containment"]["tampered"] is False
        # the package is no target of the mapping: the tests import calc as written
        migrated = Path(run["dir"], "migrated", "test_calc.py").read_text()
        assert "from calc import" in migrated and "operator" not in migrated, migrated

    def test_a_circle_of_star_imports_is_graded_not_a_harness_error(self, tamper_batch):
        run = _graded(tamper_batch, "star-cycle")
        assert run["status"] == "ok" and not run.get("error"), run.get("error")
        # sub and mul are there, add is not (calc and calc.add import * from each other)
        assert [r["verdict"] for r in run["requirements"]] == [
            "not_implemented",
            "implemented",
            "implemented",
        ]

    def test_an_honest_project_is_not_tampered_and_its_honeypots_fail(self, tamper_batch):
        run = _graded(tamper_batch, "honest")
        assert run["containment"] == {"tampered": False, "evidence": []}
        assert run["metrics"]["impl_rate"] == 1.0 and run["metrics"]["pass_rate"] == 1.0
        assert run["metrics"]["passed"] == 7  # honeypots count nowhere
        extended = json.loads(Path(run["dir"], "eval.json").read_text())["data"]["extended"]
        planted = extended["honeypots"]["planted"]
        # the honeypots fail and the decoys beside them (the reference's own values) pass
        honeypots = set(extended["honeypots"]["originals"])
        outcomes = {t["nodeid"]: t["outcome"] for t in extended["honeypots"]["tests"]}
        assert honeypots and {outcomes[n] for n in honeypots} == {"failed"}
        decoys = set(extended["honeypots"]["decoys"])
        assert {outcomes[n] for n in decoys} <= {"passed"}
        assert extended["honeypots"]["decoys_failed"] == []
        assert not {t["nodeid"] for t in extended["tests"]} & set(planted)


# --- the probe, in a plain pytest process -------------------------------------------------


def _probe_run(pytester, monkeypatch, module: str, test: str = "assert 1 == 2") -> dict:
    out = pytester.path / "probe.jsonl"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(PROBE_DIR), str(pytester.path)]))
    monkeypatch.setenv("E2EBENCH_PROBE_OUT", str(out))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(evil=module)
    pytester.makepyfile(test_it=f"import evil\n\ndef test_it(monkeypatch):\n    {test}\n")
    result = pytester.runpytest_subprocess("-p", "e2ebench_probe", "-p", "no:cacheprovider")
    return {"probe": read_probe(out, ""), "ret": result.ret}


@pytest.mark.parametrize("patch", sorted(PATCHES))
def test_the_probe_reports_what_changed(pytester, monkeypatch, patch):
    found = _probe_run(pytester, monkeypatch, PATCHES[patch])["probe"]
    changed = [c for rec in found["tamper"] for c in rec["changed"]]
    assert any(patch in c for c in changed), changed
    assert found["tests"][0]["outcome"] == "passed"  # what the patch made of it


# Changes that keep every watched name bound to the same object: the probe's check that reads
# no attribute (one gc.get_referents over the pinned objects) must see each of them.
IN_PLACE = {
    "code": (
        "import _pytest.runner\n"
        "def _forged(item, when, log=True, **kwds):\n"
        "    pass\n"
        "_pytest.runner.call_and_report.__code__ = _forged.__code__\n",
        "_pytest.runner.call_and_report",
    ),
    "defaults": (
        "import _pytest.runner\n_pytest.runner.call_and_report.__defaults__ = (False,)\n",
        "_pytest.runner.call_and_report",
    ),
    "kwdefaults": (
        "import _pytest.runner\n_pytest.runner.CallInfo.from_call.__func__.__kwdefaults__ = {}\n",
        "_pytest.runner.CallInfo.from_call",
    ),
    "classmethod-init": (
        "import _pytest.reports\n"
        "space = vars(_pytest.reports.TestReport)\n"
        "orig = space['from_item_and_call'].__func__\n"
        "def _forged(cls, item, call):\n"
        "    report = orig(cls, item, call)\n"
        "    report.outcome, report.longrepr = 'passed', None\n"
        "    return report\n"
        "space['from_item_and_call'].__init__(_forged)\n",
        "_pytest.reports.TestReport.from_item_and_call",
    ),
    "property-init": (
        "import _pytest.python\n"
        "prop = vars(_pytest.python.Function)['function']\n"
        "prop.__init__(lambda self, f=prop.fget: f(self))\n",
        "_pytest.python.Function.function",
    ),
    "hook-impl": (
        "import gc\n"
        "config = next(o for o in gc.get_objects()\n"
        "              if type(o).__name__ == 'Config' and hasattr(o, 'pluginmanager'))\n"
        "caller = config.pluginmanager.hook.pytest_runtest_makereport\n"
        "impl = caller.get_hookimpls()[0]\n"
        "impl.function = lambda *a, f=impl.function, **k: f(*a, **k)\n",
        "hook pytest_runtest_makereport",
    ),
    "new-attribute": (
        "import _pytest.runner\n_pytest.runner.SetupState.__setattr__ = object.__setattr__\n",
        "_pytest.runner.SetupState: its attribute names",
    ),
}


@pytest.mark.parametrize("change", sorted(IN_PLACE))
def test_the_probe_reports_a_change_made_in_place(pytester, monkeypatch, change):
    source, name = IN_PLACE[change]
    found = _probe_run(pytester, monkeypatch, source)["probe"]
    changed = [c for rec in found["tamper"] for c in rec["changed"]]
    assert name in changed, changed


def test_the_probe_reports_an_untrusted_hook_implementation(pytester, monkeypatch):
    plugin = textwrap.dedent(
        """\
        import pytest, sys

        class Forger:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                outcome = yield
                outcome.get_result().outcome = "passed"

        config = next(o for o in __import__("gc").get_objects()
                      if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"))
        config.pluginmanager.register(Forger())
        """
    )
    found = _probe_run(pytester, monkeypatch, plugin)["probe"]
    changed = [c for rec in found["tamper"] for c in rec["changed"]]
    assert any("pytest_runtest_makereport" in c and "evil.py" in c for c in changed), changed


def test_an_honest_run_has_no_tamper_records(pytester, monkeypatch):
    found = _probe_run(pytester, monkeypatch, "VALUE = 1\n")
    probe = found["probe"]
    assert probe["tamper"] == [] and not probe["sequence_broken"] and not probe["forged_lines"]
    assert probe["collected"] == ["test_it.py::test_it"] and probe["exitstatus"] == 1
    assert tamper.evidence(probe, returncode=found["ret"], timed_out=False) == []


def test_what_a_test_may_patch_for_itself_is_no_evidence(pytester, monkeypatch):
    patches = (
        "import builtins, json, sys; "
        "monkeypatch.setattr(json, 'dumps', lambda *a, **k: '{}'); "
        "monkeypatch.setattr(builtins, 'compile', lambda *a, c=compile, **k: c(*a, **k)); "
        "monkeypatch.setattr(sys, 'meta_path', [object(), *sys.meta_path]); assert 1 == 2"
    )
    probe = _probe_run(pytester, monkeypatch, "VALUE = 1\n", patches)["probe"]
    assert probe["tamper"] == [] and probe["tests"][0]["outcome"] == "failed"


# --- the cross-checks -----------------------------------------------------------------------


def _probe(**changes) -> dict:
    tests = [
        {"nodeid": "tests/test_a.py::test_one", "outcome": "passed"},
        {"nodeid": "tests/test_a.py::test_two", "outcome": "failed"},
    ]
    probe = {
        "tests": tests,
        "collect_errors": [],
        "exitstatus": 1,
        "forged_lines": 0,
        "collected": [t["nodeid"] for t in tests],
        "tamper": [],
        "sequence_broken": False,
    }
    return {**probe, **changes}


@pytest.mark.parametrize(
    "changes, returncode, needle",
    [
        ({}, 0, "exited with status 0, pytest's session with 1"),
        ({"exitstatus": 0}, 0, "exit status is 0 (all passed) with 1 failing"),
        ({"exitstatus": None}, 0, "exited with status 0 before pytest finished"),
        ({"collected": None}, 1, "without the probe's record of the collected tests"),
        ({"collected": ["tests/test_a.py::test_one"]}, 1, "never collected: tests/test_a.py"),
        (
            {"collected": ["tests/test_a.py::test_one", "tests/test_a.py::test_two", "x::y"]},
            1,
            "collected and never reported: x::y",
        ),
        (
            {"tests": [{"nodeid": "tests/test_a.py::test_one", "outcome": "passed"}] * 2},
            1,
            "reported more than once",
        ),
        ({"forged_lines": 2}, 1, "2 line(s) of the results file not signed"),
        ({"sequence_broken": True}, 1, "out of sequence"),
        ({"tamper": [{"when": "collection", "changed": ["x.y"]}]}, 1, "machinery change"),
        (
            {"tests": [{"nodeid": "tests/test_a.py::test_one", "outcome": "passed"}]},
            1,
            "exit status says tests failed",
        ),
    ],
)
def test_each_disagreement_is_evidence(changes, returncode, needle):
    found = tamper.evidence(_probe(**changes), returncode=returncode, timed_out=False)
    assert any(needle in f for f in found), found


def test_agreeing_results_are_no_evidence_and_a_timeout_proves_nothing():
    assert tamper.evidence(_probe(), returncode=1, timed_out=False) == []
    cut = _probe(exitstatus=None, collected=None)
    assert tamper.evidence(cut, returncode=None, timed_out=True) == []
    assert tamper.evidence(cut, returncode=-9, timed_out=False) == []  # a crash, not a lie


def test_a_passing_honeypot_is_evidence_and_a_failing_one_is_not():
    honeypots = ["tests/test_a.py::test_two"]
    assert tamper.evidence(_probe(), returncode=1, timed_out=False, honeypots=honeypots) == []
    tests = [
        {"nodeid": "tests/test_a.py::test_one", "outcome": "failed"},
        {"nodeid": "tests/test_a.py::test_two", "outcome": "passed"},
    ]
    found = tamper.evidence(_probe(tests=tests), returncode=1, timed_out=False, honeypots=honeypots)
    assert found == ["hidden tests that the reference fails passed: tests/test_a.py::test_two"]


def _signed(key: str, **body) -> bytes:
    import hashlib
    import hmac

    text = json.dumps(body, sort_keys=True)
    mac = hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()
    return (json.dumps({"mac": mac, "body": text}) + "\n").encode()


def test_read_probe_checks_signatures_and_sequence(tmp_path):
    path = tmp_path / "probe.jsonl"
    start = _signed("k", kind="start", seq=0)
    end = _signed("k", kind="end", exitstatus=0, seq=1)
    path.write_bytes(start + end + b'{"mac": "x", "bo')  # a last line cut short by a kill
    found = read_probe(path, "k")
    assert (found["forged_lines"], found["sequence_broken"], found["exitstatus"]) == (0, False, 0)
    path.write_bytes(start + _signed("k", kind="end", exitstatus=0, seq=0) + b"forged\n")
    found = read_probe(path, "k")
    assert (found["forged_lines"], found["sequence_broken"]) == (1, True)
    path.write_bytes(end)  # the start removed
    assert read_probe(path, "k")["sequence_broken"]


@pytest.mark.parametrize(
    "record",
    [
        {"kind": "collected", "nodeids": 5},
        {"kind": "test", "nodeid": ["a"], "outcome": "passed", "message": "", "requirements": []},
        {"kind": "test", "nodeid": "t", "outcome": "passed", "message": "", "requirements": 1},
        {"kind": "tamper", "when": "x", "changed": 3},
        {"kind": "end", "exitstatus": "0"},
        {"kind": "web", "browser_error": ["x"]},
    ],
)
def test_a_signed_record_of_a_shape_the_probe_never_writes_is_a_forged_line(tmp_path, record):
    path = tmp_path / "probe.jsonl"
    body = {**record, "seq": 1}
    path.write_bytes(_signed("k", kind="start", seq=0) + _signed("k", **body))
    found = read_probe(path, "k")
    assert found["forged_lines"] == 1 and tamper.evidence(found, returncode=1, timed_out=False)


def test_read_probe_does_not_follow_a_link_or_block_on_a_fifo(tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(_signed("k", kind="start", seq=0))
    (tmp_path / "link.jsonl").symlink_to(secret)
    assert read_probe(tmp_path / "link.jsonl", "k")["tests"] == []
    os.mkfifo(tmp_path / "fifo.jsonl")
    assert read_probe(tmp_path / "fifo.jsonl", "k")["forged_lines"] == 1


# --- verdicts of a tampered run, and skips --------------------------------------------------


def test_a_tampered_run_fails_every_test_and_requirement(pytester, tasks):
    task = load_task(tasks.make())
    run = {
        "status": "completed",
        "tests": [{"nodeid": t.nodeid, "outcome": "passed"} for t in task.tests],
        "tamper_evidence": ["the probe saw pytest's machinery change"],
    }
    tests = effective_tests(task, run)
    assert {t["outcome"] for t in tests} == {"failed"}
    assert all("tampered with: the probe saw" in t["message"] for t in tests)
    verdicts = sink_tampered([{"id": "R1", "verdict": "implemented"}], run["tamper_evidence"])
    assert verdicts[0]["verdict"] == "not_implemented"
    assert "tampered with" in verdicts[0]["message"]


def test_a_skip_counts_only_where_the_reference_can_skip(pytester, tasks):
    extra = CALC_TESTS + textwrap.dedent(
        """

        @pytest.mark.requirement("R3")
        @pytest.mark.skipif(True, reason="only on other platforms")
        def test_mul_platform():
            assert mul(1, 1) == 1
        """
    )
    task = load_task(tasks.make(tests={"test_calc.py": extra}))
    run = {
        "status": "completed",
        "tests": [{"nodeid": t.nodeid, "outcome": "skipped"} for t in task.tests],
    }
    tests = effective_tests(task, run)
    unexpected = {t["nodeid"] for t in tests if t.get("unexpected_skip")}
    assert "tests/test_calc.py::test_mul_platform" not in unexpected
    assert len(unexpected) == len(task.tests) - 1
    suite = suite_metrics(tests, None)
    assert (suite["skipped"], suite["failed"], suite["pass_rate"]) == (1, 5, 0.0)


def test_the_source_says_which_tests_may_skip(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef db():\n    pytest.importorskip('sqlite3')\n"
    )
    (tests / "test_a.py").write_text(
        textwrap.dedent(
            """\
            import pytest, unittest

            @pytest.fixture
            def conn(db):
                return db

            @pytest.mark.skipif(False, reason="x")
            def test_marked(): pass

            def test_calls(): pytest.skip("x")

            def test_fixture(conn): pass

            def test_plain(): assert 1

            @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.xfail)])
            def test_param(x): pass

            class TestUnit(unittest.TestCase):
                def setUp(self):
                    self.skipTest("x")

                def test_in_class(self): pass

            class TestOther:
                def test_other(self): pass
            """
        )
    )
    (tests / "test_b.py").write_text(
        "import pytest\npytest.importorskip('x')\ndef test_b(): pass\n"
    )
    assert scan(tests) == {
        f"tests/test_a.py::{n}"
        for n in (
            "test_marked",
            "test_calls",
            "test_fixture",
            "test_param",
            "TestUnit::test_in_class",
        )
    } | {"tests/test_b.py::test_b"}


# --- honeypots ------------------------------------------------------------------------------


def test_honeypots_fail_on_the_reference_and_leave_the_real_tests_alone(pytester, tasks):
    tasks.make()
    pytester.syspathinsert(tasks.tasks / "calc" / "reference")
    tests, again = pytester.path / "suite" / "tests", pytester.path / "again" / "tests"
    for folder in (tests, again):
        shutil.copytree(tasks.tasks / "calc" / "tests", folder)
    planted = honeypot.plant(tests, random.Random(7), count=10)
    assert len(planted) == 4  # every test with a literal to change, once
    assert honeypot.plant(again, random.Random(7), count=10) == planted  # the seed decides
    pytester.makeini("[pytest]\nmarkers =\n    requirement(*ids): r\n")
    result = pytester.runpytest(str(tests), "-p", "no:cacheprovider")
    reports = result.reprec.getreports("pytest_runtest_logreport")
    calls = {r.nodeid.split("[")[0]: r.outcome for r in reports if r.when == "call"}
    for nodeid, outcome in calls.items():
        key = "tests/" + nodeid.split("tests/", 1)[1]
        assert outcome == ("failed" if key in planted else "passed"), nodeid
    assert len(calls) == 5 + 4


def test_honeypot_values_change_type_never(tmp_path):
    rng = random.Random(1)
    for value in (0, 7, -3, 2.5, "", "abc", b"xy"):
        new = honeypot.changed_value(value, rng)
        assert type(new) is type(value) and new != value


def test_honeypots_land_in_their_module_or_class_whatever_the_seed(tmp_path):
    for seed in range(40):
        tests = tmp_path / str(seed)
        tests.mkdir()
        (tests / "test_calc.py").write_text(CALC_TESTS)
        assert len(honeypot.plant(tests, random.Random(seed), count=10)) == 4, seed


# --- honeypots never fail an honest project: every candidate, every bundled task ------------

BUNDLED = Path(__file__).resolve().parents[2] / "benchmark_tasks"


def _bundled_python_tasks() -> list:
    """A param per bundled task that is not a web task, by folder (a task is loaded by its
    test: loading at collection fetched PyPI references). The honeypots of every task are a
    check of the tasks (--selfcheck); the default run keeps the one of the representative."""
    import tomllib

    from pytest_e2ebench.taskmodel.task import find_task_dirs

    return [
        pytest.param(d, id=d.name, marks=() if d.name == "semverkit" else pytest.mark.selfcheck)
        for d in find_task_dirs(BUNDLED)
        if tomllib.loads((d / "task.toml").read_text())["kind"] != "web"
    ]


def _needs_installed(requirements) -> None:
    """Skip unless the task's test requirements are installed here (this test runs the tests
    with the harness's own interpreter, not in a task environment)."""
    import importlib.metadata
    import re

    for requirement in requirements:
        name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{name} (a test requirement of the task) is not installed here")


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("task_dir", _bundled_python_tasks())
def test_every_honeypot_of_a_bundled_task_fails_on_its_reference(task_dir, tmp_path, monkeypatch):
    """All candidates planted at once: the reference passes its tests, fails every honeypot,
    and its run shows no tampering (so no honest run is marked tampered by a honeypot)."""
    import subprocess
    import sys

    from pytest_e2ebench.evaluation.runner import INI  # the harness's ini
    from pytest_e2ebench.taskmodel.skips import may_skip
    from pytest_e2ebench.taskmodel.task import fetch_reference

    task = fetch_reference(load_task(task_dir))
    _needs_installed(task.test_requires)
    tests = task.copy_tests(tmp_path / "tests")
    if "projecteval" in task.slots:  # the canonical parameter values, as the harness writes
        from pytest_e2ebench.methods.projecteval.params import write_pv_file

        answers = {"values": task.slots["projecteval"].canonical, "problems": {}}
        write_pv_file(tests, answers, task.reference_dir)
    planted = honeypot.plant(tests, random.Random(0), exclude=may_skip(task), count=10_000)
    assert planted
    (tmp_path / "pytest.ini").write_text(INI)
    ref = task.reference_dir
    path = [str(PROBE_DIR), str(ref / "src" if (ref / "src").is_dir() else ref)]
    out = tmp_path / "probe.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(path),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "E2EBENCH_PROBE_OUT": str(out),
        "E2EBENCH_PROBE_TRUSTED": str(tests),
        "E2EBENCH_PROBE_SUITE": str(tests),  # the test code checked, the audit hook on
    }
    args = ["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "e2ebench_probe", "-p", "no:cacheprovider"]
        + ["-p", "pytest_timeout", "-p", "e2ebench_pv", "--timeout=60", "tests"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    probe = read_probe(out, "")
    real, caught = honeypot.split(probe["tests"], planted)
    not_passed = [(t["nodeid"], t["message"]) for t in real if t["outcome"] != "passed"]
    assert not not_passed, done.stdout[-3000:]
    passed = [t["nodeid"] for t in caught if t["outcome"] != "failed"]
    assert not passed and len({t["nodeid"].split("[")[0] for t in caught}) == len(planted)
    assert (
        tamper.evidence(probe, returncode=done.returncode, timed_out=False, honeypots=planted) == []
    )


def test_a_case_the_reference_run_skips_tests_nothing_for_any_agent(pytester, tasks):
    """A skip only a run shows (a missing optional dependency, inside the project's own code)
    is expected where the reference's run skips that case too, and leaves the verdicts."""
    from pytest_e2ebench.grading.verdicts import census, judge_by_tests

    task = load_task(tasks.make())
    ids = [t.nodeid for t in task.tests]
    add_cases = [f"{ids[0]}[{c}]" for c in ("1-2-3", "0-0-0", "-1-1-0")]
    others = ids[1:]
    reference_run = {
        "status": "completed",
        "tests": [
            {"nodeid": add_cases[0], "outcome": "skipped", "message": "Skipped: no pandas"},
            *({"nodeid": n, "outcome": "passed"} for n in [*add_cases[1:], *others]),
        ],
    }
    ref = census(reference_run)
    verdicts = judge_by_tests(task, effective_tests(task, reference_run, reference=ref))
    assert {v["id"]: v["verdict"] for v in verdicts} == dict.fromkeys(
        ("R1", "R2", "R3"), "implemented"
    )
    # an agent skipping a case the reference runs: not passed, whatever the message says
    agent_run = {
        "status": "completed",
        "tests": [
            {"nodeid": add_cases[0], "outcome": "skipped"},
            {"nodeid": add_cases[1], "outcome": "skipped", "message": "Skipped: no pandas"},
            *({"nodeid": n, "outcome": "passed"} for n in [add_cases[2], *others]),
        ],
    }
    tests = effective_tests(task, agent_run, reference=ref)
    flags = {t["nodeid"]: (t.get("reference_skipped"), t.get("unexpected_skip")) for t in tests}
    assert flags[add_cases[0]] == (True, None)
    assert flags[add_cases[1]] == (None, True)
    assert {v["id"]: v["verdict"] for v in judge_by_tests(task, tests)}["R1"] == "not_implemented"
