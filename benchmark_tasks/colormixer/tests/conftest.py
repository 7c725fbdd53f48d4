"""Step definitions for the colour mixer scenarios (pytest-bdd + Selenium)."""

from __future__ import annotations

import json

from pytest_bdd import given, parsers, then, when
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 5
STORAGE_KEY = "colormixer.palette"
CHANNELS = {"red": "r", "green": "g", "blue": "b"}
KEYS = {
    "ArrowRight": Keys.ARROW_RIGHT,
    "ArrowLeft": Keys.ARROW_LEFT,
    "ArrowUp": Keys.ARROW_UP,
    "ArrowDown": Keys.ARROW_DOWN,
}
SET_RANGE = (
    "arguments[0].value = arguments[1];"
    "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
    "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
)
SLIDER_FIELDS = ("=slider-r", "=slider-g", "=slider-b", "value-r", "value-g", "value-b")
INPUT_ONLY = (
    "arguments[0].value = arguments[1];"
    "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
)


# ------------------------------------------------------------------------------- helpers


def find(browser, testid):
    return browser.find_element(By.CSS_SELECTOR, f"[data-testid='{testid}']")


def find_all(browser, testid):
    return browser.find_elements(By.CSS_SELECTOR, f"[data-testid='{testid}']")


READ = """
const read = (id) => {
  const el = document.querySelector(`[data-testid='${id.slice(1)}']`);
  if (!el) return null;
  return id[0] === "=" ? el.value : (el.textContent || "").trim();
};
return arguments[0].map(read);
"""


def read_page(browser, *fields):
    """Several values in one round trip: ``=testid`` is an input's value, ``testid`` its text."""
    return browser.execute_script(READ, [f if f[0] == "=" else f"~{f}" for f in fields])


def wait_for(browser, read, expected, what):
    """Wait until ``read()`` equals ``expected``; fail with the last value seen."""
    seen = {}

    def check(_):
        seen["value"] = read()
        return seen["value"] == expected

    try:
        WebDriverWait(browser, WAIT).until(check)
    except Exception:  # noqa: BLE001 - reported as an assertion with the actual value
        raise AssertionError(f"{what}: expected {expected!r}, got {seen.get('value')!r}") from None


def wait_text(browser, testid, expected):
    wait_for(browser, lambda: read_page(browser, testid)[0], expected, f"text of {testid}")


def slider(browser, channel):
    return find(browser, f"slider-{CHANNELS[channel]}")


def open_app(browser, app_url):
    browser.get(app_url)
    WebDriverWait(browser, WAIT).until(lambda b: find_all(b, "slider-r"))


def apply_hex(browser, code, with_button=False):
    field = find(browser, "hex-input")
    field.clear()
    if code:
        field.send_keys(code)
    if with_button:
        find(browser, "hex-apply").click()
    else:
        field.send_keys(Keys.ENTER)


def swatch_texts(browser):
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(\"[data-testid='palette-swatch']\"),"
        " (s) => (s.textContent || '').trim());"
    )


def background(browser, element):
    """The computed background colour, as the page's own getComputedStyle reports it."""
    return browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor;", element)


def focus_page(browser):
    browser.execute_script("if (document.activeElement) { document.activeElement.blur(); }")


# ------------------------------------------------------------------------------- given


@given("the app is open")
def app_is_open(browser, app_url):
    open_app(browser, app_url)


@given(parsers.re(r"the app is open with the stored palette '(?P<stored>.*)'"))
def app_with_stored_palette(browser, app_url, stored):
    open_app(browser, app_url)
    browser.execute_script("localStorage.setItem(arguments[0], arguments[1]);", STORAGE_KEY, stored)
    open_app(browser, app_url)


# ------------------------------------------------------------------------------- when


@when(parsers.parse("I set the {channel} slider to {value:d}"))
def set_one_slider(browser, channel, value):
    browser.execute_script(SET_RANGE, slider(browser, channel), str(value))


@when(parsers.parse("I drag the {channel} slider to {value:d} firing only input events"))
def drag_slider(browser, channel, value):
    browser.execute_script(INPUT_ONLY, slider(browser, channel), str(value))


@when(parsers.parse("I set the sliders to {r:d}, {g:d}, {b:d}"))
def set_sliders(browser, r, g, b):
    for channel, value in zip(CHANNELS, (r, g, b), strict=True):
        browser.execute_script(SET_RANGE, slider(browser, channel), str(value))


@when(parsers.re(r'I apply the hex code "(?P<code>.*)" with Enter'))
def apply_with_enter(browser, code):
    apply_hex(browser, code)


@when(parsers.re(r'I apply the hex code "(?P<code>.*)" with the Apply button'))
def apply_with_button(browser, code):
    apply_hex(browser, code, with_button=True)


@when(parsers.parse('I type "{text}" into the hex input'))
def type_into_hex_input(browser, text):
    find(browser, "hex-input").send_keys(text)


@when(parsers.parse("I press {key} {count:d} times on the {channel} slider"))
def press_arrow(browser, key, count, channel):
    slider(browser, channel).send_keys(*([KEYS[key]] * count))


@when(parsers.parse('I press "{key}" on the page'))
def press_on_page(browser, key):
    focus_page(browser)
    ActionChains(browser).send_keys(key).perform()


