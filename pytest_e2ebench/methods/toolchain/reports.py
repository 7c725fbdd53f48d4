"""The verdicts and coverage a toolchain suite's report says, read as data (issue 43).

A test runner's report is written by a process that runs the project's code, so it is the
project zone's: read bounded (:func:`pytest_e2ebench.untrusted.parse.read_data`), parsed by the
bounded XML and JSON parsers, and held against the canary -- a test the harness appended to
the task's own test file, with a name drawn for the run, that must fail. A report without the
canary, or with it passing, or one that says a test failed while the runner exited 0, is
contradicted: the run is ``tampered`` and every test counts as failed
(:func:`pytest_e2ebench.grading.verdicts.effective_tests`).

Formats: gtest's XML (``GTEST_OUTPUT=xml:PATH``: ``<testsuite name=S><testcase name=T>``, the
test id ``S.T``), Node's JUnit reporter (``--test-reporter=junit``: nested ``<testsuite>``
for ``describe``, the test id the names joined by `` > ``), Jest's ``--json`` report (the
test id its ``fullName``), and lcov tracefiles (``LF``/``LH``/``BRF``/``BRH`` per source file)
for coverage, from ``lcov --capture`` (gcov's data) or Node's lcov reporter.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path, PurePosixPath

from ...errors import AgentFileError
from ...untrusted.parse import decode, loads_json, loads_xml, read_data

MAX_REPORT_BYTES = 8 << 20
MAX_MESSAGE = 800
CANARY_SUITE = "E2ebenchCanary"
JOINERS = {"gtest": ".", "node": " > ", "tap": " > "}
TAP_INDENT = 4  # Node's TAP reporter: four spaces a level of subtests
_TAP_RESULT = re.compile(r"^(\s*)(not )?ok \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$", re.IGNORECASE)
_TAP_SUBTEST = re.compile(r"^(\s*)# Subtest: (.*)$")
_TAP_ERROR = re.compile(r"^\s*error: (.*)$")


def canary_name(fmt: str, token: str) -> str:
    """The canary's test id in ``fmt``'s report."""
    if fmt == "gtest":
        return f"{CANARY_SUITE}{token}.MustFail"
    return f"e2ebench canary {token}"


def canary_source(fmt: str, token: str) -> str:
    """The canary test, appended to the task's test file (C++, or CommonJS/ESM JavaScript).

    It fails through the same assertion the tests use (gtest's ``EXPECT_EQ``, Node's
    ``assert.strictEqual``, Jest's ``expect().toBe()``) on two numbers drawn from the token, so
    a project that disarms the assertions (a macro redefined in its header, a patched
    ``assert``) passes the canary too, and the report is held contradicted."""
    one, two = int(token[:6], 16), int(token[:6], 16) + 1 + int(token[6:], 16) % 97
    if fmt == "gtest":
        return f"\nTEST({CANARY_SUITE}{token}, MustFail) {{ EXPECT_EQ({one}, {two}); }}\n"
    if fmt == "jest":
        return f"\ntest('e2ebench canary {token}', () => {{ expect({one}).toBe({two}); }});\n"
    # Node's runner: a dynamic import works in CommonJS and ES modules alike
    return (
        f"\nimport('node:test').then(({{ test }}) => test('e2ebench canary {token}', async () => "
        f"{{ (await import('node:assert')).default.strictEqual({one}, {two}); }}));\n"
    )


def new_token() -> str:
    """A canary's name part for one run (an identifier in C++ and JavaScript)."""
    return secrets.token_hex(6)


def read_report(folder: Path, name: str, fmt: str) -> list[dict] | None:
    """The test records of the report ``folder/name`` (None: there is none). Raises
    AgentFileError for a report that is too big, not parsable or not the format's."""
    data = read_data(folder, name, max_bytes=MAX_REPORT_BYTES, where=f"the {fmt} report")
    if data is None:
        return None
    if fmt == "jest":
        return _jest(loads_json(data, f"the {fmt} report"))
    if fmt == "tap":
        return tap_records(decode(data, "the tap report"))
    return _junit(loads_xml(data, f"the {fmt} report"), JOINERS[fmt])


def _junit(root, joiner: str) -> list[dict]:
    """JUnit XML's test cases in document order, each named by its enclosing suites (not the
    root) and itself."""
    found: list[dict] = []
    stack = [(iter(root), ())]
    while stack:  # iterative: the parser bounded the depth, this keeps the stack flat too
        children, names = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "testsuite":
            stack.append((iter(child), (*names, child.get("name", ""))))
        elif child.tag == "testcase":
            found.append(_case(child, names, joiner))
    return found


def _case(case, names: tuple, joiner: str) -> dict:
    """One ``<testcase>``'s record."""
    failure = next((c for c in case if c.tag in ("failure", "error")), None)
    skipped = case.find("skipped") is not None or case.get("result") == "skipped"
    outcome = "failed" if failure is not None else "skipped" if skipped else "passed"
    if case.get("status") == "notrun":
        outcome = "skipped"
    message = ""
    if failure is not None:
        message = (failure.get("message") or failure.text or "").strip()
    try:
        duration = float(case.get("time") or 0)
    except ValueError:
        duration = 0.0
    name = joiner.join([*(n for n in names if n), case.get("name", "")])
    return {"id": name, "outcome": outcome, "message": message[:MAX_MESSAGE], "duration": duration}


def tap_records(text: str) -> list[dict]:
    """Node's TAP (``--test-reporter=tap``): each test's result line, named by the subtests
    enclosing it (``describe`` blocks); a suite's own line (a name others extend) is left out."""
    names: list[str] = []
    found: list[dict] = []
    for line in text.splitlines():
        header = _TAP_SUBTEST.match(line)
        if header:
            level = len(header[1]) // TAP_INDENT
            names = [*names[:level], *[""] * (level - len(names)), _tap_name(header[2])]
            continue
        result = _TAP_RESULT.match(line)
        if result:
            level = len(result[1]) // TAP_INDENT
            path = [*names[:level], _tap_name(result[3] or "")]
            outcome = "skipped" if result[4] else "failed" if result[2] else "passed"
            found.append({"path": path, "outcome": outcome, "message": "", "duration": 0.0})
            continue
        error = _TAP_ERROR.match(line)
        last = found[-1] if found else None
        if last is not None and last["outcome"] == "failed" and last["message"] in ("", "|-"):
            if error or last["message"]:  # a block scalar's first line is the message
                said = error[1] if error else line.strip()
                last["message"] = said.strip("'\"")[:MAX_MESSAGE]
    paths = {tuple(r["path"]) for r in found}
    suites = {p[:n] for p in paths for n in range(1, len(p))}
    return [
        {**{k: v for k, v in r.items() if k != "path"}, "id": JOINERS["tap"].join(r["path"])}
        for r in found
        if tuple(r["path"]) not in suites
    ]


def _tap_name(text: str) -> str:
    return text.strip().replace("\\#", "#")


def _jest(value: object) -> list[dict]:
    """Jest's ``--json`` report: every assertion result of every test file."""
    if not isinstance(value, dict) or not isinstance(value.get("testResults"), list):
        raise AgentFileError("the jest report", "not a Jest --json report (no testResults)")
    found = []
    for result in value["testResults"]:
        results = result.get("assertionResults") if isinstance(result, dict) else None
        for rec in results if isinstance(results, list) else []:
            if not isinstance(rec, dict) or not isinstance(rec.get("fullName"), str):
                continue
            status = rec.get("status")
            outcome = {"passed": "passed", "failed": "failed"}.get(status, "skipped")
            messages = rec.get("failureMessages")
            text = "\n".join(m for m in messages if isinstance(m, str)) if messages else ""
            duration = rec.get("duration")
            found.append(
                {
                    "id": rec["fullName"],
                    "outcome": outcome,
                    "message": text[:MAX_MESSAGE],
                    "duration": duration / 1000 if isinstance(duration, int | float) else 0.0,
                }
            )
    return found


def contradictions(records: list[dict], canary: str, returncode: int | None) -> list[str]:
    """What the report says that cannot be (empty: nothing): the canary missing, passing or
    reported twice, or failures under an exit status of 0."""
    mine = [r for r in records if r["id"] == canary]
    evidence = []
    if not mine:
        evidence.append("the report lacks the harness's canary test (it must fail)")
    elif len(mine) > 1 or mine[0]["outcome"] != "failed":
        evidence.append("the report says the harness's canary test passed (it must fail)")
    if any(r["outcome"] == "failed" for r in records) and returncode == 0:
        evidence.append("the report has failing tests, but the test command exited 0")
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})[:3]
        evidence.append(f"the report names a test twice ({', '.join(twice)})")
    return evidence


