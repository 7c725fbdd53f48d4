"""The HTML report (--e2e-html): self-contained, renders in Chromium, shows results.json's numbers."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest
from helpers.report import hostile_document

from pytest_e2ebench.probe.e2ebench_web import CHROMIUM_FLAGS, OFFLINE_FLAG


def _pct(value):
    return "-" if value is None else f"{100 * value:.1f}%"


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Readers of tests/conftest.py's one calc session, which writes report.html (reference,
    nop, ``dir:out`` with R2 broken in run 1, two runs each): on one xdist worker with every
    other ``TestSharedCalc``."""

    def test_html_report_is_self_contained(self, calc_session):
        calc_session.lines().fnmatch_lines(["html report: *report.html"])
        html = (calc_session.root / "report.html").read_text()
        # nothing is fetched at view time: no script, no stylesheet link, no remote source
        assert "<script" not in html and "<link" not in html
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
        assert html.count("<svg") >= 4  # Impl-Rate bars, scatter, heatmap, taxonomy
        # both directions of an agent's tokens, as in the terminal table (issue 44)
        assert "Tokens sent" in html and "Tokens generated" in html
        doc = calc_session.results()
        assert doc["summary"]["reference"]["impl_rate"]["ci95"] == [1.0, 1.0]  # identical runs
        assert doc["summary"]["dir-out"]["pass_at_k"]["1"] == pytest.approx(5 / 6)
        assert doc["summary"]["dir-out"]["best_of_n"] == {"impl_rate": 1.0, "runs": 2}
        for rec in doc["tasks"]:
            assert f'data-run="{rec["agent"]}--{rec["task"]}--run-{rec["run"]}"' in html
        # the mutant's failing test and its message are in its run's section
        assert "test_sub" in html and "assert" in html

    @pytest.mark.browser
    @pytest.mark.skipif(not shutil.which("chromedriver"), reason="needs chromedriver")
    def test_html_report_renders_in_chromium_with_results_numbers(self, calc_session, tmp_path):
        from selenium import webdriver
        from selenium.webdriver.common.by import By

        doc = calc_session.results()
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        # the web tasks' switches, offline included: the page must need no network at view time
        for flag in (*CHROMIUM_FLAGS, OFFLINE_FLAG, f"--user-data-dir={tmp_path / 'profile'}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
        driver = webdriver.Chrome(options=options, service=service)
        try:
            start = time.monotonic()
            driver.get((calc_session.root / "report.html").as_uri())
            loaded = time.monotonic() - start
            assert driver.title == "e2ebench report"
            driver.save_screenshot(str(tmp_path / "report.png"))
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            assert errors == []
            for agent, stats in doc["summary"].items():
                row = driver.find_element(
                    By.CSS_SELECTOR, f"#overview-table tr[data-agent='{agent}']"
                )
                for key in ("impl_rate", "req_acc", "pass_rate", "balanced"):
                    shown = row.find_element(By.CSS_SELECTOR, f"[data-metric='{key}']").text
                    assert shown == _pct(stats[key]["mean"]), (agent, key)
                ci = stats["impl_rate"]["ci95"]
                shown = row.find_element(By.CSS_SELECTOR, "[data-ci='impl_rate']").text
                assert shown == f"[{_pct(ci[0])}, {_pct(ci[1])}]"
                assert row.find_element(By.CSS_SELECTOR, "[data-field='runs']").text == "2"
                pooled = driver.find_element(
                    By.CSS_SELECTOR, f"#pooled-table tr[data-agent='{agent}']"
                )
                for k, value in stats["pass_at_k"].items():
                    shown = pooled.find_element(By.CSS_SELECTOR, f"[data-pass-at='{k}']").text
                    assert shown == f"pass@{k} {_pct(value)}"
            heatmap = driver.find_element(By.CSS_SELECTOR, "figure[data-task='calc'] svg")
            assert heatmap.size["height"] > 40
            print(json.dumps({"load_s": round(loaded, 3), "bytes": len(driver.page_source)}))
        finally:
            driver.quit()


def test_html_report_escapes_and_embeds_only_the_runs_own_screenshots(tmp_path):
    from pytest_e2ebench.report.html import render

    html = render(hostile_document(tmp_path))
    assert "<script" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("data:image/png;base64,") == 1  # ok.png only: no fake, link or outside
    assert "screenshot: tests/t.feature::test_ok" in html


def test_ini_twins_write_the_report_and_the_coverage_xml(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\ne2ebench_html = out/report.html\ne2ebench_cov_xml = out/cov.xml\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(["coverage xml of 1 runs: *out/cov.xml", "html report: *"])
    assert 'data-agent="reference"' in (pytester.path / "out" / "report.html").read_text()