@when(parsers.parse('I press "{key}" on the {channel} slider'))
def press_on_slider(browser, key, channel):
    slider(browser, channel).send_keys(key)


@when("I click save to palette")
def click_save(browser):
    find(browser, "save-button").click()


@when(parsers.parse('I save the colours "{colours}"'))
def save_colours(browser, colours):
    for colour in colours.split(", "):
        apply_hex(browser, colour)
        wait_text(browser, "hex-code", colour.upper())
        before = len(find_all(browser, "palette-swatch"))
        find(browser, "save-button").click()
        wait_for(
            browser,
            lambda: len(find_all(browser, "palette-swatch")),
            before + 1,
            f"number of swatches after saving {colour}",
        )


@when(parsers.parse("I click palette swatch {index:d}"))
def click_swatch(browser, index):
    find_all(browser, "palette-swatch")[index - 1].click()


@when("I reload the page")
def reload_page(browser):
    browser.refresh()
    WebDriverWait(browser, WAIT).until(lambda b: find_all(b, "slider-r"))


# ------------------------------------------------------------------------------- then


@then(parsers.parse("the sliders show {r:d}, {g:d}, {b:d}"))
def sliders_show(browser, r, g, b):
    expected = [str(v) for v in (r, g, b)] * 2
    wait_for(
        browser,
        lambda: read_page(browser, *SLIDER_FIELDS),
        expected,
        "slider values R, G, B and their labels",
    )


@then(parsers.parse("the {channel} slider and its label show {value:d}"))
def one_slider_shows(browser, channel, value):
    letter = CHANNELS[channel]
    wait_for(
        browser,
        lambda: read_page(browser, f"=slider-{letter}", f"value-{letter}"),
        [str(value)] * 2,
        f"value of the {channel} slider and its label",
    )


@then(parsers.parse('every slider has min "{low}", max "{high}" and step "{step}"'))
def slider_attributes(browser, low, high, step):
    for channel in CHANNELS:
        element = slider(browser, channel)
        assert element.tag_name == "input", f"{channel} slider is a <{element.tag_name}>"
        found = {name: element.get_attribute(name) for name in ("type", "min", "max", "step")}
        assert found == {"type": "range", "min": low, "max": high, "step": step}, (
            f"{channel} slider attributes: {found}"
        )


@then(parsers.parse('the hex code is "{hex_code}"'))
def hex_code_is(browser, hex_code):
    wait_text(browser, "hex-code", hex_code)


@then(parsers.parse('the swatch colour is "{rgb}"'))
def swatch_colour_is(browser, rgb):
    wait_for(
        browser,
        lambda: background(browser, find(browser, "swatch")),
        rgb,
        "computed background-color of swatch",
    )


@then(parsers.re(r'the hex input contains "(?P<text>.*)"'))
def hex_input_contains(browser, text):
    wait_for(browser, lambda: read_page(browser, "=hex-input")[0], text, "hex input value")


@then(parsers.parse('the hex error is "{message}"'))
def hex_error_is(browser, message):
    wait_text(browser, "hex-error", message)


@then("the hex error is empty")
def hex_error_empty(browser):
    wait_text(browser, "hex-error", "")


@then(parsers.parse('the contrast against {against} is "{ratio}" rated "{rating}"'))
def contrast_is(browser, against, ratio, rating):
    wait_for(
        browser,
        lambda: read_page(browser, f"contrast-{against}", f"rating-{against}"),
        [ratio, rating],
        f"contrast-{against} and rating-{against}",
    )


@then("the palette is empty")
def palette_empty(browser):
    find(browser, "palette")
    wait_for(browser, lambda: swatch_texts(browser), [], "palette swatches")


@then(parsers.parse('the palette shows "{colours}"'))
def palette_shows(browser, colours):
    expected = colours.split(", ")
    wait_for(browser, lambda: swatch_texts(browser), expected, "palette swatches")
    palette = find(browser, "palette")
    inside = palette.find_elements(By.CSS_SELECTOR, "[data-testid='palette-swatch']")
    assert len(inside) == len(expected), "palette swatches must be inside the palette element"
    assert all(s.tag_name == "button" for s in inside), "palette swatches must be buttons"


@then(parsers.parse('palette swatch {index:d} has the colour "{rgb}"'))
def swatch_has_colour(browser, index, rgb):
    swatch = find_all(browser, "palette-swatch")[index - 1]
    actual = background(browser, swatch)
    assert actual == rgb, f"background-color of palette swatch {index}: {actual!r}"


@then(parsers.parse('the palette count is "{count}"'))
def palette_count_is(browser, count):
    wait_text(browser, "palette-count", count)


@then(parsers.re(r'the palette message is "(?P<message>.*)"'))
def palette_message_is(browser, message):
    wait_text(browser, "palette-message", message)


@then(parsers.re(r"the stored palette is '(?P<stored>.*)'"))
def stored_palette_is(browser, stored):
    raw = browser.execute_script("return localStorage.getItem(arguments[0]);", STORAGE_KEY)
    assert raw is not None, f"nothing stored under {STORAGE_KEY}"
    assert json.loads(raw) == json.loads(stored), f"stored palette: {raw}"
