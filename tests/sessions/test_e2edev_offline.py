"""E2EDev apps offline and deterministic: CDN files from the vendor cache, seeded Math.random,
behave's tables and step texts, and ``e2ebench verify-import e2edev`` against behave itself."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from helpers.vendor import seed_package

from pytest_e2ebench.cli import main

LIBRARY_URL = "https://cdn.jsdelivr.net/npm/greetlib@1.0.0/dist/greet.min.js"
APP = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Greeter</title>
<script src="{LIBRARY_URL}"></script></head>
<body><p data-testid="out"></p><a href="https://github.com/someone">author</a>
<img src="https://i.ibb.co/logo.png" alt="">
<script src="app.js"></script></body></html>
"""
SCRIPT = """document.querySelector('[data-testid="out"]').textContent =
  window.greetlib.greet("Ann") + " " + Math.random();
"""
STEPS = """from behave import given, then
from selenium import webdriver
from selenium.webdriver.common.by import By


def out(context):
    return context.driver.find_element(By.CSS_SELECTOR, "[data-testid='out']").text


@given('the greeter is open')
def step_open(context):
    context.driver = webdriver.Chrome()
    context.driver.get("file:///somewhere/source_projcet/index.html")


@then('the greeting reads')
def step_reads(context):
    assert [row["text"] for row in context.table] == [out(context).rsplit(" ", 1)[0]], out(context)


@then('a reload draws the same number')
def step_same(context):
    first = out(context)
    context.driver.get("file://index.html")
    assert out(context) == first
"""
FEATURE = """Feature: Greeting
  Scenario: The library greets{colon_name}
    Given the greeter is open
    Then the greeting reads{colon}
      | text   |
      | Hi Ann |
    And a reload draws the same number
"""


def write_project(root, app=APP):
    """One E2EDev project whose app loads a library from a CDN and draws a random number;
    its second test case writes a table step with a colon its step code does not have."""
    folder = root / "Greeter_01"
    (folder / "source_projcet").mkdir(parents=True)
    (folder / "source_projcet" / "index.html").write_text(app)
    (folder / "source_projcet" / "app.js").write_text(SCRIPT)
    (folder / "prompt.txt").write_text("Build a greeter.\n")
    cases = [
        {"test_case": [FEATURE.format(colon="", colon_name="")], "step_code": STEPS},
        {"test_case": [FEATURE.format(colon=":", colon_name=" (colon)")], "step_code": STEPS},
    ]
    (folder / "requirment_with_tests.json").write_text(
        json.dumps(
            {
                "finegrained_rewith_test": {
                    "1": {"requirement": {"description": "Greets."}, "test_cases": cases}
                }
            }
        )
    )
    return root


# what a CDN's own build of the library would be: the page pins these bytes, not npm's
CDN_BUILD = b"window.greetlib={greet:n=>'Hi '+n};"
PINNED_APP = APP.replace(
    f'<script src="{LIBRARY_URL}">',
    f'<script crossorigin="anonymous" src="{LIBRARY_URL}" integrity="sha384-'
    f'{base64.b64encode(hashlib.sha384(CDN_BUILD).digest()).decode()}">',
)


@pytest.fixture
def imported(request, pytester, tmp_path, monkeypatch, capsys):
    """The project imported into pytester's ``tasks``, its library in a seeded vendor cache;
    (E2EDev data, tasks, what the import printed). ``indirect`` "pinned": its page pins the
    library's CDN build (E2ESD_Bench_02's marked 1.2.7 from cdnjs)."""
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    seed_package(
        tmp_path / "cache",
        "greetlib",
        "1.0.0",
        {"dist/greet.min.js": "window.greetlib = {greet: (n) => 'Hi ' + n};\n"},
    )
    app = PINNED_APP if getattr(request, "param", "") == "pinned" else APP
    src = write_project(tmp_path / "E2EDev_data", app)
    out = pytester.path / "tasks"
    assert main(["import", "e2edev", "--no-gate", str(src), str(out)]) == 0
    return src, out, capsys.readouterr().out


@pytest.mark.browser
def test_cdn_library_is_served_offline_and_every_page_draws_the_same_numbers(
    imported, pytester, results
):
    _, out, printed = imported
    assert "1 CDN file(s) served from npm packages (vendor.json)" in printed
    assert "imported 1 of 1 projects (0 not imported)" in printed
    report = json.loads((out / "import-report.json").read_text())[0]
    assert report["vendored"] == [f"{LIBRARY_URL} -> greetlib@1.0.0/dist/greet.min.js"]
    # the <a href> is not loaded; the image is, from a host no package stands for: reported,
    # and the task stays offline (the image does not load)
    assert report["live"] == ["https://i.ibb.co/logo.png"] and report["not_vendored"] == []
    assert "offline they do not load; its scenarios still run offline" in printed
    assert "network = false" in (out / "greeter_01" / "task.toml").read_text()

    result = pytester.runpytest("--e2e-agent=reference,nop", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=1, failed=1)
    runs = {r["agent"]: r for r in results()["tasks"]}
    assert runs["reference"]["metrics"]["passed"] == 2  # both cases: the colon is behave's too
    assert runs["reference"]["web"]["executable"] is True
    assert runs["nop"]["metrics"]["passed"] == 0
    # served rewritten; the reference on disk still names the CDN
    assert LIBRARY_URL in (out / "greeter_01" / "reference" / "index.html").read_text()


