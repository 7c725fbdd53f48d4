"""Small synthetic projects in E2EDev's published layout (no E2EDev data is committed).

``write_sample(root)`` writes:

* ``Counter_01`` — a counter app, two requirements, behave steps that open the app with
  ``webdriver.Chrome()`` on a ``file://`` path (as E2EDev's do), parse parameters, a
  ``time.sleep``, an ``after_scenario`` that quits the driver;
* ``Broken_02`` — the same app, with one test case whose Gherkin does not parse and one whose
  step code is not Python (both must be reported and score 0);
* ``NoApp_03`` — tests but no ``source_projcet/`` (reported as not imported).
"""

from __future__ import annotations

import json
from pathlib import Path

APP = """<!doctype html>
<html>
<head><meta charset="utf-8"><title>Counter</title></head>
<body>
  <span data-testid="count">0</span>
  <button data-testid="plus">+</button>
  <button data-testid="reset">Reset</button>
  <input data-testid="step" type="number" value="1">
  <script src="script.js"></script>
</body>
</html>
"""
SCRIPT = """const count = document.querySelector('[data-testid="count"]');
const step = document.querySelector('[data-testid="step"]');
document.querySelector('[data-testid="plus"]').addEventListener('click', () => {
  count.textContent = String(Number(count.textContent) + (Number(step.value) || 1));
});
document.querySelector('[data-testid="reset"]').addEventListener('click', () => {
  count.textContent = '0';
});
"""
PROMPT = """
    You are tasked with implementing a complete web application using HTML, JavaScript, and CSS.
    REQUIREMENTS:
    - Requirement 1:
A counter (data-testid="count") starts at 0; the "+" button (data-testid="plus") adds the
step (data-testid="step", default 1).
- Requirement 2:
The "Reset" button (data-testid="reset") sets the counter back to 0.
"""
HEADER = """from behave import given, when, then
from selenium import webdriver
from selenium.webdriver.common.by import By
import time

file_path = "index.html"

@given('the counter page is open')
def step_open(context):
    context.driver = webdriver.Chrome()
    context.driver.get(f"file://{file_path}")
    time.sleep(0.1)
"""
STEPS_PLUS = (
    HEADER
    + """
@when('the user clicks plus {times:d} times')
def step_click(context, times):
    button = context.driver.find_element(By.CSS_SELECTOR, "[data-testid='plus']")
    for _ in range(times):
        button.click()

@when('the user sets the step to {value}')
def step_set(context, value):
    field = context.driver.find_element(By.CSS_SELECTOR, "[data-testid='step']")
    field.clear()
    field.send_keys(value)

@then('the counter shows "{text}"')
def step_check(context, text):
    shown = context.driver.find_element(By.CSS_SELECTOR, "[data-testid='count']").text
    assert shown == text, f"expected {text}, got {shown}"

def after_scenario(context, scenario):
    context.driver.quit()
"""
)
STEPS_RESET = STEPS_PLUS.replace(
    "def after_scenario",
    """@when('the user clicks reset')
def step_reset(context):
    context.driver.find_element(By.CSS_SELECTOR, "[data-testid='reset']").click()

def after_scenario""",
)
FEATURE_PLUS = """Feature: Counting
  The counter adds its step.

  Scenario: [Normal] Clicking plus once
    Given the counter page is open
    When the user clicks plus 1 times
    Then the counter shows "1"
"""
FEATURE_STEP = """Feature: Counting
  Scenario: [Edge] A step of 5
    Given the counter page is open
    When the user sets the step to 5
    And the user clicks plus 2 times
    Then the counter shows "10"
"""
FEATURE_RESET = """Feature: Reset
Scenario: [Normal] Reset after counting
    Given the counter page is open
    When the user clicks plus 3 times
    And the user clicks reset
    Then the counter shows "0"
"""


def _case(feature: str, steps: str) -> dict:
    return {"test_case": [feature], "step_code": steps}


def _project(root: Path, name: str, requirements: dict, app: bool = True) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "prompt.txt").write_text(PROMPT)
    (folder / "requirment_with_tests.json").write_text(
        json.dumps(
            {
                "summary": {"overview": "A counter app. It counts."},
                "finegrained_rewith_test": requirements,
            },
            indent=2,
        )
    )
    if app:
        source = folder / "source_projcet"
        (source / "info").mkdir(parents=True)
        (source / "index.html").write_text(APP)
        (source / "script.js").write_text(SCRIPT)
        (source / "info" / "info.txt").write_text("annotation, not part of the app")
        (source / "web_application_analysis.json").write_text("{}")
    return folder


def write_sample(root: Path) -> Path:
    """Write the three sample projects under ``root``; returns ``root``."""
    good = {
        "1": {
            "requirement": {"description": "A counter starts at 0. Plus adds the step."},
            "test_cases": [
                _case(FEATURE_PLUS, STEPS_PLUS),
                _case(FEATURE_STEP, STEPS_PLUS),
            ],
        },
        "2": {
            "requirement": {"description": "Reset sets the counter to 0."},
            "test_cases": [_case(FEATURE_RESET, STEPS_RESET)],
        },
    }
    _project(root, "Counter_01", good)
    broken = json.loads(json.dumps(good))
    broken["1"]["test_cases"][1] = _case("Feature: Oops\n  Scenario Outline: no examples\n", "")
    broken["2"]["test_cases"][0] = _case(FEATURE_RESET, "from behave import given\ndef (:\n")
    _project(root, "Broken_02", broken)
    _project(root, "NoApp_03", good, app=False)
    return root
