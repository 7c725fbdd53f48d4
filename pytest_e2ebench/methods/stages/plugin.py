"""DevEval's lifecycle stages as a built-in plugin (docs/stages.md): the pairwise design judge
and the ``stages`` report section, through the hooks an outside plugin would implement.

An entry of the ``pytest_e2ebench.methods`` registry, registered as the plugin
``e2ebench-stages``; the implementations are ``trylast``, so a plugin's own wins.
"""

from __future__ import annotations

import pytest

from ...contracts import DesignJudgement
from ...options import add_options, source
from . import MODES, NAME, STAGES, StageSettings, design, items, parse_stages, report

OPTIONS = (
    (
        "stage",
        "implement",
        "DevEval lifecycle stage(s) to grade: design, setup, implement, acceptance-tests, "
        "unit-tests (comma-separated) or all (default implement; see docs/stages.md).",
        {"metavar": "STAGE[,STAGE...]|all"},
    ),
    (
        "stage-mode",
        "modular",
        "what a stage is given of the earlier stages: modular (default: the task's "
        "reference outputs, as DevEval) or e2e (the agent's own outputs in the same run).",
        {"choices": MODES},
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--e2e-stage`` and ``--e2e-stage-mode`` (and their ini twins)."""
    add_options(parser, OPTIONS)


def pytest_e2ebench_settings(config: pytest.Config) -> dict:
    """``stages`` (a field of ``Settings``: the run's identity depends on them) and DevEval's
    :class:`StageSettings` (the mode), checked."""
    opt = config.option
    raw = opt.e2e_stage if opt.e2e_stage is not None else str(config.getini("e2ebench_stage"))
    try:
        stages = parse_stages(raw)
    except ValueError as exc:
        raise pytest.UsageError(
            f"{source(config, 'stage')}={raw!r}: unknown stage {exc}; use one or more of "
            f"{', '.join(STAGES)} (comma-separated), or all"
        ) from None
    mode = opt.e2e_stage_mode or str(config.getini("e2ebench_stage_mode"))
    if mode not in MODES:
        raise pytest.UsageError(
            f"ini option e2ebench_stage_mode={mode!r}: use one of {', '.join(MODES)}"
        )
    return {"stages": stages, "methods": {NAME: StageSettings(mode=mode)}}


def pytest_e2ebench_run_items(collector, task, agent, run) -> list:
    """A run's stage items (one per graded artefact of each selected stage but implement)."""
    return items.run_items(collector, task, agent, run)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_judge_design(task, answer: dict, baseline: dict, scope: str, ctx):
    """The built-in pairwise judge (only with ``--e2e-judge=llm`` or ``both``)."""
    if ctx.settings.judge not in ("llm", "both"):
        return None
    judged = design.pairwise(ctx.llm(), task.requirements_text, answer, baseline, scope)
    return DesignJudgement.from_dict(judged)


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_report_sections(config) -> list:
    """results.json's ``stages`` and the ``e2ebench stages`` table."""
    return [report.SECTION]
