"""The build environment's template (issue 27): made once per key in the harness's wheel store,
cloned into each build (hard links where the hooks cannot write through them, copies else),
and given files of its own before the harness installs into a linked clone.

Real uv, no index: ``requires=[]`` makes a bare venv (about a second), so these stay cheap.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from helpers.tasks import inodes

from pytest_e2ebench.environment import backend, venv


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One template, cloned twice: linked and copied."""
    root = tmp_path_factory.mktemp("buildenv")
    store = root / "store"
    venv.build_env(root / "a" / "env", [], root / "logs-a", store, linked=True)
    venv.build_env(root / "b" / "env", [], root / "logs-b", store, linked=False)
    return root, store


def test_one_template_per_key_made_by_the_first_build_only(made):
    root, store = made
    templates = list((store / "build-envs").iterdir())
    assert [t.name for t in templates] == [venv.template_key([])]
    assert (templates[0] / "complete").is_file()
    assert (root / "logs-a" / "build-venv.log").is_file()
    assert not (root / "logs-b" / "build-venv.log").exists()  # the second build made none


def test_clones_run_and_share_inodes_only_when_linked(made):
    root, store = made
    template = inodes(store / "build-envs" / venv.template_key([]) / "env")
    linked, copied = inodes(root / "a" / "env"), inodes(root / "b" / "env")
    assert template and linked.keys() == template.keys() == copied.keys()
    assert linked == template
    assert not set(copied.items()) & set(template.items())
    for clone in ("a", "b"):
        python = venv.python_of(root / clone / "env")
        done = subprocess.run(
            [python, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True
        )
        assert done.stdout.strip() == str(root / clone / "env"), done.stderr


def test_own_files_cuts_every_link_to_the_template(made, tmp_path):
    root, store = made
    env = tmp_path / "env"
    venv.build_env(env, [], tmp_path / "logs", store, linked=True)
    template = inodes(store / "build-envs" / venv.template_key([]) / "env")
    assert inodes(env) == template
    venv.own_files(env)
    owned = inodes(env)
    assert owned.keys() == template.keys()
    assert not set(owned.items()) & set(template.items())
    venv.own_files(env)  # a clone with files of its own is left as it is
    assert inodes(env) == owned


def test_a_linked_clone_on_another_file_system_gets_copies(made):
    """A store on a tmpfs and the build folder in /tmp on disk (or the reverse: a session folder
    on disk, TMPDIR on a tmpfs, as on many distributions): a hard link cannot cross, so the
    clone is made of copies and runs (it raised shutil.Error, EXDEV, on every build)."""
    root, store = made
    other = next(
        (p for p in ("/dev/shm", "/var/tmp", "/tmp") if os.stat(p).st_dev != os.stat(root).st_dev),
        None,
    )
    if other is None:
        pytest.skip("one file system here: no folder on another device to clone into")
    with tempfile.TemporaryDirectory(dir=other) as away:
        env = Path(away) / "env"
        venv.build_env(env, [], root / "logs-c", store, linked=True)
        template = inodes(store / "build-envs" / venv.template_key([]) / "env")
        assert inodes(env).keys() == template.keys()
        files = [p for p in env.rglob("*") if p.is_file() and not p.is_symlink()]
        assert {p.stat().st_dev for p in files} == {os.stat(away).st_dev}
        done = subprocess.run(
            [venv.python_of(env), "-c", "import sys; print(sys.prefix)"],
            capture_output=True,
            text=True,
        )
        assert done.stdout.strip() == str(env), done.stderr


def test_the_key_follows_requirements_and_uv_settings(monkeypatch):
    base = venv.template_key(["setuptools>=61"])
    assert venv.template_key(["setuptools>=61"]) == base
    assert venv.template_key(["setuptools>=61", "wheel"]) != base
    monkeypatch.setenv("UV_INDEX_URL", "https://example.invalid/simple")
    assert venv.template_key(["setuptools>=61"]) != base


def test_without_a_store_each_build_makes_its_own(tmp_path):
    venv.build_env(tmp_path / "env", [], tmp_path / "logs", None, linked=True)
    assert (tmp_path / "logs" / "build-venv.log").is_file()
    assert venv.python_of(tmp_path / "env").exists()


def test_the_wheel_store_of_a_shared_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(backend.STORE_ENV, raising=False)
    assert backend.store_in(tmp_path / ".shared") == tmp_path / ".shared" / "wheels"
    assert backend.store_for(tmp_path) == tmp_path / ".shared" / "wheels"
    monkeypatch.setenv(backend.STORE_ENV, os.fspath(tmp_path / "suite"))
    assert backend.store_in(tmp_path / ".shared") == tmp_path / "suite"
