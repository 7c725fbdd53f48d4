"""Step definitions for the pomodoro timer scenarios (pytest-bdd + Selenium)."""

import time

import pytest

from pytest_bdd import given, parsers, then, when
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 5  # seconds for anything that should already hold or happen soon
POLL = 0.05
FIELDS = {"focus": "focus-seconds", "break": "break-seconds"}
KEYS = {"Space": Keys.SPACE, "r": "r", "R": "R"}
STORAGE_KEY = "pomodoro-durations"

# Records, in the page, when the timer element gains and loses the class "flash".
FLASH_RECORDER = """
const timer = document.querySelector("[data-testid='timer']");
window.__flashLog = [];
let had = timer.classList.contains("flash");
new MutationObserver(() => {
  const has = timer.classList.contains("flash");
  if (has !== had) {
    window.__flashLog.push([has ? "on" : "off", performance.now()]);
    had = has;
  }
}).observe(timer, { attributes: true, attributeFilter: ["class"] });
"""

# Records, in the page, every text the display and the phase show (the texts they had when
# recording began first), so that a countdown is checked step by step however slow the
# browser is.
TEXT_RECORDER = """
window.__texts = {};
for (const id of ["display", "phase"]) {
  const node = document.querySelector(`[data-testid='${id}']`);
  const log = (window.__texts[id] = [node.textContent.trim()]);
  new MutationObserver(() => log.push(node.textContent.trim())).observe(
    node, { childList: true, characterData: true, subtree: true }
  );
}
"""

@pytest.fixture
def noted():
    """Values a scenario noted down to compare later."""
    return {}


def el(browser, testid):
    return browser.find_element(By.CSS_SELECTOR, f"[data-testid='{testid}']")


def prop(browser, testid, name):
    """A DOM property of the element with this data-testid (one cheap round trip)."""
    return browser.execute_script(
        "const e = document.querySelector(`[data-testid='${arguments[0]}']`);"
        "if (!e) throw new Error(`no element with data-testid=${arguments[0]}`);"
        "return e[arguments[1]];",
        testid,
        name,
    )


def wait_for(browser, condition, message, timeout=WAIT):
    WebDriverWait(browser, timeout, poll_frequency=POLL).until(
        lambda _driver: condition(), message=message
    )


def classes(browser, testid="timer"):
    return (prop(browser, testid, "className") or "").split()


def text_of(browser, testid):
    """The element's text as in the DOM (not as CSS may render it, e.g. upper-cased)."""
    return (prop(browser, testid, "textContent") or "").strip()


def set_field(browser, field, value):
    """Replace the field's text by typing, so that every edit fires an input event."""
    el(browser, FIELDS[field]).send_keys(Keys.CONTROL, "a", Keys.NULL, Keys.BACKSPACE, value)


def press(browser, key):
    """Press a key with the keyboard focus on the page itself (no element focused)."""
    browser.execute_script("if (document.activeElement) document.activeElement.blur();")
    ActionChains(browser).send_keys(KEYS[key]).perform()


# ---------------------------------------------------------------------------------------------
# Given


@given("the app is open")
def app_open(browser, app_url):
    browser.get(app_url)
    wait_for(browser, lambda: text_of(browser, "display") != "", "the page did not load")


@given(parsers.parse('the stored durations are "{raw}"'))
def stored_durations(browser, app_url, raw):
    browser.get(app_url)
    browser.execute_script(
        "localStorage.setItem(arguments[0], arguments[1]);", STORAGE_KEY, raw
    )
    browser.refresh()
    wait_for(browser, lambda: text_of(browser, "display") != "", "the page did not load")


@given(parsers.parse("the durations are focus {focus:d} s and break {brk:d} s"))
def durations(browser, focus, brk):
    set_field(browser, "focus", str(focus))
    set_field(browser, "break", str(brk))


@given("the flash class is being recorded")
def record_flash(browser):
    browser.execute_script(FLASH_RECORDER)


@given("the display and phase texts are being recorded")
def record_texts(browser):
    browser.execute_script(TEXT_RECORDER)


# ---------------------------------------------------------------------------------------------
# When


