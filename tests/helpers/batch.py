"""One benchmark session shared by many tests (docs/testing.md): Batch, SharedSession and their folders."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from helpers.tasks import (
    CALC_CODE,
    TaskFactory,
)
from pytest_e2ebench.run.cache import remove

# Plugins a machine may have installed that no benchmark session here uses: each one's import
# cost every session this suite starts 1-3 s (hypothesis and pytest-benchmark: 2.5-4 s in all
# per session on the CI image, measured with an empty `pytest -q`). Blocking a name that is
# not installed does nothing, so the sessions' own plugins are unchanged (issue 27).
QUIET_PLUGINS = "-p no:hypothesispytest -p no:benchmark -p no:anyio"


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


def run_result(done: subprocess.CompletedProcess) -> pytest.RunResult:
    """A :class:`Batch` session's process as pytester's result (``assert_outcomes``,
    ``parseoutcomes``, ``stdout.fnmatch_lines``), for readers that match it as pytester's."""
    return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), 0)
