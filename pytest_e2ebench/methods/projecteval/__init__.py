"""ProjectEval's way of grading a task (Liu et al., 2025, arXiv:2503.07010): issue #17.

A task with a ``[projecteval]`` table in its task.toml can be given to an agent at three
*input levels* (``--e2e-level``):

1. ``level1.md``: a one-paragraph description of the project;
2. level 1 plus ``checklist.json``: the pages (or parts) and their functions;
3. level 2 plus a code *skeleton*: the reference with its bodies masked (``skeleton/``, or
   generated from ``reference/`` by :mod:`.masker`), copied into the agent's workspace.

Its tests may use *parameters*: names a test cannot know beforehand (the file to run, a URL
path, an element id). The task describes each in ``parameters.json`` (the *parameter
descriptions*, PD); the agent answers them about its own code in ``parameters.json`` at the
root of its project (the *parameter values*, PV), as the reference does with the canonical
values (CPV) in ``reference/parameters.json``. The harness checks the answers
(:mod:`.params`) and the tests read them through the ``pv`` fixture of the
:mod:`e2ebench_pv` plugin: a missing or malformed value fails only the tests that use it.

Similarity indicators (:mod:`.similarity`) and ProjectEval's averaged Pass@K
(:mod:`.passk`) are reported per run and per session, never mixed into pass rates.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from ...run.settings import MethodSettings
from .. import RunPart

LEVELS = (1, 2, 3)
MODES = ("direct", "cascade")  # --e2e-projecteval-mode (cascade: :mod:`.cascade`)
SECTION = "projecteval"  # also its key in Settings.methods, its task slot and its plan slot
CASCADE = "cascade"  # the cascade mode (#17): its own run beside the direct one
LEVEL_PREFIX = "level-"

# the method's parts (pytest_e2ebench.methods): its hooks, its table of task.toml, the stages
# keyed on its slot of the plan (run.plan) and its field the core's migration key reads (the
# repository path the parameter file names; "" for another task, and where a run lives, not
# what it is: not in the census store's key), the folder part of its runs
PLUGIN = f"{__name__}.plugin"
TASK_SECTIONS = f"{__name__}.section:TASK_SECTIONS"
STAGE_INPUTS = {
    "migrated": ("projecteval.pv_repo",),
    "similarity": ("reference_hash", "projecteval.projecteval"),
    "cascade-grade": ("reference_hash", "projecteval.projecteval", "projecteval.checklist_raw"),
}
PLAN_DEFAULTS = {"projecteval.pv_repo": ""}
PLAN_WHERE = ("projecteval.pv_repo",)
LEVEL1_FILE = "level1.md"
CHECKLIST_FILE = "checklist.json"
SKELETON_DIR = "skeleton"
PARAMETERS_FILE = "parameters.json"  # PD in the task folder; PV/CPV at a project's root
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class ChecklistItem:
    """One function of one page (or part) of a checklist."""

    page: str
    function: str
    description: str

    def sentence(self) -> str:
        """The item as one sentence (what the embedding model compares)."""
        return f"{self.page}: {self.function}. {self.description}".strip()


@dataclasses.dataclass(frozen=True)
class ProjectEvalSpec:
    """The ``[projecteval]`` table and the files it names, validated."""

    root: Path
    level1: str
    checklist: tuple[ChecklistItem, ...]
    checklist_raw: tuple
    parameters: dict[str, str]  # name -> description (PD)
    canonical: dict[str, str]  # name -> the reference's value (CPV)
    skeleton_dir: Path | None  # a committed skeleton; None: masked from the reference
    # the session's: --e2e-level (the input level the agent gets; None: requirements.md),
    # --e2e-projecteval-mode=cascade at level 1 or 2 (checklist, skeleton, code), and a
    # cascade step's document for the agent in place of the level's (#17)
    level: int | None = None
    cascade: bool = False
    given: str | None = None

    def refetched(self, new: ProjectEvalSpec) -> ProjectEvalSpec:
        """The table parsed again with the fetched reference's files, at this level and mode."""
        return dataclasses.replace(new, level=self.level, cascade=self.cascade, given=self.given)

    def to_dict(self) -> dict:
        """JSON-able facts for records and stage keys."""
        return {
            "parameters": dict(self.parameters),
            "checklist_items": len(self.checklist),
            "skeleton": "committed" if self.skeleton_dir is not None else "masked",
        }


