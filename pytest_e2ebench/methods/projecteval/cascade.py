"""ProjectEval's *cascade* generation (issue #17, docs/projecteval.md).

ProjectEval (Liu et al., 2025, "ProjectEval: A Benchmark for Programming Agents Automated
Evaluation on Project-Level Code Generation", arXiv:2503.07010, §3) asks an agent for a
project in two ways. *Direct*: from its level's input straight to the code. *Cascade*: from
the level-1 prompt the agent writes the checklist, from its own checklist the skeleton, and
from its own skeleton the code; each intermediate artefact is graded by its similarity
indicator against the task's. Level 2 starts at the skeleton (with the task's checklist);
level 3 is direct.

Each step is a separate agent run with the lifecycle stages' machinery
(:func:`pytest_e2ebench.run.generate.generate`, the run's one generate step): its own folder
``<run>/cascade-<step>/`` with ``inputs/`` (what the step is given), ``repo/`` (what the
agent wrote, taken in) and ``grade/``, each cached, so a session that was stopped resumes
after the last finished step. The agent learns the step from ``ctx.stage`` (``checklist``,
``skeleton``; ``$E2EBENCH_STAGE`` for a ``cmd:`` agent), reads the step's instruction in
``ctx.brief`` (``brief.md`` beside a ``cmd:`` agent's requirements) and its input in
``ctx.inputs`` (``{inputs}``). The code step is the run's ordinary pipeline, given its own
checklist and, in its workspace, its own skeleton.

A step whose artefact is missing or unusable scores 0 and ends the cascade: the code step
then hands in an empty repository, with a note naming the step and the reason. That is the
agent's failure, never an infrastructure error.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import stat
from pathlib import Path

from ...errors import AgentFileError
from ...grading.metrics import AGENT_KEYS
from ...isolation.intake import SKIP_PATTERNS, IntakeLimits, copy_tree, walk
from ...run.cache import tree_hash
from ...run.generate import Ask, generate
from ...untrusted.parse import loads_json, read_text
from . import (
    CHECKLIST_FILE,
    LEVEL1_FILE,
    PARAMETERS_FILE,
    brief,
    parse_checklist,
    spec_of,
    with_spec,
)
from .similarity import (
    MAX_FILE_BYTES,
    Unavailable,
    bounded_code_similarity,
    checklist_similarity,
    over_bound,
)
from .skeleton import CHECKLIST, CODE, SKELETON, write_skeleton

STEPS = (CHECKLIST, SKELETON)  # the steps before the code (ctx.stage of their agent runs)
MAX_LISTED = 200  # skeleton files named in the code step's brief
FORMAT = (
    '[{"page": "<page or part>", "function": [{"function": "<name>", "description": '
    '"<one sentence>"}]}]'
)
INSTRUCTIONS = {
    CHECKLIST: (
        "This is the checklist step of a cascade: write no code. Write `checklist.json` at the "
        "project's root: the pages (or parts) the project described above needs and the "
        "functions of each, as one JSON list in this shape:\n\n" + FORMAT
    ),
    SKELETON: (
        "This is the skeleton step of a cascade: write the project's skeleton from the "
        "description and its checklist (also in `checklist.json` of your inputs). Write every "
        "file of the project with its imports, classes and function signatures, each with a "
        "docstring saying what it does, and every body left as `...`; for an HTML template, "
        "the elements without their content. Write no `checklist.json` nor "
        "`parameters.json`; the code comes in the next step."
    ),
}


@dataclasses.dataclass
class Cascade:
    """The steps before the code of one run, and what the code step is given."""

    task: object  # the code step's Task: its brief carries the agent's own checklist
    steps: list[dict]
    skeleton: Path | None = None  # the agent's own skeleton, put into the code's workspace
    ended: str | None = None  # why the cascade stopped before the code step

    @property
    def key(self) -> str:
        """Part of the code step's cache key (its inputs besides the brief)."""
        if self.ended:
            return f"ended:{self.ended}"
        return tree_hash(self.skeleton) if self.skeleton is not None else "no-skeleton"

    def prepare(self, workspace: Path, agent) -> None:
        """Hand the agent's own skeleton to the code step (agents that take inputs)."""
        if self.skeleton is not None and agent.receives_materials:
            # the agent's earlier output is untrusted: bounded copy, no link followed
            copy_tree(self.skeleton, workspace, IntakeLimits(), ignore=SKIP_PATTERNS)

    def summary(self, record: dict, code_run: dict) -> dict:
        """``projecteval.cascade`` of the run record: every step, the code's included."""
        code = {
            "step": CODE,
            "status": "not run" if self.ended else "ok",
            "test_acc": (record.get("metrics") or {}).get("test_acc"),
            "agent_run": _agent_run(code_run),
        }
        return {"ended": self.ended, "steps": [*self.steps, code]}

    def finish(self, record: dict, code_run: dict) -> None:
        """The run's record: its mode, every step in ``projecteval.cascade``, the steps'
        notes among the run's."""
        record["projecteval_mode"] = "cascade"
        record["projecteval"]["cascade"] = self.summary(record, code_run)
        record["notes"] += [f"{s['step']} step: {n}" for s in self.steps for n in s["notes"]]

    def total(self, code_run: dict) -> dict:
        """The code step's agent data with the whole cascade's cost, tokens and time: what
        the run's metrics count (each step's own are in its record)."""
        merged = dict(code_run)
        for key in AGENT_KEYS:
            values = [s["agent_run"].get(key) for s in self.steps] + [code_run.get(key)]
            known = [v for v in values if v is not None]
            merged[key] = sum(known) if known else None
        return merged


