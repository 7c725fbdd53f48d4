"""The fixtures of a task's own checks (``checks/test_*.py``), and the recorder of their results.

Loaded with ``-p`` into the check session :func:`pytest_e2ebench.evaluation.checks.run_checks`
starts: the
harness's interpreter, plugin autoload off, the task's ``checks/`` copied into a folder the
harness owns. A check is task content (trusted); the project it looks at is not, so the
fixtures only ever hand it *data*: bounded reads that never follow a link (:class:`RepoView`),
the output of commands run in the sandbox (:class:`VenvRunner`) and the answers of a
sandboxed browser (:class:`AppView`). Nothing here imports the generated code.

The session's context (paths, sandbox mode, limits) comes as JSON in the file named by
:data:`CONTEXT_ENV`; the results go to the file it names as ``results``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import stat
from pathlib import Path

import pytest

from ...environment.web import ENTRY_PAGE
from ...isolation.intake import IntakeLimits, copy_tree, read_bytes, walk
from ...isolation.sandbox import Sandbox
from ...methods.app import AppSpec, app_spec
from ...methods.app.session import BrowserSession
from ...probe import project_env
from ...taskmodel.task import Requirement, Task, fetch_reference, load_task

CONTEXT_ENV = "E2EBENCH_CHECKS_CONTEXT"
MAX_READ = 4 << 20  # bytes a check may read of one project file at once
MAX_MESSAGE = 2000  # characters of a failing check's report kept
_CONTEXT = pytest.StashKey[dict]()
_REQS = "e2ebench_requirements"  # the user property naming a case's requirements


class RepoView:
    """The generated project, read-only: bounded reads that never follow a link.

    Paths are relative to the project's root; a path through a link, or to anything but a
    regular file, reads as missing (None).
    """

    def __init__(self, root: Path) -> None:
        self._root = root

    def read_bytes(self, rel: str, max_bytes: int = MAX_READ) -> bytes | None:
        """The file's bytes (at most ``max_bytes``), or None when missing or too large."""
        return read_bytes(self._root, rel, max_bytes)

    def read_text(self, rel: str, max_bytes: int = MAX_READ) -> str | None:
        """The file as UTF-8 text (undecodable bytes replaced), or None like :meth:`read_bytes`."""
        data = self.read_bytes(rel, max_bytes)
        return None if data is None else data.decode("utf-8", "replace")

    def exists(self, rel: str) -> bool:
        """True when ``rel`` is a regular file of the project (links do not count)."""
        return rel in set(self.files())

    def files(self) -> list[str]:
        """Relative paths of the project's regular files, sorted (walked without links)."""
        return sorted(
            rel
            for rel, _fd, st in walk(self._root, skip=("__pycache__",))
            if stat.S_ISREG(st.st_mode)
        )


@dataclasses.dataclass(frozen=True)
class CommandResult:
    """What a command run in the sandbox did; ``output`` is stdout and stderr, interleaved."""

    returncode: int | None  # None when it was killed at its time limit
    output: str
    # not in the repr: an assertion's message (a verdict's message) must not vary from run to run
    duration_s: float = dataclasses.field(repr=False)
    timed_out: bool = False


class VenvRunner:
    """Runs commands in the run's environment, inside the sandbox (as the test stage does).

    Each command gets a fresh writable copy of the project as its working folder, so what one
    command writes neither reaches the graded project nor the next command.
    """

    def __init__(self, context: dict, work: Path) -> None:

        self.python = Path(context["python"])
        self._repo = Path(context["repo"])
        self._work = work
        self._sandbox = Sandbox(mode=context["sandbox"])
        self._limit = float(context["timeout"])
        self._count = itertools.count(1)

    def run(self, args: list[str], *, timeout: float = 30.0) -> CommandResult:
        """Run ``args`` (a leading ``"python"`` is the environment's interpreter) in the sandbox.

        ``timeout`` is capped by the session's ``--e2e-timeout``.
        """
        args = [str(self.python) if i == 0 and a == "python" else a for i, a in enumerate(args)]
        where = self._work / f"command-{next(self._count)}"
        home = where / "home"
        home.mkdir(parents=True)
        cwd = where / "project"
        copy_tree(self._repo, cwd, IntakeLimits())
        done = self._sandbox.run(
            args,
            cwd=cwd,
            env=project_env(self.python, home),
            timeout=min(timeout, self._limit),
            log=where / "output.log",
            writable=[cwd, home],
            # as in the test stage: the environment, and the project an editable install uses
            readable=[self.python.parent.parent, self._repo],
        )
        return CommandResult(done.returncode, done.output, done.duration_s, done.timed_out)


class AppView:
    """The project served as the task's kind says, in a sandboxed headless Chromium.

    ``start`` holds what starting it found (``executable``, ``errors``); :meth:`observe` gives
    the page's accessibility tree, URL and title; :meth:`act` does one action
    (``{"action": "click", "node": 3}``, ``type`` with ``text``, ``key``, ``scroll``, ``goto``
    with ``url``); :meth:`reset` goes back to the first page with the origin's storage cleared.
    """

    def __init__(self, session, start: dict) -> None:
        self._session = session
        self.start = start

    @property
    def executable(self) -> bool:
        """True when the app started and its first page loaded without a breaking error."""
        return bool(self.start.get("executable"))

    def observe(self) -> dict:
        """``{"tree", "url", "title", "screenshot"}`` of the page now."""
        return self._session.command("observe")

    def act(self, action: dict) -> dict:
        """Do one action; ``{"ok": bool, "result": str}``."""
        return self._session.command("act", action=action)

    def reset(self) -> dict:
        """Back to the first page, as a new user sees it."""
        return self._session.command("reset")


