"""The sessions tier's fixtures (shared helpers live in tests/helpers)."""

from helpers.app import llm  # noqa: F401 - a fixture, used by name
from helpers.containment import arena  # noqa: F401 - a fixture, used by name
