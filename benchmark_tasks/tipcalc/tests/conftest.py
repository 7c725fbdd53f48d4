"""Serve the agent's Flask app on a loopback port of the test run; drive it with Chromium.

``pv``, ``pv_session`` and ``project_dir`` come from the harness's e2ebench_pv plugin, the
browser from its e2ebench_web module (the web tasks' Chromium: flags, offline, killed by pid).
"""

import contextlib
import socket
import subprocess
import sys
import time

import pytest

READY = 30.0


@pytest.fixture(scope="session")
def app_url(tmp_path_factory, project_dir, pv_session):
    """``flask --app <app> run`` in the project folder, on a free port of 127.0.0.1."""
    app = pv_session("app")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log_path = tmp_path_factory.mktemp("server") / "flask.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flask",
                "--app",
                app,
                "run",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=project_dir,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + READY
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), 1).close()
            break
        time.sleep(0.2)
    else:
        proc.kill()
        tail = log_path.read_text(errors="replace")[-500:]
        pytest.fail(f"the app {app!r} did not serve on port {port}:\n{tail}", pytrace=False)
    yield f"http://127.0.0.1:{port}"
    # SIGTERM first: a server run under coverage saves what it measured before it exits
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def _browser(tmp_path_factory):
    from e2ebench_web import Browser

    browser = Browser(tmp_path_factory.mktemp("browser"), offline=True)
    yield browser.start()
    browser.quit()


@pytest.fixture
def page(_browser, app_url, pv):
    """``page(path_parameter)``: open the page at that parameter's path; the driver."""

    def open_page(parameter):
        path = pv(parameter)
        _browser.get(app_url + ("" if path.startswith("/") else "/") + path)
        return _browser

    return open_page


@pytest.fixture
def submit(page, pv):
    """Fill in the calculator's form and submit it; the driver on the answer page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    def go(bill, tip, people):
        driver = page("calculator_path")
        for field, text in (("bill_field", bill), ("tip_field", tip), ("people_field", people)):
            box = driver.find_element(By.NAME, pv(field))
            box.clear()
            box.send_keys(text)
        page_before = driver.find_element(By.TAG_NAME, "html")
        driver.find_element(By.NAME, pv("people_field")).submit()
        # submit() does not wait for the answer page: wait until the old page is gone
        WebDriverWait(driver, 10).until(expected_conditions.staleness_of(page_before))
        WebDriverWait(driver, 10).until(
            lambda d: d.execute_script("return document.readyState") == "complete"
        )
        return driver

    return go
