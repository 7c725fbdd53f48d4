"""A method's table of task.toml (``[app]``, ``[projecteval]``): parsed when a task loads and
kept in its slot of the :class:`~pytest_e2ebench.taskmodel.task.Task` (``task.slots[name]``),
without the task model naming the method.

A method's sections are its plugin module's ``TASK_SECTIONS``, the built-in methods' and an
installed method's alike (:func:`pytest_e2ebench.methods.parts`: entry points of the
``pytest_e2ebench.methods`` group); ``register`` adds one in-process. A section's ``parse``
reads its table and appends problems (file, field, fix) to the task's list; its ``brief``
rewrites the requirements document an agent gets (ProjectEval's levels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .. import methods


@dataclasses.dataclass(frozen=True)
class SectionSource:
    """What a section's parser reads: the task folder, its task.toml as a table, its kind, the
    resolved reference (None: none), and the list the task's problems go into."""

    root: Path
    meta: dict
    kind: str
    reference: Path | None
    problems: list[str]

    @property
    def where(self) -> str:
        """``<task>/task.toml``, how a problem names the file."""
        return f"{self.root.name}/task.toml"


@dataclasses.dataclass(frozen=True)
class TaskSection:
    """A method's part of a task: ``name`` is the task's slot it fills (``Task.slots``; no slot
    when ``parse`` gives None: the task has no such table), ``parse`` reads it;
    ``brief(task, text)``, when given, returns the requirements document the agent gets for a
    task that has the section. ``kind``: the task kind the section adds (its tasks are valid
    with that kind); ``tests(value)`` then gives the task's tests from the parsed value, in
    place of the scan of pytest modules."""

    name: str
    parse: Callable[[SectionSource], Any]
    brief: Callable[[Any, str], str] | None = None
    kind: str | None = None
    tests: Callable[[Any], list | None] | None = None


_REGISTERED: dict[str, TaskSection] = {}


def register(section: TaskSection) -> None:
    """Add a method's section (a second one of the same name replaces the first)."""
    _REGISTERED[section.name] = section


def sections() -> tuple[TaskSection, ...]:
    """Every section: the methods' (``methods.parts``: built-in and installed), then those
    registered in-process."""
    found = {section.name: section for section in methods.parts("TASK_SECTIONS")}
    return tuple({**found, **_REGISTERED}.values())


def string_lists(value: object) -> bool:
    """True for a table whose every value is a list of strings (task.toml's requirement maps:
    ``[tests.requirements]``, ``[toolchain.requirements]``)."""
    return isinstance(value, dict) and all(
        isinstance(v, list) and all(isinstance(g, str) for g in v) for v in value.values()
    )


def section_kinds() -> dict[str, TaskSection]:
    """The task kinds the sections add, each with its section."""
    return {section.kind: section for section in sections() if section.kind}


def refetched(before: Mapping[str, Any], fetched: Mapping[str, Any]) -> dict[str, Any]:
    """The slots of a task whose reference was just fetched: each section parsed again with the
    reference's files (``fetched``), keeping what the session set on the slot before (a value
    with a ``refetched(new)`` method gives its state to the new one: ProjectEval's level)."""
    found = dict(fetched)
    for name, new in fetched.items():
        old = before.get(name)
        if old is not None and hasattr(old, "refetched"):
            found[name] = old.refetched(new)
    return found


def parse_sections(source: SectionSource) -> dict[str, Any]:
    """Each section's parsed value by name (None where the task has no such table)."""
    return {section.name: section.parse(source) for section in sections()}
