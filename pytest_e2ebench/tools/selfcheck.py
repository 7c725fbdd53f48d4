"""Check that tasks are self-checking, through the real harness.

    python -m pytest_e2ebench.tools.selfcheck [--runs 3] [-n 2] [--no-mutants]
    TASK_DIR_OR_TASKS_FOLDER...

For every task: the reference scores 100 % in each of ``--runs`` independent runs (no flaky
test) with its tests unchanged by migration, the empty repository scores 0 %, and every
mutant fails exactly the requirements it declares. Exit status 0 when all hold. The
project's own tests use the same functions.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import E2EBenchError, TaskError
from ..taskmodel.mutants import materialize
from ..taskmodel.task import Task, fetch_reference, find_task_dirs, load_task


def mutants_main(argv: list[str] | None = None) -> int:
    """``python -m pytest_e2ebench.taskmodel.mutants TASKS OUT``: write the mutants of all tasks
    under a
    folder, ready for ``--e2e-agent=dir:OUT``."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_e2ebench.taskmodel.mutants",
        description="Write every task's mutants as OUT/<task>/run-<k>/ for --e2e-agent=dir:OUT.",
    )
    parser.add_argument("tasks", type=Path, help="folder of task folders")
    parser.add_argument("out", type=Path, help="empty or new output folder")
    opts = parser.parse_args(argv)
    if opts.out.exists() and any(opts.out.iterdir()):
        parser.error(f"{opts.out} is not empty")
    try:
        tasks = [fetch_reference(load_task(d)) for d in find_task_dirs(opts.tasks)]
        manifest = materialize(tasks, opts.out)
    except E2EBenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    runs = max((len(v) for v in manifest.values()), default=0)
    print(
        f"wrote {sum(len(v) for v in manifest.values())} mutants of {len(manifest)} tasks; "
        f"grade them with: pytest --e2e-agent=dir:{opts.out} --e2e-runs={runs}"
    )
    return 0


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def _results(path: Path) -> list[dict]:
    return json.loads(path.read_text())["tasks"]


def _failed(run: dict) -> list[str]:
    return [r["id"] for r in run["requirements"] if r["verdict"] != "implemented"]


def check(
    tasks: list[Task], work: Path, runs: int = 3, workers: str = "2", mutants: bool = True
) -> list[str]:
    """Run the checks in ``work``; return the problems found (empty: all good).

    ``mutants=False`` leaves the mutants out: only the reference and the empty repository.
    """
    folder = work / "tasks"
    tasks = [fetch_reference(task) for task in tasks]  # the mutants edit the reference's files
    for task in tasks:
        shutil.copytree(task.root, folder / task.id, ignore=shutil.ignore_patterns("__pycache__"))
    mutants_dir = work / "mutants"
    manifest = materialize(tasks, mutants_dir) if mutants else {}
    most = max((len(v) for v in manifest.values()), default=0)
    dist = ["-n", workers] if workers not in ("0", "") else []
    base = [f"--e2e-tasks={folder}", *dist]
    sessions = {
        "ref": ["--e2e-agent=reference", f"--e2e-runs={runs}"],
        "nop": ["--e2e-agent=nop"],
    }
    if most:
        sessions["mutants"] = [f"--e2e-agent=dir:{mutants_dir}", f"--e2e-runs={most}"]
    unfinished = _run_sessions(sessions, base, work)
    if unfinished:
        return [unfinished]
    problems = _reference_problems(_results(work / "ref.json"))
    problems += unstable(_results(work / "ref.json"))
    problems += _nop_problems(_results(work / "nop.json"))
    if most:
        problems += _mutant_problems(_results(work / "mutants.json"), tasks)
    return problems


def _run_sessions(sessions: dict[str, list[str]], base: list[str], work: Path) -> str | None:
    """Run each session, its results.json kept as ``work/<name>.json``; the problem if one did
    not finish, else None.

    One output folder: the nop and mutant sessions reuse the reference's runs, which fix every
    agent's test count (docs/metrics.md).
    """
    out = work / "out"
    for name, args in sessions.items():
        (out / "results.json").unlink(missing_ok=True)
        done = _pytest([*base, *args, f"--e2e-out={out}"], work)
        if not (out / "results.json").exists():
            return f"the {name} session did not finish:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
        (out / "results.json").rename(work / f"{name}.json")
    return None


def _reference_problems(runs: list[dict]) -> list[str]:
    """The reference's runs: each implements every requirement, its tests migrate unchanged."""
    problems = []
    for run in runs:
        if run["status"] != "ok" or run["metrics"]["impl_rate"] != 1.0:
            why = _why(run, _failed(run))
            problems.append(
                f"{run['task']}: reference run {run['run']} fails {_failed(run)} ({why})"
            )
        changed = (run.get("migration") or {}).get("changed")
        if changed:
            # the reference has the expected API: migrating its tests onto it is the identity
            problems.append(
                f"{run['task']}: the migration changed the reference's own tests: "
                + "; ".join(f"{m}: {', '.join(names[:4])}" for m, names in sorted(changed.items()))
            )
    return problems


