"""Gherkin scenarios against a served web app in headless Chromium (loaded with ``-p``).

Runs inside a web task's test environment (pytest, pytest-bdd and Selenium; not
pytest-e2ebench), next to the probe plugin:

* every ``*.feature`` file under the tests folder is collected as a module of scenario tests:
  ``tests/features/todo.feature::test_add_an_item`` (outline examples are parameters), with the
  scenario's ``@R<n>`` tags (and its feature's) as ``requirement`` marks. The module is the
  plain pytest-bdd file the harness wrote for the feature (one ``@scenario`` function per
  scenario; ``pytest_e2ebench/taskmodel/features.py``), found through the index in
  ``E2EBENCH_SCENARIOS``: this plugin reads no Gherkin itself;
* ``app_url`` (session) is the generated app served read-only from ``E2EBENCH_APP_DIR`` by an
  HTTP server on 127.0.0.1 and an ephemeral port;
* ``browser`` is a Selenium WebDriver for headless Chromium, started once per session (so once
  per xdist worker) with a fresh profile and reset before every scenario (extra windows
  closed, dialogs dismissed, storage and cookies of the app cleared, ``about:blank``);
* every page gets a seeded ``Math.random`` before its scripts run, and a scenario that asks
  for the ``clock`` fixture a virtual clock its steps advance (``clock.tick(ms)``);
* CDN addresses listed in ``E2EBENCH_VENDOR_DIR/routes.json`` are served from that folder on
  the app's origin, rewritten in the app's HTML, CSS and JavaScript as they are served;
* a failing scenario gets a screenshot and the browser console in its report;
* at session start the app's page is loaded once to record whether it is *executable* (it
  loads, and no uncaught script error breaks it);
* when the session ends, the driver quits and every browser and driver process it started is
  killed by its process id.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import io
import itertools
import json
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
import types
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

try:
    import e2ebench_sri  # a web run: the probe's folder is on the path
except ImportError:  # the harness's own import of pytest_e2ebench.probe.e2ebench_web
    from . import e2ebench_sri

REQUIREMENT_TAG = re.compile(r"^R\d+$")
# The folder of the run's scenario modules and its index, as the harness writes them
# (pytest_e2ebench/taskmodel/features.py: SCENARIOS_ENV, INDEX; a unit test holds them equal).
SCENARIOS_ENV = "E2EBENCH_SCENARIOS"
SCENARIO_INDEX = "scenarios.json"
# Chromium switches for a headless browser that talks to nothing but the served app.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--password-store=basic",
    "--mute-audio",
    "--window-size=1280,900",
    # DevTools over descriptors 3 and 4 to chromedriver, not a TCP port: a page (or a native
    # app in the same network namespace) has no DevTools port to call
    "--remote-debugging-pipe",
)
# Ports of the Fetch standard's "bad port" list (https://fetch.spec.whatwg.org/#bad-port):
# Chromium refuses every request a page makes to them (ERR_UNSAFE_PORT), navigation included.
# chromedriver listens on one of them, so a page's script cannot drive it (it also refuses an
# Origin that is not loopback, but the served app's origin is 127.0.0.1). In a network
# namespace of the run's own the first is free; the others are tried when it is taken.
DRIVER_PORTS = (6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080)
OFFLINE_FLAG = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
PAGE_LOAD_TIMEOUT = 20
RESET_PATH = "/__e2ebench__/reset"
# Run in the reset page: empty both storages until they stay empty; what is left, or "".
CLEAR_STORAGE = """
const done = arguments[arguments.length - 1];
let tries = 0;
const sweep = () => {
  localStorage.clear();
  sessionStorage.clear();
  setTimeout(() => {
    const left = localStorage.length + sessionStorage.length;
    if (left === 0) return done("");
    if (++tries >= 20) return done(`${left} item(s) in local or session storage`);
    sweep();
  }, 0);
};
sweep();
"""
CONSOLE_LINES = 30
# Third-party files (pytest_e2ebench/environment/vendor.py): served from E2EBENCH_VENDOR_DIR under
# this
# path, and the CDN addresses of routes.json rewritten to it in the app's text files as served.
VENDOR_PATH = "/__e2ebench__/vendor/"
REWRITTEN = (".html", ".htm", ".css", ".js", ".mjs")
MAX_REWRITE_BYTES = 8 << 20
# Run before any script of every page: Math.random from a fixed seed (mulberry32), so a page
# that draws numbers draws the same ones in every run (E2EBENCH_WEB_SEED sets the seed).
SEEDED_RANDOM = """
(() => {
  let state = %d >>> 0;
  const random = function random() {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Object.defineProperty(Math, "random", {value: random, writable: true, configurable: true});
})();
"""
DEFAULT_SEED = 20250101
# The ``clock`` fixture's virtual clock, installed before any script of the pages a scenario
# opens after requesting it: Date, performance.now and the timers stand still until a step
# advances them (window.__e2ebench_clock.tick(ms) runs every timer due, in order).
FAKE_CLOCK = """
(() => {
  const RealDate = Date;
  const start = RealDate.now();
  let now = 0, nextId = 1;
  const timers = new Map();
  const add = (fn, ms, args, repeat) => {
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(nextId, {fn, args, at: now + delay, every: repeat ? Math.max(1, delay) : 0});
    return nextId++;
  };
  const clear = (id) => { timers.delete(id); };
  window.setTimeout = (fn, ms, ...args) => add(fn, ms, args, false);
  window.setInterval = (fn, ms, ...args) => add(fn, ms, args, true);
  window.clearTimeout = window.clearInterval = window.cancelAnimationFrame = clear;
  window.requestAnimationFrame = (fn) => add(() => fn(now), 16, [], false);
  function FakeDate(...args) {
    if (!new.target) return new RealDate(start + now).toString();
    return args.length ? new RealDate(...args) : new RealDate(start + now);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = () => start + now;
  FakeDate.parse = RealDate.parse;
  FakeDate.UTC = RealDate.UTC;
  window.Date = FakeDate;
  Object.defineProperty(performance, "now", {value: () => now, configurable: true});
  const tick = (ms) => {
    const target = now + Math.max(0, Number(ms) || 0);
    for (;;) {
      let due = null;
      for (const [id, t] of timers) {
        if (t.at <= target && (due === null || t.at < timers.get(due).at)) due = id;
      }
      if (due === null) break;
      const t = timers.get(due);
      now = t.at;
      if (t.every) t.at += t.every; else timers.delete(due);
      try {
        if (typeof t.fn === "function") t.fn(...t.args); else (0, eval)(String(t.fn));
      } catch (error) {
        queueMicrotask(() => { throw error; });  // reported as uncaught, as a browser would
      }
    }
    now = target;
    return now;
  };
  window.__e2ebench_clock = {tick, now: () => now, pending: () => timers.size};
})();
"""


# ---------------------------------------------------------------------------------------------
# Collection: a feature file is collected as the test module the harness wrote for it


class FeatureProblem(pytest.File):
    """A feature file whose test module could not be had: collecting it raises why (the
    feature's problems, a missing module naming the fix, or the module's import error)."""

    problem: BaseException | None = None

    def collect(self):
        raise self.problem


def scenario_index() -> dict[str, dict]:
    """The harness's index of the run's scenario modules (``E2EBENCH_SCENARIOS``):
    feature file (resolved path) -> ``{"module": path or None, "problems": [...]}``."""
    return _read_index(os.environ.get(SCENARIOS_ENV, ""))


@functools.cache
def _read_index(folder: str) -> dict[str, dict]:
    index = Path(folder, SCENARIO_INDEX) if folder else None
    if index is None or not index.is_file():
        return {}
    return json.loads(index.read_text(encoding="utf-8"))


def load_scenarios(feature: Path) -> types.ModuleType:
    """The test module the harness wrote for ``feature`` (plain pytest-bdd ``@scenario``
    functions), imported from its file; a collection error naming the fix when there is none."""
    entry = scenario_index().get(str(feature.resolve()))
    if entry is None:
        raise pytest.Collector.CollectError(
            f"{feature.name}: no scenario module was written for it; write them with "
            f"'python -m pytest_e2ebench.taskmodel.features TESTS OUT' and set {SCENARIOS_ENV}=OUT"
        )
    if entry["problems"]:
        raise pytest.Collector.CollectError("; ".join(entry["problems"]))
    name = "feature_" + re.sub(r"\W", "_", feature.stem)
    spec = importlib.util.spec_from_file_location(name, entry["module"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_collect_file(file_path: Path, parent):
    """A ``.feature`` file is a test module under its own path (so node ids are the feature
    file's), whose object is the module the harness wrote for it."""
    if file_path.suffix != ".feature":
        return None
    try:
        scenarios = load_scenarios(file_path)
    except Exception as exc:  # noqa: BLE001 - the file's collection error, as pytest reports one
        problem = FeatureProblem.from_parent(parent, path=file_path)
        problem.problem = exc
        return problem
    module = pytest.Module.from_parent(parent, path=file_path)
    module.obj = scenarios
    return module


def pytest_configure(config):
    _state["config"] = config
    config.addinivalue_line("markers", "requirement(*ids): requirements this test checks")


@pytest.hookimpl(tryfirst=True)
def pytest_bdd_apply_tag(tag, function):
    """``@R1`` becomes ``requirement("R1")``; other tags become (registered) marks."""
    if REQUIREMENT_TAG.match(tag):
        pytest.mark.requirement(tag)(function)
    else:
        _state["config"].addinivalue_line("markers", f"{tag}: Gherkin tag")
        getattr(pytest.mark, tag)(function)
    return True


# ---------------------------------------------------------------------------------------------
# The served app

_state: dict = {}


class _Handler(http.server.SimpleHTTPRequestHandler):
    vendor_dir: Path | None = None
    routes: dict[str, str] = {}  # noqa: RUF012 - set once per server, read-only
    vendored: dict[str, bytes | None] = {}  # noqa: RUF012 - one per server: files read

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def send_head(self):
        if self.path == RESET_PATH:
            # An empty page on the app's origin, with none of the app's scripts: the browser
            # clears the origin's storage from here between scenarios.
            body = b"<!doctype html><title>e2ebench reset</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        path = urllib.parse.unquote(self.path.split("?", 1)[0])
        if path.startswith(VENDOR_PATH) and self.vendor_dir is not None:
            return self._send_vendored(path[len(VENDOR_PATH) :])
        if self.routes and (path.endswith("/") or path.lower().endswith(REWRITTEN)):
            return self._send_rewritten()
        # Browsers ask for /favicon.ico on their own: an app without one is not an error.
        if self.path.split("?", 1)[0] == "/favicon.ico" and not os.path.exists(
            self.translate_path(self.path)
        ):
            self.send_response(204)
            self.end_headers()
            return None
        return super().send_head()

    def _send_bytes(self, body: bytes, ctype: str):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def _vendored_file(self, rel: str) -> Path | None:
        """A file of the vendor folder (the harness's, read-only): never outside it."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        target = self.vendor_dir.joinpath(*parts) if parts else self.vendor_dir
        return None if ".." in parts or not target.is_file() else target

    def _vendored_bytes(self, rel: str) -> bytes | None:
        """A vendored file's bytes, read once per server (the folder is the harness's and
        read-only): a pinned library is checked at every load of every page that pins it."""
        if rel not in self.vendored:
            target = self._vendored_file(rel) if self.vendor_dir is not None else None
            self.vendored[rel] = None if target is None else target.read_bytes()
        return self.vendored[rel]

    def _send_vendored(self, rel: str):
        target = self._vendored_file(rel)
        if target is None:
            self.send_error(404, "Not a vendored file")
            return None
        return self._send_bytes(target.read_bytes(), self.guess_type(str(target)))

    def _send_rewritten(self):
        """An app's page, stylesheet or script with its CDN addresses pointing here."""
        local = Path(self.translate_path(self.path))
        if self.path.split("?", 1)[0].endswith("/"):
            local = local / "index.html"  # a folder's page, as the base class serves it
        if not local.is_file() or local.stat().st_size > MAX_REWRITE_BYTES:
            return super().send_head()
        text = local.read_bytes().decode("utf-8", errors="surrogateescape")
        for url in sorted(self.routes, key=len, reverse=True):
            if url in text:
                text = text.replace(url, self.routes[url])
        if local.suffix.lower() in (".html", ".htm"):
            # a pin of the CDN's bytes that npm's copy fails (cdnjs's own minified build)
            text = e2ebench_sri.unpin(text, VENDOR_PATH, self._vendored_bytes)
        body = text.encode("utf-8", errors="surrogateescape")
        return self._send_bytes(body, self.guess_type(str(local)))

    def list_directory(self, path):
        # Only files are served: a folder without index.html is not a page.
        self.send_error(404, "No index.html here")
        return None


class AppServer:
    """The generated app, served from a folder on 127.0.0.1 and an ephemeral port."""

    def __init__(self, root: Path, vendor: Path | None = None):
        routes = {}
        if vendor is not None and (vendor / "routes.json").is_file():
            routes = json.loads((vendor / "routes.json").read_text(encoding="utf-8"))
        handler_class = type(
            "_AppHandler", (_Handler,), {"vendor_dir": vendor, "routes": routes, "vendored": {}}
        )
        handler = functools.partial(handler_class, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------------------------
# The browser


def driver_port() -> int:
    """A free port of :data:`DRIVER_PORTS` on 127.0.0.1 for chromedriver (0 when none is)."""
    for port in DRIVER_PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return 0  # all taken (no namespace of the run's own): any port, as before


def _binary(env: str, names: tuple[str, ...]) -> str:
    found = os.environ.get(env) or next(filter(None, map(shutil.which, names)), None)
    if not found:
        raise RuntimeError(
            f"{names[0]} not found (set {env} or install it: apt-get install chromium "
            "chromium-driver)"
        )
    return found


def descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (from /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


class Browser:
    """One headless Chromium and its chromedriver, restartable, killed by pid at the end."""

    def __init__(self, artifacts: Path, offline: bool):
        self.artifacts = artifacts
        self.offline = offline
        self.pids: set[int] = set()
        self.profiles: list[str] = []
        self.driver = None
        self.starts: list[float] = []
        self.suspect = False  # a scenario timed out: do not trust the browser to answer

    def start(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        began = time.monotonic()
        profile = tempfile.mkdtemp(prefix="e2ebench-chromium-")
        self.profiles.append(profile)
        options = webdriver.ChromeOptions()
        options.binary_location = _binary("E2EBENCH_CHROMIUM", ("chromium", "chromium-browser"))
        for flag in (*CHROMIUM_FLAGS, *((OFFLINE_FLAG,) if self.offline else ())):
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(
            _binary("E2EBENCH_CHROMEDRIVER", ("chromedriver",)),
            port=driver_port(),
            log_output=str(self.artifacts / "chromedriver.log"),
        )
        try:
            self.driver = webdriver.Chrome(options=options, service=service)
        finally:
            if service.process is not None:
                self.pids.add(service.process.pid)
                self.pids.update(descendants(service.process.pid))
        seed = int(os.environ.get("E2EBENCH_WEB_SEED") or DEFAULT_SEED)
        self.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": SEEDED_RANDOM % seed}
        )
        self.driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT)
        self.driver.set_script_timeout(PAGE_LOAD_TIMEOUT)
        self.starts.append(round(time.monotonic() - began, 3))
        return self.driver

    def reset(self, origin: str):
        """A clean browser for the next scenario (restarted if it stopped answering)."""
        from selenium.common.exceptions import WebDriverException

        if self.driver is None or self.suspect:
            # after a timeout the page (and so every command) may still hang: start afresh
            self.quit(graceful=not self.suspect)
            self.suspect = False
            return self.start()
        try:
            driver = self.driver
            single_window(driver)
            # Leave the app for an empty page on its own origin (its unload handlers run), then
            # clear the origin twice: over CDP (IndexedDB, caches, service workers, local
            # storage) and from that page, which also empties sessionStorage and checks.
            # Seen once: leaving through about:blank with the CDP clear alone let 1 page in 200
            # (under heavy CPU load) see the previous scenario's localStorage. The in-page clear
            # is checked before the scenario starts; it costs ~15 ms per scenario
            # (benchmarks/web_reset.py).
            driver.get(origin.rstrip("/") + RESET_PATH)
            driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin.rstrip("/"), "storageTypes": "all"}
            )
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            left = driver.execute_async_script(CLEAR_STORAGE)
            if left:
                raise WebDriverException(f"storage left after clearing it: {left}")
            driver.set_window_size(1280, 900)
            driver.get_log("browser")  # drop what earlier scenarios logged
            return driver
        except WebDriverException:
            self.quit()
            return self.start()

    def console(self) -> list[dict]:
        with contextlib.suppress(Exception):
            return list(self.driver.get_log("browser"))
        return []

    def quit(self, graceful: bool = True) -> None:
        """Quit the driver (unless it may hang), then kill by id every process it started."""
        if self.driver is not None:
            for pid in list(self.pids):
                self.pids.update(descendants(pid))
            if graceful:
                with contextlib.suppress(Exception):
                    self.driver.quit()
            self.driver = None
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.pids.clear()
        for profile in self.profiles:
            shutil.rmtree(profile, ignore_errors=True)
        self.profiles.clear()


def single_window(driver) -> None:
    """Dismiss an open dialog and close every window but the first, which gets the focus."""
    from selenium.common.exceptions import NoAlertPresentException

    with contextlib.suppress(NoAlertPresentException):
        driver.switch_to.alert.dismiss()
    handles = driver.window_handles
    for handle in handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(handles[0])


def _emit(record: dict) -> None:
    """A record into the probe's signed results file (when the probe is loaded)."""
    probe = _state["config"].pluginmanager.get_plugin("e2ebench_probe")
    if probe is not None:
        probe.emit(record)


def executability(driver, url: str) -> dict:
    """Load the app once: does it load, and does an uncaught script error break it?"""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            status = response.status
    except OSError as exc:
        status = getattr(exc, "code", None) or str(exc)
    driver.get("about:blank")
    driver.get_log("browser")
    errors: list[str] = []
    try:
        driver.get(url)
        time.sleep(0.3)  # let load handlers and the first timers run
    except Exception as exc:  # noqa: BLE001 - any failure to load is the app's
        errors.append(f"page did not load: {str(exc).splitlines()[0]}")
    logs = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    uncaught = [e["message"] for e in logs if e.get("source") == "javascript"]
    return {
        "status": status,
        "executable": status == 200 and not errors and not uncaught,
        "errors": (errors + uncaught)[:10],
        "console_errors": [e["message"] for e in logs][:10],
    }


def pytest_collection_finish(session):
    # Start the server and the browser (and load the app once) before the first scenario, so
    # the start is not charged to that scenario's timeout (none with --collect-only: nothing
    # runs).
    if session.config.getoption("collectonly"):
        return
    if any(item.path.suffix == ".feature" for item in session.items):
        _session()


@pytest.fixture(scope="session")
def app_url():
    """Base URL (ending in ``/``) of the app under test, served on 127.0.0.1."""
    return _session().url


def _session():
    """The session's server and browser, started on first use."""
    if "server" not in _state:
        artifacts = Path(os.environ.get("E2EBENCH_ARTIFACTS") or tempfile.mkdtemp())
        artifacts.mkdir(parents=True, exist_ok=True)
        _state["app_dir"] = app = Path(os.environ.get("E2EBENCH_APP_DIR", "."))
        _state["artifacts"] = artifacts
        _state["shots"] = itertools.count(1)
        vendor = os.environ.get("E2EBENCH_VENDOR_DIR")
        _state["server"] = server = AppServer(app, Path(vendor) if vendor else None)
        _state["browser"] = browser = Browser(
            artifacts, offline=os.environ.get("E2EBENCH_WEB_NETWORK") != "1"
        )
        record: dict = {"kind": "web"}
        try:
            browser.start()
        except Exception as exc:  # noqa: BLE001 - reported, and every scenario errors
            _state["browser_error"] = f"the browser could not start: {exc}"
            record["browser_error"] = _state["browser_error"]
        else:
            record["browser_start_s"] = browser.starts[0]
            record.update(executability(browser.driver, server.url))
            if record["status"] != 200:
                # No page at all: no scenario can pass (and none waits for elements in vain).
                _state["no_app"] = f"the app has no page at / (HTTP {record['status']})"
        _emit(record)
    return _state["server"]


@pytest.fixture
def browser(app_url, request):
    """A Selenium WebDriver for headless Chromium, reset for this scenario."""
    if "browser_error" in _state:
        pytest.fail(_state["browser_error"], pytrace=False)
    if "no_app" in _state:
        pytest.fail(_state["no_app"], pytrace=False)
    _state["user"] = request.node.nodeid
    return _state["browser"].reset(app_url)


class Clock:
    """The virtual clock of the pages a scenario opens (see the ``clock`` fixture)."""

    def __init__(self, driver):
        self.driver = driver

    def tick(self, ms: float) -> float:
        """Advance the current page's clock by ``ms``, running every timer due; the new time."""
        return self.driver.execute_script(
            "return window.__e2ebench_clock.tick(arguments[0]);", float(ms)
        )

    def now(self) -> float:
        """Milliseconds of virtual time since the current page loaded."""
        return self.driver.execute_script("return window.__e2ebench_clock.now();")


@pytest.fixture
def clock(browser):
    """A controllable clock for the pages this scenario opens after asking for it.

    ``Date``, ``performance.now``, ``setTimeout``/``setInterval`` and
    ``requestAnimationFrame`` of those pages stand still until a step calls
    ``clock.tick(ms)``: a scenario about a 3-second timer waits for no machine's speed.
    """
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_CLOCK})
    yield Clock(browser)
    with contextlib.suppress(Exception):  # a replaced browser no longer has it
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]}
        )


