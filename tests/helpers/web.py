"""Shared by the tests (moved from test_web.py)."""

from __future__ import annotations

from pathlib import Path

APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>Greeter</title></head>
<body>
  <input data-testid="name">
  <button data-testid="go">Greet</button>
  <button data-testid="spin">Spin</button>
  <p data-testid="out"></p>
  <script src="app.js"></script>
</body></html>
"""


SCRIPT = """const out = document.querySelector('[data-testid="out"]');
const name = document.querySelector('[data-testid="name"]');
document.querySelector('[data-testid="go"]').addEventListener('click', () => {
  const v = name.value.trim();
  out.textContent = v ? `Hello, ${v}!` : 'Name required';
  if (v) {
    localStorage.setItem('last', v);
    sessionStorage.setItem('last', v);
    document.cookie = `last=${v}`;
  }
});
name.addEventListener('keydown', (e) => { if (e.key === 'Enter') document.querySelector('[data-testid="go"]').click(); });
document.querySelector('[data-testid="spin"]').addEventListener('click', () => { for (;;) {} });
if (localStorage.getItem('last')) out.textContent = `Welcome back, ${localStorage.getItem('last')}`;
"""


FEATURE = """@R1
Feature: Greeting
  Background:
    Given the app is open

  Scenario Outline: Greet a name
    When I type "<name>" and press the button
    Then the output reads "Hello, <name>!"
    Examples:
      | name |
      | Ann  |
      | Bob  |

  Scenario: Enter greets too
    When I type "Cy" and press Enter
    Then the output reads "Hello, Cy!"

  @R2
  Scenario: Empty name is refused
    When I press the button
    Then the output reads "Name required"

  @R2
  Scenario: Every scenario starts with empty storage
    Then the output is empty
    And local storage, session storage and cookies are empty
"""


SPIN_FEATURE = """Feature: Spinning
  @R3
  Scenario: A button that never returns
    Given the app is open
    When I press spin
    Then the output is empty
"""


STEPS = """from pytest_bdd import given, when, then, parsers
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def el(browser, testid):
    return browser.find_element(By.CSS_SELECTOR, f"[data-testid='{testid}']")


@given("the app is open")
def _(browser, app_url):
    browser.get(app_url)


@when(parsers.parse('I type "{name}" and press the button'))
def _(browser, name):
    el(browser, "name").send_keys(name)
    el(browser, "go").click()


@when(parsers.parse('I type "{name}" and press Enter'))
def _(browser, name):
    el(browser, "name").send_keys(name + Keys.ENTER)


@when("I press the button")
def _(browser):
    el(browser, "go").click()


@when("I press spin")
def _(browser):
    el(browser, "spin").click()


@then(parsers.parse('the output reads "{text}"'))
def _(browser, text):
    assert el(browser, "out").text == text


@then("the output is empty")
def _(browser):
    assert el(browser, "out").text == ""


@then("local storage, session storage and cookies are empty")
def _(browser):
    left = browser.execute_script(
        "return [localStorage.length, sessionStorage.length, document.cookie];"
    )
    assert left == [0, 0, ""], left
"""


REQUIREMENTS = """# Greeter

### R1: Greeting
Tags: core

### R2: Validation
Tags: validation

### R3: Spinning
"""


def make_web_task(tasks, task_id="greet", *, spin=False, app=True, timeout=20) -> Path:
    root = tasks.tasks / task_id
    tasks.write(
        root / "task.toml",
        f'id = "{task_id}"\ntitle = "Greeter"\nkind = "web"\nlanguage = "javascript"\n'
        f'created = 2026-11-01\nsource = "tests"\n\n[tests]\ntimeout = {timeout}\n',
    )
    tasks.write(root / "requirements.md", REQUIREMENTS if spin else REQUIREMENTS.split("### R3")[0])
    if app:
        tasks.write(root / "reference" / "index.html", APP)
        tasks.write(root / "reference" / "app.js", SCRIPT)
    tasks.write(root / "tests" / "conftest.py", STEPS)
    tasks.write(root / "tests" / "features" / "greet.feature", FEATURE)
    if spin:
        tasks.write(root / "tests" / "features" / "spin.feature", SPIN_FEATURE)
    return root
