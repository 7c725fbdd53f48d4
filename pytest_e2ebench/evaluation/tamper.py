"""Is a test run's result believable? Independent evidence, cross-checked (issue 11, class 7).

The outcomes of a test run come from the process that imported the project, so no single check
inside it is airtight. The harness layers cheap pieces of evidence, and any disagreement marks
the run ``tampered`` (every requirement then fails):

* the probe's own report that a watched pytest function, class or hook implementation changed,
  that a test does not run the code compiled from the suite, or that project code did what no
  honest library does under test (``tamper`` records, see ``probe/e2ebench_probe.py`` and
  ``probe/e2ebench_guard.py``);
* its results file: every line signed and numbered in order, starting with the probe's ``start``;
* the process's exit status against pytest's (the probe's ``end``), a passing status against
  failing tests, the collected tests against the reported ones;
* honeypot tests (:mod:`.honeypot`) that the reference fails: none may pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

from ..grading.verdicts import PASSING, base_nodeid

_LISTED = 5  # node ids named in one piece of evidence
# pytest's exit codes after which every collected test has run (0 ok, 1 some failed)
_RAN_ALL = (0, 1)


def _names(ids: Collection[str]) -> str:
    shown = sorted(ids)[:_LISTED]
    more = len(ids) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def evidence(
    probe: dict, *, returncode: int | None, timed_out: bool, honeypots: Collection[str] = ()
) -> list[str]:
    """What contradicts the run's reported results (empty: nothing does).

    ``probe`` is :func:`~pytest_e2ebench.evaluation.runner.read_probe`'s reading of the results file
    with
    every test record, honeypots included; ``honeypots`` their base node ids (a mapping to their
    originals' node ids: then a honeypot is evidence only where its original passed too).
    """
    found: list[str] = []
    for change in probe.get("tamper", []):
        when = str(change.get("when", "?"))
        what = "the project's code do" if when.startswith("audit ") else "pytest's machinery change"
        found.append(
            f"the probe saw {what} ({when}): "
            + "; ".join(str(c) for c in change.get("changed", [])[:_LISTED])
        )
    if probe.get("forged_lines"):
        found.append(f"{probe['forged_lines']} line(s) of the results file not signed by the probe")
    if probe.get("after_end"):
        found.append(f"{probe['after_end']} record(s) sent after pytest's session ended")
    if probe.get("sequence_broken"):
        found.append("the results file's records are out of sequence (added, removed or repeated)")
    tests = probe.get("tests", [])
    reported = Counter(t["nodeid"] for t in tests)
    twice = [n for n, c in reported.items() if c > 1]
    if twice:
        found.append(f"tests reported more than once: {_names(twice)}")
    exitstatus = probe.get("exitstatus")
    if exitstatus is None:
        if returncode == 0 and not timed_out:
            found.append("the test process exited with status 0 before pytest finished")
    else:
        found += _finished(probe, exitstatus, returncode, set(reported), honeypots)
    caught = _passing_honeypots(tests, honeypots)
    if caught:
        found.append(f"hidden tests that the reference fails passed: {_names(caught)}")
    return found


def _passing_honeypots(tests: list[dict], honeypots: Collection[str]) -> list[str]:
    """Honeypots that passed. Given as a mapping to their originals' node ids, only those whose
    original (the same parameters) passed too: a project with a bug may return a honeypot's
    value (one the suite expects elsewhere), but one expression cannot equal two values."""
    outcomes = {t["nodeid"]: t["outcome"] for t in tests}
    caught = set()
    for nodeid, outcome in outcomes.items():
        base = base_nodeid(nodeid)
        if outcome not in PASSING or base not in honeypots:
            continue
        if isinstance(honeypots, Mapping):
            original = honeypots[base] + nodeid[len(base) :]
            if outcomes.get(original) not in PASSING:
                continue
        caught.add(nodeid)
    return sorted(caught)


def _finished(
    probe: dict, exitstatus: int, returncode: int | None, reported: set[str], honeypots
) -> list[str]:
    """Evidence from a run whose pytest session finished (the probe wrote its ``end``)."""
    found = []
    if returncode is not None and returncode != exitstatus:
        found.append(
            f"the test process exited with status {returncode}, pytest's session with {exitstatus}"
        )
    failing = [t for t in probe.get("tests", []) if t["outcome"] in ("failed", "error")]
    if exitstatus == 0 and (failing or probe.get("collect_errors")):
        found.append(
            f"pytest's exit status is 0 (all passed) with {len(failing)} failing test(s) and "
            f"{len(probe.get('collect_errors', []))} collection error(s)"
        )
    if exitstatus == 1 and not failing and not probe.get("collect_errors"):
        found.append("pytest's exit status says tests failed, and no failing test was reported")
    collected = probe.get("collected")
    if collected is None:
        found.append("pytest finished without the probe's record of the collected tests")
        return found
    collected = set(collected)
    unknown = reported - collected
    if unknown:
        found.append(f"tests reported that were never collected: {_names(unknown)}")
    if exitstatus in _RAN_ALL:
        silent = collected - reported
        if silent:
            found.append(f"tests collected and never reported: {_names(silent)}")
        bases = {base_nodeid(n) for n in reported}
        missing = [h for h in honeypots if h not in bases]
        if missing:
            found.append(f"hidden tests never ran: {_names(missing)}")
    return found
