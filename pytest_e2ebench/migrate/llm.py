"""The LLM Test-Migration agent (E2EDevBench §3.1.2), on the shared tool layer.

It works in a scratch folder holding ``tests/`` (a copy of the reference tests, which it may
edit) and ``project/`` (a copy of the generated project, for reading). Its shell runs with the
run's environment, where the real project is installed and read-only. It must keep every test's
name and requirement markers and may only change how tests reach the project's API; a feature
the project lacks becomes ``pytest.fail("not implemented: ...")``. When it submits (or runs out
of steps), ``tests/`` becomes the migrated suite. Weakened or dropped tests are detected after
it, whatever it did.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from ..agents.sdagent import CHARS_PER_TOKEN, GROWN, fit_context
from ..agents.tools import Toolbox
from ..environment.venv import python_of
from ..llm.base import LLMRefused

SYSTEM = (
    "You migrate a project's reference tests onto a new implementation of the same "
    "requirements. The folder `tests/` holds the reference tests; `project/` holds the new "
    "implementation (read only: never change it). Edit only files under `tests/`, so that the "
    "tests exercise the new implementation's API (its package, module, class and function "
    "names and signatures) instead of the reference's. Rules: keep every test function, its "
    "name and its @pytest.mark.requirement markers; keep every assertion and its meaning; do "
    "not weaken or remove checks. When the implementation lacks a feature a test needs, make "
    'that test call pytest.fail("not implemented: <what>") instead. You may run the tests '
    "with `python -m pytest -q tests`. Call submit when done."
)


def migrate_with_llm(ctx, repo: Path, out: Path) -> dict:
    """Run the migration agent and write its ``tests/`` to ``out``; return the report."""
    task = ctx.task
    llm = ctx.llm()
    with (
        tempfile.TemporaryDirectory(prefix="e2ebench-migrate-") as tmp,
        tempfile.TemporaryDirectory(prefix="e2ebench-migrate-home-") as home,
    ):
        work = Path(tmp)
        work.chmod(0o755)  # the sandbox user reads it (and writes only its home)
        task.copy_tests(work / "tests")
        shutil.copytree(
            repo,
            work / "project",
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
        tools = _toolbox(ctx, work, Path(home), repo)
        listing = tools.tool_find("**/*")
        messages = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": f"# Requirements document\n\n"
                f"{task.requirements_text}\n\n# Files\n\n{listing}",
            },
        ]
        trajectory = ctx.run_dir / "logs" / "migration-trajectory.jsonl"
        budget = ctx.settings.context_tokens * CHARS_PER_TOKEN
        steps, tokens = _converse(
            tools, llm, messages, ctx.settings.max_steps, f"{ctx.scope}/migrate", trajectory, budget
        )
        shutil.copytree(work / "tests", out, ignore=shutil.ignore_patterns("__pycache__"))
    return {
        "migrator": "llm",
        "steps": steps,
        "tokens_sent": tokens[0],
        "tokens_generated": tokens[1],
        "trajectory": str(trajectory),
        "submitted": tools.submitted is not None,
    }


def _toolbox(ctx, work: Path, home: Path, repo: Path) -> Toolbox:
    """The migration agent's tools on the scratch folder ``work``.

    The shell runs the tests, so the project's code: it sees the scratch folder read-only (the
    migrated tests change only through the tools) and writes only its ``home``.
    """
    venv = ctx.run_dir / "venv"
    env = {
        "PATH": f"{python_of(venv).parent}:/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    logs = ctx.run_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return Toolbox(
        work,
        env,
        logs,
        command_timeout=min(300.0, ctx.settings.agent_timeout),
        writable="tests",
        sandbox=ctx.sandbox,
        extra_readable=(venv, repo),
        extra_writable=(home,),
        shell_writes=False,
    )


def _converse(
    tools: Toolbox,
    llm,
    messages: list[dict],
    max_steps: int,
    scope: str,
    trajectory: Path,
    budget: int = 1 << 30,
) -> tuple[int, list[int]]:
    """Step the agent until it submits or reaches ``max_steps``, each step logged to
    ``trajectory``: the steps taken and the tokens ``[sent, generated]``."""
    steps, tokens = 0, [0, 0]
    with trajectory.open("w") as log:
        while steps < max_steps and tools.submitted is None:
            # the project's output (its test runs, its code viewed) grows the conversation: it
            # is fitted to the model's context, and a request the endpoint then refuses after
            # accepted steps ends the migration with what it wrote (issue 40's audit)
            fit_context(messages, budget)
            try:
                completion, observations = tools.step(llm, messages, scope=scope)
            except LLMRefused as exc:
                if exc.status not in GROWN or steps == 0:
                    raise
                log.write(json.dumps({"step": steps + 1, "refused": str(exc)[:500]}) + "\n")
                break
            steps += 1
            tokens[0] += completion.prompt_tokens
            tokens[1] += completion.completion_tokens
            line = {
                "step": steps,
                "completion": completion.to_dict(),
                "observations": observations,
            }
            log.write(json.dumps(line) + "\n")
    return steps, tokens
