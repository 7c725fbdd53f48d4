"""From per-test outcomes to per-requirement verdicts (the ``tests`` judge).

The set of tests a requirement has is fixed by the task (read statically), not by what happened
to run: a test module that fails to import, or a run cut short by its timeout, leaves its tests
counted as errors instead of silently shrinking the denominator. Likewise a reference test that
cannot skip on the reference (:mod:`.skips`) but skipped counts as not passed, and a run whose
results are contradicted by other evidence (:mod:`.tamper`) has every test failed.
"""

from __future__ import annotations

import re

from ..taskmodel.skips import may_skip
from ..taskmodel.task import Task
from ..taskmodel.testindex import StaticTest, apply_mapping

IMPLEMENTED = "implemented"
NOT_IMPLEMENTED = "not_implemented"
INCONCLUSIVE = "inconclusive"
PASSING = frozenset({"passed", "xpassed"})
SKIPPED = frozenset({"skipped", "xfailed"})

_PARAMS = re.compile(r"\[.*\]$")


def base_nodeid(nodeid: str) -> str:
    """The node id without its parametrization suffix."""
    return _PARAMS.sub("", nodeid)


def census(run: dict) -> dict[str, dict]:
    """Each test of a run (by base node id): the node ids of its cases and its requirement
    tags. The reference's run says which tests and cases there are when the static scan cannot
    (``range(len(X) - 1)``, tests inherited from another module, doctests)."""
    out: dict[str, dict] = {}
    for rec in run.get("tests", []):
        entry = out.setdefault(
            base_nodeid(rec["nodeid"]), {"cases": [], "requirements": [], "skipped": []}
        )
        entry["cases"].append(rec["nodeid"])
        if rec.get("outcome") in SKIPPED:
            entry["skipped"].append(rec["nodeid"])
        for rid in rec.get("requirements") or ():
            if rid not in entry["requirements"]:
                entry["requirements"].append(rid)
    return out


def effective_tests(
    task: Task,
    run: dict,
    weakened: set[str] = frozenset(),
    reference: dict[str, list[str]] | None = None,
) -> list[dict]:
    """Every reference test with its outcome and requirements, missing ones as errors.

    Tests in ``weakened`` (base node ids the migration left with fewer assertions) count as
    failed whatever they did. A skip where the reference cannot skip is marked
    ``unexpected_skip`` (counted as not passed); in a tampered run every test failed.
    ``reference`` is the :func:`census` of the reference implementation's run: every agent is
    counted on the same tests, the static ones and those only the reference's run showed. A
    case the reference has that this run lacks is an error; a case the reference does not have
    (a parametrization the project lengthened) does not count, so a project cannot dilute its
    failures with extra passing cases. Tags of tests the static scan did not see come from the
    reference's run, never from the project's.
    """
    skippable = may_skip(task)
    by_base: dict[str, list[dict]] = {}
    for rec in run.get("tests", []):
        by_base.setdefault(base_nodeid(rec["nodeid"]), []).append(rec)
    collect_errors = {e["nodeid"]: e["message"] for e in run.get("collect_errors", [])}
    status = run.get("status", "completed")
    out: list[dict] = []
    reference = reference or {}
    for test in expected_tests(task, reference):
        ran = by_base.pop(test.nodeid, [])
        cases = reference.get(test.nodeid, {}).get("cases", [])
        if cases:
            ran = [rec for rec in ran if rec["nodeid"] in cases]
        if test.nodeid in weakened:
            ran = _weakened(test, ran)
        reference_skips = set(reference.get(test.nodeid, {}).get("skipped", ()))
        for rec in ran:
            rec = _skip_marked(rec, reference_skips, test.nodeid in skippable)
            # the task's tags, never the run's
            out.append({**rec, "requirements": test.requirements_of(rec["nodeid"])})
        seen = {rec["nodeid"] for rec in ran}
        if not ran or any(case not in seen for case in cases):
            lacking = [case for case in cases if case not in seen]
            out.extend(missing_records(test, collect_errors, status, lacking if ran else cases))
    if not reference:
        # Tests generated at run time that the static scan could not see: keep their own tags
        # (the reference's own run, or no census to hold them against).
        for recs in by_base.values():
            out.extend(recs)
    evidence = run.get("tamper_evidence")
    if evidence:
        out = [
            {**rec, "outcome": "failed", "message": tampered_message(evidence)[:800]} for rec in out
        ]
    return out


def expected_tests(task: Task, reference: dict[str, dict]) -> list[StaticTest]:
    """The tests every run is counted on: the static ones, then those only the reference's
    run showed (tagged through the task's requirement map)."""
    static = {test.nodeid for test in task.tests}
    return list(task.tests) + apply_mapping(
        [
            StaticTest(base, tuple(entry["requirements"]), len(entry["cases"]), 0)
            for base, entry in reference.items()
            if base not in static
        ],
        {rid: list(globs) for rid, globs in task.requirement_map},
    )


def _weakened(test: StaticTest, ran: list[dict]) -> list[dict]:
    """A test the migration weakened (or dropped) fails whatever it did."""
    return [
        {
            **rec,
            "outcome": "failed",
            "message": "weakened by migration: fewer assertions than the reference test",
        }
        for rec in ran
    ] or [
        {
            "nodeid": test.nodeid,
            "outcome": "failed",
            "when": "migrate",
            "message": "dropped by migration",
            "duration": 0.0,
        }
    ]


