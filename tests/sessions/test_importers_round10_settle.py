"""The imported ProjectEval website tests read the page after it has settled (issue 30).

ProjectEval's website tests click and read ``driver.page_source`` at once. The conftest the
importer writes (``projecteval.WEB_CONFTEST``) makes every action wait for the page to settle.
Here that conftest drives real headless Chromium against a loopback HTTP page whose content
changes some time after a click: once through a slow ``fetch`` (the server answers after
0.6 s, longer than the quiet window), once through a ``setTimeout``. The imported-style tests
must read the changed content; the same reads on the unwrapped driver (no wait) must not, or
the page would not test the wait at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pytest_e2ebench.probe as probe
from pytest_e2ebench.tools.importers.projecteval import WEB_CONFTEST

pytestmark = pytest.mark.browser

TESTS = r'''
import http.server
import threading
import time

import pytest
from selenium.webdriver.common.by import By

PAGE = b"""<!doctype html><html><body>
<p id="out">Total: none</p><p id="later">waiting</p>
<button id="fetch" onclick="fetch('/total').then(r => r.text()).then(t => {
  document.getElementById('out').textContent = 'Total: ' + t; })">sum</button>
<button id="timer" onclick="setTimeout(() => {
  document.getElementById('later').textContent = 'arrived'; }, 450)">later</button>
</body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/total":
            time.sleep(0.6)  # a slow view: longer than the page's quiet window
            body = b"42"
        else:
            body = PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def live_site():
    """Overrides the conftest's Django site: a loopback page of this test."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_reads_after_a_slow_fetch(driver, live_site):
    driver.get(live_site + "/")
    driver.find_element(By.ID, "fetch").click()
    assert "Total: 42" in driver.page_source


def test_reads_after_a_timer(driver, live_site):
    driver.get(live_site + "/")
    driver.find_element(By.ID, "timer").click()
    assert "arrived" in driver.page_source


def test_without_the_wait_the_read_is_early(driver, live_site):
    raw = driver.wrapped_driver
    raw.get(live_site + "/")
    raw.find_element(By.ID, "fetch").click()
    raw.find_element(By.ID, "timer").click()
    source = raw.page_source
    assert "Total: none" in source and "waiting" in source
'''


def test_imported_website_test_reads_the_settled_page(pytester, monkeypatch):
    probe_dir = Path(probe.__file__).parent
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(probe_dir), os.environ.get("PYTHONPATH", "")])
    )
    pytester.makeconftest(WEB_CONFTEST)
    pytester.makepyfile(test_site=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", "-q")
    result.assert_outcomes(passed=3)
