"""Run the mission's program in a scratch copy of the project, on spreadsheets made here.

``pv`` and ``project_dir`` come from the harness's e2ebench_pv plugin (docs/projecteval.md).
"""

import shutil
import subprocess
import sys

import pytest


@pytest.fixture
def workdir(tmp_path, project_dir):
    """A writable copy of the project (the project folder itself is read-only)."""
    target = tmp_path / "project"
    shutil.copytree(project_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def run(workdir, pv):
    """Run the program (the `entry` parameter) in ``workdir``; return stdout + stderr."""

    def go():
        entry = pv("entry")
        done = subprocess.run(
            [sys.executable, entry],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.stdout + done.stderr

    return go


@pytest.fixture
def run_case(tmp_path, project_dir, pv, make_sheet):
    """``run_case(rows)``: the program's output in a fresh copy of the project, with
    scores.xlsx made of ``rows`` (None: no scores.xlsx). The control runs of the message
    parameters: a message must not be printed where its condition does not hold."""
    cases = []

    def go(rows):
        target = tmp_path / f"case-{len(cases)}"
        cases.append(target)
        shutil.copytree(project_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
        if rows is not None:
            make_sheet(target / "scores.xlsx", rows)
        done = subprocess.run(
            [sys.executable, pv("entry")], cwd=target, capture_output=True, text=True, timeout=60
        )
        return done.stdout + done.stderr

    return go


@pytest.fixture
def make_sheet():
    """``make_sheet(path, rows)``: write ``rows`` (the first is the header) as a workbook."""
    from openpyxl import Workbook

    def write(path, rows):
        book = Workbook()
        for row in rows:
            book.active.append(list(row))
        book.save(path)

    return write
