"""Throughput of the executors: runs per minute, and the harness's own overhead per run.

    python benchmarks/ray_throughput.py [--tasks benchmark_tasks] [--only a,b] [--runs 1]
                                        [--json out.json]

Runs the same benchmark (the bundled Python tasks, agents ``reference,nop``) in turn with:

* local-n2:   ``--e2e-executor=local -n 2`` (xdist, this machine);
* ray-1node:  ``--e2e-executor=ray`` on a 1-node cluster started with ``ray start --head``
              (2 CPUs);
* ray-2node:  the same on a 2-node cluster: a head and a second node process on this machine
              (1 CPU each, so the machine's 2 cores are shared alike);

each cold (an empty output folder: every venv built, every test run) and warm (the same command
again: every stage cached, so what is left is the harness alone). Prints runs per minute (cold)
and the overhead per run (warm wall time / runs). The clusters are stopped by their own pids.
Nothing is asserted: the figures go in docs/scaling.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.taskmodel.task import find_task_dirs, load_task  # noqa: E402

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
RAY = str(Path(sys.executable).with_name("ray"))
AGENTS = "reference,nop"
PORT = 26391
# ray start (Ray >= 2.5x) enables token authentication; its clients must say so too
ENV = dict(os.environ, RAY_AUTH_MODE="token", RAY_USAGE_STATS_ENABLED="0")


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=ENV)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"command failed ({done.returncode}): {' '.join(args)}\n{done.stdout[-3000:]}")
    return elapsed


def _cmdlines() -> dict[int, tuple[int, str]]:
    """pid -> (ppid, command line) of every live process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            found[int(entry.name)] = (int(stat[stat.rindex(")") + 2 :].split()[1]), argv)
    return found


def cluster_pids(marks: tuple[str, ...]) -> set[int]:
    """The processes of our cluster: those naming its temp dir or port, and all below them."""
    table = _cmdlines()
    pids = {pid for pid, (_, argv) in table.items() if any(m in argv for m in marks)}
    pids.discard(os.getpid())
    grew = True
    while grew:
        below = {pid for pid, (ppid, _) in table.items() if ppid in pids} - pids
        pids |= below
        grew = bool(below)
    return pids


class Cluster:
    """A Ray cluster of ``cpus`` (one entry per node) started with ``ray start`` here."""

    def __init__(self, cpus: list[int]) -> None:
        self.cpus = cpus
        self.temp = tempfile.mkdtemp(prefix="e2e-ray-")
        self.marks = (self.temp, f":{PORT}")
        self.address = f"127.0.0.1:{PORT}"

    def __enter__(self) -> Cluster:
        common = ["--disable-usage-stats", "--resources", '{"browser": 1}']
        head = [RAY, "start", "--head", f"--port={PORT}", f"--temp-dir={self.temp}"]
        head += ["--include-dashboard=false", f"--num-cpus={self.cpus[0]}", *common]
        subprocess.run(head, check=True, capture_output=True, env=ENV)
        for cpus in self.cpus[1:]:
            node = [RAY, "start", f"--address={self.address}", f"--num-cpus={cpus}", *common]
            subprocess.run(node, check=True, capture_output=True, env=ENV)
        return self

    def __exit__(self, *exc) -> None:
        for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
            for pid in cluster_pids(self.marks):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while cluster_pids(self.marks) and time.monotonic() < deadline:
                time.sleep(0.2)


def measure(name: str, tasks: Path, work: Path, runs: int, extra: list[str]) -> dict:
    """Cold and warm wall time of one configuration; runs/min and overhead per run."""
    out = work / name
    args = [*PYTEST, f"--e2e-agent={AGENTS}", f"--e2e-tasks={tasks}", f"--e2e-out={out}"]
    args += [f"--e2e-runs={runs}", *extra]
    cold = timed(args, work)
    warm = timed(args, work)
    doc = json.loads((out / "results.json").read_text())
    count = len(doc["tasks"])
    errors = sum(1 for r in doc["tasks"] if r.get("status") != "ok")
    return {
        "config": name,
        "runs": count,
        "errors": errors,
        "cold_s": round(cold, 1),
        "warm_s": round(warm, 1),
        "runs_per_min": round(count / cold * 60, 2),
        "overhead_per_run_s": round(warm / count, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=ROOT / "benchmark_tasks")
    parser.add_argument("--only", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    opts = parser.parse_args()
    only = {t for t in opts.only.split(",") if t}
    figures = []
    with tempfile.TemporaryDirectory(prefix="e2e-throughput-") as tmp:
        work = Path(tmp)
        tasks = work / "tasks"
        tasks.mkdir()
        for task_dir in find_task_dirs(opts.tasks.resolve()):
            task = load_task(task_dir)
            if task.kind not in ("web", "app") and (not only or task.id in only):
                shutil.copytree(task_dir, tasks / task.id)
        ray = ["--e2e-executor=ray", "-p", "no:xdist"]
        figures.append(measure("local-n2", tasks, work, opts.runs, ["-n", "2"]))
        with Cluster([2]) as cluster:
            address = [f"--e2e-ray-address={cluster.address}"]
            figures.append(measure("ray-1node", tasks, work, opts.runs, [*ray, *address]))
        with Cluster([1, 1]) as cluster:
            address = [f"--e2e-ray-address={cluster.address}"]
            figures.append(measure("ray-2node", tasks, work, opts.runs, [*ray, *address]))
    for row in figures:
        print(
            f"{row['config']:10} {row['runs']:3} runs ({row['errors']} errors)  "
            f"cold {row['cold_s']:7.1f} s  {row['runs_per_min']:6.2f} runs/min  "
            f"warm {row['warm_s']:6.1f} s  {row['overhead_per_run_s']:5.2f} s/run overhead"
        )
    if opts.json:
        opts.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
