"""Stash keys: all state the plugin keeps on the pytest config."""

from __future__ import annotations

import pytest

# The values: options.Settings, list[agents.Agent], pipeline.Evaluator, sandbox.Sandbox.
SETTINGS = pytest.StashKey["Settings"]()
AGENTS = pytest.StashKey["list[Agent]"]()
EVALUATOR = pytest.StashKey["Evaluator"]()
SANDBOX = pytest.StashKey["Sandbox"]()
OUTAGE = pytest.StashKey["Outage"]()  # llm.outage.Outage: this session's LLM outage note
