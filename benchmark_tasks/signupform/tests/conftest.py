"""Step definitions for the sign-up form scenarios (pytest-bdd + Selenium)."""

from pytest_bdd import given, parsers, then, when
from selenium.common.exceptions import NoSuchElementException, TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

FIELDS = {
    "username": "username",
    "email": "email",
    "password": "password",
    "confirm password": "confirm-password",
    "age": "age",
    "country": "country",
    "terms": "terms",
}
ERRORS = {
    "username": "username-error",
    "email": "email-error",
    "password": "password-error",
    "confirm password": "confirm-error",
    "age": "age-error",
    "country": "country-error",
    "terms": "terms-error",
}
VALID = {
    "username": "alice",
    "email": "alice@example.com",
    "password": "Secret123!",
    "confirm-password": "Secret123!",
    "age": "30",
}
LEVELS = ("weak", "fair", "strong")


def by_testid(browser, testid):
    return browser.find_element(By.CSS_SELECTOR, f"[data-testid='{testid}']")


def wait_for(browser, condition, message, timeout=2):
    """Wait until ``condition(browser)`` is truthy; fail with ``message`` otherwise."""
    try:
        WebDriverWait(browser, timeout).until(condition)
    except TimeoutException:
        raise AssertionError(message() if callable(message) else message) from None


def is_displayed(browser, testid):
    try:
        return by_testid(browser, testid).is_displayed()
    except NoSuchElementException:
        return False


def type_into(browser, testid, text):
    if text:
        by_testid(browser, testid).send_keys(text)


def fill_valid(browser, skip=None):
    for testid, text in VALID.items():
        if testid != skip:
            type_into(browser, testid, text)
    Select(by_testid(browser, "country")).select_by_value("ca")
    by_testid(browser, "terms").click()


# --------------------------------------------------------------------------------------------
# Given


@given("the sign-up page is open")
def open_page(browser, app_url):
    browser.get(app_url)
    WebDriverWait(browser, 5).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "[data-testid='signup-form']"))
    )


@given("I filled in the form with valid values")
@when("I fill in the form with valid values")
def filled_in(browser):
    fill_valid(browser)


@when(parsers.parse("I fill in the form with valid values except the {field}"))
def filled_in_except(browser, field):
    fill_valid(browser, skip=FIELDS[field])


# --------------------------------------------------------------------------------------------
# When


@when(parsers.re(r'I type "(?P<text>[^"]*)" into the (?P<field>[a-z ]+?) field'))
def type_text(browser, text, field):
    type_into(browser, FIELDS[field], text)


@when(parsers.re(r'I replace the (?P<field>[a-z ]+?) field with "(?P<text>[^"]*)"'))
def replace_text(browser, field, text):
    element = by_testid(browser, FIELDS[field])
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(Keys.BACKSPACE)
    type_into(browser, FIELDS[field], text)


@when(parsers.parse("I leave the {field} field"))
def leave_field(browser, field):
    element = by_testid(browser, FIELDS[field])
    browser.execute_script("arguments[0].focus();", element)
    ActionChains(browser).send_keys(Keys.TAB).perform()


@when(parsers.re(r'I select the country "(?P<value>[a-z]*)"'))
def select_country(browser, value):
    Select(by_testid(browser, "country")).select_by_value(value)


@when(parsers.parse("I choose the {plan} plan"))
def choose_plan(browser, plan):
    by_testid(browser, f"plan-{plan}").click()


@when("I click the terms checkbox")
def click_terms(browser):
    by_testid(browser, "terms").click()


@when("I click the submit button")
def click_submit(browser):
    by_testid(browser, "submit").click()


@when(parsers.parse("I press Enter in the {field} field"))
def press_enter(browser, field):
    by_testid(browser, FIELDS[field]).send_keys(Keys.ENTER)


# --------------------------------------------------------------------------------------------
# Then


@then(parsers.re(r'the (?P<field>[a-z ]+?) error is "(?P<message>[^"]*)"'))
def error_is(browser, field, message):
    element = by_testid(browser, ERRORS[field])
    wait_for(
        browser,
        lambda b: element.text.strip() == message,
        lambda: f"{field} error: expected {message!r}, got {element.text.strip()!r}",
    )


@then(parsers.parse("the {field} error is empty"))
def error_is_empty(browser, field):
    error_is(browser, field, "")


@then(parsers.re(r"the (?P<field>[a-z ]+?) field is (?P<negation>not )?marked invalid"))
def marked_invalid(browser, field, negation):
    element = by_testid(browser, FIELDS[field])
    classes = (element.get_attribute("class") or "").split()
    if negation:
        assert "invalid" not in classes, f"{field} has class 'invalid': {classes}"
    else:
        assert "invalid" in classes, f"{field} lacks class 'invalid': {classes}"


@then(parsers.parse('the price is "{text}"'))
def price_is(browser, text):
    element = by_testid(browser, "plan-price")
    wait_for(
        browser,
        lambda b: element.text.strip() == text,
        lambda: f"price: expected {text!r}, got {element.text.strip()!r}",
    )


@then(parsers.parse('the strength meter shows score {score:d} as "{level}"'))
def meter_shows(browser, score, level):
    meter = by_testid(browser, "strength-meter")
    label = by_testid(browser, "strength-label")
    assert meter.get_attribute("data-score") == str(score), (
        f"data-score: expected {score}, got {meter.get_attribute('data-score')!r}"
    )
    classes = set((meter.get_attribute("class") or "").split())
    present = sorted(classes & {f"strength-{name}" for name in LEVELS})
    assert present == [f"strength-{level}"], f"strength classes: {present}"
    assert label.text.strip() == level, f"label: expected {level!r}, got {label.text!r}"


@then("the strength meter is empty")
def meter_empty(browser):
    meter = by_testid(browser, "strength-meter")
    assert meter.get_attribute("data-score") == "0", (
        f"data-score: expected '0', got {meter.get_attribute('data-score')!r}"
    )
    classes = set((meter.get_attribute("class") or "").split())
    present = sorted(classes & {f"strength-{name}" for name in LEVELS})
    assert not present, f"strength classes on an empty password: {present}"
    assert by_testid(browser, "strength-label").text.strip() == ""


@then(parsers.re(r"the submit button is (?P<state>enabled|disabled)"))
def submit_state(browser, state):
    button = by_testid(browser, "submit")
    want_enabled = state == "enabled"
    wait_for(
        browser,
        lambda b: button.is_enabled() == want_enabled,
        f"the submit button is not {state}",
    )


@then("the summary is shown instead of the form")
def summary_shown(browser):
    wait_for(browser, lambda b: is_displayed(b, "summary"), "the summary is not displayed")
    wait_for(
        browser, lambda b: not is_displayed(b, "signup-form"), "the form is still displayed"
    )


@then("the form is still shown without a summary")
def form_still_shown(browser):
    assert is_displayed(browser, "signup-form"), "the form is not displayed"
    assert not is_displayed(browser, "summary"), "the summary is displayed"


@then(parsers.parse('the summary {part} is "{text}"'))
def summary_part(browser, part, text):
    actual = by_testid(browser, f"summary-{part}").text.strip()
    assert actual == text, f"summary-{part}: expected {text!r}, got {actual!r}"