def map_url(url: str, base: str, app_dir: Path) -> str:
    """A ``file://`` (or other localhost) address of an app file, as served at ``base``.

    The longest tail of the path that names a file of the app wins (``file://index.html``,
    ``file:///home/x/source_projcet/index.html`` and ``http://localhost:8000/index.html`` all
    become ``<base>index.html``).
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        raw = url[len("file:") :].lstrip("/")
        raw = re.split(r"[?#]", raw, maxsplit=1)[0]
    elif parts.scheme in ("http", "https") and parts.hostname in ("localhost", "127.0.0.1"):
        if url.startswith(base):
            return url
        raw = parts.path.lstrip("/")
    else:
        return url
    tail = url[len(url.split("?", 1)[0].split("#", 1)[0]) :]
    pieces = [p for p in urllib.parse.unquote(raw).split("/") if p not in ("", ".")]
    for i in range(len(pieces)):
        candidate = "/".join(pieces[i:])
        if (app_dir / candidate).is_file():
            return base + urllib.parse.quote(candidate) + tail
    return base + (urllib.parse.quote(pieces[-1]) if pieces else "") + tail


class BehaveDriver:
    """The browser as behave step code expects ``webdriver.Chrome()`` to be.

    ``get`` maps ``file://`` paths to the served app; ``quit`` is left to the harness (the
    browser is shared by the session and reset between scenarios).
    """

    def __init__(self, driver, base: str, app_dir: Path):
        self.__dict__.update(_driver=driver, _base=base, _app_dir=app_dir)

    def __getattr__(self, name):
        return getattr(self._driver, name)

    def __setattr__(self, name, value):
        setattr(self._driver, name, value)

    def get(self, url: str):
        return self._driver.get(map_url(url, self._base, self._app_dir))

    def quit(self) -> None:
        pass

    def close(self) -> None:
        if len(self._driver.window_handles) > 1:
            self._driver.close()


@pytest.fixture
def context(browser, app_url):
    """behave's ``context`` for imported step code: an attribute bag; ``driver`` is the browser."""
    _state["behave_driver"] = driver = BehaveDriver(browser, app_url, _state["app_dir"])
    return types.SimpleNamespace(driver=driver)