def _agent_run(data: dict) -> dict:
    return {k: data.get(k) for k in AGENT_KEYS}


def read_checklist(repo: Path):
    """The agent's checklist: (items, raw JSON text, None) or (None, None, why it is unusable)."""
    try:
        text = read_text(repo, CHECKLIST_FILE, max_bytes=MAX_FILE_BYTES)
        data = None if text is None else loads_json(text, CHECKLIST_FILE)
    except AgentFileError as exc:  # a link, too large, too deep, not JSON: the agent's
        return None, None, str(exc)
    if text is None:
        return None, None, f"the agent wrote no {CHECKLIST_FILE} (a regular file at its root)"
    problems: list[str] = []
    items = parse_checklist(data, CHECKLIST_FILE, problems)
    if problems or not items:
        why = "; ".join(problems[:3]) or f"{CHECKLIST_FILE} lists no function"
        return None, None, why
    return tuple(items), text, None


def _files(root: Path) -> list[str]:
    """The regular files of a step's output (bounded walk, no link followed)."""
    found = []
    for rel, _fd, st in walk(root, skip=(".*", "__pycache__")):
        if stat.S_ISREG(st.st_mode):
            found.append(rel)
    return found


def _measure(compute) -> tuple[float | None, str | None]:
    try:
        return compute(), None
    except Unavailable as exc:
        return None, str(exc)


def _grade_checklist(task, repo: Path, work: Path) -> dict:
    items, _text, why = read_checklist(repo)
    if items is None:
        return {"similarity": 0.0, "failed": why}
    reference = [i.sentence() for i in spec_of(task).checklist]
    value, note = _measure(lambda: checklist_similarity(reference, [i.sentence() for i in items]))
    return {"similarity": value, "similarity_note": note, "items": len(items)}


def _grade_skeleton(task, repo: Path, work: Path) -> dict:
    files = [f for f in _files(repo) if f not in (CHECKLIST_FILE, PARAMETERS_FILE)]
    if not files:
        return {"similarity": 0.0, "failed": "the agent wrote no skeleton files"}
    expected = work / "expected"
    write_skeleton(task, expected)  # the task's skeleton: committed, or masked from reference/
    value, note = bounded_code_similarity(expected, repo, masked=True)
    return {"similarity": value, "similarity_note": note, "files": len(files)}


GRADERS = {CHECKLIST: _grade_checklist, SKELETON: _grade_skeleton}


def _step(steps, task, step: str, inputs: dict) -> dict:
    """One step's agent run (cached) and its grade (cached): the step's record."""
    ctx = steps.ctx
    step_dir = ctx.run_dir / f"cascade-{step}"
    given = step_dir / "inputs"
    shutil.rmtree(given, ignore_errors=True)
    given.mkdir(parents=True)
    for name, text in inputs.items():
        (given / name).write_text(text, encoding="utf-8")
    steps.now(f"cascade-{step}")
    # the LLM cache's tape of the step: agent/task/level-N-cascade/run-n/cascade-<step>
    scope = f"{ctx.scope}/cascade-{step}"
    ask = Ask(task, step_dir, stage=step, brief=INSTRUCTIONS[step], inputs=given, scope=scope)
    data = generate(steps, ask)
    graded = steps.stage("cascade-grade", "grade", folder=step_dir, repo_hash=data["repo_hash"])
    grade = graded.load()
    if grade is None:
        grade = graded.commit(GRADERS[step](task, step_dir / "repo", graded.reset()))
    failed = grade.get("failed")
    return {
        "step": step,
        "status": "failed" if failed else "ok",
        **({"failed": failed} if failed else {}),
        "similarity": grade["similarity"],
        **({"similarity_note": grade["similarity_note"]} if grade.get("similarity_note") else {}),
        "agent_run": _agent_run(data),
        # the agent's (e.g. its exit), and where its grade stopped at a bound
        "notes": [*([data["note"]] if data.get("note") else []), *over_bound(grade)],
        "dir": str(step_dir),
    }


def run_cascade(steps, task) -> Cascade:
    """The steps before the code of the run ``steps.ctx`` of ``task`` at its level (1 or 2)."""
    run_dir = steps.ctx.run_dir
    spec = spec_of(task)
    plain = with_spec(task, given=None, cascade=False)
    project = f"# Project\n\n{spec.level1}\n"
    done: list[dict] = []
    checklist = spec.checklist
    raw = json.dumps(list(spec.checklist_raw), indent=2, ensure_ascii=False)
    if spec.level == 1:
        asked = with_spec(plain, given=project)
        record = _step(steps, asked, CHECKLIST, {LEVEL1_FILE: project})
        done.append(record)
        if record["status"] == "failed":
            return _ended(task, done, record)
        checklist, raw, _ = read_checklist(run_dir / f"cascade-{CHECKLIST}" / "repo")
    shown = brief(spec, 2, "", [], checklist).split("\n## Parameters")[0]
    asked = with_spec(plain, given=shown)
    record = _step(steps, asked, SKELETON, {CHECKLIST_FILE: raw})
    done.append(record)
    if record["status"] == "failed":
        return _ended(task, done, record)
    skeleton = run_dir / f"cascade-{SKELETON}" / "repo"
    files = [f for f in _files(skeleton) if f not in (CHECKLIST_FILE, PARAMETERS_FILE)]
    code_brief = brief(spec, 3, "", files[:MAX_LISTED], checklist)
    return Cascade(with_spec(task, given=code_brief), done, skeleton=skeleton)


def _ended(task, steps: list[dict], failed: dict) -> Cascade:
    why = failed["failed"]
    return Cascade(task, steps, ended=f"the cascade ended at the {failed['step']} step: {why}")
