"""PyPI- and git-sourced references: pin validation (when the task loads), hash check and
unreachable index (when a run fetches the reference: loading never downloads)."""

from __future__ import annotations

import pytest

from pytest_e2ebench.errors import InfrastructureError, TaskError
from pytest_e2ebench.taskmodel.task import fetch_reference, load_task

TOML = """id = "calc"
title = "x"
kind = "library"
created = 2020-07-06

[source]
pypi = "{pin}"
sha256 = "{sha}"
"""
INFLECTION_SHA = "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417"


def make_pypi_task(tasks, pin, sha):
    root = tasks.make(toml=TOML.format(pin=pin, sha=sha))
    import shutil

    shutil.rmtree(root / "reference")
    return root


@pytest.mark.parametrize(
    "pin, sha, problem",
    [
        (
            "inflection>=0.5",
            INFLECTION_SHA,
            "field 'source.pypi' = 'inflection>=0.5' must pin one version",
        ),
        ("inflection==0.5.1", "abc", "field 'source.sha256' is missing or not 64 hex digits"),
    ],
)
def test_pin_and_hash_are_validated(tasks, pin, sha, problem):
    with pytest.raises(TaskError) as info:
        load_task(make_pypi_task(tasks, pin, sha))
    assert problem in str(info.value)


def test_committed_reference_is_refused(tasks, monkeypatch, tmp_path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("UV_DEFAULT_INDEX", "http://127.0.0.1:9/simple")
    root = tasks.make(toml=TOML.format(pin="inflection==0.5.1", sha=INFLECTION_SHA))
    with pytest.raises(TaskError) as info:
        load_task(root)
    assert "calc/reference/: a PyPI-sourced task must not commit the reference" in str(info.value)


def test_unreachable_index_is_an_infrastructure_error(tasks, monkeypatch, tmp_path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("UV_DEFAULT_INDEX", "http://127.0.0.1:9/simple")
    task = load_task(make_pypi_task(tasks, "inflection==0.5.1", INFLECTION_SHA))  # no fetch
    assert task.reference_dir is None and task.tests == () and task.source_pin
    with pytest.raises(InfrastructureError) as info:
        fetch_reference(task)
    assert str(info.value).startswith(
        "[source] calc/task.toml: [source] inflection==0.5.1: the package index "
        "http://127.0.0.1:9/simple/inflection/ does not answer"
    )
    assert "check the network or UV_DEFAULT_INDEX" in str(info.value)


@pytest.mark.slow
def test_wrong_hash_is_refused_and_nothing_is_cached(tasks, monkeypatch, tmp_path):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    task = load_task(make_pypi_task(tasks, "inflection==0.5.1", "0" * 64))
    with pytest.raises(TaskError) as info:
        fetch_reference(task)
    assert f"has sha256 {INFLECTION_SHA}, not the pinned {'0' * 64}" in str(info.value)
    assert not any(
        p.name.startswith("inflection") for p in (tmp_path / "cache" / "sources").iterdir()
    )
