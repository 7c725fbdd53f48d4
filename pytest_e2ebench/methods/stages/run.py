"""Evaluate one (task, agent, run, stage) for the stages besides ``implement``.

The stage's folder is ``<out>/<agent>/<task>/run-<n>/stage-<stage>/``: ``inputs/`` (what the
agent is given: the earlier stages' outputs), ``repo/`` (what it wrote, after intake) and
``grade/``, each cached by the hash of its inputs like the implement pipeline's stages.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from ...contracts import DesignJudgement, check_design
from ...isolation.intake import SKIP_PATTERNS, IntakeLimits, copy_tree, read_text
from ...run.cache import file_hash, locked, tree_hash
from ...run.generate import Ask, generate
from ...run.plan import RunPlan
from ...run.record import stage_record
from ...taskmodel.mutants import MUTANTS_FILE
from ..toolchain import toolchain_of, written
from ..toolchain.style import ToolchainSuite
from . import (
    ACCEPTANCE_DIR,
    ARTEFACT_PATHS,
    DESIGN_DIR,
    IMPLEMENT,
    PLAN_SLOT,
    STAGES,
    UNIT_DIR,
    StageReferences,
    design,
    earlier,
    setup,
    stage_settings,
    testing,
)
from .variants import VARIANT_FORMAT

BRIEF_BUDGET = 60_000  # characters of earlier-stage outputs shown in an LLM agent's brief
INSTRUCTIONS = {
    "design": (
        "This is the software-design stage: write no code. Write the design of the project "
        f"the requirements describe as three files: {ARTEFACT_PATHS['design'][0]} (a Mermaid "
        f"classDiagram of its classes with their methods), {ARTEFACT_PATHS['design'][1]} (a "
        "Mermaid sequenceDiagram of its main flow) and "
        f"{ARTEFACT_PATHS['design'][2]} (the file tree of the project, one path per line)."
    ),
    "setup": (
        "This is the environment-setup stage: write no code. Write requirements.txt listing "
        "the packages from the Python package index that the project needs at run time, one "
        "requirement per line (no URLs, paths or pip options). The harness installs it."
    ),
    "acceptance-tests": (
        "This is the acceptance-test stage: write pytest tests of the project's externally "
        f"visible behaviour, as the requirements state it, under {ACCEPTANCE_DIR}/ "
        "(test_*.py). They will be run against the real implementation; write no "
        "implementation."
    ),
    "unit-tests": (
        "This is the unit-test stage: write pytest unit tests of the given source's modules, "
        f"functions and classes under {UNIT_DIR}/ (test_*.py). They will be run against that "
        "source; write no implementation."
    ),
}


def instruction(stage: str, task=None) -> str:
    """What the agent is asked to write in ``stage`` (a toolchain task's own test folder and
    DevEval's prompt for it, for its test-writing stages)."""
    spec = toolchain_of(task)
    found = spec.stage_suite(stage) if spec is not None else None
    if found is None:
        return INSTRUCTIONS[stage]
    suite, folder, prompt = found
    return (
        f"This is the {stage} stage: write the tests as files under {folder}/ ({suite.format} "
        f"tests, built and run as the task's suite does: {suite.build or suite.run}). They will "
        f"be run against the real implementation; write no implementation.\n\n{prompt}"
    ).strip()


def reveals_reference(stage: str, mode: str) -> bool:
    """True when ``stage``'s inputs hold the task's reference outputs (modular mode: the
    reference design, and for unit-tests the reference source)."""
    return mode == "modular" and bool(earlier(stage))


def stage_inputs(task, agent_run_dir: Path, stage: str, mode: str, dest: Path) -> Path:
    """Fill ``dest`` with what ``stage`` is given: the reference's (modular) or own (e2e)."""
    dest.mkdir(parents=True)
    for before in earlier(stage):
        if before == "design":
            source = task.root if mode == "modular" else agent_run_dir / "stage-design" / "repo"
            src, into, skip = source / DESIGN_DIR, dest / DESIGN_DIR, ("baseline",)
        else:
            src = task.reference_dir if mode == "modular" else agent_run_dir / "repo"
            into, skip = dest / "src", ("tests", *SKIP_PATTERNS)
        if src.is_dir() and not src.is_symlink():
            # an agent's earlier output is project-zone data: copied without following links
            copy_tree(src, into, IntakeLimits(), ignore=skip)
    return dest


def brief(stage: str, inputs: Path, task=None) -> str:
    """The stage instruction and the inputs' text, for an LLM agent's prompt."""
    parts = [f"# Stage: {stage}\n\n{instruction(stage, task)}"]
    used = 0
    for path in sorted(p for p in inputs.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(inputs).as_posix()
        text = read_text(inputs, rel, BRIEF_BUDGET)
        if text is None or used + len(text) > BRIEF_BUDGET:
            parts.append(f"## {rel}\n[not shown: over the budget of {BRIEF_BUDGET} characters]")
            continue
        used += len(text)
        parts.append(f"## {rel}\n```\n{text}\n```")
    return "\n\n".join(parts)


def evaluate(evaluator, ctx) -> dict:
    """The stage record of the run ``ctx`` (a RunContext of a stage); see docs/stages.md."""
    task, agent, run, stage = ctx.task, ctx.agent, ctx.key.run, ctx.key.stage
    mode = stage_settings(ctx.settings).mode
    agent_run_dir = evaluator.run_dir(task, agent, run)
    if mode == "e2e":
        for before in earlier(stage):
            if before != IMPLEMENT:
                evaluator.evaluate(task, agent, run, before)  # its repo feeds this stage
            else:
                evaluator.evaluate(task, agent, run)
    if reveals_reference(stage, mode):
        evaluator.settle_implements(task.id, stage)
    steps = evaluator.steps(ctx)
    steps = dataclasses.replace(steps, plan=stage_plan(steps.plan, ctx))
    stage_dir = ctx.run_dir
    with locked(stage_dir):
        inputs = stage_dir / "inputs"
        shutil.rmtree(inputs, ignore_errors=True)
        stage_inputs(task, agent_run_dir, stage, mode, inputs)
        ask = Ask(task, stage_dir, stage=stage, brief=brief(stage, inputs, task), inputs=inputs)
        agent_data = generate(steps, ask)
        graded = steps.stage("stage-grade", "grade", repo_hash=agent_data["repo_hash"])
        grade = graded.load()
        if grade is None:
            work = graded.reset()
            ctx.progress({"doing": f"grading the {stage} stage's output"})
            scope = f"{ctx.key.for_stage(IMPLEMENT).name}/{stage}"  # in the LLM cache
            grade = graded.commit(grade_stage(steps, stage_dir / "repo", scope, work))
    return stage_record(ctx, agent_data, grade, mode)


def stage_plan(plan: RunPlan, ctx) -> RunPlan:
    """The run's plan with the stage's own inputs, from which its grade's key is derived
    (the method's ``STAGE_INPUTS``): the task's design and setup folders, its mutants, the
    judge and the variant's format, in the method's slot of the plan."""
    task, settings = ctx.task, ctx.settings
    mutants = task.root / MUTANTS_FILE
    design_dir, setup_dir = task.root / "design", task.root / "setup"
    fields = {
        "design_hash": tree_hash(design_dir) if design_dir.is_dir() else "",
        "setup_hash": tree_hash(setup_dir) if setup_dir.is_dir() else "",
        "mutants_hash": file_hash(mutants) if mutants.is_file() else "",
        "stage_judge": settings.judge,
        "stage_judge_model": settings.model if settings.judge != "tests" else "",
        "variant_format": VARIANT_FORMAT,  # the written tests also run on the variant (#26)
    }
    return plan.with_slot(PLAN_SLOT, fields)


def grade_stage(steps, repo: Path, scope: str, work: Path) -> dict:
    """The grade of a lifecycle stage's output in ``repo`` (docs/stages.md)."""
    ctx = steps.ctx
    task, stage, sandbox = ctx.task, ctx.key.stage, ctx.sandbox
    if stage == "design":
        result = design.grade(repo, task.root, work / "parse", sandbox)
        baseline_root = task.root / DESIGN_DIR / "baseline"
        baseline = design.read_design(baseline_root if baseline_root.is_dir() else task.root)
        judged = steps.config.hook.pytest_e2ebench_judge_design(
            config=steps.config,
            task=task,
            answer=check_design(design.read_design(repo), "the agent's design"),
            baseline=check_design(baseline, "the baseline design"),
            scope=scope,
            ctx=ctx,
        )
        if judged is not None:
            typed = DesignJudgement.coerce(judged)  # a malformed judgement says which field
            result["judge"] = typed.to_dict()
            result["metrics"].update(
                {"win_rate": typed.win_rate, "win_rate_no_ties": typed.win_rate_no_ties}
            )
        return result
    if stage == "setup":
        examples = StageReferences(task.root).examples
        return setup.grade(repo, task.reference_dir, examples, work, sandbox)
    if toolchain_of(task) is not None:  # its own suites, on the reference
        modules = ToolchainSuite().environment(steps, repo, "").install.get("node_modules")
        return written.grade(task, stage, repo, work, sandbox, ctx.settings.timeout, modules)
    folder = ACCEPTANCE_DIR if stage == "acceptance-tests" else UNIT_DIR
    shared = ctx.out / ".shared"
    return testing.grade(repo / folder, task, work, shared, sandbox, ctx.settings.timeout)


# the runner of each lifecycle stage besides implement (the run looks them up by name)
STAGE_RUNNERS = {stage: evaluate for stage in STAGES if stage != IMPLEMENT}
