"""A fetched reference (``[source]``: a PyPI sdist) is fetched by the run, never when the task
is collected (issue 28.6): all bundled tasks collect with no network at all, and a run whose
index does not answer ends as an infrastructure error of its ``source`` stage, not as a
collection error and not as the agent's failure.

Each test is one pytest session in a subprocess, its cache empty and its index unreachable;
the collection runs in a network namespace of its own (``unshare -n``: only a loopback that
is down), so any connection the harness tried would fail the collection.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "benchmark_tasks"
NOWHERE = "http://127.0.0.1:9/simple"  # the discard port: nothing answers


def _offline_env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        E2EBENCH_CACHE=str(tmp_path / "cache"),  # empty: no reference fetched before
        UV_DEFAULT_INDEX=NOWHERE,
        UV_INDEX_URL=NOWHERE,
        PIP_INDEX_URL=NOWHERE,
    )
    return env


def _no_network() -> list[str]:
    """``unshare -n`` when this process may make a network namespace, else nothing (the
    unreachable index alone then stands for the network)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def _pytest(tmp_path: Path, *args: str, prefix: list[str] = ()) -> subprocess.CompletedProcess:
    cmd = [*prefix, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts="]
    return subprocess.run(
        [*cmd, *args], cwd=tmp_path, env=_offline_env(tmp_path), capture_output=True, text=True
    )


@pytest.mark.slow
def test_every_bundled_task_collects_without_the_network(tmp_path):
    shutil.copytree(BUNDLED, tmp_path / "tasks", ignore=shutil.ignore_patterns("__pycache__"))
    remote = [d.name for d in BUNDLED.iterdir() if "[source]" in _toml(d)]
    assert len(remote) >= 4  # the PyPI-sourced ones (inflection, ordered-set, ...)
    done = _pytest(
        tmp_path,
        "--collect-only",
        "-q",
        "--e2e-agent=reference",
        "--e2e-tasks=tasks",
        prefix=_no_network(),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    collected = {
        line.split("::")[1].split("[")[0] for line in done.stdout.splitlines() if "::" in line
    }
    tasks = {d.name for d in BUNDLED.iterdir() if (d / "task.toml").is_file()}
    assert len(tasks) == 24 and collected == tasks
    assert "error" not in done.stdout.lower()
    for name in remote:  # the catalog says it is not fetched yet
        row = next(line for line in done.stdout.splitlines() if line.startswith(name + " "))
        assert row.split()[-4:] == ["-"] * 4
    assert not (tmp_path / "cache" / "sources").exists()  # nothing was downloaded


def _toml(task_dir: Path) -> str:
    path = task_dir / "task.toml"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


@pytest.mark.slow
def test_an_unreachable_index_is_the_runs_infrastructure_error(tmp_path):
    shutil.copytree(BUNDLED / "inflection", tmp_path / "tasks" / "inflection")
    done = _pytest(tmp_path, "--e2e-agent=nop", "--e2e-tasks=tasks", "-q", "--tb=line")
    out = done.stdout
    assert done.returncode == 1, out[-3000:]  # the items' errors, not a usage or collection error
    assert "errors during collection" not in out
    assert (
        "infrastructure error (not the agent's fault): [source] inflection/task.toml: [source] "
        f"inflection==0.5.1: the package index {NOWHERE}/inflection/ does not answer" in out
    )
    record = json.loads((tmp_path / ".e2ebench" / "results.json").read_text())["tasks"][0]
    assert record["status"] == "error"
    assert record["error"]["stage"] == "source" and record["error"]["kind"] == "infrastructure"
    assert record["task_meta"]["source"] == "PyPI inflection==0.5.1"
