"""pytest-xdist scheduling: all items of one (task, agent, run) go to one worker.

A run is built once, by the process that evaluates its first item, so its items must not be
spread over workers. ``--dist loadgroup`` would do that, but it renames every node id
(``…[reference-run-1-R3]@reference/semverkit/1``): failures recorded by a serial session would
be unknown to ``--lf -n 2`` and the reverse, and pytest 9.2 no longer lets a node id be
reassigned. This scheduler groups by the node id as it is, so ids are the same with and
without ``-n``.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

from .collect import run_scope

# --dist modes this scheduler stands in for while benchmark tasks are collected
REPLACED = ("load", "loadgroup")


class RunScheduling(LoadScopeScheduling):
    """``--dist load`` whose work unit is a run (other items: their module, as loadscope)."""

    def _split_scope(self, nodeid: str) -> str:
        return run_scope(nodeid) or super()._split_scope(nodeid)
