"""RealDevWorld's apps as a built-in plugin (docs/apps.md).

An entry of the ``pytest_e2ebench.methods`` registry, registered as the plugin
``e2ebench-apps``. An app task is evaluated by the ``AppCases`` evaluation style
(``EVALUATIONS``); its record keys (``app``, SQ) come from that style. This module holds the
hooks an outside plugin would implement for it (its options, its plan fields; it has none of
the report or design hooks yet).
"""

from __future__ import annotations

import pytest

from ...options import add_options, number
from . import DEFAULT_STEPS, NAME, PLAN_SLOT, AppSettings, app_settings, app_spec

DEFAULT_APP_CASES = "15-20"  # RealDevWorld §3.2


OPTIONS = (
    (
        "app-cases",
        DEFAULT_APP_CASES,
        "app tasks: how many test cases the LLM writes from the feature list "
        f"(default {DEFAULT_APP_CASES}).",
        {"metavar": "MIN-MAX"},
    ),
    (
        "app-steps",
        str(DEFAULT_STEPS),
        "app tasks: browser actions the judging agent may take per test case; "
        f"then the case is Uncertain (default {DEFAULT_STEPS}).",
        {"type": int, "metavar": "N"},
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--e2e-app-cases`` and ``--e2e-app-steps`` (and their ini twins)."""
    add_options(parser, OPTIONS)


def pytest_e2ebench_settings(config: pytest.Config) -> dict:
    """The apps' :class:`AppSettings`: cases (MIN-MAX) and steps, checked."""
    opt = config.option
    steps = number(config, opt.e2e_app_steps, "e2ebench_app_steps", "--e2e-app-steps", int)
    if steps < 1:
        raise pytest.UsageError(f"--e2e-app-steps={steps}: must be 1 or more")
    raw = opt.e2e_app_cases or str(config.getini("e2ebench_app_cases"))
    return {"methods": {NAME: AppSettings(cases=_app_cases(raw), steps=steps)}}


def pytest_e2ebench_plan_fields(ctx) -> dict | None:
    """An app task's plan: its app table and the judging agent's steps, cases, judge and
    model (the keys of its cases and its evaluation)."""
    task, settings = ctx.task, ctx.settings
    spec = app_spec(task)
    if spec is None:
        return None
    app = app_settings(settings)
    return {
        PLAN_SLOT: {
            "app": spec.to_dict(),
            "app_steps": app.steps,
            "app_cases": app.cases,
            "app_judge": settings.judge,
            "model": settings.model,
        }
    }


def _app_cases(raw: str) -> tuple[int, int]:
    """``MIN-MAX`` (or one number) of --e2e-app-cases."""
    low, _, high = raw.partition("-")
    try:
        bounds = (int(low), int(high or low))
    except ValueError:
        bounds = (0, 0)
    if not 1 <= bounds[0] <= bounds[1]:
        raise pytest.UsageError(
            f"--e2e-app-cases={raw!r}: write MIN-MAX with 1 <= MIN <= MAX, e.g. 15-20"
        )
    return bounds
