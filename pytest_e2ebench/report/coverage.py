"""Session coverage reports: coverage.py's terminal table per run, and all runs in one file.

Every run's test stage leaves, in ``eval/extended-coverage/``, the combined coverage data of
the reference tests and the intake copy of the project it refers to (see
:func:`pytest_e2ebench.evaluation.runner.coverage_totals`); everything here reads only those
harness-made
files, with the harness's own interpreter (``coverage_step``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..evaluation.coverage_bound import omit_patterns, oversized
from ..evaluation.runner import COVERAGE_SOURCE, coverage_step
from ..isolation.intake import read_regular

DATA_LIMIT = 256 << 20  # bytes of one run's combined data file
SESSION_DIR = "coverage-session"


def _covered_runs(records: list[dict]) -> list[tuple[dict, Path]]:
    """(record, its coverage folder) of the runs whose reference tests left coverage data."""
    found = []
    for rec in records:
        extended = (rec.get("suites") or {}).get("extended") or {}
        xml = (extended.get("coverage_reports") or {}).get("xml")
        if isinstance(xml, str) and (Path(xml).parent / "combined").is_file():
            found.append((rec, Path(xml).parent))
    return found


def term_lines(records: list[dict]) -> list[str]:
    """coverage.py's ``report`` table of each run, under a header naming the run."""
    lines = []
    for rec, where in _covered_runs(records):
        done = coverage_step(
            where, "term", ["report", f"--rcfile={where / 'coveragerc'}", "--ignore-errors"]
        )
        lines.append(f"coverage of {rec['agent']} {rec['task']} run-{rec['run']}:")
        lines.extend(done.output.rstrip().splitlines() or ["(no report)"])
    return lines


def combined(records: list[dict], out: Path, xml: Path | None, html: Path | None) -> list[str]:
    """One Cobertura XML and/or HTML report of all runs; lines saying what was written.

    File names are relative to ``out`` (``<agent>/<task>/run-N/eval/.../source/...``), so the
    runs' projects stay apart in one file.
    """
    runs = _covered_runs(records)
    if not runs:
        return ["coverage: no run has coverage data (web tasks and cached older runs have none)"]
    where = out / SESSION_DIR
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for index, (_, folder) in enumerate(runs):
        (where / f"data.run{index}").write_bytes(read_regular(folder / "combined", DATA_LIMIT))
    include = "\n".join(f"    {folder / COVERAGE_SOURCE}/*" for _, folder in runs)
    # the files each run's own report left out as too big to analyse (coverage_bound)
    omit = "".join(
        f"    {pattern}\n"
        for _, folder in runs
        for pattern in omit_patterns(folder / COVERAGE_SOURCE, oversized(folder / COVERAGE_SOURCE))
    )
    rc = where / "coveragerc"
    rc.write_text(
        f"[run]\nbranch = True\ndata_file = {where / 'combined'}\n[report]\ninclude =\n{include}\n"
        + (f"omit =\n{omit}" if omit else "")
    )
    files = sorted(str(p) for p in where.glob("data.run*"))
    lines = []
    done = coverage_step(where, "combine", ["combine", "--keep", f"--rcfile={rc}", *files], out)
    if done.returncode != 0:
        return [f"coverage: combining the runs' data failed:\n{done.tail(5)}"]
    for kind, target, flag in (("xml", xml, "-o"), ("html", html, "-d")):
        if target is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        args = [kind, f"--rcfile={rc}", flag, str(target), "--ignore-errors"]
        done = coverage_step(where, kind, args, out)
        ok = done.returncode == 0
        lines.append(f"coverage {kind} of {len(runs)} runs: {target}" if ok else done.tail(5))
    return lines
