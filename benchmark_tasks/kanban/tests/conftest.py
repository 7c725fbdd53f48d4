"""Step definitions for the kanban board scenarios."""

import json

from pytest_bdd import given, parsers, then, when
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

COLUMNS = {"To do": "todo", "In progress": "doing", "Done": "done"}
KEYS = {"ArrowRight": Keys.ARROW_RIGHT, "ArrowLeft": Keys.ARROW_LEFT, "Delete": Keys.DELETE}
STORAGE_KEY = "kanban-board"
POINTER_MS = 60  # duration of each simulated pointer move


def tid(name):
    return f"[data-testid='{name}']"


def find(browser, name):
    return browser.find_element(By.CSS_SELECTOR, tid(name))


def titles(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def cards_in(browser, column):
    selector = f"{tid('column-' + COLUMNS[column])} {tid('card')}"
    return [c.text.strip() for c in browser.find_elements(By.CSS_SELECTOR, selector)]


def card(browser, title):
    for element in browser.find_elements(By.CSS_SELECTOR, tid("card")):
        if element.text.strip() == title:
            return element
    raise AssertionError(f"no card titled {title!r}; cards: {all_cards(browser)}")


def all_cards(browser):
    return [c.text.strip() for c in browser.find_elements(By.CSS_SELECTOR, tid("card"))]


def classes(element):
    return (element.get_attribute("class") or "").split()


def open_app(browser, app_url):
    browser.get(app_url)
    WebDriverWait(browser, 5).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, tid("new-card-input")))
    )


def type_title(browser, text, enter=True):
    field = find(browser, "new-card-input")
    field.clear()
    field.send_keys(text + (Keys.ENTER if enter else ""))


def press(browser, keys):
    actions = ActionChains(browser)
    for key in keys.split():
        actions.send_keys(KEYS[key])
    actions.perform()


def move_with_keyboard(browser, title, column):
    card(browser, title).click()
    press(browser, " ".join(["ArrowRight"] * list(COLUMNS).index(column)))


def drag(browser, source, target):
    actions = ActionChains(browser, duration=POINTER_MS)
    actions.click_and_hold(source).move_by_offset(0, 12).move_to_element(target)
    actions.release().perform()


# ---------------------------------------------------------------------------------------
# Given / When


@given("the app is open")
@when("I open the app")
def given_app_open(browser, app_url):
    open_app(browser, app_url)


@given(parsers.parse("the stored board is '{stored}'"))
def given_stored_board(browser, app_url, stored):
    # A page of the app's origin that does not run the app (the server answers 404).
    browser.get(app_url + "no-such-page-for-storage-setup")
    browser.execute_script("localStorage.setItem(arguments[0], arguments[1]);", STORAGE_KEY, stored)


@given(parsers.parse('the cards "{names}" were added'))
def given_cards_added(browser, names):
    # One round trip: each title followed by Enter.
    type_title(browser, Keys.ENTER.join(titles(names)))
    assert all_cards(browser)[-len(titles(names)) :] == titles(names)


@given(parsers.parse('the card "{title}" was moved to "{column}" with the keyboard'))
@when(parsers.parse('the card "{title}" was moved to "{column}" with the keyboard'))
def given_card_moved(browser, title, column):
    move_with_keyboard(browser, title, column)
    assert title in cards_in(browser, column)


@given(parsers.parse('the cards "{names}" were moved to "{column}" with the keyboard'))
def given_cards_moved(browser, names, column):
    for title in titles(names):
        given_card_moved(browser, title, column)


@when(parsers.re(r'I type "(?P<text>.*)" and press Enter'))
def when_type_enter(browser, text):
    type_title(browser, text)


@when(parsers.parse('I type "{text}" without pressing Enter'))
def when_type_only(browser, text):
    type_title(browser, text, enter=False)


@when(parsers.parse('I click the card "{title}"'))
def when_click_card(browser, title):
    card(browser, title).click()


@when(parsers.parse('I press "{keys}"'))
def when_press(browser, keys):
    press(browser, keys)


