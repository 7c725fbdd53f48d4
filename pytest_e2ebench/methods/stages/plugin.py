"""DevEval's lifecycle stages as a built-in plugin (docs/stages.md): the pairwise design judge
and the ``stages`` report section, through the hooks an outside plugin would implement.

Registered by :func:`pytest_e2ebench.plugin.pytest_configure` as ``e2ebench-stages``; the
implementations are ``trylast``, so a plugin's own wins.
"""

from __future__ import annotations

import pytest

from ...contracts import DesignJudgement
from . import design, report


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