def _skip_marked(rec: dict, reference_skips: set, skippable: bool) -> dict:
    """A skipped case marked: the reference skips it too (it tests nothing), or it skipped
    where the reference cannot (counted as not passed)."""
    if rec["outcome"] in SKIPPED and rec["nodeid"] in reference_skips:
        # the reference's own run skips it here (its environment): it tests nothing
        return {**rec, "reference_skipped": True}
    if rec["outcome"] in SKIPPED and not skippable:
        return {
            **rec,
            "unexpected_skip": True,
            "message": "skipped, but this test does not skip on the reference: "
            + str(rec.get("message", "")),
        }
    return rec


def tampered_message(evidence: list[str]) -> str:
    """What a tampered run's tests and requirements say."""
    return "the test run was tampered with: " + "; ".join(evidence)


def sink_tampered(verdicts: list[dict], evidence: list[str]) -> list[dict]:
    """A tampered run's verdicts: every requirement not implemented, saying why.

    Applied after any judge (an LLM judge reads the code, not whether the run was honest).
    """
    if not evidence:
        return verdicts
    return [
        {**v, "verdict": NOT_IMPLEMENTED, "message": tampered_message(evidence)} for v in verdicts
    ]


def missing_records(
    test, collect_errors: dict[str, str], status: str, ids: list[str]
) -> list[dict]:
    """Error records for a test (or the cases ``ids`` of it) that has no result, saying why."""
    error = collect_errors.get(test.file) or next(iter(collect_errors.values()), None)
    if error is not None:
        message = f"test module could not be collected: {error}"
    elif status == "timeout":
        message = "not run: the test run exceeded its time limit"
    elif status == "crashed":
        message = "not run: the test process ended before reaching this test"
    else:
        message = "not run: the test was not collected"
    if not ids:
        ids = [
            test.nodeid + (f"[case {index + 1}]" if test.cases > 1 else "")
            for index in range(test.cases)
        ]
    return [
        {
            "nodeid": nodeid,
            "outcome": "error",
            "when": "collect",
            "message": message[:800],
            "duration": 0.0,
            "requirements": test.requirements_of(nodeid),
        }
        for nodeid in ids
    ]


# What the sandbox stopped, recognised in the messages of failing tests (heuristic: for the
# report, never for verdicts).
_CONTAINMENT = (
    ("test_timeout", ("Timeout (>", "Timeout >")),
    ("memory", ("MemoryError", "Cannot allocate memory")),
    ("file_size", ("File too large", "[Errno 27]")),
    ("process_limit", ("Resource temporarily unavailable", "BlockingIOError", "[Errno 11]")),
    (
        "network_blocked",
        (
            "Network is unreachable",
            "Connection refused",
            "Temporary failure in name resolution",
            "Name or service not known",
        ),
    ),
    (
        "sandbox_violation",
        ("Read-only file system", "Permission denied", "[Errno 30]", "[Errno 13]"),
    ),
)


def containment(run: dict, tests: list[dict]) -> list[str]:
    """Labels for what the sandbox stopped during a test run (timeout, memory, ...)."""
    labels = set(run.get("contained") or ())
    if run.get("status") == "timeout":
        labels.add("timeout")
    if run.get("status") == "crashed":
        labels.add("crashed")
    if run.get("output_truncated"):
        labels.add("output_truncated")
    if run.get("forged_lines"):
        labels.add("forged_results")
    if run.get("tamper_evidence"):
        labels.add("tampered")
    for test in tests:
        message = test.get("message") or ""
        for label, needles in _CONTAINMENT:
            if any(n in message for n in needles):
                labels.add(label)
    return sorted(labels)


def judge_by_tests(task: Task, tests: list[dict]) -> list[dict]:
    """A requirement is implemented iff it has at least one test and all of them pass.

    Skipped tests count as not passing: a requirement must be shown to work (E2EDev Req.Acc).
    A case that skipped on the reference's own run too (``reference_skipped``: an optional
    dependency, a platform) tests nothing here and is left out; a requirement left with no
    other test is not implemented.
    """
    verdicts = []
    for req in task.requirements:
        mine = [
            t
            for t in tests
            if req.id in t.get("requirements", [])
            and not (t.get("reference_skipped") and t["outcome"] in SKIPPED)
        ]
        failing = [t for t in mine if t["outcome"] not in PASSING]
        verdict = IMPLEMENTED if mine and not failing else NOT_IMPLEMENTED
        verdicts.append(
            {
                "id": req.id,
                "title": req.title,
                "tags": list(req.tags),
                "verdict": verdict,
                "tests": len(mine),
                "passed": len(mine) - len(failing),
                "failing": [
                    {
                        "nodeid": t["nodeid"],
                        "outcome": t["outcome"],
                        "message": t.get("message", ""),
                        # a web scenario's screenshot and browser console
                        **({"properties": t["properties"]} if t.get("properties") else {}),
                    }
                    for t in failing
                ],
            }
        )
    return verdicts
