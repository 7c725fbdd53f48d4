"""The tip calculator through a browser; names and ids are the agent's parameter values."""

import re

import pytest
from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def text_of(driver, element_id):
    """The element's text, read again while a node of the page being replaced goes stale."""

    def read(_driver):
        try:
            return [_driver.find_element(By.ID, element_id).text.strip()]
        except NoSuchElementException:
            raise
        except WebDriverException:
            return None  # a node of the old document: the new one is not there yet

    return WebDriverWait(driver, 10).until(read)[0]


def amount(driver, element_id):
    """The amount an element shows (its last number; a currency sign may come before it)."""
    found = re.findall(r"\d+\.\d\d", text_of(driver, element_id))
    return found[-1] if found else None


@pytest.mark.requirement("R1")
def test_form_has_the_three_inputs_and_a_submit_button(page, pv):
    driver = page("calculator_path")
    for field in ("bill_field", "tip_field", "people_field"):
        assert driver.find_element(By.NAME, pv(field)).is_displayed()
    buttons = driver.find_elements(By.CSS_SELECTOR, "button, input[type=submit]")
    assert any(b.is_displayed() for b in buttons)


@pytest.mark.requirement("R2")
def test_result_split_between_people(submit, pv):
    driver = submit("100", "15", "4")
    assert amount(driver, pv("total_id")) == "115.00"
    assert amount(driver, pv("per_person_id")) == "28.75"


@pytest.mark.requirement("R2")
def test_result_rounds_half_up_to_cents(submit, pv):
    driver = submit("10.05", "10", "3")
    assert amount(driver, pv("total_id")) == "11.06"
    assert amount(driver, pv("per_person_id")) == "3.69"


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("bill", "tip", "people"), [("abc", "10", "2"), ("20", "-5", "2"), ("20", "10", "0")]
)
def test_invalid_input_shows_the_error_and_no_result(submit, pv, bill, tip, people):
    driver = submit(bill, tip, people)
    assert text_of(driver, pv("error_id"))
    with pytest.raises(NoSuchElementException):
        driver.find_element(By.ID, pv("per_person_id"))


@pytest.mark.requirement("R4")
def test_history_lists_newest_first(submit, page, pv):
    submit("123.45", "10", "1")  # total 135.80
    submit("50", "20", "2")  # total 60.00
    driver = page("history_path")

    def read(_driver):  # the list as the loaded page shows it (a node may go stale meanwhile)
        items = _driver.find_element(By.ID, pv("history_list_id")).find_elements(By.TAG_NAME, "li")
        return [i.text for i in items]

    texts = WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(read)
    newer = next(n for n, t in enumerate(texts) if "60.00" in t)
    older = next(n for n, t in enumerate(texts) if "135.80" in t)
    assert newer < older