def pytest_configure(config: pytest.Config) -> None:
    with open(os.environ[CONTEXT_ENV], encoding="utf-8") as fh:
        config.stash[_CONTEXT] = json.load(fh)
    config.pluginmanager.register(
        Recorder(Path(config.stash[_CONTEXT]["results"])), "e2ebench-checks-recorder"
    )
    config.addinivalue_line(
        "markers", "requirement(*ids): the requirement(s) this check counts toward"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``e2e_requirement``: one case per requirement named by the check's markers."""
    if "e2e_requirement" not in metafunc.fixturenames:
        return
    task = load_task(Path(metafunc.config.stash[_CONTEXT]["task"]))
    known = {r.id: r for r in task.requirements}
    ids = [i for m in metafunc.definition.iter_markers("requirement") for i in m.args]
    wanted = [known[i] for i in dict.fromkeys(ids) if i in known]
    metafunc.parametrize("e2e_requirement", wanted, ids=[r.id for r in wanted])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        requirement = callspec.params.get("e2e_requirement") if callspec else None
        if isinstance(requirement, Requirement):
            ids = [requirement.id]
        else:
            ids = [i for m in item.iter_markers("requirement") for i in m.args]
        item.user_properties.append((_REQS, list(dict.fromkeys(ids))))


@pytest.fixture(scope="session")
def e2e_task(pytestconfig: pytest.Config) -> Task:
    """The task, as loaded by the harness (requirements, kind, limits), with its fetched
    reference (``[source]``) when the run's fetch left it in the cache."""
    return fetch_reference(load_task(Path(pytestconfig.stash[_CONTEXT]["task"])), download=False)


@pytest.fixture(scope="session")
def e2e_repo(pytestconfig: pytest.Config) -> RepoView:
    """The generated project, read-only (:class:`RepoView`)."""
    return RepoView(Path(pytestconfig.stash[_CONTEXT]["repo"]))


@pytest.fixture(scope="session")
def e2e_venv(pytestconfig: pytest.Config, tmp_path_factory) -> VenvRunner:
    """Run a command in the run's environment, sandboxed (:class:`VenvRunner`)."""
    context = pytestconfig.stash[_CONTEXT]
    return VenvRunner(context, Path(context["work"]) / "venv")


@pytest.fixture(scope="session")
def e2e_app(pytestconfig: pytest.Config, e2e_task: Task):
    """The project served (web: as static files; app: by its launch contract) in a browser.

    Only for ``web`` and ``app`` tasks; elsewhere the check fails saying so.
    """

    if e2e_task.kind not in ("web", "app"):
        pytest.fail(f"e2e_app: the task's kind is {e2e_task.kind!r}; only web and app tasks serve")
    context = pytestconfig.stash[_CONTEXT]
    work = Path(context["work"]) / "app"
    app_dir = work / "project"
    copy_tree(Path(context["repo"]), app_dir, IntakeLimits())
    spec = app_spec(e2e_task) or AppSpec(entry=ENTRY_PAGE, network=e2e_task.network)
    with BrowserSession(
        python=Path(context["python"]),
        app_dir=app_dir,
        spec=spec,
        work=work / "session",
        sandbox=Sandbox(mode=context["sandbox"]),
        timeout=float(context["timeout"]),
        command_limit=e2e_task.test_timeout,
    ) as session:
        yield AppView(session, session.start())


@pytest.fixture
def e2e_requirement() -> Requirement:
    """The requirement this case counts toward (the check is parametrized over its markers)."""
    pytest.fail("e2e_requirement needs @pytest.mark.requirement(...) naming known requirements")


class Recorder:
    """Collects one record per check case and writes them all at the end of the session."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self.tests: dict[str, dict] = {}
        self.collect_errors: list[dict] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A case is an error (setup/teardown), failed, passed or skipped."""
        rec = self.tests.setdefault(
            report.nodeid,
            {
                "nodeid": report.nodeid,
                "outcome": "passed",
                "message": "",
                "duration": 0.0,
                "requirements": dict(report.user_properties).get(_REQS, []),
                "when": "call",
            },
        )
        rec["duration"] = round(rec["duration"] + report.duration, 3)
        if report.passed or rec["outcome"] in ("failed", "error"):
            return
        if report.skipped:
            rec["outcome"] = "skipped"
            rec["message"] = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
            return
        rec["outcome"] = "failed" if report.when == "call" else "error"
        rec["when"] = report.when
        # the assertion's message first (the whole report is in the session's log)
        crash = getattr(report.longrepr, "reprcrash", None)
        rec["message"] = (crash.message if crash else report.longreprtext)[:MAX_MESSAGE]

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            # the error itself is the last line (an import error's traceback comes first)
            lines = [line for line in report.longreprtext.splitlines() if line.strip()]
            self.collect_errors.append(
                {"nodeid": report.nodeid, "message": " ".join(lines[-1:])[:MAX_MESSAGE]}
            )

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        out = {
            "tests": list(self.tests.values()),
            "collect_errors": self.collect_errors,
            "exitstatus": int(exitstatus),
        }
        self.results.write_text(json.dumps(out), encoding="utf-8")
