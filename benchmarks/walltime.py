"""Wall time of the benchmark, cold and warm, against plain pytest on the same tests.

    python benchmarks/walltime.py [--tasks benchmark_tasks] [-n 2] [--json out.json]

Measures, in one process, one after the other:

* plain:  each task's reference tests run by plain pytest with the reference on PYTHONPATH
          (no venv, no coverage, no harness): the floor;
* cold:   ``pytest --e2e-agent=reference -n N`` with an empty output folder (builds every venv);
* warm:   the same command again (every stage cached);
* none:   with ``--against-none``, the cold command once more with ``--e2e-sandbox=none`` (the
          same unprivileged user and limits, no namespaces): the sandbox's own cost is
          cold / none.

and prints each as seconds and as a ratio to plain, every command with the bytecode caches on
(PYTHONDONTWRITEBYTECODE left out, as on a user's machine). Nothing is asserted: the figures go
in notes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.taskmodel.task import fetch_reference, find_task_dirs, load_task  # noqa: E402

# The harness's command line, before its --e2e-* options.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


# As a user's machine runs them: with Python's and pytest's bytecode caches. Where
# PYTHONDONTWRITEBYTECODE is set (some CI images, this project's build machines), every session
# compiles the plugin's modules again and pytest rewrites their asserts (the plugin is an
# entry-point plugin): a warm session of 3 tasks took 1.74 s of CPU with it, 0.86 s without.
USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(args: list[str], **kwargs) -> float:
    kwargs.setdefault("env", USER_ENV)
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"command failed ({done.returncode}): {' '.join(args)}\n{done.stdout[-2000:]}")
    return elapsed


def plain(tasks: list[Path]) -> float:
    """Each task's reference tests with plain pytest, the reference on PYTHONPATH."""
    total = 0.0
    for task in (fetch_reference(load_task(t)) for t in tasks):
        env = dict(
            USER_ENV,
            PYTHONPATH=os.pathsep.join([str(task.reference_dir), str(task.reference_dir / "src")]),
            PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        )
        with tempfile.TemporaryDirectory() as tmp:
            ini = Path(tmp, "pytest.ini")
            ini.write_text("[pytest]\nmarkers =\n    requirement(*ids): ids\n")
            args = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-c",
                str(ini),
                "-p",
                "no:cacheprovider",
                "--rootdir",
                str(task.tests_dir.parent),
                # the repository's own conftest.py (above the bundled tasks) stays out
                "--confcutdir",
                str(task.tests_dir.parent),
                str(task.tests_dir),
            ]
            total += timed(args, env=env, cwd=task.tests_dir.parent)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=str(ROOT / "benchmark_tasks"))
    parser.add_argument("-n", default="2", help="pytest-xdist workers for the harness runs")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--sandbox", default="auto", help="--e2e-sandbox for the harness runs")
    parser.add_argument("--no-plain", action="store_true", help="skip the plain pytest run")
    parser.add_argument(
        "--against-none",
        action="store_true",
        help="also time a cold run with --e2e-sandbox=none (the sandbox's cost)",
    )
    opts = parser.parse_args()
    # Python tasks only: web tasks have no plain-pytest baseline here (benchmarks/web_timing.py)
    loaded = [load_task(d) for d in find_task_dirs(Path(opts.tasks).resolve())]
    tasks = [t.root for t in loaded if t.kind != "web"]
    web = [t.id for t in loaded if t.kind == "web"]
    figures = {"tasks": len(tasks), "workers": opts.n, "sandbox": opts.sandbox}
    figures["plain_s"] = float("nan") if opts.no_plain else plain(tasks)

    def command(sandbox: str, out: str) -> list[str]:
        return [
            *PYTEST,
            "--e2e-agent=reference",
            f"--e2e-tasks={opts.tasks}",
            f"--e2e-sandbox={sandbox}",
            "-W",  # the repository's own ini turns warnings into errors; --e2e-sandbox=none warns
            "ignore::pytest_e2ebench.errors.E2EBenchWarning",
            f"--e2e-out={out}",
            "-n",
            opts.n,
            *(["-k", f"not ({' or '.join(web)})"] if web else []),
        ]

    with tempfile.TemporaryDirectory() as out:
        figures["cold_s"] = timed(command(opts.sandbox, out), cwd=ROOT)
        figures["warm_s"] = timed(command(opts.sandbox, out), cwd=ROOT)
    if opts.against_none:
        with tempfile.TemporaryDirectory() as out:
            figures["cold_none_s"] = timed(command("none", out), cwd=ROOT)
        figures["sandbox_over_none"] = figures["cold_s"] / figures["cold_none_s"]
    for name in ("cold", "warm"):
        figures[f"{name}_over_plain"] = figures[f"{name}_s"] / figures["plain_s"]
    print(f"{figures['tasks']} tasks, -n {opts.n}, --e2e-sandbox={opts.sandbox}")
    print(f"plain pytest (serial, no venv/coverage): {figures['plain_s']:7.1f} s   1.00x")
    print(
        f"harness cold (venvs built, coverage):    {figures['cold_s']:7.1f} s  "
        f"{figures['cold_over_plain']:5.2f}x"
    )
    print(
        f"harness warm (all stages cached):        {figures['warm_s']:7.1f} s  "
        f"{figures['warm_over_plain']:5.2f}x"
    )
    if opts.against_none:
        print(
            f"harness cold, --e2e-sandbox=none:       {figures['cold_none_s']:7.1f} s  "
            f"sandbox/none = {figures['sandbox_over_none']:.2f}x"
        )
    if opts.json:
        Path(opts.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
