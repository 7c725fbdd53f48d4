"""Stash keys: all state the plugin keeps on the pytest config."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    pass

SETTINGS = pytest.StashKey["Settings"]()
AGENTS = pytest.StashKey["list[Agent]"]()
EVALUATOR = pytest.StashKey["Evaluator"]()
