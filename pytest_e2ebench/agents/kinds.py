"""What an LLM agent is asked to deliver, by task kind, and how its delivery is checked (#13.4).

* ``library``, ``cli``, ``data``: an installable Python project (``pyproject.toml`` at the root);
* ``web``: a static HTML/CSS/JS app, ``index.html`` at the root, with the ``data-testid``
  attributes the requirements document states (the scenarios find elements by them);
* ``app``: whatever the task's launch contract (``[app]``) starts: the entry page of a static
  app, or the files its command names.

The delivery check reads the workspace as data (bounded, never through a link): it looks for
the files the contract needs and, for a web app, for every stated ``data-testid`` in the
page's HTML or scripts. It does not run anything; the page itself is loaded when the run is
graded.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from ..environment.web import ENTRY_PAGE
from ..environment.workspace import WEB_SUFFIXES, code_files
from ..isolation.intake import read_bytes

PYTHON_KINDS = ("library", "cli", "data")
MAX_PAGE_BYTES = 4 << 20  # bytes of one HTML or script file the check reads
MAX_SCRIPTS = 200  # HTML and script files searched for the stated data-testids
# data-testid="x" written out, and the first cell of a table whose header names data-testid
_TESTID_ATTR = re.compile(r"""data-testid\s*=\s*["']([\w.:-]+)["']""")
_CELL = re.compile(r"^\|\s*`([\w.:-]+)`\s*\|")


def stated_testids(requirements: str) -> list[str]:
    """The ``data-testid`` values a requirements document states, in order of appearance."""
    found = list(_TESTID_ATTR.findall(requirements))
    in_table = False
    for line in requirements.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            in_table = False
            continue
        if "data-testid" in stripped.split("|")[1]:
            in_table = True
            continue
        match = _CELL.match(stripped) if in_table else None
        if match:
            found.append(match[1])
    return list(dict.fromkeys(found))


def delivery(task) -> str:
    """The part of an agent's instructions that says what to deliver for ``task``'s kind."""
    toolchain = task.slots.get("toolchain")
    if toolchain is not None:  # a task built with its own toolchain says it (issue 43)
        return toolchain.delivery()
    if task.kind == "web":
        ids = stated_testids(task.requirements_text)
        listed = f" ({', '.join(ids)})" if ids else ""
        return (
            f"Deliver a static web app: {ENTRY_PAGE} at the repository root, with its CSS and "
            "JavaScript in files beside it — no build step, no server, no package manager, "
            "nothing fetched from the network. It is opened as it is in a headless browser. Give "
            f"the elements exactly the data-testid attributes the document states{listed}."
        )
    if task.kind == "app":
        spec = task.slots.get("app")  # the apps' launch contract (methods.app.AppSpec)
        if spec is not None and spec.launch == "command":
            command = " ".join(spec.command)
            return (
                f"Deliver an app that starts with the command `{command}` run at the repository "
                "root and serves HTTP on the port in $PORT (also given in place of {port}); it "
                "is used through a headless browser. Files in materials/ are the task's "
                "supplementary materials."
            )
        entry = (spec.entry if spec is not None else "") or ENTRY_PAGE
        return (
            f"Deliver a static web app: {entry} at the repository root with its CSS and "
            "JavaScript beside it, served as static files and used through a headless browser. "
            "Files in materials/ are the task's supplementary materials."
        )
    return (
        "Deliver an installable Python project: a pyproject.toml and the package the document "
        "names, at the repository root."
    )


def tooling(task) -> str:
    """What the agent's shell offers for the task's kind, and how to test there."""
    if task.slots.get("toolchain") is not None:
        tools = ", ".join(task.slots.get("toolchain").tools) or "the system's"
        return f"There is no network; the shell has the task's tools ({tools}) on PATH."
    if task.kind in PYTHON_KINDS:
        return (
            "There is no network: the shell's Python has pip, setuptools and pytest, so install "
            "the project with `pip install --no-build-isolation -e .`."
        )
    return (
        "There is no network and no browser in the shell; it has Python with pytest, so check "
        "your pages with tests that read the files (e.g. with html.parser)."
    )


def check_delivery(task, workspace: Path) -> list[str]:
    """What the workspace lacks of the delivery ``task``'s kind asks for (empty: delivered)."""
    if task.slots.get("toolchain") is not None:
        return []  # its suites say what is missing: a build that fails fails its tests
    if task.kind in PYTHON_KINDS:
        if not any(_read(workspace, name) is not None for name in ("pyproject.toml", "setup.py")):
            return ["no pyproject.toml at the repository root: the project cannot be installed"]
        return []
    app = task.slots.get("app")
    if task.kind == "app" and app is not None and app.launch == "command":
        named = [a for a in app.command if "/" in a or Path(a).suffix]
        named = [a for a in named if not a.startswith("-") and "{" not in a]
        return [
            f"{a}: the launch command names it, but the repository has no such file"
            for a in named
            if not Path(a).is_absolute() and _read(workspace, a) is None
        ]
    entry = (app.entry if app is not None else "") or ENTRY_PAGE
    page = _read(workspace, entry)
    if page is None:
        return [f"no {entry} at the repository root: there is no page to load"]
    problems = []
    parser = _Ids()
    try:
        parser.feed(page.decode("utf-8", "replace"))
    except Exception as exc:  # noqa: BLE001 - html.parser's own limits: a problem, not a crash
        problems.append(f"{entry} cannot be parsed: {exc}")
    if task.kind == "web":
        scripts = "".join(
            (_read(workspace, rel.as_posix()) or b"").decode("utf-8", "replace")
            for rel in code_files(workspace, WEB_SUFFIXES)[:MAX_SCRIPTS]
        )
        missing = [
            i
            for i in stated_testids(task.requirements_text)
            if i not in parser.ids and i not in scripts
        ]
        if missing:
            problems.append(
                f"data-testid {', '.join(missing)}: stated by the requirements, but in no HTML "
                "or JavaScript file"
            )
    return problems


def _read(workspace: Path, rel: str) -> bytes | None:
    return read_bytes(workspace, rel, MAX_PAGE_BYTES)


class _Ids(HTMLParser):
    """The data-testid values of a page's markup."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "data-testid" and v)
