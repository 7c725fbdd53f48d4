"""Shared by the tests (moved from test_llm_agents.py)."""

from __future__ import annotations

from helpers.tasks import CALC_CODE
from pytest_e2ebench.tools.testing.scripted_llm import tool_call


def calc_files(tasks, pytester) -> dict[str, str]:
    where = tasks.reference(pytester.path / "_ref", CALC_CODE)
    return {str(p.relative_to(where)): p.read_text() for p in where.rglob("*") if p.is_file()}


def write_all(files: dict[str, str]) -> list:
    return [tool_call("create", {"path": path, "content": text}) for path, text in files.items()]


def ini(pytester, **extra: str) -> None:
    options = {
        "e2ebench_tasks": "tasks",
        "e2ebench_model": "scripted-model",
        "e2ebench_llm_retries": "0",
        "e2ebench_prices": "scripted-model 2.0 8.0",
        "e2ebench_model_params": "scripted-model 7e9",
        **extra,
    }
    lines = ["[pytest]", *(f"{k} = {v}" for k, v in options.items())]
    pytester.makeini("\n".join(lines) + "\n")
