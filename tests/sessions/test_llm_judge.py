"""The LLM judge (three votes) and the LLM migration agent, against a scripted server."""

from __future__ import annotations

import json

import pytest
from helpers.llm import ini
from helpers.migration import renamed_project

from pytest_e2ebench.judge.llm import aggregate, cohen_kappa, parse_vote
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, error, reply, tool_call

IMPL, NOT = "implemented", "not_implemented"


def vote(r1=IMPL, r2=IMPL, r3=IMPL, cls="incorrect_logic") -> str:
    def one(v):
        return {"verdict": v, "reason": "x", **({"failure_class": cls} if v == NOT else {})}

    return json.dumps({"R1": one(r1), "R2": one(r2), "R3": one(r3)})


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def run(pytester, llm, *args):
    return pytester.runpytest("--e2e-agent=reference", f"--e2e-llm-base-url={llm.base_url}", *args)


def test_three_agreeing_votes_decide(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(reply(vote()), reply(vote()), reply(vote()))
    run(pytester, llm, "--e2e-judge=llm").assert_outcomes(passed=3)
    judged = results()["tasks"][0]["llm_judge"]
    assert judged["verdicts"] == {"R1": IMPL, "R2": IMPL, "R3": IMPL}
    assert judged["calls"] == 3
    system = llm.requests[0]["messages"][0]["content"]
    user = llm.requests[0]["messages"][1]["content"]
    assert "strict reviewer" in system
    assert "### R1: Addition" in user and "R2: 2/2 tests passed" in user
    assert "def add(a, b)" in user  # the generated code ...
    assert "test_calc" not in user.split("# Test results")[0]  # ... but no reference tests


def test_split_votes_are_inconclusive_and_unanimous_no_gets_a_class(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(
        reply(vote(r2=NOT, r3=NOT)),
        reply(vote(r3=NOT)),
        reply(vote(r3=NOT, cls="missing_component")),
    )
    result = run(pytester, llm, "--e2e-judge=llm")
    result.assert_outcomes(passed=1, failed=2)
    record = results()["tasks"][0]
    judged = record["llm_judge"]
    assert judged["verdicts"] == {"R1": IMPL, "R2": "inconclusive", "R3": NOT}
    assert judged["failure_classes"] == {"R3": "incorrect_logic"}  # 2 of 3 votes
    assert record["metrics"]["impl_rate"] == pytest.approx(1 / 3)  # inconclusive counts as not
    assert record["metrics"]["req_acc"] == 1.0  # the tests all pass
    result.stdout.fnmatch_lines(["LLM judge, reference: failure classes: incorrect_logic 1*"])


def test_malformed_or_incomplete_answers_are_asked_again(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(
        reply("I think it's fine."),
        reply(vote()),
        reply(json.dumps({"R1": {"verdict": IMPL}})),
        reply(vote()),
        reply(vote()),
    )
    run(pytester, llm, "--e2e-judge=llm").assert_outcomes(passed=3)
    assert results()["tasks"][0]["llm_judge"]["calls"] == 5
    again = llm.requests[1]["messages"][-1]["content"]
    assert again.startswith("Invalid answer: the answer is not a JSON object")
    assert (
        "these ids are missing or have no valid verdict: R2, R3"
        in llm.requests[3]["messages"][-1]["content"]
    )


def test_both_records_agreement_and_kappa_and_items_follow_tests(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    llm.push(*[reply(vote(r3=NOT)) for _ in range(3)])
    run(pytester, llm, "--e2e-judge=both").assert_outcomes(passed=3)
    record = results()["tasks"][0]
    assert [r["verdict"] for r in record["requirements"]] == [IMPL] * 3
    assert [r["llm_verdict"] for r in record["requirements"]] == [IMPL, IMPL, NOT]
    assert record["llm_judge"]["agreement"] == pytest.approx(2 / 3)
    assert record["llm_judge"]["kappa"] == 0.0  # the tests say yes to all: no better than chance


def test_llm_judge_needs_an_endpoint(pytester, tasks, monkeypatch):
    tasks.make()
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    pytester.makeini("[pytest]\ne2ebench_tasks = tasks\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-judge=llm")
    result.stderr.fnmatch_lines(["ERROR: --e2e-judge=llm calls an LLM and needs a model*"])
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-judge=vibes")
    result.stderr.fnmatch_lines(["ERROR: --e2e-judge=vibes: use one of tests, llm, both"])


def test_llm_migration_rewrites_tests_onto_the_new_api(pytester, tasks, results, llm):
    tasks.make()
    renamed_project(tasks, pytester.path / "out" / "calc")
    ini(pytester)
    llm.push(
        tool_call("create", {"path": "project/calculator/ops.py", "content": "hacked = 1\n"}),
        tool_call(
            "str_replace",
            {
                "path": "tests/test_calc.py",
                "old_str": "from calc import add, sub, mul",
                "new_str": "from calculator import add_numbers as add, subtract as sub, mul",
            },
        ),
        tool_call("bash", {"command": "python -m pytest -q tests | tail -1"}),
        tool_call("submit", {"summary": "migrated"}),
    )
    result = pytester.runpytest(
        "--e2e-agent=dir:out", f"--e2e-llm-base-url={llm.base_url}", "--e2e-migrate=llm"
    )
    result.assert_outcomes(passed=3)
    record = results()["tasks"][0]
    assert record["migration"]["migrator"] == "llm"
    assert record["migration"]["weakened"] == []
    observations = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert (
        observations[0]["content"]
        == "ERROR: project/calculator/ops.py: only files under tests/ may be changed"
    )
    bash_output = [m for m in llm.requests[3]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "7 passed" in bash_output
    assert "test_calc" in llm.requests[0]["messages"][1]["content"]  # it sees the files


def test_a_migration_the_model_refuses_after_progress_keeps_what_it_wrote(
    pytester, tasks, results, llm
):
    """The project's output grows the migrator's conversation: a refusal after accepted steps
    (the context exceeded) ended the run as an infrastructure error (issue 40's audit). The
    migration ends with the tests it rewrote, graded as any."""
    tasks.make()
    renamed_project(tasks, pytester.path / "out" / "calc")
    ini(pytester)
    llm.push(
        tool_call(
            "str_replace",
            {
                "path": "tests/test_calc.py",
                "old_str": "from calc import add, sub, mul",
                "new_str": "from calculator import add_numbers as add, subtract as sub, mul",
            },
        ),
        error(413, "the request exceeds the available context size"),
    )
    result = pytester.runpytest(
        "--e2e-agent=dir:out", f"--e2e-llm-base-url={llm.base_url}", "--e2e-migrate=llm"
    )
    result.assert_outcomes(passed=3)
    record = results()["tasks"][0]
    assert record["status"] == "ok" and record["migration"]["migrator"] == "llm"


def test_vote_parsing_and_aggregation_units():
    ids = ["R1", "R2"]
    assert (
        parse_vote(
            '```json\n{"R1": "implemented", "R2": {"verdict": "not_implemented"}}\n```', ids
        )["R2"]["verdict"]
        == NOT
    )
    assert parse_vote('{"R1": "maybe", "R2": "implemented"}', ids) == (
        "these ids are missing or have no valid verdict: R1"
    )
    votes = [
        {
            "R1": {"verdict": IMPL, "failure_class": None},
            "R2": {"verdict": NOT, "failure_class": "incomplete_stub"},
        }
    ] * 3
    assert aggregate(votes, ids) == ({"R1": IMPL, "R2": NOT}, {"R2": "incomplete_stub"})


@pytest.mark.parametrize(
    "a, b, kappa",
    [
        ([True, True, False, False], [True, True, False, False], 1.0),
        ([True, False, True, False], [False, True, False, True], -1.0),
        ([True, True, True, False], [True, True, False, False], 0.5),
    ],
)
def test_cohen_kappa_hand_computed(a, b, kappa):
    assert cohen_kappa(a, b) == pytest.approx(kappa)
    assert cohen_kappa([], []) is None
    assert cohen_kappa([True, True], [True, True]) is None  # chance agreement is 1
