"""Convert RealDevBench projects into app tasks (feature lists judged by the browser agent).

RealDevBench (RealDevWorld, 2025) is published as JSON lines (``full_dataset.jsonl``,
``test_dataset.jsonl``), one project per line::

    {"label": "...", "category": "...", "scenario": "Display" | "Analysis" | "Data" | "Game",
     "features": ["...", ...], "feature_list": "...", "prompt": "...", "files": ["...", ...]}

with the supplementary materials (images, CSV, PDF, ...) of a project under
``data/benchmark/<project>/``. Each project becomes a task folder: ``requirements.md`` is the
prompt verbatim, then one ``### F<n>:`` section per feature and the launch contract (a static
site starting at ``index.html``); ``materials/`` holds the project's files; ``task.toml`` has
``kind = "app"`` and the scenario. There is no reference app (RealDevBench has none), so the
``reference`` agent cannot run these tasks; grade other agents' output with them. The data
stays where the user put it: nothing of it belongs in this repository.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import sys
from pathlib import Path, PurePosixPath

from ...errors import AgentFileError
from ...isolation.intake import IntakeLimits
from ...methods.app import SCENARIOS
from ...untrusted import peer
from ...untrusted.parse import loads_json
from . import add_arguments as shared_arguments
from . import write_task_toml

# no reference gate (gate.py): RealDevBench has no reference app to build and test
GATED = False

DATA_DIR = Path("data") / "benchmark"
TITLE_LIMIT = 80
JSONL_LIMIT = 64 << 20  # bytes of one .jsonl file read
DELIVERY = """
## Delivery

Build the application as a static web app (HTML, CSS and JavaScript, no build step) whose
first page is `index.html` at the root of your project. The supplementary materials are in
`materials/` next to it and may be loaded from there with relative paths.
"""


def _slug(label: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:60] or "project"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


def features_of(project: dict) -> list[str]:
    """The feature texts: ``features``, else the items of ``feature_list``."""
    raw = project.get("features")
    if isinstance(raw, list) and all(isinstance(f, str) for f in raw):
        found = [" ".join(f.split()) for f in raw]
    else:
        text = project.get("feature_list") or ""
        found = [
            re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            for line in str(text).splitlines()
            if re.match(r"^\s*(?:[-*•]|\d+[.)])\s*\S", line)
        ]
    return [f for f in found if f]


def _title(feature: str) -> str:
    first = re.split(r"(?<=[.:;])\s", feature, maxsplit=1)[0].rstrip(".:;")
    return first if len(first) <= TITLE_LIMIT else first[: TITLE_LIMIT - 1].rstrip() + "…"


def requirements_md(project: dict, features: list[str]) -> str:
    """The prompt verbatim, the features as ``### F<n>:`` sections, the launch contract."""
    label = str(project.get("label") or "Project")
    parts = [f"# {label}\n", str(project.get("prompt") or "").strip() + "\n", "## Features\n"]
    for n, feature in enumerate(features, start=1):
        parts.append(f"### F{n}: {_title(feature)}\n\n{feature}\n")
    parts.append(DELIVERY.lstrip("\n"))
    return "\n".join(parts)


def _materials(src: Path, project: dict, dest: Path) -> tuple[int, list[str]]:
    """Copy the project's files into ``dest``; (files copied, entries not found).

    Peer data (untrusted.peer): an absolute or ``..`` entry, a link on the way to a file or
    out of the folder raise AgentFileError, and the project is not imported.
    """
    label = str(project.get("label") or "")
    folder = PurePosixPath(DATA_DIR.as_posix(), peer.relative_path(label, "label").as_posix())
    copied, missing = 0, []
    files = project.get("files") or []
    if not isinstance(files, list):
        raise AgentFileError("files", "is not a list of paths")
    if not files and peer.beneath(src, folder).is_dir():
        return peer.copy_folder(src, folder, dest).files, []
    for entry in files:
        rel = peer.relative_path(entry, "files")
        candidates = [rel, folder / rel, folder / rel.name]
        limit = IntakeLimits().max_file_bytes
        if any(peer.copy_file(src, c, dest / rel.name, limit) for c in candidates):
            copied += 1
        else:
            missing.append(str(entry))
    return copied, missing


