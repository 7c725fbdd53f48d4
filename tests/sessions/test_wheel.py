"""The package as a wheel (issue 41's defect list, issue 43 item 4): every file of the package
the code reads ships in the wheel, and ``e2ebench fetch`` works from a wheel install.

The package-data list once named ``importers/datasets.toml`` after the importers had moved to
``tools/importers/``: an editable install worked, a wheel install had no datasets file and
``e2ebench fetch`` failed at import. This builds the wheel as a user does (``pip wheel --no-deps
.``, build isolation: setuptools from the machine's index) and installs it into a venv."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(ROOT), "-w", str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("pytest_e2ebench-*.whl")
    return built


def test_every_file_of_the_package_ships_in_the_wheel(wheel):
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "pytest_e2ebench"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "pytest_e2ebench/tools/importers/datasets.toml" in listed
    shipped = set(zipfile.ZipFile(wheel).namelist())
    assert [path for path in listed if path not in shipped] == []


def test_fetch_lists_the_datasets_from_a_wheel_install(wheel, tmp_path):
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = env / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no checkout on the path
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        env=clean,
    )
    # then the harness's dependencies from this interpreter's site-packages, as a plain path: its
    # .pth files (the editable install's finder among them) are not run, so the package
    # itself can only come from the wheel
    (site,) = env.glob("lib/python*/site-packages")
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = "import pytest_e2ebench, sys; print(pytest_e2ebench.__file__)"
    where = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=clean
    )
    assert where.stdout.startswith(str(env)), where  # not the editable checkout
    listed = subprocess.run(
        [python, "-m", "pytest_e2ebench.cli", "fetch"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean,
    )
    assert listed.returncode == 0, listed.stderr
    assert (
        "nl2repo: multimodal-art-projection/NL2RepoBench at "
        "ae9fb81fc8ab864e9ea45c84e81dd2ce47c7c8b9, test_files/"
    ) in listed.stdout
    assert "417 files, 8.3 MB" in listed.stdout
    for name in ("deveval", "e2edev", "e2edevbench", "projecteval", "realdevbench"):
        assert f"\n  {name}: " in listed.stdout
