"""Hooks of pytest-e2ebench, added with ``pytest_addhooks``.

Implement them in a ``conftest.py`` or a plugin. Factory hooks are ``firstresult``: the first
implementation returning something other than None wins, and the built-ins run last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from .agents import Agent
    from .llm import LLM
    from .options import Settings
    from .task import Task


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_make_agent(spec: str, config: pytest.Config) -> Agent | None:
    """Return the agent for the ``--e2e-agent`` name ``spec``, or None if it is not yours.

    :param spec: one comma-separated part of ``--e2e-agent`` as typed, e.g. ``"dir:./out"``.
    :param config: the pytest config.

    Raise :class:`pytest.UsageError` for a name that is yours but malformed.
    """


def pytest_e2ebench_agent_names(config: pytest.Config) -> list[str]:
    """Return the agent names your plugin offers, for ``--help`` and error messages."""


def pytest_e2ebench_run_finished(config: pytest.Config, record: dict) -> None:
    """Called on the worker that evaluated a (task, agent, run), with its JSON-able record.

    The record is the entry that ``results.json`` will hold under ``tasks``; do not mutate it.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_make_llm(config: pytest.Config, settings: Settings) -> LLM | None:
    """Return the LLM client agents use, or None to leave it to the next implementation.

    The built-in implementation (tried last) is an OpenAI-compatible client configured by
    ``--e2e-model``, ``--e2e-llm-base-url`` and ``OPENAI_API_KEY``. The harness wraps whatever
    is returned with the ``--e2e-llm-cache`` record/replay cache.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_migrate_tests(
    config: pytest.Config, task: Task, repo: Path, out: Path, mode: str
) -> dict | None:
    """Write the task's reference tests, adapted to the project in ``repo``, into ``out``.

    :param mode: the ``--e2e-migrate`` value; return None for modes that are not yours.
    :returns: a JSON-able report (``migrator``, and optionally ``mapped`` and ``missing``).

    ``repo`` is read-only while this runs and is hashed before and after: a migration that
    changes it is rejected. Keep each test's name and requirement markers; a test with fewer
    assertions than its original, or a dropped test, counts as failed.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_judge_requirements(
    config: pytest.Config, task: Task, repo: Path, tests: list[dict], mode: str, run_dir: Path
) -> dict | None:
    """Decide every requirement of ``task`` for the project in ``repo``.

    :param tests: the reference tests' results (``nodeid``, ``outcome``, ``message``,
        ``requirements``).
    :param mode: the ``--e2e-judge`` value; return None for modes that are not yours.
    :returns: ``{"verdicts": [{"id", "verdict", ...} per requirement], ...}``; other keys are
        copied into the run's results.json entry.
    """


@pytest.hookspec(firstresult=True)
def pytest_e2ebench_judge_design(
    config: pytest.Config, task: Task, answer: dict, baseline: dict, scope: str
) -> dict | None:
    """Compare an agent's software design with a baseline design (DevEval's pairwise judge).

    :param answer: the agent's design files by artefact (``class``, ``sequence``,
        ``architecture``; the text, or None when missing).
    :param baseline: the baseline design, same shape (the task's ``design/baseline/`` or its
        reference design).
    :param scope: names the conversations in the LLM cache.
    :returns: None to leave it to the next implementation (the built-in runs only with
        ``--e2e-judge=llm|both``), else a JSON-able dict with ``win_rate`` and
        ``win_rate_no_ties`` (fractions, or None) and whatever else to keep in the stage's
        record. Ask each comparison twice with the order swapped: a preference that does not
        survive the swap is a tie.
    """
