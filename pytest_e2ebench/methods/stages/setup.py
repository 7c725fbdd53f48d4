"""The environment-setup stage: the agent's dependency file, installed, runs the examples.

DevBench (arXiv:2403.08604, Table 1): the agent writes the dependency file from the
requirements and the design; the harness installs it into a fresh environment and runs the
task's example-usage scripts there; the metric is the share of scripts that run (exit 0).

The dependency file is ``requirements.txt`` (one requirement a line; comments and blank lines
ignored) or else ``pyproject.toml``'s ``[project] dependencies``. Every requirement is vetted
(:func:`~pytest_e2ebench.environment.requirements.vet`: index requirements only, no URL, path or pip
option) and installed by the harness's uv, wheels only — nothing the agent wrote is built or
run on the host. The reference implementation is put on the path without its own packaging
(so its declared dependencies do not stand in for the agent's) in an environment that has
nothing else (not even the test tools), and each example runs in the sandbox, without network.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ...environment import venv as venvs
from ...environment.requirements import InstallRefused, vet
from ...environment.workspace import PACKAGING_FILES
from ...errors import AgentFileError
from ...isolation.sandbox import Sandbox
from ...untrusted.parse import read_text, read_toml
from . import DEPENDENCY_FILE

MAX_DEPENDENCY_BYTES = 256 << 10
EXAMPLE_TIMEOUT = 120.0


def dependencies(root: Path) -> tuple[list[str] | None, str]:
    """The requirements the workspace ``root`` declares, and where (None: no dependency file).

    Raises InstallRefused naming the file and line for something that is not an index
    requirement, and naming the file for one that cannot be read as data (a link, too large,
    not UTF-8, nested too deeply, not TOML).
    """
    try:
        text = read_text(root, DEPENDENCY_FILE, max_bytes=MAX_DEPENDENCY_BYTES)
        document = None
        if text is None:
            document = read_toml(root, "pyproject.toml", max_bytes=MAX_DEPENDENCY_BYTES)
    except AgentFileError as exc:
        raise InstallRefused(str(exc)) from None
    if text is not None:
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        return vet([line for line in lines if line], DEPENDENCY_FILE), DEPENDENCY_FILE
    if document is None:
        return None, ""
    project = document.get("project", {})
    declared = project.get("dependencies", []) if isinstance(project, dict) else None
    return vet(declared, "pyproject.toml [project] dependencies"), "pyproject.toml"


EXAMPLES_FOLDER = "examples"  # where the scripts sit in the repository they run from


def grade(answer_root: Path, reference: Path, examples, work: Path, sandbox: Sandbox) -> dict:
    """Install the answer's dependencies with the reference on the path; run each example."""
    items = {p.stem: {"passed": False, "message": ""} for p in examples}
    try:
        declared, source = dependencies(answer_root)
    except InstallRefused as exc:
        return _all_failed(items, f"the dependency file is refused: {exc}", installed=False)
    if declared is None:
        return _all_failed(
            items, f"no dependency file ({DEPENDENCY_FILE} or pyproject.toml)", installed=False
        )
    project = work / "project"
    shutil.copytree(
        reference,
        project,
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", *PACKAGING_FILES),
    )
    env = work / "venv"
    logs = work / "logs"
    built = venvs.bare(env, project, logs)  # nothing else: the agent's file must say it all
    python = venvs.python_of(env)
    try:
        venvs.install_requirements("dependencies", declared, python, logs)
    except InstallRefused as exc:
        first = str(exc).splitlines()[0]
        return _all_failed(items, f"{source} did not install: {first}", installed=False)
    items.update(_run_examples(examples, python, project, work, sandbox))
    passed = sum(i["passed"] for i in items.values())
    return {
        "items": items,
        "metrics": {"example_pass_rate": passed / len(items) if items else None},
        "dependencies": declared,
        "dependency_file": source,
        "install": built.method,
    }


def _run_examples(examples, python: Path, project: Path, work: Path, sandbox: Sandbox) -> dict:
    """Each example script run in the sandbox with the answer's environment: its item."""
    # As DevEval runs them: from the repository's root (a writable copy of the reference),
    # with the examples folder (scripts and their data files) in its place.
    run, env, logs = work / "run", work / "venv", work / "logs"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(project, run, symlinks=True, dirs_exist_ok=True, ignore=ignore)
    folder = examples[0].parent if examples else None
    if folder is not None:
        shutil.copytree(
            folder, run / EXAMPLES_FOLDER, symlinks=True, dirs_exist_ok=True, ignore=ignore
        )
    items = {}
    for script in examples:
        done = sandbox.run(
            [str(python), f"{EXAMPLES_FOLDER}/{script.name}"],
            cwd=run,
            env={"PATH": f"{python.parent}:/usr/bin:/bin", "HOME": str(run), "LANG": "C.UTF-8"},
            timeout=EXAMPLE_TIMEOUT,
            log=logs / f"example-{script.stem}.log",
            writable=[run],
            readable=[env, project],
        )
        ok = done.returncode == 0 and not done.timed_out
        why = "timed out" if done.timed_out else f"exit status {done.returncode}"
        items[script.stem] = {
            "passed": ok,
            "message": "" if ok else f"example {script.name}: {why}\n{done.tail(6)}",
        }
    return items


def _all_failed(items: dict, message: str, *, installed: bool) -> dict:
    for item in items.values():
        item["message"] = message
    return {
        "items": items,
        "metrics": {"example_pass_rate": 0.0 if items else None},
        "installed": installed,
        "note": message,
    }
