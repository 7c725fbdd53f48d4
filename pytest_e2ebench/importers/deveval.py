"""Convert DevEval (DevBench) Python repositories into tasks with every lifecycle stage.

DevEval (Li et al., 2024, arXiv:2403.08604) publishes one folder per repository under
``benchmark_data/python/<repo>/``: ``PRD.md``, ``UML_class.md``, ``UML_sequence.md``,
``architecture_design.md``, the dependency file, ``acceptance_tests/``, ``unit_tests/`` and
example-usage scripts, each named in ``repo_config.json``; the rest of the folder is the
reference implementation. The data is the user's copy: ``e2ebench import deveval PATH OUT``
reads it from PATH and nothing of it is committed here.

Each repository becomes a task folder (see docs/stages.md):

* ``requirements.md``: the PRD verbatim, then two requirement headings the importer adds,
  ``R1`` (the acceptance tests pass) and ``R2`` (the unit tests pass), mapped in task.toml;
* ``reference/``: the repository without its documents, tests, examples and configuration;
* ``tests/acceptance/`` and ``tests/unit/``: DevEval's tests (the reference answers of the two
  test-writing stages, and the tests of the implement stage);
* ``design/``: the Mermaid blocks of the UML documents and the architecture's file tree;
* ``setup/requirements.txt`` and ``setup/examples/*.py``: the dependency file and examples;
* ``data/``: the files ``required_files`` names (besides the dependency file).

DevEval runs its tests from the repository root with those files in it, and installs the
dependency file: task.toml says ``cwd = "project"``, ``data = "data"`` and declares the
dependency file's index requirements as ``requires`` (see docs/writing-a-task.md).

A repository that cannot be converted (not Python, a file repo_config.json names is missing,
no tests) is listed with the reason and not written.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import re
import shutil
import sys
from pathlib import Path

from . import add_arguments as shared_arguments
from . import write_report, write_task_toml

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


def _config(repo: Path) -> dict:
    try:
        config = json.loads((repo / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NotConvertible(f"{CONFIG}: cannot be read ({exc})") from None
    if not isinstance(config, dict):
        raise NotConvertible(f"{CONFIG}: not a JSON object")
    if config.get("language", "python") != "python":
        raise NotConvertible(f"language {config.get('language')!r}: only Python repositories")
    return config


def _named(repo: Path, config: dict, key: str, default: str) -> Path:
    value = config.get(key, default)
    if not isinstance(value, str) or Path(value).is_absolute() or ".." in Path(value).parts:
        raise NotConvertible(f"{CONFIG}: {key} = {value!r} is not a path inside the repository")
    return repo / value


def _block(text: str, language: str | None) -> str:
    """The first fenced block (of ``language`` if given and present), else the text."""
    fences = re.findall(r"^```+\s*([\w-]*)[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    chosen = [body for lang, body in fences if language is None or lang == language]
    return (chosen or [body for _, body in fences] or [text])[0]


def task_id(repo: Path) -> str:
    """A task id from a repository folder name: lower case, ``[a-z0-9_-]``."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", repo.name.lower()).strip("-_")
    return f"deveval-{slug or 'repo'}"


