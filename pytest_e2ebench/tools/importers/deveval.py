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
import datetime as dt
import re
import shutil
import sys
from pathlib import Path

from ...environment.requirements import InstallRefused, vet
from ...errors import AgentFileError
from ...isolation.intake import IntakeLimits
from ...untrusted.peer import beneath, copy_file, relative_path
from ...untrusted.peer import read_text as peer_text
from . import add_arguments as shared_arguments
from . import fresh_folder, write_report, write_task_toml
from .deveval_native import import_native
from .deveval_repo import (
    CONFIG,
    DOCUMENTS,
    REQUIREMENTS,
    NotConvertible,
    RepoReport,
    copy_noting,
    find_repos,
    named,
    read_config,
    task_id,
    text_of,
    write_design,
    write_reference,
)


def import_repo(repo: Path, out: Path, created: dt.date) -> RepoReport:
    """Write the task for one repository under ``out``; what happened, as a report. A C/C++
    or JavaScript repository becomes a toolchain task (:mod:`.deveval_native`)."""
    try:
        config = read_config(repo)
    except (NotConvertible, AgentFileError) as exc:
        return RepoReport(repo=repo.name, error=str(exc))
    if config.get("language", "python") != "python":
        return import_native(repo, out, created, config)
    return _import_python(repo, out, created, config)


def _import_python(repo: Path, out: Path, created: dt.date, config: dict) -> RepoReport:
    """A Python repository's task (see the module's docstring)."""
    report = RepoReport(repo=repo.name)
    try:
        documents = {k: named(repo, config, k, f"{k}.md") for k in DOCUMENTS}
        dependencies = named(repo, config, "dependencies", "requirements.txt")
        suites = {
            "acceptance": named(repo, config, "acceptance_tests", "acceptance_tests"),
            "unit": named(repo, config, "unit_tests", "unit_tests"),
        }
        named(repo, config, "usage_examples", "examples")  # checked now, used when writing
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
        texts = {k: text_of(repo, p) for k, p in documents.items()}
        dependency_text = text_of(repo, dependencies) if dependencies else None
    except (NotConvertible, AgentFileError) as exc:
        report.error = str(exc)
        return report
    task = task_id(repo)
    root = fresh_folder(out, task)
    try:
        _write_task(repo, root, config, texts, dependency_text, created, report)
    except (NotConvertible, AgentFileError) as exc:  # hostile: this repository only
        shutil.rmtree(root, ignore_errors=True)
        report.error = str(exc)
        return report
    report.task = task
    return report


def _write_task(repo, root, config, texts, dependency_text, created, report) -> None:
    """Write one repository's task folder; AgentFileError for a link out of the dataset."""
    documents = {k: named(repo, config, k, f"{k}.md") for k in DOCUMENTS}
    dependencies = named(repo, config, "dependencies", "requirements.txt")
    if dependency_text is None:
        dependencies = None
    suites = {
        "acceptance": named(repo, config, "acceptance_tests", "acceptance_tests"),
        "unit": named(repo, config, "unit_tests", "unit_tests"),
    }
    examples = named(repo, config, "usage_examples", "examples")
    root.mkdir(parents=True)
    _write_toml(repo, root, config, texts["PRD"], (dependencies, dependency_text), created, report)
    for kind, folder in suites.items():
        copy_noting(repo, folder, root / "tests" / kind, report)
    _data_beside_suites(repo, root, suites.values(), report)
    write_design(root, texts)
    _write_setup(repo, root, examples, dependency_text, report)
    elsewhere = {*documents.values(), *suites.values(), examples, repo / CONFIG}
    elsewhere |= {dependencies} if dependencies else set()
    write_reference(repo, root, elsewhere, report)


def _write_toml(repo, root, config, prd, dependency, created, report) -> None:
    """requirements.md (the PRD and the two added requirements), data/ and task.toml."""
    task = root.name
    dependencies, dependency_text = dependency
    title = next((line.lstrip("# ").strip() for line in prd.splitlines() if line.strip()), task)
    (root / "requirements.md").write_text(prd.rstrip() + "\n" + REQUIREMENTS, encoding="utf-8")
    requires = _runtime_requirements(dependency_text, report) if dependencies else []
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
    meta = {"id": task, "title": title[:120], "kind": "library", "language": "python"}
    source = f"DevEval {repo.name}"
    write_task_toml(root, {**meta, "created": created, "source": source, "tests": tests})


