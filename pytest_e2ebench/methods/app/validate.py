"""Validate the GUI judge against ground truth we own: the web tasks' Gherkin verdicts.

RealDevWorld reports how well AppEvalPilot agrees with human testers (per-test-case accuracy,
Pearson r of the app scores). Here the web tasks' Gherkin scenarios play the humans: every
variant of each web task's app (the reference, the empty project, every mutant) is graded
twice, by its scenarios (``kind = "web"``) and by the browser agent, on an *app view* of the
task (``kind = "app"``: the same requirements document with ``### R<n>`` read as features, the
same reference and mutants). Then:

* **per-case accuracy** — a case the judge says Yes to should belong to a requirement whose
  scenarios all pass, a No to one whose scenarios do not; Indeterminate counts as wrong;
* **Pearson r** — over the variants, SQ against the share of passing scenarios (test_acc);
* **requirement agreement** — per requirement, "all its cases Yes" against "all its scenarios
  pass".

``python -m pytest_e2ebench.methods.app.validate OUT [--tasks benchmark_tasks] [-k todolist]
[--variant reference ...] -- --e2e-model=M --e2e-llm-base-url=URL`` runs both gradings (each
a pytest session of this plugin) and writes ``OUT/validation.json``; the project's tests run
it against the scripted endpoint.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ...taskmodel.mutants import materialize
from ...taskmodel.task import find_task_dirs, load_task

AGENT = "dir:variants"
LABEL = "dir-variants"


def app_view(task, dest: Path) -> Path:
    """The web task ``task`` as an app task: its requirements are the features."""
    root = dest / task.id
    root.mkdir(parents=True)
    (root / "task.toml").write_text(
        f'id = "{task.id}"\ntitle = {json.dumps(task.title)}\nkind = "app"\n'
        f'created = {task.created.isoformat()}\nsource = "app view of the web task"\n\n'
        '[app]\nlaunch = "static"\n' + ("network = true\n" if task.network else ""),
        encoding="utf-8",
    )
    text = re.sub(r"^###(\s+)R(\d+)", r"###\1F\2", task.requirements_text, flags=re.MULTILINE)
    (root / "requirements.md").write_text(text, encoding="utf-8")
    shutil.copytree(task.reference_dir, root / "reference")
    return root


def variants(tasks: list, out: Path) -> dict[str, list[dict]]:
    """``out/<task>/run-<k>/``: run 1 the reference, run 2 the empty project, then mutants."""
    listing = materialize(tasks, out / ".mutants")
    found: dict[str, list[dict]] = {}
    for task in tasks:
        shutil.copytree(task.reference_dir, out / task.id / "run-1")
        (out / task.id / "run-2").mkdir(parents=True)
        found[task.id] = [{"run": 1, "name": "reference"}, {"run": 2, "name": "empty"}]
        for m in listing[task.id]:
            shutil.move(
                out / ".mutants" / task.id / f"run-{m['run']}",
                out / task.id / f"run-{m['run'] + 2}",
            )
            found[task.id].append({"run": m["run"] + 2, "name": m["name"]})
    shutil.rmtree(out / ".mutants")
    return found


def keep(found: dict[str, list[dict]], out: Path, names: list[str]) -> dict[str, list[dict]]:
    """Only the variants called ``names`` (reference, empty, a mutant), renumbered from 1."""
    known = {v["name"] for listing in found.values() for v in listing}
    unknown = sorted(set(names) - known)
    if unknown:
        raise SystemExit(
            f"e2ebench validate: --variant {', '.join(unknown)}: no such variant; use "
            f"reference, empty or a mutant's name ({', '.join(sorted(known))})"
        )
    kept: dict[str, list[dict]] = {}
    for task, listing in found.items():
        chosen = [v for v in listing if v["name"] in names]
        for v in listing:
            if v not in chosen:
                shutil.rmtree(out / task / f"run-{v['run']}")
        kept[task] = []
        for new, v in enumerate(chosen, 1):
            if v["run"] != new:
                shutil.move(out / task / f"run-{v['run']}", out / task / f"run-{new}")
            kept[task].append({"run": new, "name": v["name"]})
    return kept


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r; None when undefined (fewer than two points, or no variation)."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def compare(gherkin: list[dict], gui: list[dict]) -> dict:
    """Agreement of the GUI judge's records with the Gherkin records of the same variants."""
    truth = {(r["task"], r["run"]): r for r in gherkin if r.get("metrics")}
    cases_right = cases = req_right = reqs = 0
    points: list[dict] = []
    for rec in gui:
        key = (rec["task"], rec["run"])
        if key not in truth or not rec.get("metrics"):
            continue
        web = truth[key]
        passing = {"F" + r["id"][1:]: r["verdict"] == "implemented" for r in web["requirements"]}
        for verdict in (rec.get("app") or {}).get("verdicts", []):
            cases += 1
            said = verdict["verdict"]
            cases_right += (said == "Yes") == passing[
                verdict["feature"]
            ] and said != "Indeterminate"
        for req in rec["requirements"]:
            reqs += 1
            req_right += (req["verdict"] == "implemented") == passing[req["id"]]
        points.append(
            {
                "task": rec["task"],
                "run": rec["run"],
                "sq": rec["metrics"]["sq"],
                "test_acc": web["metrics"]["test_acc"],
                "executability": rec["metrics"]["executability"],
            }
        )
    return {
        "variants": len(points),
        "cases": cases,
        "cases_right": cases_right,
        "requirements": reqs,
        "requirements_right": req_right,
        "case_accuracy": cases_right / cases if cases else None,
        "requirement_agreement": req_right / reqs if reqs else None,
        "pearson_r": pearson([p["sq"] for p in points], [p["test_acc"] for p in points]),
        "points": points,
    }


