"""Kind-aware LLM agents and judge (issue #13.4): one scripted-endpoint test per kind."""

from __future__ import annotations

import json

import pytest
from helpers.app import make_app_task
from helpers.llm import calc_files, ini, write_all
from helpers.tasks import CALC_TESTS
from helpers.web import APP, SCRIPT, make_web_task

from pytest_e2ebench.agents.kinds import check_delivery, stated_testids
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply, tool_call

WEB_REQUIREMENTS = """# Greeter

The page has an input `data-testid="name"`, a button `data-testid="go"` and a paragraph
`data-testid="out"`.

| data-testid | element |
|-------------|---------|
| `spin`      | button  |

### R1: Greeting
Tags: core

### R2: Validation
Tags: validation
"""


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def system_of(body: dict) -> str:
    return body["messages"][0]["content"]


def files_answer(files: dict[str, str]) -> str:
    return "\n".join(f"### FILE: {path}\n```\n{text}\n```\n" for path, text in files.items())


def test_stated_testids_and_the_delivery_check_per_kind(tasks, tmp_path):
    assert stated_testids(WEB_REQUIREMENTS) == ["name", "go", "out", "spin"]
    web = make_web_task(tasks)
    (web / "requirements.md").write_text(WEB_REQUIREMENTS)
    web_task = load_task(web)
    assert check_delivery(web_task, web / "reference") == []
    page = tmp_path / "web"
    page.mkdir()
    (page / "index.html").write_text(APP.replace('data-testid="out"', ""))
    assert check_delivery(web_task, page) == [
        "data-testid out: stated by the requirements, but in no HTML or JavaScript file"
    ]
    (page / "app.js").write_text("document.body.dataset.x = 'out';")  # named in a script
    assert check_delivery(web_task, page) == []
    (page / "index.html").unlink()
    (page / "elsewhere.html").symlink_to(tmp_path / "web" / "app.js")
    assert check_delivery(web_task, page) == [
        "no index.html at the repository root: there is no page to load"
    ]

    app = load_task(make_app_task(tasks))
    assert check_delivery(app, app.reference_dir) == []
    assert check_delivery(app, tmp_path / "web") == [
        "no index.html at the repository root: there is no page to load"
    ]

    calc = load_task(tasks.make())
    assert check_delivery(calc, calc.reference_dir) == []
    assert check_delivery(calc, page) == [
        "no pyproject.toml at the repository root: the project cannot be installed"
    ]


def test_a_command_app_is_checked_for_the_files_its_command_names(tasks, tmp_path):
    root = make_app_task(tasks, "served")
    toml = (
        (root / "task.toml")
        .read_text()
        .replace(
            'launch = "static"',
            'launch = "command"\ncommand = ["python3", "srv/serve.py", "{port}"]',
        )
    )
    (root / "task.toml").write_text(toml)
    task = load_task(root)
    assert check_delivery(task, tmp_path) == [
        "srv/serve.py: the launch command names it, but the repository has no such file"
    ]
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "serve.py").write_text("")
    assert check_delivery(task, tmp_path) == []


def test_library_sdagent_is_turned_back_until_it_delivers_a_project(pytester, tasks, results, llm):
    tasks.make()
    ini(pytester)
    # three votes for this run, three for the reference's (its run counts every agent's tests)
    llm.push(
        tool_call("submit", {"summary": "too early"}),
        *write_all(calc_files(tasks, pytester)),
        tool_call("create", {"path": "tests/test_calc.py", "content": CALC_TESTS}),
        tool_call("submit", {"summary": "done"}),
    )
    result = pytester.runpytest("--e2e-agent=sdagent-single", f"--e2e-llm-base-url={llm.base_url}")
    result.assert_outcomes(passed=3)
    first = llm.requests[0]
    assert "Deliver an installable Python project" in system_of(first)
    assert "pip install --no-build-isolation -e ." in system_of(first)
    told = llm.requests[1]["messages"][-1]["content"]
    assert told.startswith("Not submitted, the delivery check found: no pyproject.toml")
    roles = results()["tasks"][0]["agent_run"]["details"]["roles"]
    assert roles[0]["delivery_rejected"] == 1 and roles[0]["submitted"]


def vote(*ids: str) -> str:
    return json.dumps({i: {"verdict": "implemented", "reason": "x"} for i in ids})


@pytest.mark.browser
@pytest.mark.slow
def test_web_vanilla_is_asked_for_static_files_and_the_llm_judge_sees_them(
    pytester, tasks, results, llm
):
    root = make_web_task(tasks)
    (root / "requirements.md").write_text(WEB_REQUIREMENTS)
    ini(pytester)
    llm.push(
        reply(files_answer({"index.html": APP, "app.js": SCRIPT})), *[reply(vote("R1", "R2"))] * 6
    )
    result = pytester.runpytest(
        "--e2e-agent=vanilla", "--e2e-judge=llm", f"--e2e-llm-base-url={llm.base_url}"
    )
    result.assert_outcomes(passed=2)
    asked = system_of(llm.requests[0])
    assert "Deliver a static web app: index.html at the repository root" in asked
    assert "data-testid attributes the document states (name, go, out, spin)" in asked
    assert "pyproject" not in asked
    shown = llm.requests[1]["messages"][-1]["content"]
    assert "# Code (a static web app" in shown
    assert "### index.html\n<!doctype html>" in shown and "### app.js\n" in shown
    assert "has no code" not in shown
    assert results()["tasks"][0]["agent_run"]["note"] is None  # delivered


@pytest.mark.browser
@pytest.mark.slow
def test_app_vanilla_is_asked_for_its_launch_contract_and_checked(pytester, tasks, results, llm):
    make_app_task(tasks)
    ini(pytester, e2ebench_app_cases="3-6")
    llm.push(reply(files_answer({"README.md": "nothing to serve"})))
    result = pytester.runpytest_subprocess(
        "--e2e-agent=vanilla", f"--e2e-llm-base-url={llm.base_url}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=3)
    asked = system_of(llm.requests[0])
    assert "Deliver a static web app: index.html at the repository root" in asked
    assert "materials/" in asked
    run = results()["tasks"][0]
    assert run["agent_run"]["note"] == (
        "delivery check: no index.html at the repository root: there is no page to load"
    )
    assert run["metrics"]["executability"] == 0.0