@dataclasses.dataclass(frozen=True)
class ProjectEvalSettings(MethodSettings):
    """ProjectEval's settings: the input level (``--e2e-level``; None: requirements.md) and
    the mode at levels 1 and 2 (``--e2e-projecteval-mode``: direct or cascade, #17)."""

    level: int | None = None
    mode: str = "direct"

    def session_task(self, task):
        """A ProjectEval ``task`` at the session's level and mode (other tasks unchanged)."""
        if self.level is None or spec_of(task) is None:
            return task
        # ProjectEval's cascade starts before the code at level 1 or 2 (level 3 is direct)
        cascade = self.mode == "cascade" and self.level < 3
        return with_spec(task, level=self.level, cascade=cascade)


def spec_of(task) -> ProjectEvalSpec | None:
    """ProjectEval's slot of ``task`` (its table, level and mode), None for another task."""
    return task.slots.get(SECTION)


def run_part(task) -> str | None:
    """The folder a run at a level is filed under: ``level-<l>[-cascade]`` (None: no level)."""
    spec = spec_of(task)
    if spec is None or spec.level is None:
        return None
    return f"{LEVEL_PREFIX}{spec.level}{'-' + CASCADE if spec.cascade else ''}"


def record_part(record: dict) -> str | None:
    """:func:`run_part` of a run's record (its ``level`` and ``projecteval_mode``)."""
    level = record.get("level")
    if level is None:
        return None
    mode = f"-{CASCADE}" if record.get("projecteval_mode") == CASCADE else ""
    return f"{LEVEL_PREFIX}{level}{mode}"


RUN_PARTS = (RunPart(run_part, record_part),)


def with_spec(task, **changes):
    """``task`` with its ProjectEval slot changed (``level``, ``cascade``, ``given``)."""
    spec = dataclasses.replace(spec_of(task), **changes)
    return dataclasses.replace(task, slots=task.slots.replace(**{SECTION: spec}))


def parse_checklist(data, where: str, problems: list[str]) -> list[ChecklistItem]:
    """ProjectEval's checklist shape: ``[{"page", "function": [{"function", "description"}]}]``."""
    fix = (
        'write a list of {"page": "<name>", "function": [{"function": "<name>", '
        '"description": "<one sentence>"}]}'
    )
    if not isinstance(data, list) or not data:
        problems.append(f"{where}: must be a non-empty list of pages; {fix}")
        return []
    items: list[ChecklistItem] = []
    for number, page in enumerate(data):
        at = f"{where}: page [{number}]"
        if not isinstance(page, dict) or not isinstance(page.get("page"), str):
            problems.append(f"{at}: field 'page' is missing or not a string; {fix}")
            continue
        functions = page.get("function")
        if not isinstance(functions, list) or not functions:
            problems.append(f"{at} ({page['page']!r}): field 'function' must be a non-empty list")
            continue
        for index, fn in enumerate(functions):
            if not isinstance(fn, dict) or not all(
                isinstance(fn.get(k), str) for k in ("function", "description")
            ):
                problems.append(
                    f"{at} ({page['page']!r}) function [{index}]: fields 'function' and "
                    "'description' must be strings"
                )
                continue
            items.append(ChecklistItem(page["page"], fn["function"], fn["description"]))
    return items