def current_driver():
    """The browser for this scenario's imported step code (see :mod:`e2ebench_behave`)."""
    if "behave_driver" not in _state:
        raise RuntimeError("no scenario is running: webdriver.Chrome() outside a step")
    return _state["behave_driver"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    browser = _state.get("browser")
    if report.failed and _state.get("user") == item.nodeid and browser is not None:
        text = str(report.longrepr)
        if any(n in text for n in ("Timeout (>", "timed out", "Timed out", "renderer")):
            browser.suspect = True  # no screenshot: the page may not answer
        else:
            _attach(item, report)
    return report


def _attach(item, report) -> None:
    """Screenshot and browser console of a failing scenario, in its report."""
    browser = _state["browser"]
    number = next(_state["shots"])
    stem = re.sub(r"[^\w.-]+", "_", item.name)[:60]
    shot = _state["artifacts"] / f"{number:03d}-{stem}.png"
    with contextlib.suppress(Exception):
        if browser.driver is not None and browser.driver.save_screenshot(str(shot)):
            report.user_properties.append(("screenshot", str(shot)))
    lines = [f"{e.get('level')} {e.get('message')}" for e in browser.console()][-CONSOLE_LINES:]
    if lines:
        report.sections.append(("browser console", "\n".join(lines)))
        report.user_properties.append(("console", "\n".join(lines)[-2000:]))


def pytest_sessionfinish(session):
    browser = _state.pop("browser", None)
    if browser is not None:
        _emit({"kind": "web_end", "browser_starts": browser.starts})
        browser.quit()
    server = _state.pop("server", None)
    if server is not None:
        server.close()