@when(parsers.parse('I drag the card "{title}" to the "{column}" column'))
def when_drag_to_column(browser, title, column):
    drag(browser, card(browser, title), find(browser, "column-" + COLUMNS[column]))


@when(parsers.parse('I drag the card "{title}" to the page title'))
def when_drag_to_title(browser, title):
    drag(browser, card(browser, title), find(browser, "app-title"))


@when(parsers.parse('I press the mouse on the card "{title}" and move it {pixels:d} pixels down'))
def when_press_and_move(browser, title, pixels):
    actions = ActionChains(browser, duration=POINTER_MS)
    actions.click_and_hold(card(browser, title)).move_by_offset(0, pixels).perform()


@when("I release the mouse")
def when_release(browser):
    ActionChains(browser, duration=POINTER_MS).release().perform()


@when("I reload the page")
def when_reload(browser):
    browser.refresh()
    WebDriverWait(browser, 5).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, tid("new-card-input")))
    )


# ---------------------------------------------------------------------------------------
# Then


@then(parsers.parse('the "{column}" column shows the cards "{names}"'))
def then_column_shows(browser, column, names):
    assert cards_in(browser, column) == titles(names)


@then(parsers.parse('the "{column}" column has no cards'))
def then_column_empty(browser, column):
    assert cards_in(browser, column) == []


@then(parsers.re(r'the columns show "(?P<todo>[^"]*)", "(?P<doing>[^"]*)" and "(?P<done>[^"]*)"'))
def then_columns_show(browser, todo, doing, done):
    shown = {name: cards_in(browser, name) for name in COLUMNS}
    assert shown == {"To do": titles(todo), "In progress": titles(doing), "Done": titles(done)}


@then("the input is empty")
def then_input_empty(browser):
    assert find(browser, "new-card-input").get_attribute("value") == ""


@then(parsers.re(r'the input contains "(?P<text>.*)"'))
def then_input_contains(browser, text):
    assert find(browser, "new-card-input").get_attribute("value") == text


@then(parsers.re(r'the message is "(?P<text>.+)"'))
def then_message(browser, text):
    assert find(browser, "message").text.strip() == text


@then("the message is empty")
def then_message_empty(browser):
    assert find(browser, "message").text.strip() == ""


@then(parsers.parse('the column titles are "{todo}", "{doing}" and "{done}"'))
def then_column_titles(browser, todo, doing, done):
    shown = [find(browser, f"column-title-{c}").text.strip() for c in COLUMNS.values()]
    assert shown == [todo, doing, done]


@then(parsers.parse('the counts are "{todo}", "{doing}" and "{done}"'))
def then_counts(browser, todo, doing, done):
    shown = [find(browser, f"count-{c}").text.strip() for c in COLUMNS.values()]
    assert shown == [todo, doing, done]


@then(parsers.parse('the card "{title}" is selected and has keyboard focus'))
def then_selected_focused(browser, title):
    element = card(browser, title)
    assert "selected" in classes(element)
    assert browser.switch_to.active_element == element
    selected = browser.find_elements(By.CSS_SELECTOR, f"{tid('card')}.selected")
    assert [c.text.strip() for c in selected] == [title]


@then(parsers.parse('the card "{title}" is not selected'))
def then_not_selected(browser, title):
    assert "selected" not in classes(card(browser, title))


@then(parsers.parse('the card "{title}" has the class "{name}"'))
def then_has_class(browser, title, name):
    assert name in classes(card(browser, title))


@then(parsers.parse('the card "{title}" does not have the class "{name}"'))
def then_lacks_class(browser, title, name):
    assert name not in classes(card(browser, title))


@then(parsers.parse("the stored board is '{stored}'"))
def then_stored_board(browser, stored):
    value = browser.execute_script("return localStorage.getItem(arguments[0]);", STORAGE_KEY)
    assert value is not None, f"nothing stored under {STORAGE_KEY!r}"
    assert json.loads(value) == json.loads(stored)


@then("the page has no script errors")
def then_no_script_errors(browser):
    errors = [
        e["message"]
        for e in browser.get_log("browser")
        if e.get("level") == "SEVERE" and e.get("source") == "javascript"
    ]
    assert errors == []