@when(parsers.re(r'I set the (?P<field>focus|break) duration to "(?P<value>.*)"'))
@given(parsers.re(r'I set the (?P<field>focus|break) duration to "(?P<value>.*)"'))
def type_duration(browser, field, value):
    set_field(browser, field, value)


@when(parsers.parse('I click "{button}"'))
@given(parsers.parse('I click "{button}"'))
def click(browser, button):
    el(browser, button).click()


@when(parsers.re(r"I press (?P<key>Space|r|R)"))
@given(parsers.re(r"I press (?P<key>Space|r|R)"))
def press_key(browser, key):
    press(browser, key)


@when(parsers.re(r"I press (?P<key>Space|r|R) in the (?P<field>focus|break) duration field"))
def press_in_field(browser, key, field):
    el(browser, FIELDS[field]).click()
    ActionChains(browser).send_keys(KEYS[key]).perform()


@when("I reload the page")
def reload_page(browser):
    browser.refresh()
    wait_for(browser, lambda: text_of(browser, "display") != "", "the page did not load")


@when(parsers.parse("I wait {seconds:f} seconds"))
def wait_seconds(seconds):
    time.sleep(seconds)


@when(parsers.parse('the display shows "{text}" within {seconds:d} seconds'))
@given(parsers.parse('the display shows "{text}" within {seconds:d} seconds'))
@then(parsers.parse('the display shows "{text}" within {seconds:d} seconds'))
def display_within(browser, text, seconds):
    wait_for(
        browser,
        lambda: text_of(browser, "display") == text,
        f"display never showed {text!r} (last: {text_of(browser, 'display')!r})",
        timeout=seconds,
    )


@when(parsers.parse('the phase shows "{text}" within {seconds:d} seconds'))
@given(parsers.parse('the phase shows "{text}" within {seconds:d} seconds'))
@then(parsers.parse('the phase shows "{text}" within {seconds:d} seconds'))
def phase_within(browser, text, seconds):
    wait_for(
        browser,
        lambda: text_of(browser, "phase") == text,
        f"phase never showed {text!r} (last: {text_of(browser, 'phase')!r})",
        timeout=seconds,
    )


@when(parsers.parse('the sessions counter shows "{text}" within {seconds:d} seconds'))
@given(parsers.parse('the sessions counter shows "{text}" within {seconds:d} seconds'))
@then(parsers.parse('the sessions counter shows "{text}" within {seconds:d} seconds'))
def sessions_within(browser, text, seconds):
    wait_for(
        browser,
        lambda: text_of(browser, "sessions") == text,
        f"sessions counter never showed {text!r} (last: {text_of(browser, 'sessions')!r})",
        timeout=seconds,
    )


@when(parsers.parse('the timer gets the class "{cls}" within {seconds:d} seconds'))
@then(parsers.parse('the timer gets the class "{cls}" within {seconds:d} seconds'))
def class_within(browser, cls, seconds):
    wait_for(
        browser,
        lambda: cls in classes(browser),
        f"timer never had class {cls!r} (classes: {classes(browser)})",
        timeout=seconds,
    )


# ---------------------------------------------------------------------------------------------
# Then


@then(parsers.parse('the display shows "{text}"'))
def display_shows(browser, text):
    display_within(browser, text, WAIT)


@then(parsers.parse('the display still shows "{text}"'))
def display_still(browser, text):
    assert text_of(browser, "display") == text


@then(parsers.parse('the phase shows "{text}"'))
def phase_shows(browser, text):
    phase_within(browser, text, WAIT)


@then(parsers.parse('the sessions counter shows "{text}"'))
def sessions_shows(browser, text):
    sessions_within(browser, text, WAIT)


@then(parsers.parse('the sessions counter still shows "{text}"'))
def sessions_still(browser, text):
    assert text_of(browser, "sessions") == text


@then(parsers.re(r'the error message is "(?P<text>.*)"'))
def error_is(browser, text):
    wait_for(
        browser,
        lambda: text_of(browser, "error") == text,
        f"error text is {text_of(browser, 'error')!r}, expected {text!r}",
    )


