"""Cost of grading web tasks: browser start, time per scenario, harness against plain pytest-bdd.

    python benchmarks/web_timing.py [--tasks benchmark_tasks] [-n 0] [--json out.json]

Measures, in one process, one after the other:

* plain:  each web task's scenarios run directly by pytest with the web plugin against the
          reference app (the harness's own browser plugin, no venv, no sandbox, no harness);
* cold:   ``pytest --e2e-agent=reference -n N -k <web tasks>`` with an empty output folder;
* warm:   the same command again (every stage cached);

and, from the cold session's runs: Chromium + chromedriver start time (each run starts one)
and the duration of each scenario as pytest measured it (setup, which includes the browser
reset, plus call plus teardown). Prints seconds and ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from walltime import PYTEST, timed  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

from pytest_e2ebench.probe import PROBE_DIR  # noqa: E402
from pytest_e2ebench.taskmodel.features import (  # noqa: E402
    SCENARIOS_ENV,
    write_scenario_modules,
)
from pytest_e2ebench.taskmodel.task import find_task_dirs, load_task  # noqa: E402


def plain(tasks) -> float:
    total = 0.0
    for task in tasks:
        env = dict(
            os.environ,
            PYTHONPATH=str(PROBE_DIR),
            PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
            E2EBENCH_APP_DIR=str(task.reference_dir),
        )
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "pytest.ini").write_text("[pytest]\n")
            # the scenarios' test modules, as the harness writes them for a run
            index = write_scenario_modules(task.tests_dir, Path(tmp) / "scenarios")
            env[SCENARIOS_ENV] = str(index.parent)
            total += timed(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "e2ebench_web",
                    "-p",
                    "pytest_bdd.plugin",
                    "-c",
                    str(Path(tmp) / "pytest.ini"),
                    "--rootdir",
                    str(task.tests_dir),
                    str(task.tests_dir),
                ],
                cwd=tmp,
                env=env,
            )
    return total


def scenario_stats(out: Path) -> dict:
    """Browser starts and scenario durations from the cold session's probe files."""
    starts, durations = [], []
    for probe in out.glob("reference/*/run-*/eval/extended/probe.jsonl"):
        for line in probe.read_text().splitlines():
            body = json.loads(json.loads(line)["body"])
            if body.get("kind") == "web" and "browser_start_s" in body:
                starts.append(body["browser_start_s"])
            elif body.get("kind") == "test":
                durations.append(body["duration"])
    return {
        "runs": len(starts),
        "scenarios": len(durations),
        "browser_start_s": {
            "mean": round(statistics.mean(starts), 3),
            "median": round(statistics.median(starts), 3),
            "max": round(max(starts), 3),
        },
        "scenario_s": {
            "mean": round(statistics.mean(durations), 3),
            "median": round(statistics.median(durations), 3),
            "p90": round(statistics.quantiles(durations, n=10)[-1], 3),
            "max": round(max(durations), 3),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=ROOT / "benchmark_tasks")
    parser.add_argument("-n", default="0", help="xdist workers for the harness sessions")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    tasks = [t for t in map(load_task, find_task_dirs(args.tasks)) if t.kind == "web"]
    if not tasks:
        sys.exit(f"no web tasks under {args.tasks}")
    selected = " or ".join(t.id for t in tasks)
    figures: dict = {"tasks": [t.id for t in tasks]}
    figures["plain_s"] = round(plain(tasks), 2)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        command = [
            *PYTEST,
            f"--e2e-tasks={args.tasks}",
            "--e2e-agent=reference",
            f"--e2e-out={out}",
            "-n",
            args.n,
            "-k",
            selected,
        ]
        figures["cold_s"] = round(timed(command, cwd=ROOT), 2)
        figures["warm_s"] = round(timed(command, cwd=ROOT), 2)
        figures.update(scenario_stats(out))
    for key in ("cold_s", "warm_s"):
        figures[key.replace("_s", "_ratio")] = round(figures[key] / figures["plain_s"], 2)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
