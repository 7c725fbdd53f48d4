"""Harness-side sharing between the builds of one session (issue 27), on real builds: the
reference's environment (the planted values' and the tests stage's) takes the wheel a run of
the same content left in the session's store, every build after the first clones the build
environment's template instead of making its own, and a backend that asks for nothing new
answers both hooks in one sandboxed process (one that asks for more is built again, after
the harness installed it, and its template stays as it was)."""

from __future__ import annotations

import shutil

import pytest
from helpers.tasks import TaskFactory

from pytest_e2ebench.environment import backend, venv
from pytest_e2ebench.isolation.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.methods.stages import testing


@pytest.mark.slow
def test_a_reference_env_reuses_the_runs_wheel_and_build_env(tmp_path, monkeypatch):
    monkeypatch.delenv(backend.STORE_ENV, raising=False)  # this test's own store
    tasks = TaskFactory(tmp_path)
    reference = tasks.make() / "reference"
    sandbox = Sandbox(mode=resolve_mode("auto")[0])
    shared = tmp_path / "out" / ".shared"
    run = tmp_path / "run"
    # a run of the same content first (as the reference agent's run of a session)
    built = venv.build(
        run / "venv", reference, run / "logs", (), sandbox, wheels=backend.store_in(shared)
    )
    assert built.ok, built.log
    assert (run / "logs" / "build-backend.log").is_file()  # built by its hooks
    paired = (run / "logs" / "build-wheel.log").read_text()
    assert paired.startswith("built by the process of get_requires_for_build_wheel")
    assert "running bdist_wheel" in paired  # setuptools' own output of the wheel's build
    _, python = testing.reference_env(reference, shared, sandbox)
    logs = next(shared.glob("reference-env-*")) / "logs"
    assert (logs / "build-wheel.log").read_text().startswith("reused calc-0.1")
    assert not (logs / "build-backend.log").exists()  # no hook ran
    assert not (logs / "build-venv.log").exists()  # the template, not a venv of its own
    templates = list((backend.store_in(shared) / "build-envs").iterdir())
    assert len(templates) == 1
    assert python.is_file()


ASKING = """\
from setuptools.build_meta import *  # noqa: F403


def get_requires_for_build_wheel(config_settings=None):
    return ["wheel"]
"""


@pytest.mark.slow
def test_a_backend_asking_for_more_is_built_again_and_leaves_the_template_alone(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(backend.STORE_ENV, raising=False)
    project = tmp_path / "project"
    shutil.copytree(TaskFactory(tmp_path).make() / "reference", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'build-backend = "setuptools.build_meta"',
            'build-backend = "asking"\nbackend-path = ["_build"]',
        )
    )
    (project / "_build").mkdir()
    (project / "_build" / "asking.py").write_text(ASKING)
    sandbox = Sandbox(mode=resolve_mode("auto")[0])
    store = tmp_path / "store"
    built = venv.build(tmp_path / "venv", project, tmp_path / "logs", (), sandbox, wheels=store)
    assert built.ok, built.log
    logs = tmp_path / "logs"
    assert (logs / "backend-requirements.txt").read_text() == "wheel\n"
    assert not (logs / "build-wheel.log").read_text().startswith("built by the process")
    (template,) = (store / "build-envs").iterdir()
    site = next((template / "env" / "lib").glob("python*/site-packages"))
    assert not list(site.glob("wheel-*.dist-info"))  # installed into the build's own files


DYING = """\
import os


def get_requires_for_build_wheel(config_settings=None):
    print("asked for requirements", flush=True)
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    os._exit(3)  # kills the shared process in the build, not in get_requires
"""


@pytest.mark.slow
def test_a_build_that_kills_the_shared_process_is_build_wheels_failure_run_once(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(TaskFactory(tmp_path).make() / "reference", project)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "dying"\nbackend-path = ["_build"]\n'
    )
    (project / "_build").mkdir()
    (project / "_build" / "dying.py").write_text(DYING)
    sandbox = Sandbox(mode=resolve_mode("auto")[0])
    logs = tmp_path / "logs"
    built = venv.build(tmp_path / "venv", project, logs, (), sandbox, wheels=tmp_path / "store")
    assert not built.ok
    assert "the build backend's build_wheel failed (logs/build-backend.log)" in built.log
    # one process asked both hooks; build_wheel was not run again on its own
    assert (logs / "build-backend.log").read_text().count("asked for requirements") == 1
    assert not (logs / "build-wheel.log").exists()