def _data_beside_suites(repo: Path, root: Path, suites, report: RepoReport) -> None:
    """The required files also at the root of the imported suite, when tests find them
    through their own path.

    DevEval's test folders lie directly in the repository, so ``dirname(dirname(__file__))``
    is the repository root there (hone's tests read ``data_file/`` so); the imported suites
    lie directly in ``tests/``, which the harness copies as the suite's root: the files placed
    there are where such a path lands. A suite deeper in the repository keeps only ``data/``.
    """
    data = root / "data"
    suite = root / "tests"  # the importer's copy of peer files: still read bounded
    own_path = any(
        "__file__" in (peer_text(suite, path.relative_to(suite).as_posix()) or "")
        for path in suite.rglob("*.py")
    )
    if not (data.is_dir() and own_path):
        return
    if any(folder.parent != repo for folder in suites):
        report.notes.append("tests use __file__ but lie deeper than the root: data/ only")
        return
    for item in sorted(data.iterdir()):  # the importer's own copy: no link in it
        target = root / "tests" / item.name
        if target.exists():
            report.notes.append(f"{item.name}: a test folder has that name; not put beside it")
        elif item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copyfile(item, target)
    report.notes.append("required files also at the suite's root (tests read them by __file__)")


def _write_setup(repo, root, examples, dependency_text, report) -> None:
    """setup/: the dependency file and the example scripts with the data they read."""
    (root / "setup" / "examples").mkdir(parents=True)
    (root / "setup" / "requirements.txt").write_text(dependency_text or "", encoding="utf-8")
    scripts = sorted(examples.glob("*.py")) if examples.is_dir() else []
    if scripts:  # the scripts with the data files they read (examples/HDFCLIFE.csv)
        shutil.rmtree(root / "setup" / "examples")
        copy_noting(repo, examples, root / "setup" / "examples", report)
        scripts = sorted((root / "setup" / "examples").glob("*.py"))
    report.examples = len(scripts)
    if not scripts:
        report.notes.append("no example-usage scripts (*.py): the task has no setup stage")
        shutil.rmtree(root / "setup")


def _runtime_requirements(content: str, report: RepoReport) -> list[str]:
    """The index requirements of DevEval's dependency file (standard-library module names
    and the test tools the harness brings are left out)."""

    out = []
    for line in content.splitlines():
        text = line.split("#", 1)[0].strip()
        name = re.split(r"[<>=!~\[; ]", text, maxsplit=1)[0]
        if not text or name.split(".")[0] in sys.stdlib_module_names:
            continue
        if name.lower() in ("pytest", "coverage", "pytest-timeout"):
            continue
        try:
            out += vet([text], "requirements.txt")
        except InstallRefused as exc:
            report.notes.append(f"dependency not declared: {exc}")
    return out


def _copy_data(repo: Path, config: dict, dependencies: Path | None, dest: Path, report) -> bool:
    """Copy the files DevEval's ``required_files`` names (besides the dependency file) into
    ``dest``, at their paths in the repository; whether there were any."""
    named = config.get("required_files", [])
    copied = False
    for entry in named if isinstance(named, list) else []:
        pattern = relative_path(entry, f"{CONFIG}: required_files").as_posix()
        for source in sorted(repo.glob(pattern)) if "*" in pattern else [repo / pattern]:
            rel = source.relative_to(repo)
            if source == dependencies:
                continue
            beneath(repo, rel.as_posix())  # no link on the way (AgentFileError)
            if source.is_dir():
                copy_noting(repo, source, dest / rel, report)
            elif source.is_file():
                copy_file(repo, rel.as_posix(), dest / rel, IntakeLimits().max_file_bytes)
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
        "DevEval's benchmark_data folder (python/, cpp/, javascript/, java/), or one repository",
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
