"""The task format: task.toml and its test settings, the static test index, skips, mutants, and
the catalog of collected tasks."""
