"""Step definitions for the loan calculator scenarios (pytest-bdd + Selenium)."""

from __future__ import annotations

import pytest
from pytest_bdd import given, parsers, then, when
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 5
KEYS = {"RIGHT": Keys.ARROW_RIGHT, "LEFT": Keys.ARROW_LEFT, "HOME": Keys.HOME, "END": Keys.END}
SET_RANGE = (
    "arguments[0].value = arguments[1];"
    "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
    "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
)


def css(testid: str) -> str:
    return f"[data-testid='{testid}']"


def find(browser, testid: str):
    return WebDriverWait(browser, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, css(testid)))
    )


def text_of(browser, testid: str) -> str:
    """Visible text of an element, surrounding whitespace ignored."""
    return find(browser, testid).text.strip()


def wait_for(browser, check, message: str):
    """Wait until ``check()`` is true; fail with ``message`` (formatted with the last value)."""
    last = {}

    def poll(_):
        ok, last["value"] = check()
        return ok

    try:
        WebDriverWait(browser, WAIT).until(poll)
    except Exception:  # noqa: BLE001 - the assertion below explains
        pytest.fail(message.format(last.get("value")), pytrace=False)


ROW_TEXTS = """
const table = document.querySelector(arguments[0]);
if (!table) { return []; }
return Array.from(table.querySelectorAll("tbody tr"), (tr) =>
  Array.from(tr.querySelectorAll("td"), (td) => td.textContent.trim()).join(" | "));
"""


def schedule_rows(browser) -> list[str]:
    """Each body row of the schedule as its cell texts joined by " | " (one round trip)."""
    return browser.execute_script(ROW_TEXTS, css("schedule"))


# --- Given ------------------------------------------------------------------------------------


@given("the app is open")
def app_open(browser, app_url):
    browser.get(app_url)
    find(browser, "amount")
    find(browser, "results")


# --- When -------------------------------------------------------------------------------------


@when(parsers.re(r'I set the amount to "(?P<text>[^"]*)"'))
def set_amount(browser, text):
    field = find(browser, "amount")
    field.click()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    if text:
        field.send_keys(text)


@when(parsers.parse("I set the interest rate to {rate}"))
def set_rate(browser, rate):
    browser.execute_script(SET_RANGE, find(browser, "rate"), rate)


@when(parsers.parse("I press {key} on the rate slider"))
def press_on_slider(browser, key):
    find(browser, "rate").send_keys(KEYS[key])


@when(parsers.parse('I select the term "{years}"'))
def select_term(browser, years):
    Select(find(browser, "term")).select_by_value(years)


@when(parsers.parse('I click "{testid}"'))
def click(browser, testid):
    find(browser, testid).click()


@when(
    parsers.parse('I enter the loan "{amount}" at {rate} percent for {years} years'),
)
def enter_loan(browser, amount, rate, years):
    set_amount(browser, amount)
    set_rate(browser, rate)
    select_term(browser, years)


# --- Then -------------------------------------------------------------------------------------


@then(parsers.re(r'"(?P<testid>[\w-]+)" shows "(?P<expected>[^"]*)"'))
def shows(browser, testid, expected):
    wait_for(
        browser,
        lambda: ((t := text_of(browser, testid)) == expected, t),
        f"{testid} shows {{!r}}, expected {expected!r}",
    )


@then(parsers.parse('the amount field contains "{value}"'))
def amount_contains(browser, value):
    actual = find(browser, "amount").get_attribute("value")
    assert actual == value, f"amount field contains {actual!r}, expected {value!r}"


@then(parsers.parse('the rate slider value is "{value}"'))
def rate_value(browser, value):
    actual = find(browser, "rate").get_attribute("value")
    assert float(actual) == float(value), f"rate slider value is {actual!r}, expected {value!r}"


@then(parsers.parse('the selected term is "{value}"'))
def term_value(browser, value):
    actual = Select(find(browser, "term")).first_selected_option.get_attribute("value")
    assert actual == value, f"selected term is {actual!r}, expected {value!r}"


@then(parsers.parse('"{testid}" is displayed'))
def displayed(browser, testid):
    wait_for(
        browser,
        lambda: (d := find(browser, testid).is_displayed(), d),
        f"{testid} is not displayed",
    )


@then(parsers.parse('"{testid}" is not displayed'))
def not_displayed(browser, testid):
    wait_for(
        browser,
        lambda: (not (d := find(browser, testid).is_displayed()), d),
        f"{testid} is displayed but should not be",
    )


@then(parsers.parse('"{testid}" is enabled'))
def enabled(browser, testid):
    assert find(browser, testid).is_enabled(), f"{testid} is disabled but should be enabled"


@then(parsers.parse('"{testid}" is disabled'))
def disabled(browser, testid):
    assert not find(browser, testid).is_enabled(), f"{testid} is enabled but should be disabled"


@then(parsers.parse("the amount error is {expected}"))
def amount_error(browser, expected):
    """``hidden``, or a quoted message that must be displayed."""
    error = find(browser, "amount-error")
    if expected == "hidden":
        assert not error.is_displayed(), f"amount-error is displayed: {error.text!r}"
        content = (error.get_attribute("textContent") or "").strip()
        assert content == "", f"hidden amount-error still has the text {content!r}"
    else:
        message = expected.strip('"')
        assert error.is_displayed(), "amount-error is not displayed"
        assert error.text.strip() == message, (
            f"amount-error shows {error.text.strip()!r}, expected {message!r}"
        )


@then(parsers.parse("the amount field is marked {state}"))
def amount_marked(browser, state):
    classes = (find(browser, "amount").get_attribute("class") or "").split()
    if state == "invalid":
        assert "invalid" in classes, f"amount field classes {classes}, expected 'invalid'"
    else:
        assert "invalid" not in classes, f"amount field still has class 'invalid' ({classes})"


@then(parsers.parse("the schedule has {count:d} rows"))
def schedule_count(browser, count):
    wait_for(
        browser,
        lambda: (len(r := schedule_rows(browser)) == count, len(r)),
        f"the schedule has {{}} body rows, expected {count}",
    )


@then(parsers.parse('schedule row {number:d} reads "{expected}"'))
def schedule_row(browser, number, expected):
    rows = schedule_rows(browser)
    assert len(rows) >= number, f"the schedule has only {len(rows)} body rows"
    assert rows[number - 1] == expected, f"row {number} reads {rows[number - 1]!r}"


@then(parsers.parse('the last schedule row reads "{expected}"'))
def schedule_last_row(browser, expected):
    rows = schedule_rows(browser)
    assert rows, "the schedule has no body rows"
    assert rows[-1] == expected, f"the last row reads {rows[-1]!r}"


@then(parsers.parse('the schedule headers are "{expected}"'))
def schedule_headers(browser, expected):
    cells = browser.find_elements(By.CSS_SELECTOR, f"{css('schedule')} thead th")
    actual = " | ".join(th.text.strip() for th in cells)
    assert actual == expected, f"schedule headers are {actual!r}"
