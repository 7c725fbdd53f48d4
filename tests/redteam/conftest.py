"""The red-team tier's fixtures (shared helpers live in tests/helpers)."""

from helpers.containment import arena  # noqa: F401 - a fixture, used by name
