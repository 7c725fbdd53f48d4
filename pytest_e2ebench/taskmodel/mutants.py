"""Mutants: degraded variants of a task's reference that prove the task discriminates.

``mutants.toml`` in a task folder lists them (see docs/writing-a-task.md). Each belongs to one
failure class of E2EDevBench's taxonomy and declares exactly which requirements it must fail.
A mutant is a list of exact string replacements applied to a copy of ``reference/``, so the
repository holds a few lines per mutant rather than a copy of the project.

``python -m pytest_e2ebench.taskmodel.mutants TASKS OUT`` writes every mutant of every task under
``OUT/<task>/run-<k>/`` (k = the mutant's position) plus ``OUT/mutants.json``, ready for
``pytest --e2e-agent=dir:OUT --e2e-runs=K``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tomllib
from pathlib import Path

from ..errors import E2EBenchError

MUTANTS_FILE = "mutants.toml"
# E2EDevBench's failure taxonomy, as far as a static change can produce it.
CLASSES = ("missing_feature", "stub", "wrong_logic", "wrong_format")


class MutantError(E2EBenchError):
    """A mutant cannot be applied to the reference."""


@dataclasses.dataclass(frozen=True)
class Edit:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``file``."""

    file: str
    old: str
    new: str


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One degraded variant of a reference implementation."""

    name: str
    cls: str
    fails: tuple[str, ...]
    edits: tuple[Edit, ...]


def parse_mutants(
    task_root: Path, reference: Path, requirement_ids: set[str], problems: list[str]
) -> list[Mutant]:
    """Read ``mutants.toml`` (absent: no mutants), appending problems that name the fix."""
    path = task_root / MUTANTS_FILE
    where = f"{task_root.name}/{MUTANTS_FILE}"
    if not path.exists():
        return []
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: not valid TOML ({exc}); fix the syntax")
        return []
    mutants: list[Mutant] = []
    seen: set[str] = set()
    for index, raw in enumerate(doc.get("mutant", []), start=1):
        at = f"{where}: mutant #{index}"
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"{at}: field 'name' is missing; add name = \"<short-slug>\"")
            continue
        at = f"{where}: mutant {name!r}"
        if name in seen:
            problems.append(f"{at}: name used twice; give each mutant its own name")
        seen.add(name)
        cls = raw.get("class")
        if cls not in CLASSES:
            problems.append(f"{at}: field 'class' = {cls!r}; use one of {', '.join(CLASSES)}")
        fails = raw.get("fails")
        if not isinstance(fails, list) or not fails or not all(isinstance(f, str) for f in fails):
            problems.append(
                f"{at}: field 'fails' must list the requirement ids it fails, e.g. fails = [\"R3\"]"
            )
            fails = []
        unknown = [f for f in fails if f not in requirement_ids]
        if unknown and requirement_ids:
            problems.append(f"{at}: fails {unknown}, which are not in requirements.md")
        edits = []
        for edit in raw.get("edit", []):
            if not all(isinstance(edit.get(k), str) for k in ("file", "old", "new")):
                problems.append(f"{at}: every [[mutant.edit]] needs string fields file, old, new")
                continue
            if not (reference / edit["file"]).is_file():
                problems.append(f"{at}: edit file {edit['file']!r} is not in the reference")
                continue
            edits.append(Edit(edit["file"], edit["old"], edit["new"]))
        if not edits:
            problems.append(f"{at}: no [[mutant.edit]]; add at least one replacement")
        mutants.append(Mutant(name, str(cls), tuple(fails), tuple(edits)))
    return mutants


def apply(reference: Path, mutant: Mutant, dest: Path) -> Path:
    """Copy ``reference`` to ``dest`` and apply the mutant's edits there."""
    shutil.copytree(reference, dest, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for edit in mutant.edits:
        target = dest / edit.file
        text = target.read_text(encoding="utf-8")
        count = text.count(edit.old)
        if count != 1:
            raise MutantError(
                f"mutant {mutant.name!r}: the text to replace occurs {count} times in "
                f"{edit.file} (must be exactly once); make 'old' longer or fix it"
            )
        target.write_text(text.replace(edit.old, edit.new), encoding="utf-8")
    return dest


def materialize(tasks: list, out: Path) -> dict:
    """Write every task's mutants as ``out/<task>/run-<k>/`` and return the manifest."""
    manifest: dict[str, list[dict]] = {}
    for task in tasks:
        entries = []
        for k, mutant in enumerate(task.mutants, start=1):
            apply(task.reference_dir, mutant, out / task.id / f"run-{k}")
            entries.append(
                {"run": k, "name": mutant.name, "class": mutant.cls, "fails": list(mutant.fails)}
            )
        manifest[task.id] = entries
    out.mkdir(parents=True, exist_ok=True)
    (out / "mutants.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


if __name__ == "__main__":
    # the command line loads tasks, which is the task model's (above this module): it lives
    # with the self-check, and this file run as a script hands over to it
    from pytest_e2ebench.tools.selfcheck import mutants_main

    sys.exit(mutants_main())
