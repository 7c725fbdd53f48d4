"""ProjectEval's part of the task model: the ``[projecteval]`` table as the task's
``projecteval`` slot, and the requirements document at the task's level (#17)."""

from __future__ import annotations

from ...taskmodel.sections import SectionSource, TaskSection
from . import SECTION, ProjectEvalSpec, brief, parse_projecteval, spec_of
from .skeleton import skeleton_files


def projecteval_section(source: SectionSource) -> ProjectEvalSpec | None:
    """The ``[projecteval]`` table and its files, else None."""
    return parse_projecteval(source.root, source.meta, source.reference, source.problems)


def task_brief(task, text: str) -> str:
    """The document at the task's level (level 3 lists the skeleton's files), or a cascade
    step's own."""
    spec = spec_of(task)
    if spec.given is not None:
        return spec.given
    files = skeleton_files(task) if spec.level == 3 else []
    return brief(spec, spec.level, text, files)


TASK_SECTIONS = (TaskSection(SECTION, projecteval_section, task_brief),)
