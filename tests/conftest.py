"""Fixtures for the plugin's own tests: throw-away benchmark tasks in a few lines.

The suite leaves little behind in pytest's basetemp: all tests share one uv cache (uv's own,
outside basetemp; it is content-addressed and safe for concurrent use) instead of one per
pytester home, and the folders of a test that passed are removed when it ends (those of a
failed test are kept to look at, like ``tmp_path_retention_policy = "failed"``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pytest_e2ebench.environment.venv import uv_binary
from pytest_e2ebench.run.cache import remove
from pytest_e2ebench.schema import results_problems


def _uv_cache() -> Path:
    """uv's cache folder for the real user (asked at import: pytester later moves HOME)."""
    out = subprocess.run([uv_binary(), "cache", "dir"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


UV_CACHE = Path(os.environ.setdefault("UV_CACHE_DIR", str(_uv_cache())))
# uv makes its cache folder on first use; a fresh machine has none yet, and the tests that write
# beside it (the containment arenas' canaries) run before any venv is built (issue 46)
UV_CACHE.mkdir(parents=True, exist_ok=True)
# Plugins a machine may have installed that no benchmark session here uses: each one's import
# cost every session this suite starts 1-3 s (hypothesis and pytest-benchmark: 2.5-4 s in all
# per session on the CI image, measured with an empty `pytest -q`). Blocking a name that is
# not installed does nothing, so the sessions' own plugins are unchanged (issue 27).
QUIET_PLUGINS = "-p no:hypothesispytest -p no:benchmark -p no:anyio"
if QUIET_PLUGINS not in os.environ.get("PYTEST_ADDOPTS", ""):  # for plain subprocess sessions
    os.environ["PYTEST_ADDOPTS"] = f"{os.environ.get('PYTEST_ADDOPTS', '')} {QUIET_PLUGINS}".strip()
_FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="module")
def inprocess_verdicts():
    """Grade in one process (``E2EBENCH_VERDICT_MODE=inprocess``) for the module's sessions:
    the tests of the evidence layers that guard the suites which cannot run split (a split run
    keeps the attack away from pytest altogether, so it leaves no evidence to check)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("E2EBENCH_VERDICT_MODE", "inprocess")
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


@pytest.fixture(autouse=True)
def _tidy(request: pytest.FixtureRequest):
    """Remove what a passing test made under basetemp (pytester's folders, its runs' venvs)."""
    yield
    if request.node.stash.get(_FAILED, False):
        return
    pytester = request.node.funcargs.get("pytester")
    if pytester is not None:
        for path in (pytester.path, getattr(pytester, "_test_tmproot", None)):
            if path is not None:
                try:
                    remove(Path(path))
                except OSError:
                    pass  # best effort: a folder left behind is only disk space


PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1"
"""

CALC_CODE = {
    "add": "def add(a, b):\n    return a + b\n",
    "sub": "def sub(a, b):\n    return a - b\n",
    "mul": "def mul(a, b):\n    if a == 0 or b == 0:\n        return 0\n    return a * b\n",
}
CALC_TESTS = """\
import pytest
from calc import add, sub, mul


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("a, b, total", [(1, 2, 3), (0, 0, 0), (-1, 1, 0)])
def test_add(a, b, total):
    assert add(a, b) == total


@pytest.mark.requirement("R2")
def test_sub():
    assert sub(5, 3) == 2


@pytest.mark.requirement("R2")
def test_sub_negative():
    assert sub(3, 5) == -2


class TestMul:
    pytestmark = pytest.mark.requirement("R3")

    def test_mul(self):
        assert mul(3, 4) == 12

    def test_mul_zero(self):
        assert mul(0, 4) == 0
"""


def requirements_md(title: str, requirements: list[tuple[str, str]]) -> str:
    """A requirements.md with one ``### R<n>: <title>`` section per entry, each tagged core."""
    sections = "".join(
        f"### {rid}: {what}\nTags: core\n\n{what}.\n\n" for rid, what in requirements
    )
    return f"# {title}\n\n## Functional requirements\n\n" + sections


CALC_REQUIREMENTS = """\
# calc

## Functional requirements

### R1: Addition
Tags: core

`calc.add(a, b)` returns the sum.

### R2: Subtraction
Tags: core, extra

`calc.sub(a, b)` returns the difference.

### R3: Multiplication

`calc.mul(a, b)` returns the product.
"""


class TaskFactory:
    """Builds benchmark task folders under ``<root>/tasks`` for pytester runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tasks = root / "tasks"

    def write(self, path: Path, text: str) -> Path:
        """Write ``text`` (dedented) to ``path``, creating folders."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
        return path

    def make(
        self,
        task_id: str = "calc",
        *,
        requirements: str = CALC_REQUIREMENTS,
        tests: dict[str, str] | None = None,
        code: dict[str, str] | None = None,
        package: str = "calc",
        toml_extra: str = "",
        toml: str | None = None,
    ) -> Path:
        """A task folder: task.toml, requirements.md, reference/<package>/, tests/."""
        root = self.tasks / task_id
        self.write(
            root / "task.toml",
            toml
            if toml is not None
            else (
                f'id = "{task_id}"\ntitle = "A calculator"\nkind = "library"\n'
                f'language = "python"\ncreated = 2026-11-01\nsource = "tests"\n{toml_extra}'
            ),
        )
        self.write(root / "requirements.md", requirements)
        self.reference(root / "reference", code if code is not None else CALC_CODE, package)
        for name, text in (tests if tests is not None else {"test_calc.py": CALC_TESTS}).items():
            self.write(root / "tests" / name, text)
        return root

    def reference(self, where: Path, code: dict[str, str], package: str = "calc") -> Path:
        """An installable project with one module per entry of ``code``."""
        self.write(where / "pyproject.toml", PYPROJECT.format(name=package))
        names = ", ".join(sorted(code))
        init = (
            "".join(f"from .{m} import {m}\n" for m in sorted(code))
            + f"__all__ = [{', '.join(repr(m) for m in sorted(code))}]\n"
        )
        self.write(where / package / "__init__.py", init if names else "")
        for module, text in code.items():
            self.write(where / package / f"{module}.py", text)
        return where


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own, whose sessions leave out the plugins they never use (QUIET_PLUGINS);
    pytester removed the outer session's PYTEST_ADDOPTS before this runs."""
    monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)
    return pytester