def import_all(src: Path, out: Path, created: dt.date) -> list[dict]:
    """Import every project of every ``.jsonl`` file at ``src`` (a file or a folder)."""
    sources = [src] if src.is_file() else sorted(src.glob("*.jsonl"))
    base = src.parent if src.is_file() else src
    taken: set[str] = set()
    reports: list[dict] = []
    seen: set[str] = set()
    for jsonl in sources:
        try:
            lines = (peer.read_text(jsonl.parent, jsonl.name, JSONL_LIMIT) or "").splitlines()
        except AgentFileError as exc:
            reports.append({"source": jsonl.name, "error": str(exc)})
            continue
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{jsonl.name}:{number}"
            try:
                project = loads_json(line, where)
            except AgentFileError as exc:
                reports.append({"source": where, "error": str(exc)})
                continue
            label = project.get("label") if isinstance(project, dict) else None
            if not isinstance(label, str) or not label.strip():
                reports.append({"source": where, "error": "no 'label' (the project's name)"})
            elif label not in seen:  # the test split repeats projects of the full one
                seen.add(label)
                reports.append(_import_project(project, label, where, (base, out, taken), created))
    out.mkdir(parents=True, exist_ok=True)
    (out / "import-report.json").write_text(json.dumps(reports, indent=2) + "\n")
    return reports


def _import_project(project: dict, label: str, where: str, folders: tuple, created) -> dict:
    """Write one project's task folder; its report (with ``error`` when left out).
    ``folders``: the dataset's folder, the output folder and the task ids taken so far."""
    base, out, taken = folders
    features = features_of(project)
    if not features:
        return {"source": where, "label": label, "error": "no features"}
    task_id = _slug(label, taken)
    root = out / task_id
    root.mkdir(parents=True, exist_ok=True)
    scenario = str(project.get("scenario") or "").lower()
    app = {"launch": "static", **({"scenario": scenario} if scenario in SCENARIOS else {})}
    meta = {"id": task_id, "title": label, "kind": "app", "language": "javascript"}
    meta.update(created=created, source=f"RealDevBench {label}", app=app)
    write_task_toml(root, meta)
    (root / "requirements.md").write_text(requirements_md(project, features), encoding="utf-8")
    try:
        copied, missing = _materials(base, project, root / "materials")
    except AgentFileError as exc:  # hostile: this project only is left out
        shutil.rmtree(root)
        return {"source": where, "label": label, "error": str(exc)}
    return {
        "source": where,
        "label": label,
        "task": task_id,
        "scenario": scenario,
        "features": len(features),
        "materials": copied,
        "missing_files": missing,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import realdevbench``."""
    shared_arguments(
        parser,
        (
            "a RealDevBench .jsonl file, or the dataset folder (its *.jsonl and "
            "data/benchmark/<project>/)"
        ),
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what happened; exit status 1 when nothing could be imported."""
    if not args.src.exists():
        print(f"e2ebench: {args.src}: no such file or folder", file=sys.stderr)
        return 1
    reports = import_all(args.src, args.out, args.created)
    for r in reports:
        if "error" in r:
            print(f"NOT IMPORTED {r.get('label') or r['source']}: {r['error']}")
            continue
        note = f", {len(r['missing_files'])} file(s) not found" if r["missing_files"] else ""
        print(f"{r['task']}: {r['features']} features, {r['materials']} material(s){note}")
    print(f"report: {args.out / 'import-report.json'}")
    return 0 if any("error" not in r for r in reports) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m pytest_e2ebench.tools.importers.realdevbench SRC OUT``."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_e2ebench.tools.importers.realdevbench",
        description=__doc__.splitlines()[0],
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