@pytest.mark.browser
@pytest.mark.parametrize("imported", ["pinned"], indirect=True)
def test_a_pin_of_the_cdns_own_build_is_named_and_its_library_still_loads(
    imported, pytester, results
):
    """Issue 47: npm's copy fails the page's integrity hash (the CDN built its own). Served as
    written, the browser refused the library and the reference scored 0 of 2, imported "(ok)";
    now the import names the file and the page is served without that one pin."""
    _, out, printed = imported
    assert "1 pinned library file(s) served UNPINNED" in printed, printed
    report = json.loads((out / "import-report.json").read_text())[0]
    assert [u["url"] for u in report["unpinned"]] == [LIBRARY_URL]
    pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    run = results()["tasks"][0]
    assert run["metrics"]["passed"] == 2, run["metrics"]
    assert "integrity" in (out / "greeter_01" / "reference" / "index.html").read_text()


@pytest.mark.slow
@pytest.mark.browser
def test_verify_import_compares_with_behave_and_explains_each_disagreement(
    imported, pytester, capsys
):
    pytest.importorskip("behave")
    src, out, _ = imported
    code = main(["verify-import", "e2edev", str(src), str(out), "--out", "verify", "-n", "1"])
    printed = capsys.readouterr().out
    report = json.loads((pytester.path / "verify" / "verify-report.json").read_text())
    project = report["projects"][0]
    assert (project["harness_passed"], project["behave_passed"]) == (1, 0), printed
    assert (project["cases"], project["agree"]) == (2, 1), printed
    [disagreement] = project["disagreements"]
    assert (disagreement["case"], disagreement["harness"], disagreement["behave"]) == (
        2,
        "pass",
        "fail",
    )
    assert "BEHAVE_STRIP_STEPS_WITH_TRAILING_COLON" in disagreement["explanation"]
    assert report["unexplained"] == 0 and code == 0
    assert "R1 (E2EDev 1) case 2: harness pass, behave fail" in printed


CLOCK_APP = """<!doctype html><html><body>
<p data-testid="out">waiting</p><p data-testid="elapsed"></p><p data-testid="random"></p>
<script>
const t0 = Date.now();
document.querySelector('[data-testid="random"]').textContent = String(Math.random());
setTimeout(() => { document.querySelector('[data-testid="out"]').textContent = 'done'; }, 3000);
setInterval(() => {
  document.querySelector('[data-testid="elapsed"]').textContent = String(Date.now() - t0);
}, 1000);
</script></body></html>
"""
CLOCK_FEATURE = """@R1
Feature: Time and chance
  Scenario: A three-second timer fires after three seconds of page time
    Given the page is open with a controlled clock
    Then "out" reads "waiting"
    When 2999 ms pass
    Then "out" reads "waiting"
    When 1 ms pass
    Then "out" reads "done"
    And "elapsed" reads "3000"

  Scenario: A reload draws the same random number
    Given the page is open
    Then a reload shows the same random number
"""
CLOCK_STEPS = """from pytest_bdd import given, parsers, then, when
from selenium.webdriver.common.by import By


def text(browser, testid):
    return browser.find_element(By.CSS_SELECTOR, f"[data-testid='{testid}']").text


@given("the page is open with a controlled clock")
def _(browser, app_url, clock):
    browser.get(app_url)


@given("the page is open")
def _(browser, app_url):
    browser.get(app_url)


@when(parsers.parse("{ms:d} ms pass"))
def _(clock, ms):
    clock.tick(ms)


@then(parsers.parse('"{testid}" reads "{value}"'))
def _(browser, testid, value):
    assert text(browser, testid) == value


@then("a reload shows the same random number")
def _(browser):
    first = text(browser, "random")
    browser.refresh()
    assert text(browser, "random") == first and 0 <= float(first) < 1
"""


@pytest.mark.browser
def test_a_controlled_clock_and_seeded_random_make_time_and_chance_repeatable(
    pytester, tasks, results
):
    root = tasks.tasks / "timer"
    tasks.write(
        root / "task.toml",
        'id = "timer"\ntitle = "Timer"\nkind = "web"\nlanguage = "javascript"\n'
        'created = 2026-11-01\nsource = "tests"\n\n[tests]\ntimeout = 30\n',
    )
    tasks.write(root / "requirements.md", "# Timer\n\n### R1: Done after three seconds\n")
    tasks.write(root / "reference" / "index.html", CLOCK_APP)
    tasks.write(root / "tests" / "conftest.py", CLOCK_STEPS)
    tasks.write(root / "tests" / "features" / "timer.feature", CLOCK_FEATURE)
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=1)
    assert results()["tasks"][0]["metrics"]["passed"] == 2


def test_steps_no_definition_matches_are_named_at_import(tmp_path):
    from pytest_e2ebench.tools.importers.e2edev import undefined_steps

    feature = tmp_path / "case.feature"
    feature.write_text(
        FEATURE.format(colon=":", colon_name="")
        + '    And the text reads "a\\nb"\n    And a step nobody wrote\n'
    )
    code = STEPS + (
        "\nfrom behave import use_step_matcher\nuse_step_matcher('re')\n"
        "@then(r'the text reads \"(?P<t>.*)\"')\ndef step_text(context, t):\n    pass\n"
    )
    assert undefined_steps(feature, code) == ["a step nobody wrote"]
    assert undefined_steps(feature, STEPS) == ['the text reads "a\\nb"', "a step nobody wrote"]