@then(parsers.parse('the timer has the class "{cls}"'))
def has_class(browser, cls):
    class_within(browser, cls, WAIT)


@then(parsers.parse('the timer does not have the class "{cls}"'))
def lacks_class(browser, cls):
    assert cls not in classes(browser), f"timer classes: {classes(browser)}"


@then(parsers.parse('the timer loses the class "{cls}" within {seconds:d} seconds'))
def loses_class(browser, cls, seconds):
    wait_for(
        browser,
        lambda: cls not in classes(browser),
        f"timer kept class {cls!r} (classes: {classes(browser)})",
        timeout=seconds,
    )


@then(parsers.parse('the "{button}" button is {status}'))
def button_status(browser, button, status):
    assert status in ("enabled", "disabled")
    want = status == "enabled"
    wait_for(
        browser,
        lambda: prop(browser, button, "disabled") is not want,
        f"the {button!r} button is not {status}",
    )


@then(parsers.parse('the {field} duration field shows "{value}"'))
def field_shows(browser, field, value):
    shown = prop(browser, FIELDS[field], "value")
    assert shown == value, f"the {field} field shows {shown!r}"


@then(parsers.parse('the {field} duration field is marked invalid'))
def field_invalid(browser, field):
    wait_for(
        browser,
        lambda: "invalid" in classes(browser, FIELDS[field]),
        f"the {field} field has no class 'invalid'",
    )


@then(parsers.parse('the {field} duration field is not marked invalid'))
def field_valid(browser, field):
    assert "invalid" not in classes(browser, FIELDS[field]), f"the {field} field is invalid"


@then(parsers.parse("the flash lasted between {low:d} and {high:d} ms"))
def flash_lasted(browser, low, high):
    log = browser.execute_script("return window.__flashLog;")
    kinds = [kind for kind, _ in log]
    assert kinds[:2] == ["on", "off"], f"flash class changes: {log}"
    lasted = log[1][1] - log[0][1]
    assert low <= lasted <= high, f"flash lasted {lasted:.0f} ms"


@then("the flash class was never set")
def flash_never(browser):
    log = browser.execute_script("return window.__flashLog;")
    assert log == [], f"flash class changes: {log}"


def recorded(browser, testid):
    """The texts the element showed since recording began, repeats merged."""
    texts = browser.execute_script("return window.__texts[arguments[0]];", testid)
    return [t for i, t in enumerate(texts) if i == 0 or t != texts[i - 1]]


@when(parsers.re(r'the (?P<testid>display|phase) has shown "(?P<sequence>.+)" within (?P<seconds>\d+) seconds'))
@given(parsers.re(r'the (?P<testid>display|phase) has shown "(?P<sequence>.+)" within (?P<seconds>\d+) seconds'))
@then(parsers.re(r'the (?P<testid>display|phase) has shown "(?P<sequence>.+)" within (?P<seconds>\d+) seconds'))
def has_shown(browser, testid, sequence, seconds):
    """The element's texts so far begin with exactly these (comma-separated) texts."""
    want = [part.strip() for part in sequence.split(",")]
    seconds = int(seconds)
    wait_for(
        browser,
        lambda: recorded(browser, testid)[: len(want)] == want,
        f"the {testid} did not show {want} (it showed {recorded(browser, testid)})",
        timeout=seconds,
    )


def seconds_of(text):
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


@when("I note the display")
def note_display(browser, noted):
    noted["display"] = text_of(browser, "display")


@then("the display still shows the noted time")
def display_as_noted(browser, noted):
    assert text_of(browser, "display") == noted["display"]


@then("the display shows at most the noted time")
def display_at_most_noted(browser, noted):
    shown = text_of(browser, "display")
    assert seconds_of(shown) <= seconds_of(noted["display"]), (
        f"display {shown!r}, noted {noted['display']!r}"
    )


@then("no script error was logged")
def no_script_error(browser):
    severe = [
        entry
        for entry in browser.get_log("browser")
        if entry.get("level") == "SEVERE" and entry.get("source") == "javascript"
    ]
    assert not severe, severe
