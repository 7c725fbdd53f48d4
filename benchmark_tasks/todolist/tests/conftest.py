"""Step definitions for the todo list scenarios (pytest-bdd + Selenium)."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 3
SAMPLE = "abcdefghij"


def tid(name: str) -> str:
    return f"[data-testid='{name}']"


def find(browser, name: str):
    return browser.find_element(By.CSS_SELECTOR, tid(name))


def text_of(length: int) -> str:
    """A recognisable ASCII text of exactly ``length`` characters."""
    return (SAMPLE * (length // len(SAMPLE) + 1))[:length]


def split_items(items: str) -> list[str]:
    return items.split(", ") if items else []


def wait_for(browser, probe, expected, what: str):
    """Wait until ``probe()`` equals ``expected``; fail with the last value seen."""
    seen = {"value": "<never read>"}

    def check(_):
        try:
            seen["value"] = probe()
        except WebDriverException as exc:
            seen["value"] = f"<{type(exc).__name__}>"
            return False
        return seen["value"] == expected

    try:
        WebDriverWait(browser, WAIT, poll_frequency=0.05).until(check)
    except TimeoutException:
        raise AssertionError(f"{what}: expected {expected!r}, got {seen['value']!r}") from None


# One round trip reads every displayed item: its shown text, its text content (also while it is
# being edited), its checkbox and its `completed` class.
SNAPSHOT_JS = """
const list = document.querySelector("[data-testid='todo-list']");
if (!list) { return []; }
const shown = (el) => !!el && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== "hidden";
return Array.from(list.children)
    .filter((li) => li.matches("[data-testid='todo-item']") && shown(li))
    .map((li) => {
        const label = li.querySelector("[data-testid='todo-text']");
        const toggle = li.querySelector("[data-testid='todo-toggle']");
        return {
            text: shown(label) ? label.innerText.trim() : "",
            content: label ? label.textContent.trim() : "",
            checked: toggle ? toggle.checked : null,
            completed: li.classList.contains("completed"),
            toggle: toggle,
            label: label,
        };
    });
