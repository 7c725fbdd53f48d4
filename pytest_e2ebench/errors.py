"""The plugin's exception and warning hierarchy.

Two kinds of problem must never be confused in a benchmark: a problem of the *harness or its
infrastructure* (a virtual environment that cannot be built, an LLM endpoint that is down) is an
**error** on the requirement items, while a shortcoming of the *agent's output* is a **failure**.
"""

from __future__ import annotations

import pytest

from .untrusted.text import printable


class E2EBenchError(Exception):
    """Base class of every error raised by pytest-e2ebench."""


class TaskError(E2EBenchError):
    """A benchmark task folder is malformed.

    Carries every problem found, each naming the file, the field and the fix, so a task author
    sees them all at once.
    """

    def __init__(self, task_dir: str, problems: list[str]) -> None:
        self.task_dir = task_dir
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"invalid benchmark task {task_dir}:\n{lines}")


class InfrastructureError(E2EBenchError):
    """The harness could not evaluate a run for reasons that are not the agent's fault."""

    def __init__(self, stage: str, message: str) -> None:
        self.stage = stage
        super().__init__(f"[{stage}] {message}")


class AgentError(InfrastructureError):
    """An agent could not produce output because of the harness or its environment."""

    def __init__(self, message: str) -> None:
        super().__init__("agent", message)


class RunFailed(E2EBenchError):
    """An unexpected exception ended a run's pipeline: a bug of the harness or of a plugin.

    Not an infrastructure problem, not the agent's output: the run is recorded as a harness
    error (issue 13.5) and the traceback is kept in ``traceback_file``.
    """

    def __init__(self, stage: str, exc: BaseException, traceback_file: str) -> None:
        self.stage = stage
        self.exc_type = type(exc).__name__
        self.traceback_file = traceback_file
        super().__init__(f"[{stage}] {self.exc_type}: {exc} (traceback: {traceback_file})")


class AgentFileError(E2EBenchError, ValueError):
    """A file from outside the harness could not be taken as data: the author's failure.

    Raised by the bounded parser (:mod:`pytest_e2ebench.untrusted.parse`) for an agent-written
    or peer-published file that is a link, too large, not UTF-8, nested too deeply or not valid
    JSON/TOML, whatever the underlying library raised (RecursionError and MemoryError
    included). ``where`` names the file, ``problem`` says what is wrong with it. The agent's
    (or the dataset's) failure, graded and counted; never a harness error. A ValueError, so
    code that handled ``json.loads``'s errors handles it too.
    """

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        # the name is the author's: printed, its control characters would drive a terminal
        super().__init__(f"{printable(where, lines=False)}: {printable(problem)}")


class E2EBenchWarning(pytest.PytestWarning):
    """A non-fatal problem noticed by pytest-e2ebench."""
