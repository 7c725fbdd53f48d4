"""The unit tier's fixtures (shared helpers live in tests/helpers)."""

from helpers.localmodel import index  # noqa: F401 - a fixture, used by name