def _nop_problems(runs: list[dict]) -> list[str]:
    """The empty repository's runs: they implement nothing."""
    problems = []
    for run in runs:
        if run["status"] != "ok" or run["metrics"]["impl_rate"] != 0.0:
            passing = [r["id"] for r in run["requirements"] if r["verdict"] == "implemented"]
            problems.append(f"{run['task']}: the empty repository passes {passing}")
    return problems


def _mutant_problems(runs: list[dict], tasks: list[Task]) -> list[str]:
    """The mutants' runs: each fails exactly the requirements it declares, and neither none
    nor all of them."""
    problems = []
    by_task = {t.id: t for t in tasks}
    for run in runs:
        task = by_task[run["task"]]
        if run["run"] > len(task.mutants):
            continue
        mutant = task.mutants[run["run"] - 1]
        declared = sorted(mutant.fails, key=_req_order)
        failed = sorted(_failed(run), key=_req_order)
        if run["status"] != "ok" or failed != declared:
            extra = [rid for rid in failed if rid not in declared]
            why = f" ({_why(run, extra)})" if extra or run["status"] != "ok" else ""
            problems.append(
                f"{task.id}: mutant {mutant.name!r} ({mutant.cls}) fails {failed}, "
                f"declares {declared}{why}"
            )
        if len(failed) in (0, len(task.requirements)):
            problems.append(
                f"{task.id}: mutant {mutant.name!r} does not discriminate: it fails "
                f"{len(failed)} of {len(task.requirements)} requirements"
            )
    return problems


def unstable(runs: list[dict]) -> list[str]:
    """One problem per task whose reference runs disagree on some requirement's verdict: an
    oracle whose verdict changes from run to run cannot be anyone's denominator (issue 30)."""
    verdicts: dict[str, dict[str, dict[int, str]]] = {}
    for run in runs:
        for req in run["requirements"]:
            verdicts.setdefault(run["task"], {}).setdefault(req["id"], {})[run["run"]] = req[
                "verdict"
            ]
    problems = []
    for task, by_req in verdicts.items():
        changing = {rid: seen for rid, seen in by_req.items() if len(set(seen.values())) > 1}
        if changing:
            shown = "; ".join(
                f"{rid} ({', '.join(f'run {n} {v}' for n, v in sorted(seen.items()))})"
                for rid, seen in sorted(changing.items(), key=lambda kv: _req_order(kv[0]))
            )
            problems.append(f"{task}: verdicts differ between reference runs: {shown}")
    return problems


def _why(run: dict, requirements: list[str]) -> str:
    """The run's error, or the first failing test of each of ``requirements`` and its message."""
    if run["status"] != "ok":
        return run.get("error", {}).get("message", "") or run["status"]
    return "; ".join(
        f"{t['nodeid']}: {(t.get('message') or t['outcome']).splitlines()[0][:160]}"
        for r in run["requirements"]
        if r["id"] in requirements
        for t in r.get("failing", [])[:1]
    )


def _req_order(rid: str) -> tuple[int, str]:
    digits = "".join(c for c in rid if c.isdigit())
    return (int(digits) if digits else 0, rid)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_e2ebench.tools.selfcheck",
        description=__doc__.strip().splitlines()[0],
    )
    parser.add_argument("paths", nargs="+", type=Path, help="task folders or folders of tasks")
    parser.add_argument("--runs", type=int, default=3, help="reference runs (default 3)")
    parser.add_argument("-n", default=str(min(2, os.cpu_count() or 1)), help="xdist workers")
    parser.add_argument("--keep", type=Path, help="keep the work folder here (default: a temp dir)")
    parser.add_argument(
        "--no-mutants", action="store_true", help="only the reference and the empty repository"
    )
    opts = parser.parse_args(argv)
    dirs: list[Path] = []
    for path in opts.paths:
        if not path.is_dir():
            parser.error(f"{path}: no such folder; name a task folder or a folder of tasks")
        found = [path] if (path / "task.toml").exists() else find_task_dirs(path)
        if not found:
            parser.error(f"{path}: no task.toml in it or below; name a task folder")
        dirs.extend(found)
    try:
        tasks = [fetch_reference(load_task(d)) for d in dirs]
    except TaskError as exc:  # its message lists every problem with the fix: no traceback
        print(exc, file=sys.stderr)
        return 2
    if opts.keep:
        opts.keep.mkdir(parents=True, exist_ok=True)
    work = (
        contextlib.nullcontext(opts.keep)
        if opts.keep
        else tempfile.TemporaryDirectory(prefix="e2ebench-selfcheck-")
    )
    with work as folder:
        problems = check(tasks, Path(folder), opts.runs, opts.n, not opts.no_mutants)
    ids = {task.id for task in tasks}
    general = [p for p in problems if p.split(":", 1)[0] not in ids]
    for task in tasks:
        mine = general or [p for p in problems if p.startswith(f"{task.id}:")]
        size = task.size
        print(
            f"{'ok  ' if not mine else 'FAIL'} {task.id}: {size['requirements']} requirements, "
            f"{size['tests']} tests, {len(task.mutants)} mutants"
        )
    for problem in problems:
        print(f"  - {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
