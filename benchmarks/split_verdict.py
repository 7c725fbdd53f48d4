"""What the split verdict run costs (issue 39): whole grades and single operations.

    python benchmarks/split_verdict.py [--tasks semverkit,csvq] [--ops 2000] [--no-grades]

1. **Grades.** Every bundled task whose tests import the project (kinds library, cli, data)
   is graded with the reference agent twice in one run, each time cold (a fresh ``--e2e-out``:
   venv, install, migration, test run), once in one process (``E2EBENCH_VERDICT_MODE=
   inprocess``) and once split, in alternating order (what the first grade records, the
   second reuses). Printed per task and in all: wall time and CPU time (this
   process's children) as ratios split / in-process, and the test run's own duration from
   results.json (``test_run.duration_s``), also as a ratio.
2. **Operations.** The project's process (``probe/e2ebench_host.py``) started beside this
   one without a sandbox, and one operation timed many times through the channel against the
   same operation done in this process: a call returning an int, an attribute read, an
   equality with a literal (with its liar check), a call that raises a project exception.

Ratios are measured in one run on one machine; they are what docs/sandbox.md quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "pytest_e2ebench" / "probe"
KINDS = ("library", "cli", "data")


def _tasks(wanted: list[str]) -> list[str]:
    found = []
    for toml in sorted((ROOT / "benchmark_tasks").glob("*/task.toml")):
        kind = tomllib.loads(toml.read_text()).get("kind")
        if kind in KINDS and (not wanted or toml.parent.name in wanted):
            found.append(toml.parent.name)
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade(task: str, mode: str, where: Path) -> dict:
    """One cold grade of ``task``'s reference under ``mode``: wall, CPU, the test run's time."""
    folder = where / f"{task}-{mode}"
    shutil.copytree(ROOT / "benchmark_tasks" / task, folder / "tasks" / task)
    env = {**os.environ, "E2EBENCH_VERDICT_MODE": mode}
    args = ["--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-out=out", "-p", "no:xdist"]
    cpu, began = _children_cpu(), time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "-q"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    wall, cpu = time.monotonic() - began, _children_cpu() - cpu
    results = folder / "out" / "results.json"
    if not results.is_file():
        raise SystemExit(f"{task} ({mode}) wrote no results:\n{done.stdout[-2000:]}")
    run = json.loads(results.read_text())["tasks"][0]
    return {
        "wall": wall,
        "cpu": cpu,
        "test_run": run["test_run"]["duration_s"] or 0.0,
        "impl": run["metrics"]["impl_rate"],
        "mode": run["test_run"].get("verdict_mode"),
    }


def grades(tasks: list[str]) -> None:
    print(f"{'task':<13} {'impl in/split':>13} {'wall':>7} {'cpu':>7} {'test run':>9}  (ratios)")
    total = {m: {"wall": 0.0, "cpu": 0.0, "test_run": 0.0} for m in ("inprocess", "split")}
    with tempfile.TemporaryDirectory(prefix="split-bench-") as tmp:
        for index, task in enumerate(tasks):
            # the first grade of a task records the decoys' values and warms the caches the
            # second reuses: the order alternates, so that neither mode always goes first
            order = ("inprocess", "split") if index % 2 == 0 else ("split", "inprocess")
            one = {m: grade(task, m, Path(tmp)) for m in order}
            for m in one:
                for k in total[m]:
                    total[m][k] += one[m][k]
            a, b = one["inprocess"], one["split"]
            ratios = [b[k] / a[k] if a[k] else float("nan") for k in ("wall", "cpu", "test_run")]
            impl = f"{a['impl']:.2f}/{b['impl']:.2f}" + ("" if b["mode"] == "split" else "*")
            print(f"{task:<13} {impl:>13} " + " ".join(f"{r:>7.2f}x" for r in ratios))
    a, b = total["inprocess"], total["split"]
    ratios = [b[k] / a[k] for k in ("wall", "cpu", "test_run")]
    print(f"{'all':<13} {'':>13} " + " ".join(f"{r:>7.2f}x" for r in ratios))
    print(f"in-process: {a['wall']:.0f} s wall, {a['cpu']:.0f} s CPU; split: {b['wall']:.0f} s, "
          f"{b['cpu']:.0f} s  (* not graded split)")  # fmt: skip


PROJECT = """
class Invalid(ValueError):
    pass

class Point:
    def __init__(self, x):
        self.x = x

def add(a, b):
    return a + b

def fail():
    raise Invalid("no")
"""


def operations(count: int) -> None:
    sys.path.insert(0, str(PROBE))
    import e2ebench_split as split  # noqa: PLC0415 - the probe's folder is on the path now
    import e2ebench_wire as wire  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="split-ops-") as tmp:
        Path(tmp, "benchproject.py").write_text(PROJECT)
        to_host_r, to_host_w = os.pipe()
        from_host_r, from_host_w = os.pipe()
        stop_r, stop_w = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROBE), tmp])}
        ends = (to_host_r, from_host_w, stop_r)
        host = subprocess.Popen(
            [sys.executable, "-m", "e2ebench_host", *map(str, ends)],
            pass_fds=ends,
            env=env,
            cwd=tmp,
        )
        for fd in ends:
            os.close(fd)
        split.PEER = split.Peer(wire.Channel(from_host_r, to_host_w))
        split.PEER.interrupt = stop_w
        remote = split._ask("import", "benchproject")
        sys.path.insert(0, tmp)
        import benchproject as local  # noqa: PLC0415

        point_r, point_l = remote.Point(1), local.Point(1)
        cases = {
            "call add(1, 2)": (lambda: remote.add(1, 2), lambda: local.add(1, 2)),
            "attribute p.x": (lambda: point_r.x, lambda: point_l.x),
            "p.x == 1 (liar check)": (lambda: point_r == 1, lambda: point_l == 1),
            "raises Invalid": (lambda: _raises(remote), lambda: _raises(local)),
        }
        print(f"\n{'operation':<24} {'split µs':>9} {'in-process µs':>14} {'ratio':>8}")
        for name, (far, near) in cases.items():
            a, b = _per_op(far, count), _per_op(near, count)
            print(f"{name:<24} {a:>9.1f} {b:>14.2f} {a / b:>7.0f}x")
        split.PEER.channel.send({"op": "bye"})
        host.wait(10)


def _raises(module) -> None:
    try:
        module.fail()
    except ValueError:
        pass


def _per_op(operation, count: int) -> float:
    operation()
    began = time.perf_counter()
    for _ in range(count):
        operation()
    return (time.perf_counter() - began) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="", help="comma-separated bundled tasks (default all)")
    parser.add_argument("--ops", type=int, default=2000, help="repetitions per operation")
    parser.add_argument("--no-grades", action="store_true", help="time the operations only")
    options = parser.parse_args()
    if not options.no_grades:
        grades(_tasks([t for t in options.tasks.split(",") if t]))
    operations(options.ops)


if __name__ == "__main__":
    main()
