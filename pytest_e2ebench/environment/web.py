"""Web tasks (``kind = "web"``): Gherkin scenarios run in headless Chromium against the app.

The agent builds a static HTML/CSS/JS app; the task's tests are ``*.feature`` files whose
scenarios are tagged with requirement ids (``@R1``) and whose steps are pytest-bdd step
definitions (in the tests folder's ``conftest.py``) using two fixtures: ``app_url`` and
``browser``. The test run itself, and everything browser-related, lives in the plugin
:mod:`e2ebench_web` loaded into the run (``pytest_e2ebench/probe/e2ebench_web.py``); this module
is the harness's side: reading scenarios statically, and finding the browser.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from ..errors import InfrastructureError
from ..probe.e2ebench_web import feature_files, parse_feature
from ..taskmodel.testindex import StaticTest
from .venv import pinned

WEB_PLUGIN = "e2ebench_web"
# Installed into a web task's test environment next to pytest, pinned to the harness's.
WEB_TOOLS = ("pytest-bdd", "selenium")
ENTRY_PAGE = "index.html"


@functools.cache
def web_requirements() -> tuple[str, ...]:
    """``name==version`` of the web test tools the harness runs with."""
    return pinned(WEB_TOOLS)


def scan_features(tests: Path, *, label: str = "tests") -> tuple[list[StaticTest], list[str]]:
    """Every scenario of the feature files under ``tests``, as tests with requirement tags.

    Node ids are what the run reports: ``tests/features/todo.feature::test_add_an_item``.
    """
    found: list[StaticTest] = []
    problems: list[str] = []
    for path in feature_files(tests):
        rel = f"{label}/{path.relative_to(tests).as_posix()}"
        scenarios, issues = parse_feature(path)
        problems.extend(rel + issue[len(path.name) :] for issue in issues)
        for sc in scenarios:
            found.append(
                StaticTest(
                    nodeid=f"{rel}::{sc['function']}",
                    requirements=tuple(sc["requirements"]),
                    cases=sc["cases"],
                    line=sc["line"],
                )
            )
    return found, problems


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