def render_checklist(items) -> str:
    """The checklist as Markdown, page by page (level 2's addition to the brief)."""
    lines: list[str] = []
    page = None
    for item in items:
        if item.page != page:
            page = item.page
            lines.append(f"\n### {page}\n")
        lines.append(f"- **{item.function}**: {item.description}")
    return "\n".join(lines).strip()


def _json(path: Path, where: str, problems: list[str], fix: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{where}: missing; {fix}")
    except (ValueError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: not valid JSON ({exc}); fix the syntax")
    return None


def parse_parameters(data, where: str, problems: list[str]) -> dict[str, str]:
    """The PD file: ``{"name": "description", ...}`` with identifier names."""
    if not isinstance(data, dict):
        problems.append(
            f"{where}: must be an object mapping each parameter name to its description, e.g. "
            '{"entry": "the file to run"}'
        )
        return {}
    found: dict[str, str] = {}
    for name, text in data.items():
        if not _NAME.match(name):
            problems.append(
                f"{where}: parameter {name!r} is not an identifier; rename it (letters, digits, _)"
            )
        elif not isinstance(text, str) or not text.strip():
            problems.append(
                f"{where}: parameter {name!r}: the description must be a non-empty string "
                "saying what the agent answers"
            )
        else:
            found[name] = text
    return found


def parse_projecteval(
    root: Path, meta: dict, reference: Path | None, problems: list[str]
) -> ProjectEvalSpec | None:
    """The ``[projecteval]`` table of ``root``'s task.toml and its files (None without it):
    the table's paths, the level-1 prompt, the checklist, the parameter descriptions and the
    reference's canonical values, the skeleton."""
    table = meta.get(SECTION)
    if table is None:
        return None
    where = f"{root.name}/task.toml"
    if not isinstance(table, dict):
        problems.append(
            f"{where}: field '{SECTION}' must be a table ([{SECTION}] with level1, checklist, "
            "parameters)"
        )
        return None
    files = _section_files(table, where, problems)
    level1 = _read_level1(root, files["level1"], problems)
    raw_checklist, checklist = _read_checklist(root, files["checklist"], problems)
    parameters = _read_parameters(root, files["parameters"], problems)
    canonical = _canonical(root.name, reference, parameters, files["parameters"], problems)
    skeleton = root / files["skeleton"]
    if "skeleton" in table and not skeleton.is_dir():
        problems.append(
            f"{root.name}/{files['skeleton']}: no such folder; add the skeleton or remove "
            f"'{SECTION}.skeleton' (then it is masked from reference/)"
        )
    return ProjectEvalSpec(
        root=root,
        level1=level1,
        checklist=tuple(checklist),
        checklist_raw=tuple(raw_checklist) if isinstance(raw_checklist, list) else (),
        parameters=parameters,
        canonical=canonical,
        skeleton_dir=skeleton if skeleton.is_dir() else None,
    )


def _section_files(table: dict, where: str, problems: list[str]) -> dict[str, str]:
    """The table's four paths (relative, inside the task folder; defaults where not given)."""
    files = {}
    for key, default in (
        ("level1", LEVEL1_FILE),
        ("checklist", CHECKLIST_FILE),
        ("parameters", PARAMETERS_FILE),
        ("skeleton", SKELETON_DIR),
    ):
        value = table.get(key, default)
        if not isinstance(value, str) or not value or Path(value).is_absolute() or ".." in value:
            problems.append(
                f"{where}: field '{SECTION}.{key}' = {value!r} must be a relative path in the "
                f'task folder, e.g. {key} = "{default}"'
            )
            value = default
        files[key] = value
    unknown = sorted(set(table) - set(files))
    if unknown:
        problems.append(
            f"{where}: [{SECTION}] has unknown field(s) {', '.join(unknown)}; "
            "known: level1, checklist, parameters, skeleton"
        )
    return files


def _read_level1(root: Path, rel: str, problems: list[str]) -> str:
    """The level-1 prompt (one paragraph); "" with a problem when missing or empty."""
    try:
        level1 = (root / rel).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        problems.append(
            f"{root.name}/{rel}: missing; write the level-1 prompt (one paragraph "
            "describing the project)"
        )
        return ""
    if not level1:
        problems.append(f"{root.name}/{rel}: empty; write the one-paragraph prompt")
    return level1


def _read_checklist(root: Path, rel: str, problems: list[str]) -> tuple[object, list]:
    """The level-2 checklist: its JSON as read (None when unreadable) and its items."""
    where = f"{root.name}/{rel}"
    raw = _json(
        root / rel, where, problems, "write the level-2 checklist of pages and their functions"
    )
    return raw, parse_checklist(raw, where, problems) if raw is not None else []


def _read_parameters(root: Path, rel: str, problems: list[str]) -> dict[str, str]:
    """The parameter descriptions (PD) by name."""
    where = f"{root.name}/{rel}"
    raw = _json(
        root / rel,
        where,
        problems,
        'describe each parameter the tests use: {"name": "description"} (may be {})',
    )
    return parse_parameters(raw, where, problems) if raw is not None else {}


def _canonical(
    name: str, reference: Path | None, parameters: dict, pd_rel: str, problems: list[str]
) -> dict[str, str]:
    """The reference's canonical values (CPV): one string per described parameter, no more."""
    if reference is None or not parameters:
        return {}
    where = f"{name}/reference/{PARAMETERS_FILE}"
    raw = _json(
        reference / PARAMETERS_FILE,
        where,
        problems,
        'write the canonical value of every parameter: {"name": "value"}',
    )
    if not isinstance(raw, dict):
        if raw is not None:
            problems.append(f'{where}: must be an object {{"name": "value"}}')
        return {}
    canonical: dict[str, str] = {}
    for pname in parameters:
        value = raw.get(pname)
        if not isinstance(value, str):
            problems.append(
                f"{where}: parameter {pname!r} has no canonical value (a string); "
                f'add "{pname}": "<the reference\'s value>"'
            )
        else:
            canonical[pname] = value
    for extra in sorted(set(raw) - set(parameters)):
        problems.append(
            f"{where}: {extra!r} is not described in {pd_rel}; describe it there or remove it"
        )
    return canonical


def parameters_brief(spec: ProjectEvalSpec) -> str:
    """What the agent is asked about its own code (ProjectEval's parameter request)."""
    if not spec.parameters:
        return ""
    lines = [
        "## Parameters",
        "",
        f"When the project is done, write `{PARAMETERS_FILE}` at its root: one JSON object "
        "whose keys are the names below and whose values are strings answering each "
        "description about your own code (tests use them to find what they check).",
        "",
    ]
    lines += [f"- `{name}`: {text}" for name, text in spec.parameters.items()]
    return "\n".join(lines)


def brief(
    spec: ProjectEvalSpec,
    level: int | None,
    requirements: str,
    skeleton: list[str],
    checklist: tuple[ChecklistItem, ...] | None = None,
) -> str:
    """The document the agent gets at ``level`` (None: requirements.md as usual).

    ``checklist`` replaces the task's (a cascade gives the agent its own).
    """
    if level is None:
        parts = [requirements.rstrip()]
    else:
        parts = [f"# Project\n\n{spec.level1}"]
        if level >= 2:
            items = spec.checklist if checklist is None else checklist
            parts.append(f"## Checklist\n\n{render_checklist(items)}")
        if level >= 3:
            files = "\n".join(f"- `{p}`" for p in skeleton)
            parts.append(
                "## Skeleton\n\nYour workspace holds the project's skeleton: these files, with "
                "their signatures and docstrings kept and their bodies left to you. Complete "
                f"them (you may add files).\n\n{files}"
            )
    extra = parameters_brief(spec)
    if extra:
        parts.append(extra)
    return "\n\n".join(parts) + "\n"