def _session(tasks: Path, out: Path, runs: int, where: Path, extra: list[str]) -> list[dict]:
    """One pytest session of the plugin grading the variants; its run records."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        f"--rootdir={where}",
        f"--e2e-tasks={tasks}",
        f"--e2e-agent={AGENT}",
        f"--e2e-runs={runs}",
        f"--e2e-out={out}",
        "-q",
        *extra,
    ]
    subprocess.run(command, cwd=where, check=False)
    results = out / "results.json"
    if not results.is_file():
        raise SystemExit(f"e2ebench validate: the session wrote no {results}")
    return json.loads(results.read_text())["tasks"]


def _workers(args: list[str]) -> list[str]:
    """The xdist workers asked for the GUI judge (``-n 2``), for the Gherkin session too."""
    for i, arg in enumerate(args):
        if arg in ("-n", "--numprocesses") and i + 1 < len(args):
            return [arg, args[i + 1]]
        if arg.startswith(("-n", "--numprocesses=")) and arg not in ("-n", "--numprocesses"):
            return [arg]
    return []


def validate(tasks: list, out: Path, extra: list[str], only: list[str] | None = None) -> dict:
    """Grade every variant (or those named ``only``) both ways and compare (module docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    found = variants(tasks, out / "variants")
    if only:
        found = keep(found, out / "variants", only)
    runs = max(len(v) for v in found.values())
    views = out / "app-tasks"
    for task in tasks:
        app_view(task, views)
    web_dir = out / "web-tasks"
    for task in tasks:
        shutil.copytree(task.root, web_dir / task.id)
    gherkin = _session(web_dir, out / "gherkin", runs, out, _workers(extra))
    gui = _session(views, out / "gui", runs, out, extra)
    report = {**compare(gherkin, gui), "variants_by_task": found}
    (out / "validation.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    """``python -m pytest_e2ebench.methods.app.validate OUT [--tasks DIR] [-k NAME] --
    PYTEST_ARGS``."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_e2ebench.methods.app.validate", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="working folder; validation.json is written here")
    parser.add_argument("--tasks", type=Path, default=Path("benchmark_tasks"))
    parser.add_argument("-k", dest="only", action="append", default=[], help="a web task id")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="grade only this variant: reference, empty or a mutant's name (repeatable)",
    )
    parser.epilog = (
        "Arguments after -- go to the GUI judge's pytest session (--e2e-model, "
        "--e2e-llm-base-url, --e2e-app-cases, -n 2, ...)."
    )
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.pytest_args = argv[cut + 1 :]
    tasks = [load_task(d) for d in find_task_dirs(args.tasks)]
    tasks = [t for t in tasks if t.kind == "web" and (not args.only or t.id in args.only)]
    if not tasks:
        parser.error(f"no web tasks under {args.tasks}")
    report = validate(tasks, args.out.resolve(), args.pytest_args, args.variant)
    show = {k: report[k] for k in ("variants", "cases", "case_accuracy", "requirement_agreement")}
    print(json.dumps({**show, "pearson_r": report["pearson_r"]}, indent=2))
    print(f"details: {args.out / 'validation.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