@pytest.fixture
def tasks(pytester: pytest.Pytester) -> TaskFactory:
    """Make throw-away benchmark tasks inside the pytester directory."""
    return TaskFactory(pytester.path)


@pytest.fixture
def results(pytester: pytest.Pytester):
    """Read ``<dir>/results.json`` (default: the pytester run's ``.e2ebench``), validated
    against pytest_e2ebench/schema/results.schema.json."""

    def read(out: str | Path = ".e2ebench") -> dict:
        document = json.loads((pytester.path / out / "results.json").read_text())
        # every session of the suite checks its results.json against the checked-in schema
        problems = results_problems(document)
        assert not problems, "results.json does not match its schema:\n" + "\n".join(problems)
        return document

    return read


def git(where: Path, *args: str) -> str:
    """Run git in ``where`` as a throw-away identity; its output."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": str(where)}
    return subprocess.run(
        ["git", *args], cwd=where, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def inodes(folder: Path) -> dict[str, int]:
    """The inode of each regular file under ``folder``, by relative path (which files two
    folders share: hard links, or copies of their own)."""
    return {
        str(p.relative_to(folder)): p.stat().st_ino
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


# --- one benchmark session shared by many tests (docs/testing.md) -----------------------------


class Batch:
    """One benchmark session in a folder of its own, run once and read by many tests.

    A module- or session-scoped fixture makes the tasks (``self.tasks``) and one ``dir:``
    submission per variant (``out/<task>/run-<n>/``), runs the session once in a subprocess
    (pytester, the in-process runner, is per test) and every parametrized test then asserts on
    its own run's record: the reference is built and censused once for all the variants.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tasks = TaskFactory(root)
        self.out = root / "out"
        self.done: subprocess.CompletedProcess | None = None

    def variant(self, task: str, run: int) -> Path:
        """The submission folder of run ``run`` of ``task`` (``dir:`` reads it)."""
        return self.out / task / f"run-{run}"

    def run(
        self, *args: str, timeout: float = 900, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        """``python -m pytest ARGS`` in the batch's folder, as pytester would run it, with
        ``env`` added to the environment."""
        env = dict(os.environ, HOME=str(self.root), USERPROFILE=str(self.root), **(env or {}))
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):
            env.pop(name, None)  # the outer session's, not the benchmark's
        env["PYTEST_ADDOPTS"] = QUIET_PLUGINS  # not the outer session's options
        command = [sys.executable, "-m", "pytest", f"--basetemp={self.root / 'basetemp'}"]
        self.done = subprocess.run(
            [*command, *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return self.done

    def results(self, out: str = ".e2ebench") -> dict:
        return json.loads((self.root / out / "results.json").read_text())

    def record(self, task: str, run: int, agent: str = "dir-out") -> dict:
        """The results.json record of one run; the session's output if it has none."""
        for record in self.results()["tasks"]:
            if (record["task"], record["run"], record["agent"]) == (task, run, agent):
                return record
        raise AssertionError(f"no record of {agent} {task} run {run}:\n{self.output()}")

    def output(self) -> str:
        done = self.done
        return "" if done is None else done.stdout[-4000:] + done.stderr[-2000:]


@contextlib.contextmanager
def batch_folder(request: pytest.FixtureRequest, tmp_path_factory, name: str):
    """A folder for a :class:`Batch`, removed at the end unless one of its readers failed."""
    root = tmp_path_factory.mktemp(name)
    failed_before = request.session.testsfailed
    yield root
    if request.session.testsfailed == failed_before:
        with contextlib.suppress(OSError):
            remove(root)


# --- one session of the calc task shared by the suite's readers of its outputs --------------

# R2 broken (sub adds): run 1 of the calc session's dir: agent; its run 2 is the reference's code
CALC_MUTANT = dict(CALC_CODE, sub="def sub(a, b):\n    return a + b\n")
CALC_SESSION_ARGS = (
    "--e2e-agent=reference,nop,dir:out",
    "--e2e-tasks=tasks",
    "--e2e-runs=2",
    "--e2e-html=report.html",
    "--e2e-cov-report=term,html",
    "--e2e-cov-xml=ci/coverage.xml",
    "-rf",
)


class SharedSession(Batch):
    """A :class:`Batch` whose terminal output and JUnit XML the readers match as pytester's."""

    def run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        """:meth:`Batch.run`, writing the JUnit XML the readers read (``junit.xml``), with no
        cache folder (no reader needs one)."""
        return super().run(*args, "--junitxml=junit.xml", "-p", "no:cacheprovider", **kwargs)

    def _cases(self, agent: str, run: int, task: str):
        """The JUnit test cases of a run's items (of ``task`` only if given)."""
        for case in ElementTree.parse(self.root / "junit.xml").getroot().iter("testcase"):
            name = case.get("name", "")
            if f"{task}[{agent}-run-{run}-" in name and name.startswith(task):
                yield name, case

    def lines(self) -> pytest.LineMatcher:
        """The session's stdout, for ``fnmatch_lines`` as on a pytester result."""
        assert self.done is not None
        return pytest.LineMatcher(self.done.stdout.splitlines())

    def outcomes(self, agent: str, run: int, task: str = "") -> dict[str, str]:
        """JUnit outcome (passed, failed, error, skipped) of each of a run's items, by name
        (of ``task`` only if given)."""
        found = {}
        for name, case in self._cases(agent, run, task):
            tags = [child.tag for child in case if child.tag != "properties"]
            found[name] = next((t for t in tags if t != "system-out"), "passed")
        return found

    def failures(self, agent: str, run: int, task: str = "") -> str:
        """The failure and error texts (JUnit) of a run's items (of ``task`` only if given),
        one after the other."""
        texts = []
        for _, case in self._cases(agent, run, task):
            for child in case:
                if child.tag in ("failure", "error"):
                    texts += [child.get("message", ""), child.text or ""]
        return "\n".join(texts)


@pytest.fixture(scope="session")
def calc_session(request: pytest.FixtureRequest, tmp_path_factory) -> SharedSession:
    """One session over the calc task: reference, nop and ``dir:out`` (run 1 with R2 broken,
    run 2 correct), two runs each, with the HTML report, coverage reports and JUnit XML.

    Read by the tests in ``TestSharedCalc`` classes of any file: the root conftest's scheduler
    gives them all to one xdist worker, so the session is run once (docs/testing.md).
    """
    with batch_folder(request, tmp_path_factory, "calc-session") as root:
        batch = SharedSession(root)
        batch.tasks.make()
        batch.tasks.reference(batch.variant("calc", 1), CALC_MUTANT)
        batch.tasks.reference(batch.variant("calc", 2), CALC_CODE)
        batch.run(*CALC_SESSION_ARGS)
        problems = results_problems(batch.results())
        assert not problems, "results.json does not match its schema:\n" + "\n".join(problems)
        yield batch


def run_result(done: subprocess.CompletedProcess) -> pytest.RunResult:
    """A :class:`Batch` session's process as pytester's result (``assert_outcomes``,
    ``parseoutcomes``, ``stdout.fnmatch_lines``), for readers that match it as pytester's."""
    return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), 0)
