"""Shared by the tests (moved from test_xdist.py)."""

from __future__ import annotations

WITHOUT_TIMES = ("duration_s",)


def comparable(doc: dict) -> list:
    out = []
    for run in doc["tasks"]:
        metrics = {k: v for k, v in run["metrics"].items() if k not in WITHOUT_TIMES}
        out.append((run["task"], run["agent"], run["run"], run["requirements"], metrics))
    return out


def summaries(doc: dict) -> dict:
    return {
        agent: {k: v for k, v in stats.items() if k not in WITHOUT_TIMES}
        for agent, stats in doc["summary"].items()
    }
