"""Where a task's level-3 skeleton comes from, and handing it to an agent."""

from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

from .masker import _SKIP, mask_tree


def _kept(rel: Path) -> bool:
    return not any(fnmatch.fnmatch(part, pattern) for part in rel.parts for pattern in _SKIP)


def skeleton_files(task) -> list[str]:
    """The files of ``task``'s skeleton (posix paths), committed or masked from reference/."""
    spec = task.projecteval
    root = spec.skeleton_dir if spec.skeleton_dir is not None else task.reference_dir
    if root is None:
        return []
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and _kept(p.relative_to(root))
    )


def write_skeleton(task, dest: Path) -> list[str]:
    """Write ``task``'s skeleton into ``dest`` (the agent's workspace); return its files."""
    spec = task.projecteval
    if spec.skeleton_dir is not None:
        shutil.copytree(
            spec.skeleton_dir, dest, ignore=shutil.ignore_patterns(*_SKIP), dirs_exist_ok=True
        )
        return skeleton_files(task)
    if task.reference_dir is None:
        return []
    return mask_tree(task.reference_dir, dest)
