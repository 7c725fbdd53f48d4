"""Test helpers shipped with pytest-e2ebench for plugin and agent authors."""
