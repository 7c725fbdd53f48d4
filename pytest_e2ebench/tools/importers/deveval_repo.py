"""What the DevEval importers share (:mod:`.deveval`: Python; :mod:`.deveval_native`: C/C++
and JavaScript): the repository's configuration, its named files read as peer data, the
design documents, the report of one repository."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

from ...untrusted.parse import read_json
from ...untrusted.peer import beneath, copy_folder, relative_path
from ...untrusted.peer import read_text as peer_text

CONFIG = "repo_config.json"
DOCUMENTS = ("PRD", "UML_class", "UML_sequence", "architecture_design")
SKIPPED = ("setup_shell_script.sh", ".git", "__pycache__", ".pytest_cache")
REQUIREMENTS = """

## Requirements added by the importer

### R1: Acceptance tests

The behaviour the PRD describes, as DevEval's acceptance tests check it.

### R2: Unit tests

The modules, classes and functions of the architecture, as DevEval's unit tests check them.
"""


@dataclasses.dataclass
class RepoReport:
    """What happened to one DevEval repository."""

    repo: str
    task: str | None = None
    error: str | None = None
    examples: int = 0
    notes: list[str] = dataclasses.field(default_factory=list)


class NotConvertible(Exception):
    """The repository cannot become a task; the text says why."""


def find_repos(src: Path) -> list[Path]:
    """DevEval repository folders at or under ``src`` (those holding repo_config.json)."""
    if (src / CONFIG).is_file():
        return [src]
    return sorted(p.parent for p in src.rglob(CONFIG) if not p.parent.is_symlink())


def read_config(repo: Path) -> dict:
    """repo_config.json as a table (peer data: bounded, no link; AgentFileError)."""
    config = read_json(repo, CONFIG)
    if not isinstance(config, dict):
        raise NotConvertible(f"{CONFIG}: not a JSON object")
    return config


def named(repo: Path, config: dict, key: str, default: str) -> Path:
    value = config.get(key, default)
    if value == "":
        return repo / value
    # relative, no "..", no link on the way (AgentFileError otherwise)
    return beneath(repo, relative_path(value, f"{CONFIG}: {key}"), f"{CONFIG}: {key}")


def block(text: str, language: str | None) -> str:
    """The first fenced block (of ``language`` if given and present), else the text."""
    # [ \t]*, not \s*: a fence with no language ("```" then "classDiagram" on the next line,
    # DevEval's C++ documents) would take the diagram's first line for its language
    fences = re.findall(r"^```+[ \t]*([\w-]*)[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    chosen = [body for lang, body in fences if language is None or lang == language]
    return (chosen or [body for _, body in fences] or [text])[0]


def task_id(repo: Path) -> str:
    """A task id from a repository folder name: lower case, ``[a-z0-9_-]``."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", repo.name.lower()).strip("-_")
    return f"deveval-{slug or 'repo'}"


def text_of(repo: Path, path: Path) -> str:
    """A dataset file's text (peer data: bounded, no link, UTF-8), or NotConvertible."""
    text = peer_text(repo, path.relative_to(repo).as_posix())
    if text is None:
        raise NotConvertible(f"missing {path.name}")
    return text


def write_design(root: Path, texts: dict) -> None:
    """design/: the UML documents' Mermaid blocks and the architecture's file tree."""
    design = root / "design"
    design.mkdir()
    for key, name in (("UML_class", "class.mmd"), ("UML_sequence", "sequence.mmd")):
        text = texts[key]
        (design / name).write_text(block(text, "mermaid").rstrip() + "\n", encoding="utf-8")
    tree = block(texts["architecture_design"], None)
    (design / "architecture.txt").write_text(tree.rstrip() + "\n", encoding="utf-8")


def copy_noting(repo: Path, folder: Path, dest: Path, report: RepoReport) -> None:
    """Copy a folder of the repository (peer data: untrusted.peer.copy_folder, no link
    followed, a link out of the dataset refused); what was left out goes into the notes."""
    rel = folder.relative_to(repo).as_posix() or "."
    copied = copy_folder(repo, rel, dest, ignore=SKIPPED)
    prefix = "" if rel == "." else f"{rel}/"
    report.notes += [f"{prefix}{p}: left out ({why})" for p, why in copied.dropped]


def write_reference(repo: Path, root: Path, elsewhere: set[Path], report: RepoReport) -> None:
    """``root/reference``: the repository without ``elsewhere`` (its documents, tests,
    examples, configuration: what the task holds elsewhere or not at all)."""
    copy_noting(repo, repo, root / "reference", report)
    for path in elsewhere:  # the copy holds no link: what is removed is the copy's own
        copied = root / "reference" / path.relative_to(repo)
        if copied.is_dir():
            shutil.rmtree(copied)
        elif copied.exists():
            copied.unlink()
