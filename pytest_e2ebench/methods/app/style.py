"""RealDevWorld's evaluation style (issue #15): an app with no tests, its Executability, then
LLM-written test cases played by a browser agent and judged. Registered for ``kind = "app"``
in :data:`pytest_e2ebench.run.evaluation.EVALUATIONS` through :data:`EVALUATIONS` here."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...agents.sdagent import CHARS_PER_TOKEN
from ...errors import InfrastructureError
from ...llm.factory import require_endpoint
from ...run.cache import locked
from ...run.evaluation import Environment, Outcomes, WebScenarios
from ...run.plan import Steps
from . import app_settings
from .cases import generate_cases
from .evaluate import evaluate_app

# What an app task without a model needs: its judge is an LLM whatever agent wrote the app.
APP_WITHOUT_MODEL = (
    "An app task's cases are played by an LLM driving a browser, for every agent (the "
    "reference too): give it a model, or leave the app tasks out (the default --e2e-tasks="
    "benchmark_tasks has none; benchmark_apps/ holds them, docs/apps.md)."
)


class AppCases(WebScenarios):
    """An app with no tests (RealDevWorld, issue #15): its Executability, then LLM-written test
    cases played by a browser agent and judged."""

    drops_materials = False
    # its cases are a model's answer: a census drawn from them is not the plan's to key
    shares_census = False

    def judge_mode(self, settings) -> str:
        """The browser agent's cases decide; ``--e2e-judge=llm`` adds the LLM-score baseline
        to the run (``evaluate_app``), not votes on the features."""
        return "tests"

    def run(self, steps: Steps, env: Environment, repo: Path, repo_hash: str) -> Outcomes:
        """The app's cases (shared by every agent and run of a model), played and judged."""
        ctx, settings = steps.ctx, steps.settings
        steps.now("tests")
        stage = steps.stage("app-eval", "eval", venv=env.key, repo_hash=repo_hash)
        test_run = stage.load()
        if test_run is None:
            eval_dir = stage.reset()
            extended = evaluate_app(
                ctx.task,
                repo,
                env.python,
                eval_dir,
                llm_of=lambda: _app_llm(ctx),
                cases_of=lambda llm: _app_cases(steps, llm),
                sandbox=ctx.sandbox,
                timeout=settings.timeout,
                max_steps=app_settings(settings).steps,
                context_chars=settings.context_tokens * CHARS_PER_TOKEN,
                baseline=settings.judge in ("llm", "both"),
                scope=f"{ctx.scope}/app",
                progress=ctx.progress,
            )
            test_run = {"extended": extended, "original": None, "all_coverage": None}
            test_run = stage.commit(test_run)
        return Outcomes(test_run, {}, stage.key)


def _app_llm(ctx):
    """The app judge's model. Only an executable app needs one: the empty project is graded
    without a model."""
    try:
        require_endpoint(
            ctx.settings,
            f"the app task {ctx.task.id} (judged by a browser agent, whatever the agent)",
            APP_WITHOUT_MODEL,
        )
    except pytest.UsageError as exc:
        raise InfrastructureError("judge", str(exc)) from None
    return ctx.llm()


def _app_cases(steps: Steps, llm) -> list[dict]:
    """One set of cases per task and model, shared by every agent and run (cached)."""
    task, settings = steps.ctx.task, steps.settings
    shared = settings.out / ".shared"
    with locked(shared):
        cases = steps.stage("app-cases", f"app-cases-{task.id}", folder=shared)
        found = cases.load()
        if found is None:
            cases.reset()
            wanted = app_settings(settings).cases
            found = cases.commit(generate_cases(llm, task, wanted, f"app/{task.id}"))
    return found["cases"]


EVALUATIONS = {"app": AppCases()}
