"""The static migration bounded in time and memory (issue 40, item 5): a project of 24
modules of 2 MB of one-line functions held a session in "adapting the reference tests" for
25 minutes at 1 GB. Over its bound the migration is the agent's: the tests run as written,
with a note; within it, the child's report is the in-process one."""

from __future__ import annotations

import json
import time

from helpers.tasks import CALC_CODE, TaskFactory

from pytest_e2ebench.isolation.intake import MAX_SOURCE_BYTES
from pytest_e2ebench.migrate import bounded
from pytest_e2ebench.migrate.static import migrate
from pytest_e2ebench.taskmodel.task import load_task


def _project(where, modules: int, lines: int):
    package = where / "calc"
    package.mkdir(parents=True)
    imports = "".join(f"from .{name} import {name}\n" for name in CALC_CODE)
    (package / "__init__.py").write_text(imports)
    for name, text in CALC_CODE.items():
        (package / f"{name}.py").write_text(text)
    for m in range(modules):
        body = "".join(f"def f{m}_{i}(a, b): return a + b\n" for i in range(lines))
        (package / f"m{m}.py").write_text(body[: MAX_SOURCE_BYTES - 64].rsplit("\n", 1)[0])
    return where


def test_a_huge_project_stops_at_the_bound_and_the_tests_run_as_written(tmp_path):
    task = load_task(TaskFactory(tmp_path).make())
    repo = _project(tmp_path / "repo", modules=4, lines=68_000)  # 4 x 2 MB: ~13 s here
    start = time.monotonic()
    report = bounded.bounded_migrate(task, repo, tmp_path / "out", seconds=2.0)
    assert time.monotonic() - start < 10
    assert "over its time bound (2 s)" in report["over_bound"], report
    written = sorted(p.name for p in (tmp_path / "out").rglob("test_*.py"))
    assert written == sorted(p.name for p in task.tests_dir.rglob("test_*.py"))


def test_within_the_bound_the_child_reports_what_the_harness_would(tmp_path):
    task = load_task(TaskFactory(tmp_path).make())
    repo = _project(tmp_path / "repo", modules=1, lines=12_000)  # over the in-process size
    assert not bounded._small(repo)
    report = bounded.bounded_migrate(task, repo, tmp_path / "child")
    here = json.loads(json.dumps(migrate(task, repo, tmp_path / "here"), default=list))
    assert report == here and "over_bound" not in report
