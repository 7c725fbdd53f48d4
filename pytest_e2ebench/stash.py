"""Stash keys: all state the plugin keeps on the pytest config."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .agents import Agent
    from .options import Settings
    from .pipeline import Evaluator

SETTINGS = pytest.StashKey["Settings"]()
AGENTS = pytest.StashKey["list[Agent]"]()
EVALUATOR = pytest.StashKey["Evaluator"]()
