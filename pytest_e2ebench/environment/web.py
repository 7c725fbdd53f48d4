"""Web tasks (``kind = "web"``): Gherkin scenarios run in headless Chromium against the app.

The agent builds a static HTML/CSS/JS app; the task's tests are ``*.feature`` files whose
scenarios are tagged with requirement ids (``@R1``) and whose steps are pytest-bdd step
definitions (in the tests folder's ``conftest.py``) using two fixtures: ``app_url`` and
``browser``. The test run itself, and everything browser-related, lives in the plugin
:mod:`e2ebench_web` loaded into the run (``pytest_e2ebench/probe/e2ebench_web.py``); reading
the scenarios, and writing their test modules, is the task model's
(:mod:`pytest_e2ebench.taskmodel.features`); this module is the harness's side of the
environment: the web test tools, and finding the browser.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from ..errors import InfrastructureError
from .venv import pinned

WEB_PLUGIN = "e2ebench_web"
# Installed into a web task's test environment next to pytest, pinned to the harness's.
WEB_TOOLS = ("pytest-bdd", "selenium")
ENTRY_PAGE = "index.html"


@functools.cache
def web_requirements() -> tuple[str, ...]:
    """``name==version`` of the web test tools the harness runs with."""
    return pinned(WEB_TOOLS)


@functools.cache
def browser_binaries() -> dict[str, str]:
    """Paths of Chromium and chromedriver, or an infrastructure error saying how to get them."""
    # environment variable for the test process -> (what it is, its command names)
    wanted = {
        "E2EBENCH_CHROMIUM": ("Chromium", ("chromium", "chromium-browser", "google-chrome")),
        "E2EBENCH_CHROMEDRIVER": ("chromedriver", ("chromedriver",)),
    }
    found = {
        key: next(filter(None, map(shutil.which, commands)), None)
        for key, (_, commands) in wanted.items()
    }
    missing = [wanted[key][0] for key, path in found.items() if not path]
    if missing:
        raise InfrastructureError(
            "browser",
            f"web tasks need Chromium and chromedriver on PATH; {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing "
            "(Debian: apt-get install chromium chromium-driver)",
        )
    return {key: str(Path(path).resolve()) for key, path in found.items()}
