"""The toolchain suites' report readers (issue 43) on stored reports: gtest's XML, Node's JUnit
and TAP, Jest's JSON, lcov; the bounds of the XML parser; the canary's cross-checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_e2ebench.errors import AgentFileError
from pytest_e2ebench.methods.toolchain.reports import (
    canary_name,
    contradictions,
    lcov_maps,
    lcov_totals,
    read_report,
    tap_records,
    totals_of,
    union,
)
from pytest_e2ebench.untrusted.parse import loads_xml

GTEST = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1" name="AllTests">
  <testsuite name="Stack" tests="2">
    <testcase name="PushPop" status="run" result="completed" time="0.001" classname="Stack"/>
    <testcase name="Off" status="notrun" result="suppressed" classname="Stack"/>
  </testsuite>
  <testsuite name="E2ebenchCanaryabc" tests="1">
    <testcase name="MustFail" status="run" classname="E2ebenchCanaryabc">
      <failure message="Expected equality of these values" type=""/>
    </testcase>
  </testsuite>
</testsuites>"""
NODE_JUNIT = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites>
  <testcase name="top" time="0.001" classname="test"/>
  <testsuite name="group" tests="2" failures="1">
    <testcase name="four" time="0.0002" classname="test"/>
    <testcase name="nine" classname="test"><failure message="not IX"/></testcase>
  </testsuite>
</testsuites>"""
TAP = """TAP version 13
# Subtest: toRoman
    # Subtest: small numbers
    ok 1 - small numbers
      ---
      duration_ms: 0.3
      ...
    # Subtest: nine
    not ok 2 - nine
      ---
      error: |-
        Expected values to be strictly equal:
      ...
    # Subtest: later
    ok 3 - later # SKIP not yet
    1..3
not ok 1 - toRoman
# Subtest: e2ebench canary abc
not ok 2 - e2ebench canary abc
  ---
  error: 'canary'
  ...
1..2
"""
LCOV = """TN:
SF:/work/src/rpn.cpp
DA:1,3
DA:2,0
BRDA:2,0,0,1
BRDA:2,0,1,-
end_of_record
SF:/usr/include/c++/12/bits/stl_vector.h
DA:10,5
end_of_record
SF:/work/src/rpn.cpp
DA:2,1
BRDA:2,0,1,0
end_of_record
SF:unit_tests/test_rpn.cpp
DA:5,1
end_of_record
"""


def _write(tmp_path, data: bytes | str, name: str = "report.out"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return tmp_path


def test_gtest_and_node_junit_reports(tmp_path):
    records = read_report(_write(tmp_path, GTEST), "report.out", "gtest")
    assert [(r["id"], r["outcome"]) for r in records] == [
        ("Stack.PushPop", "passed"),
        ("Stack.Off", "skipped"),
        ("E2ebenchCanaryabc.MustFail", "failed"),
    ]
    assert contradictions(records, canary_name("gtest", "abc"), returncode=1) == []
    records = read_report(_write(tmp_path, NODE_JUNIT), "report.out", "node")
    assert [(r["id"], r["outcome"]) for r in records] == [
        ("top", "passed"),
        ("group > four", "passed"),
        ("group > nine", "failed"),
    ]
    assert records[2]["message"] == "not IX"


def test_tap_names_leaves_by_their_subtests_and_drops_suites():
    records = tap_records(TAP)
    assert [(r["id"], r["outcome"], r["message"]) for r in records] == [
        ("toRoman > small numbers", "passed", ""),
        ("toRoman > nine", "failed", "Expected values to be strictly equal:"),
        ("toRoman > later", "skipped", ""),
        ("e2ebench canary abc", "failed", "canary"),
    ]


def test_jest_json_report(tmp_path):
    report = {
        "testResults": [
            {
                "name": "/w/test/a.spec.js",
                "assertionResults": [
                    {"fullName": "A renders", "status": "passed", "duration": 12},
                    {"fullName": "A fails", "status": "failed", "failureMessages": ["boom"]},
                    {"fullName": "A later", "status": "pending"},
                    {"status": "passed"},  # no name: not a test record
                ],
            }
        ]
    }
    records = read_report(_write(tmp_path, json.dumps(report)), "report.out", "jest")
    assert [(r["id"], r["outcome"], r["message"]) for r in records] == [
        ("A renders", "passed", ""),
        ("A fails", "failed", "boom"),
        ("A later", "skipped", ""),
    ]
    with pytest.raises(AgentFileError, match="not a Jest --json report"):
        read_report(_write(tmp_path, b'{"x": 1}'), "report.out", "jest")


def test_the_canary_holds_a_report_to_account():
    passed = {"outcome": "passed", "message": "", "duration": 0.0}
    canary = canary_name("node", "abc")
    honest = [{**passed, "id": "t1"}, {**passed, "id": canary, "outcome": "failed"}]
    assert contradictions(honest, canary, returncode=1) == []
    assert contradictions(honest, canary, returncode=0) == [
        "the report has failing tests, but the test command exited 0"
    ]
    assert contradictions(honest[:1], canary, returncode=0) == [
        "the report lacks the harness's canary test (it must fail)"
    ]
    forged = [{**passed, "id": "t1"}, {**passed, "id": canary}]
    assert "the report says the harness's canary test passed (it must fail)" in contradictions(
        forged, canary, returncode=0
    )
    assert "the report names a test twice (t1)" in contradictions(
        [*honest, {**passed, "id": "t1"}], canary, returncode=1
    )


def test_lcov_totals_merge_a_files_sections_and_leave_out_others(tmp_path):
    found = lcov_totals(
        _write(tmp_path, LCOV, "c.info"), "c.info", Path("/work"), {"unit_tests/test_rpn.cpp"}
    )
    # rpn.cpp: lines 1 and 2 (2 covered in the second section), branches (2,0,0) and (2,0,1)
    assert found == {
        "statements": 2,
        "covered_lines": 2,
        "branches": 2,
        "covered_branches": 1,
        "files": 1,
    }
    assert lcov_totals(tmp_path, "missing.info", Path("/work"), set()) is None


@pytest.mark.parametrize(
    "data, said",
    [
        (b'<!DOCTYPE a [<!ENTITY x "yyyy">]><a>&x;</a>', "document type declaration"),
        (b"<a>" * 100 + b"</a>" * 100, "nested deeper than 64"),
        (b"<a><b></a>", "not valid XML (mismatched tag"),
        (b"", "not valid XML"),
    ],
)
def test_the_xml_parser_refuses_entities_depth_and_bad_syntax(data, said):
    with pytest.raises(AgentFileError, match=said.replace("(", r"\(")):
        loads_xml(data, "report")


def test_two_suites_coverage_is_their_union(tmp_path):
    one = tmp_path / "one"
    two = tmp_path / "two"
    _write(one.mkdir() or one, "SF:src/a.c\nDA:1,1\nDA:2,0\nBRDA:2,0,0,0\nend_of_record\n", "c")
    _write(two.mkdir() or two, "SF:src/a.c\nDA:1,0\nDA:2,3\nBRDA:2,0,0,1\nend_of_record\n", "c")
    maps = union(lcov_maps(one, "c", Path("/w"), set()), lcov_maps(two, "c", Path("/w"), set()))
    # each alone covers one of the two lines; together both, and the branch
    assert totals_of(*maps) == {
        "statements": 2,
        "covered_lines": 2,
        "branches": 1,
        "covered_branches": 1,
        "files": 1,
    }
    assert union(None, maps) == maps