def import_repo(repo: Path, out: Path, created: dt.date) -> RepoReport:
    """Write the task for one repository under ``out``; what happened, as a report."""
    report = RepoReport(repo=repo.name)
    try:
        config = _config(repo)
        documents = {k: _named(repo, config, k, f"{k}.md") for k in DOCUMENTS}
        dependencies = _named(repo, config, "dependencies", "requirements.txt")
        suites = {
            "acceptance": _named(repo, config, "acceptance_tests", "acceptance_tests"),
            "unit": _named(repo, config, "unit_tests", "unit_tests"),
        }
        examples = _named(repo, config, "usage_examples", "examples")
        if config.get("dependencies") == "":
            dependencies = None  # DevEval's way of saying: no dependency file
        files = [*documents.values(), *([dependencies] if dependencies else [])]
        missing = [p.name for p in files if not p.is_file()]
        missing += [f"{p.name}/" for p in suites.values() if not p.is_dir()]
        if missing:
            raise NotConvertible(f"missing {', '.join(missing)}")
        tests = {
            k: sorted({*p.rglob("test*.py"), *p.rglob("*_test.py")}) for k, p in suites.items()
        }
        if not all(tests.values()):
            empty = [k for k, found in tests.items() if not found]
            raise NotConvertible(
                f"no test modules (test*.py, *_test.py) in the {' and '.join(empty)} tests"
            )
    except NotConvertible as exc:
        report.error = str(exc)
        return report
    task = task_id(repo)
    root = out / task
    if root.exists():
        shutil.rmtree(root)
    prd = documents["PRD"].read_text(encoding="utf-8")
    title = next((line.lstrip("# ").strip() for line in prd.splitlines() if line.strip()), task)
    root.mkdir(parents=True)
    (root / "requirements.md").write_text(prd.rstrip() + "\n" + REQUIREMENTS, encoding="utf-8")
    requires = _runtime_requirements(dependencies, report) if dependencies else []
    data = _copy_data(repo, config, dependencies, root / "data", report)
    tests = {
        "path": "tests",
        "timeout": 60,
        # DevEval runs its tests from the repository root, with its required files there
        "cwd": "project",
        **({"data": "data"} if data else {}),
        # the dependency file: what the reference imports (it has no packaging to declare it)
        "requires": requires,
        "requirements": {"R1": ["tests/acceptance/*"], "R2": ["tests/unit/*"]},
    }
    write_task_toml(
        root,
        {
            "id": task,
            "title": title[:120],
            "kind": "library",
            "language": "python",
            "created": created,
            "source": f"DevEval {repo.name}",
            "tests": tests,
        },
    )
    for kind, folder in suites.items():
        shutil.copytree(folder, root / "tests" / kind, ignore=shutil.ignore_patterns(*SKIPPED))
    design = root / "design"
    design.mkdir()
    for key, name in (("UML_class", "class.mmd"), ("UML_sequence", "sequence.mmd")):
        text = documents[key].read_text(encoding="utf-8")
        (design / name).write_text(_block(text, "mermaid").rstrip() + "\n", encoding="utf-8")
    tree = _block(documents["architecture_design"].read_text(encoding="utf-8"), None)
    (design / "architecture.txt").write_text(tree.rstrip() + "\n", encoding="utf-8")
    (root / "setup" / "examples").mkdir(parents=True)
    if dependencies:
        shutil.copy2(dependencies, root / "setup" / "requirements.txt")
    else:
        (root / "setup" / "requirements.txt").write_text("")
    scripts = sorted(examples.glob("*.py")) if examples.is_dir() else []
    if scripts:  # the scripts with the data files they read (examples/HDFCLIFE.csv)
        shutil.copytree(
            examples,
            root / "setup" / "examples",
            dirs_exist_ok=True,
            # peer data: links are not followed, nor copied
            ignore=lambda d, names: {
                n for n in names if n == "__pycache__" or Path(d, n).is_symlink()
            },
        )
    report.examples = len(scripts)
    if not scripts:
        report.notes.append("no example-usage scripts (*.py): the task has no setup stage")
        shutil.rmtree(root / "setup")
    elsewhere = {*documents.values(), *suites.values(), examples, repo / CONFIG}
    elsewhere |= {dependencies} if dependencies else set()

    def ignore(folder: str, names: list[str]) -> set[str]:
        here = Path(folder)
        return {n for n in names if n in SKIPPED or here / n in elsewhere}

    shutil.copytree(repo, root / "reference", ignore=ignore, symlinks=False)
    report.task = task
    return report


def _runtime_requirements(dependencies: Path, report: RepoReport) -> list[str]:
    """The index requirements of DevEval's dependency file (standard-library module names
    and the test tools the harness brings are left out)."""
    from ..requirements import InstallRefused, vet

    out = []
    for line in dependencies.read_text(encoding="utf-8", errors="replace").splitlines():
        text = line.split("#", 1)[0].strip()
        name = re.split(r"[<>=!~\[; ]", text, maxsplit=1)[0]
        if not text or name.split(".")[0] in sys.stdlib_module_names:
            continue
        if name.lower() in ("pytest", "coverage", "pytest-timeout"):
            continue
        try:
            out += vet([text], dependencies.name)
        except InstallRefused as exc:
            report.notes.append(f"dependency not declared: {exc}")
    return out


def _copy_data(repo: Path, config: dict, dependencies: Path | None, dest: Path, report) -> bool:
    """Copy the files DevEval's ``required_files`` names (besides the dependency file) into
    ``dest``, at their paths in the repository; whether there were any."""
    named = config.get("required_files", [])
    copied = False
    for entry in named if isinstance(named, list) else []:
        if not isinstance(entry, str):
            continue
        for source in sorted(repo.glob(entry.rstrip("/"))) if "*" in entry else [repo / entry]:
            rel = source.relative_to(repo) if source.is_relative_to(repo) else None
            if rel is None or ".." in rel.parts or source.is_symlink() or source == dependencies:
                continue
            if source.is_dir():
                shutil.copytree(source, dest / rel, ignore=shutil.ignore_patterns(*SKIPPED))
            elif source.is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / rel)
            else:
                report.notes.append(f"required file {entry!r} is not in the repository")
                continue
            copied = True
    return copied


def import_all(src: Path, out: Path, created: dt.date) -> list[RepoReport]:
    """Import every repository under ``src`` into ``out``; also written to import-report.json."""
    out.mkdir(parents=True, exist_ok=True)
    reports = [import_repo(r, out, created) for r in find_repos(src)]
    write_report(out, reports)
    return reports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import deveval``."""
    shared_arguments(
        parser,
        "DevEval's benchmark_data/python folder, or one repository in it",
        dt.date(2024, 3, 13),  # DevBench's first public release
        "release date written into each task.toml (default 2024-03-13)",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what happened; exit status 1 when nothing could be imported."""
    if not find_repos(args.src):
        print(f"e2ebench: no DevEval repositories ({CONFIG}) under {args.src}", file=sys.stderr)
        return 1
    reports = import_all(args.src, args.out, args.created)
    for r in reports:
        if r.error:
            print(f"NOT IMPORTED {r.repo}: {r.error}")
            continue
        print(f"{r.task}: imported ({r.examples} example scripts)")
        # what the repository needed besides its tests, carried by the task format
        for note in r.notes:
            print(f"  note: {note}")
    print(f"report: {args.out / 'import-report.json'}")
    return 0 if any(not r.error for r in reports) else 1