"""


def items(browser) -> list[dict]:
    """The displayed ``todo-item`` elements, top to bottom, as dictionaries."""
    return browser.execute_script(SNAPSHOT_JS)


def visible_texts(browser) -> list[str]:
    return [item["text"] for item in items(browser)]


def item_named(browser, text: str) -> dict:
    """The displayed item whose ``todo-text`` content is ``text``."""
    found = items(browser)
    for item in found:
        if item["content"] == text:
            return item
    shown = [item["text"] for item in found]
    raise AssertionError(f"no displayed item with the text {text!r}; shown: {shown}")


def item_state(browser, text: str) -> str:
    item = item_named(browser, text)
    checked, has_class = item["checked"], item["completed"]
    if checked and has_class:
        return "completed"
    if checked is False and not has_class:
        return "active"
    return f"inconsistent (checkbox checked={checked}, class completed={has_class})"


def edit_inputs(browser):
    return [
        el
        for el in browser.find_elements(By.CSS_SELECTOR, f"{tid('todo-item')} {tid('edit-input')}")
        if el.is_displayed()
    ]


def the_edit_input(browser):
    found = edit_inputs(browser)
    assert len(found) == 1, f"expected one displayed edit-input, found {len(found)}"
    return found[0]


def open_app(browser, app_url):
    browser.get(app_url)
    find(browser, "new-todo")


def add_items(browser, texts: list[str]):
    """Type each text into the new-todo input and click Add."""
    field, button = find(browser, "new-todo"), find(browser, "add-button")
    for text in texts:
        field.send_keys(text)
        button.click()


# ---------------------------------------------------------------------------------------------
# Given


@given("the app is open")
def app_is_open(browser, app_url):
    open_app(browser, app_url)


@given(parsers.parse('I have added the items "{names}"'))
@when(parsers.parse('I add the items "{names}"'))
def have_added(browser, names):
    add_items(browser, split_items(names))
    wait_for(browser, lambda: len(items(browser)), len(split_items(names)), "items after adding")


@given(parsers.parse('I have completed the item "{text}"'))
@when(parsers.parse('I toggle the item "{text}"'))
def toggle_item(browser, text):
    toggle = item_named(browser, text)["toggle"]
    assert toggle is not None, f"the item {text!r} has no todo-toggle checkbox"
    toggle.click()


# ---------------------------------------------------------------------------------------------
# When: the new todo input


@when(parsers.re(r'I type "(?P<text>[^"]*)" into the new todo input'))
def type_text(browser, text):
    find(browser, "new-todo").send_keys(text)


@when(parsers.parse("I type {count:d} spaces into the new todo input"))
def type_spaces(browser, count):
    find(browser, "new-todo").send_keys(" " * count)


@when(parsers.parse("I type a text of {length:d} characters into the new todo input"))
def type_long_text(browser, length):
    find(browser, "new-todo").send_keys(text_of(length))


@when(parsers.parse("I type a text of {length:d} characters padded with {pad:d} spaces into the new todo input"))
def type_padded_text(browser, length, pad):
    find(browser, "new-todo").send_keys(" " * pad + text_of(length) + " " * pad)


@when("I click the add button")
def click_add(browser):
    find(browser, "add-button").click()


@when("I press Enter in the new todo input")
def press_enter_new(browser):
    find(browser, "new-todo").send_keys(Keys.ENTER)


@when(parsers.parse("I submit with {how}"))
def submit_with(browser, how):
    if how == "the add button":
        click_add(browser)
    elif how == "Enter":
        press_enter_new(browser)
    else:
        raise ValueError(f"unknown way to submit: {how!r}")


@when(parsers.parse('I add the item "{text}"'))
def add_one(browser, text):
    add_items(browser, [text])


@when(parsers.parse("I add {count:d} items"))
def add_numbered(browser, count):
    add_items(browser, [f"Item {n}" for n in range(1, count + 1)])


@when(parsers.parse("I complete the first {count:d} items"))
def complete_first(browser, count):
    for n in range(1, count + 1):
        toggle_item(browser, f"Item {n}")


# ---------------------------------------------------------------------------------------------
# When: filter, clear, edit, reload


@when(parsers.parse('I select the filter "{value}"'))
def select_filter(browser, value):
    Select(find(browser, "filter")).select_by_value(value)


@when("I click the clear completed button")
def click_clear(browser):
    find(browser, "clear-completed").click()


@when(parsers.parse('I double-click the item "{text}"'))
def double_click_item(browser, text):
    ActionChains(browser).double_click(item_named(browser, text)["label"]).perform()
    wait_for(browser, lambda: len(edit_inputs(browser)), 1, "displayed edit inputs")


@when(parsers.re(r'I replace the edit text with "(?P<text>[^"]*)"'))
def replace_edit_text(browser, text):
    # Not WebElement.clear(): WebDriver's clear also takes the focus away, which cancels an edit.
    editor = the_edit_input(browser)
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.BACKSPACE)
    editor.send_keys(text)


@when(parsers.parse("I replace the edit text with a text of {length:d} characters"))
def replace_edit_long(browser, length):
    replace_edit_text(browser, text_of(length))


@when(parsers.parse("I replace the edit text with {count:d} spaces"))
def replace_edit_spaces(browser, count):
    replace_edit_text(browser, " " * count)


@when("I press Enter in the edit input")
def press_enter_edit(browser):
    the_edit_input(browser).send_keys(Keys.ENTER)


@when("I press Escape in the edit input")
def press_escape_edit(browser):
    the_edit_input(browser).send_keys(Keys.ESCAPE)


@when("I click on the counter")
def click_counter(browser):
    find(browser, "counter").click()


@when("I reload the page")
def reload_page(browser):
    browser.refresh()
    find(browser, "new-todo")


# ---------------------------------------------------------------------------------------------
# Then


@then(parsers.parse('the visible items are "{names}"'))
def visible_items_are(browser, names):
    wait_for(browser, lambda: visible_texts(browser), split_items(names), "displayed items")


@then("no items are visible")
def no_items(browser):
    wait_for(browser, lambda: visible_texts(browser), [], "displayed items")


@then(parsers.parse("the only visible item is a text of {length:d} characters"))
def only_item_of_length(browser, length):
    wait_for(browser, lambda: visible_texts(browser), [text_of(length)], "displayed items")


@then("the new todo input is empty")
def input_empty(browser):
    wait_for(browser, lambda: find(browser, "new-todo").get_attribute("value"), "", "new-todo value")


@then(parsers.parse('the new todo input contains "{text}"'))
def input_contains(browser, text):
    wait_for(browser, lambda: find(browser, "new-todo").get_attribute("value"), text, "new-todo value")


@then(parsers.parse("the new todo input contains a text of {length:d} characters"))
def input_contains_long(browser, length):
    wait_for(
        browser, lambda: find(browser, "new-todo").get_attribute("value"), text_of(length), "new-todo value"
    )


@then(parsers.parse('the error message is "{message}"'))
def error_is(browser, message):
    wait_for(browser, lambda: find(browser, "error").text.strip(), message, "displayed error text")


@then("no error message is shown")
def no_error(browser):
    wait_for(
        browser,
        lambda: (find(browser, "error").get_attribute("textContent") or "").strip(),
        "",
        "error text",
    )


@then(parsers.parse('the item "{text}" is {state}'))
def item_is(browser, text, state):
    wait_for(browser, lambda: item_state(browser, text), state, f"state of {text!r}")


@then(parsers.parse('the counter shows "{text}"'))
def counter_shows(browser, text):
    wait_for(browser, lambda: find(browser, "counter").text.strip(), text, "counter text")


@then(parsers.parse("the clear completed button is {state}"))
def clear_button_is(browser, state):
    wait_for(
        browser,
        lambda: "enabled" if find(browser, "clear-completed").is_enabled() else "disabled",
        state,
        "clear-completed button",
    )


@then(parsers.parse('the filter is set to "{value}"'))
def filter_is(browser, value):
    wait_for(
        browser,
        lambda: Select(find(browser, "filter")).first_selected_option.get_attribute("value"),
        value,
        "selected filter",
    )


@then(parsers.re(r'the edit input contains "(?P<text>[^"]*)" and has the focus'))
def edit_input_focused(browser, text):
    editor = the_edit_input(browser)
    assert editor.get_attribute("value") == text, f"edit-input value: {editor.get_attribute('value')!r}"
    wait_for(browser, lambda: browser.switch_to.active_element == editor, True, "edit-input has the focus")


@then(parsers.parse("the edit input contains {count:d} spaces"))
def edit_input_spaces(browser, count):
    assert the_edit_input(browser).get_attribute("value") == " " * count


@then(parsers.parse("the edit input contains a text of {length:d} characters"))
def edit_input_long(browser, length):
    assert the_edit_input(browser).get_attribute("value") == text_of(length)


@then("no item is being edited")
def nothing_edited(browser):
    wait_for(browser, lambda: len(edit_inputs(browser)), 0, "displayed edit inputs")
