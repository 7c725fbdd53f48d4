"""Harness-side sharing between the builds of one session (issue 27), on real builds: the
reference's environment (the planted values' and the tests stage's) takes the wheel a run of
the same content left in the session's store, and every build after the first clones the
build environment's template instead of making its own."""

from __future__ import annotations

import pytest

from conftest import TaskFactory
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
    _, python = testing.reference_env(reference, shared, sandbox)
    logs = next(shared.glob("reference-env-*")) / "logs"
    assert (logs / "build-wheel.log").read_text().startswith("reused calc-0.1")
    assert not (logs / "build-backend.log").exists()  # no hook ran
    assert not (logs / "build-venv.log").exists()  # the template, not a venv of its own
    templates = list((backend.store_in(shared) / "build-envs").iterdir())
    assert len(templates) == 1
    assert python.is_file()
