"""Shared by the tests (moved from test_resume.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

TASK_IDS = ("t1", "t3", "t4")  # issue 27: t1, t3 and t4 differ; a t2 like t1 added a run


RUNS = "dir-out/*/run-1"


Table = dict[int, tuple[int, int, int]]


def processes() -> Table:
    """pid -> (ppid, pgid, sid) of every live process (zombies are dead: left out)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        state, ppid, pgid, sid = stat[stat.rindex(")") + 2 :].split()[:4]
        if state not in ("Z", "X"):
            found[int(entry.name)] = (int(ppid), int(pgid), int(sid))
    return found


def descendants(root: int, table: Table) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    seen, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in table and pid not in seen:
            seen.add(pid)
            todo += children.get(pid, [])
    return seen


def describe(pid: int) -> str:
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    return f"(in {cwd}) " + " ".join(a.decode(errors="replace") for a in argv)


def survivors(leader: int, sessions: set[int], folder: Path) -> dict[int, str]:
    """Live processes of the killed session: its process group, the sessions it started (the
    harness runs its commands in new ones), or anything working on its output folder."""
    found = {}
    for pid, (_, pgid, sid) in processes().items():
        text = describe(pid)
        if pgid == leader or sid in sessions or str(folder) in text:
            found[pid] = text
    found.pop(os.getpid(), None)
    return found


def count(out: Path, manifest: str) -> int:
    return len(list(out.glob(f"{RUNS}/{manifest}")))


def manifests(out: Path) -> dict[str, float]:
    """relative path -> written_at of every stage manifest of every run."""
    found = {}
    for path in out.glob(f"{RUNS}/*.json"):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "written_at" in doc:
            found[path.relative_to(out).as_posix()] = doc["written_at"]
    return found


def comparable(doc: dict) -> dict:
    """(task, agent, run) -> (requirements, metrics without times)."""
    return {
        (run["task"], run["agent"], run["run"]): (
            run["requirements"],
            {k: v for k, v in run["metrics"].items() if k != "duration_s"},
        )
        for run in doc["tasks"]
    }