def lcov_totals(folder: Path, name: str, root: Path, excluded: set[str]) -> dict | None:
    """The coverage totals of the lcov tracefile ``folder/name`` (:func:`lcov_maps`)."""
    maps = lcov_maps(folder, name, root, excluded)
    return totals_of(*maps) if maps is not None else None


def lcov_maps(folder: Path, name: str, root: Path, excluded: set[str]) -> tuple | None:
    """Each line and branch of the project's files in the lcov tracefile ``folder/name``, and
    whether it was covered (paths under ``root``, or relative; not the task's own files
    ``excluded``, relative); None: no file.

    Read from the ``DA`` (line, hits) and ``BRDA`` (line, block, branch, taken) records, a
    file's records merged over its sections (a header compiled into two objects has two): a
    line or branch is covered if any section took it. (lcov 1.16 with gcc 12 writes no ``LF``
    / ``LH`` summaries, so they are not relied on.)"""
    data = read_data(folder, name, max_bytes=MAX_REPORT_BYTES, where="the lcov report")
    if data is None:
        return None
    lines: dict[tuple[str, str], bool] = {}
    branches: dict[tuple[str, ...], bool] = {}
    current = None
    for line in decode(data, "the lcov report").splitlines():
        tag, _, value = line.partition(":")
        fields = value.strip().split(",")
        if tag == "SF":
            current = _project_file(value.strip(), root, excluded)
        elif current is None:
            continue
        elif tag == "DA" and len(fields) >= 2 and fields[1].isdigit():
            key = (current, fields[0])
            lines[key] = lines.get(key, False) or int(fields[1]) > 0
        elif tag == "BRDA" and len(fields) == 4:
            key = (current, *fields[:3])
            taken = fields[3].isdigit() and int(fields[3]) > 0
            branches[key] = branches.get(key, False) or taken
    return lines, branches


def union(one: tuple | None, two: tuple | None) -> tuple | None:
    """Two runs' line and branch maps of the same files together: covered if either took it."""
    if one is None or two is None:
        return one or two
    merged = []
    for first, second in zip(one, two, strict=True):
        both = dict(first)
        for key, covered in second.items():
            both[key] = both.get(key, False) or covered
        merged.append(both)
    return tuple(merged)


def totals_of(lines: dict, branches: dict) -> dict | None:
    """The coverage record of line and branch maps (None: no line of the project)."""
    if not lines:
        return None
    return {
        "statements": len(lines),
        "covered_lines": sum(lines.values()),
        "branches": len(branches),
        "covered_branches": sum(branches.values()),
        "files": len({f for f, _ in lines}),
    }


def _project_file(path: str, root: Path, excluded: set[str]) -> str | None:
    """``path`` relative to the project (None: outside it, or one of the task's files)."""
    pure = PurePosixPath(path)
    if pure.is_absolute():
        try:
            pure = pure.relative_to(PurePosixPath(root.as_posix()))
        except ValueError:
            return None
    rel = pure.as_posix()
    if ".." in pure.parts or rel in excluded or rel.startswith("node_modules/"):
        return None
    return rel
