"""What the probe costs a suite's test run (issue 27): a bundled task's suite on its reference,
run by this interpreter four ways, outside the sandbox:

    python benchmarks/probe_overhead.py [--task semverkit] [--repeat 5]

* ``bare``: pytest with the task's tests, nothing else;
* ``probe``: with the probe and its guard (the suite's code fingerprinted, the audit hook, the
  watch checked at every report), as the harness loads them;
* ``coverage``: under ``coverage run --branch`` measuring the reference, without the probe;
* ``both``: the probe under coverage, as a harness run of a Python suite.

Prints the least CPU (user + system of the child) of ``--repeat`` runs of each, the tests run,
and each figure as a ratio of ``bare``. Asserts nothing.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.probe import PROBE_DIR  # noqa: E402

WAYS = ("bare", "probe", "coverage", "both")


def command(way: str, where: Path) -> list[str]:
    """The test run's command: pytest, under coverage or not, with the probe or not."""
    cov = ["-m", "coverage", "run", "--branch", f"--source={where / 'reference'}"]
    cov.append(f"--data-file={where / '.coverage'}")
    head = [sys.executable, *(cov if way in ("coverage", "both") else [])]
    probe = ["-p", "e2ebench_probe"] if way in ("probe", "both") else []
    tail = ["-p", "pytest_timeout", "-p", "no:cacheprovider", "-q", "--no-header", "tests"]
    return [*head, "-m", "pytest", *probe, *tail]


def run(way: str, where: Path) -> float:
    """One run's CPU seconds (its own and its children's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "E2EBENCH_"))}
    env.update(
        PYTHONPATH=os.pathsep.join([str(PROBE_DIR), str(where / "reference")]),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    out = where / "probe.jsonl"
    out.unlink(missing_ok=True)
    if way in ("probe", "both"):
        env.update(E2EBENCH_PROBE_OUT=str(out), E2EBENCH_PROBE_SUITE=str(where / "tests"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command(way, where), cwd=where, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{way}: pytest exited {done.returncode}\n{done.stdout[-2000:]}{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="semverkit", help="a bundled Python library task")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    task = ROOT / "benchmark_tasks" / args.task
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        shutil.copytree(task / "tests", where / "tests")
        shutil.copytree(task / "reference", where / "reference")
        best = {way: min(run(way, where) for _ in range(args.repeat)) for way in WAYS}
        lines = (where / "probe.jsonl").read_text().splitlines()
        tests = sum(json.loads(json.loads(line)["body"])["kind"] == "test" for line in lines)
    print(f"{args.task}: {tests} tests, least CPU of {args.repeat} runs each")
    for way in WAYS:
        print(f"  {way:9s} {best[way]:6.2f} s   {best[way] / best['bare']:5.2f} x bare")


if __name__ == "__main__":
    main()
