"""ProjectEval's part of the task model: the ``[projecteval]`` table as the task's
``projecteval`` attribute, and the requirements document at the task's level (#17)."""

from __future__ import annotations

from ...taskmodel.sections import SectionSource, TaskSection
from . import ProjectEvalSpec, brief, parse_projecteval
from .skeleton import skeleton_files


def projecteval_section(source: SectionSource) -> ProjectEvalSpec | None:
    """The ``[projecteval]`` table and its files, else None."""
    return parse_projecteval(source.root, source.meta, source.reference, source.problems)


def task_brief(task, text: str) -> str:
    """The document at the task's level (``task.level``; level 3 lists the skeleton's files)."""
    files = skeleton_files(task) if task.level == 3 else []
    return brief(task.projecteval, task.level, text, files)


TASK_SECTIONS = (TaskSection("projecteval", projecteval_section, task_brief),)
