"""Stash keys: all state the plugin keeps on the pytest config; :class:`Slots`, the methods'
state on the harness's own objects, in the same spirit."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

# The values: options.Settings, list[agents.Agent], pipeline.Evaluator, sandbox.Sandbox.
SETTINGS = pytest.StashKey["Settings"]()
AGENTS = pytest.StashKey["list[Agent]"]()
EVALUATOR = pytest.StashKey["Evaluator"]()
SANDBOX = pytest.StashKey["Sandbox"]()
OUTAGE = pytest.StashKey["Outage"]()  # llm.outage.Outage: this session's LLM outage note


class Slots(Mapping[str, Any]):
    """The methods' data on a task, a plan or a run key: one slot per method, named by the
    method (its task section's name, its entry point's), read-only.

    As pytest's ``Stash`` keeps a plugin's state under its own key instead of in a field of
    ``Item`` (skipping, junitxml), a method keeps its data here instead of in a field of the
    core's ``Task``, ``RunPlan`` or ``RunKey``, so an outside method needs no change to them. A
    slot holding None is no slot. :meth:`replace` gives a copy with slots changed.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data = {k: v for k, v in (data or {}).items() if v is not None}

    def __getitem__(self, name: str) -> Any:
        return self._data[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Slots) and self._data == other._data

    def __hash__(self) -> int:  # the values may be dicts: the names stand for them
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Slots({self._data!r})"

    def replace(self, **changes: Any) -> Slots:
        """A copy with the slots ``changes`` names set (None: removed)."""
        return Slots({**self._data, **changes})
