"""Where a task's level-3 skeleton comes from, and handing it to an agent."""

from __future__ import annotations

import fnmatch
import json
import shutil
from pathlib import Path

from . import CHECKLIST_FILE, spec_of
from .masker import NOT_COPIED, mask_tree

CHECKLIST, SKELETON, CODE = "checklist", "skeleton", "code"  # the cascade's steps (#17)


def _kept(rel: Path) -> bool:
    return not any(fnmatch.fnmatch(part, pattern) for part in rel.parts for pattern in NOT_COPIED)


def skeleton_files(task) -> list[str]:
    """The files of ``task``'s skeleton (posix paths), committed or masked from reference/."""
    spec = spec_of(task)
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
    spec = spec_of(task)
    if spec.skeleton_dir is not None:
        shutil.copytree(
            spec.skeleton_dir, dest, ignore=shutil.ignore_patterns(*NOT_COPIED), dirs_exist_ok=True
        )
        return skeleton_files(task)
    if task.reference_dir is None:
        return []
    return mask_tree(task.reference_dir, dest)


def reference_step(task, step: str, workspace: Path) -> None:
    """The oracle's artefact of ``step``: the task's own checklist or skeleton."""
    if step == CHECKLIST:
        text = json.dumps(list(spec_of(task).checklist_raw), indent=2, ensure_ascii=False)
        (workspace / CHECKLIST_FILE).write_text(text + "\n", encoding="utf-8")
    elif step == SKELETON:
        write_skeleton(task, workspace)
