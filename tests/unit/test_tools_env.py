"""The test tools' template (issue 27): made once per key in the harness's wheel store,
byte-compiled, and copied (never linked) into each run's environment, whose interpreter then
imports pytest and coverage from bytecode instead of compiling them.

Real uv and the real test tools (from uv's cache after the first install).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers.tasks import inodes

from pytest_e2ebench.environment import integrity, venv

TOOLS = list(venv.tool_requirements())


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One template in a store, copied into two runs' environments."""
    root = tmp_path_factory.mktemp("toolsenv")
    store = root / "store"
    for run in ("a", "b"):
        venv.tools_env(root / run / "venv", root / f"logs-{run}", TOOLS, python=None, store=store)
    return root, store


def _template(store: Path) -> Path:
    (template,) = (store / "tools-envs").iterdir()
    return template


def test_one_template_made_by_the_first_run_only(made):
    root, store = made
    assert (_template(store) / "complete").read_text().split() == TOOLS
    assert (root / "logs-a" / "tools.log").is_file()
    assert not (root / "logs-b" / "tools.log").exists()  # the second run installed nothing


def test_each_run_has_copies_of_its_own_with_the_tools_compiled(made):
    root, store = made
    template = inodes(_template(store) / "env")
    for run in ("a", "b"):
        copy = inodes(root / run / "venv")
        assert copy.keys() == template.keys()
        assert not set(copy.items()) & set(template.items())  # no shared inode
    site = integrity.site_packages(root / "a" / "venv")
    for package in ("_pytest", "coverage", "pluggy"):
        assert list((site / package / "__pycache__").glob("*.pyc")), package


def test_a_copy_imports_its_tools_from_its_own_bytecode(made):
    root, _ = made
    env = root / "a" / "venv"
    probe = (
        "import sys, pytest, coverage, importlib.util as u;"
        "print(sys.prefix);"
        "print(pytest.__file__);"
        "print(u.cache_from_source(pytest.__file__))"
    )
    done = subprocess.run(
        [venv.python_of(env), "-B", "-c", probe], capture_output=True, text=True, check=True
    )
    prefix, module, cached = done.stdout.split()
    assert prefix == str(env) and module.startswith(str(env))
    assert Path(cached).is_file()  # -B: nothing written now; the bytecode was there already
    # the same files and states as the template's: what the integrity check compares with
    assert integrity.snapshot(env).files == integrity.snapshot(_template(made[1]) / "env").files


def test_without_a_store_each_run_installs_its_own(tmp_path):
    venv.tools_env(tmp_path / "venv", tmp_path / "logs", TOOLS, python=None, store=None)
    assert (tmp_path / "logs" / "tools.log").is_file()
    site = integrity.site_packages(tmp_path / "venv")
    assert not list((site / "_pytest").glob("__pycache__/*.pyc"))  # uv's default: no bytecode


def test_the_key_follows_the_tools_and_the_python(made):
    _, store = made
    one = venv.tools_key(TOOLS, None)
    assert _template(store).name == one  # the key the template was made under
    assert one != venv.tools_key([*TOOLS, "pytest-bdd==9.0.1"], None)
    assert one != venv.tools_key(TOOLS, "3.12")


def test_templates_of_days_past_are_removed_when_a_new_one_is_made(tmp_path):
    """A template's key holds its UTC day: one made more than TEMPLATE_DAYS ago is no one's,
    and goes when the next template is made; a recent one and one being made stay."""
    envs = tmp_path / "store" / "tools-envs"
    old, recent, making = envs / "old", envs / "recent", envs / "making"
    for template in (old, recent, making):
        (template / "env").mkdir(parents=True)
    for template in (old, recent):
        (template / "complete").write_text("pytest\n")
    past = time.time() - (venv.TEMPLATE_DAYS + 1) * 86_400
    os.utime(old / "complete", (past, past))
    venv.tools_env(tmp_path / "venv", tmp_path / "logs", TOOLS, python=None, store=envs.parent)
    assert not old.exists()
    assert recent.is_dir() and making.is_dir()
    assert len(list(envs.iterdir())) == 3  # those two and the new one


def test_the_tools_file_names_each_tools_entries_and_what_it_requires(made):
    """Written before the project arrives (integrity.TOOLS_FILE): what the split run's suite
    process links for a task's test libraries. pytest requires pluggy, iniconfig, packaging and
    pygments, which are linked with it; coverage is nobody's requirement here."""
    env = made[0] / "a" / "venv"
    entries = integrity.tool_entries(env, ("pytest>=8",))
    assert {"pytest", "_pytest", "pluggy", "iniconfig", "packaging"} <= set(entries)
    assert any(e.startswith("pytest-") and e.endswith(".dist-info") for e in entries)
    assert "coverage" not in entries
    assert integrity.tool_entries(env, ("not-installed",)) == []


def test_a_change_to_the_tools_file_after_the_snapshot_is_refused(made, tmp_path):
    """A project's install that rewrote the list (a wheel's ``.data/data`` file lands in the
    environment's root) would choose what the suite's process imports: the check refuses it."""
    env = tmp_path / "venv"
    venv.tools_env(env, tmp_path / "logs", TOOLS, python=None, store=made[1])
    before = integrity.snapshot(env)
    assert integrity.TOOLS_FILE in before.files
    (env / integrity.TOOLS_FILE).write_text('{"pytest": {"entries": ["evil"], "requires": []}}')
    with pytest.raises(integrity.InstallRefused, match="e2ebench-tools.json"):
        integrity.check(env, before)
    (env / integrity.TOOLS_FILE).unlink()
    assert integrity.tool_entries(env, ("pytest",)) is None  # made before the file: none


def test_a_distribution_the_project_adds_later_is_never_linked(made, tmp_path):
    """What the split run's suite process links for a task's test libraries comes from the list
    written before the project: a dist-info a project's dependency ships afterwards (one that
    says pytest requires its own package) adds nothing, however its metadata reads."""
    env = tmp_path / "venv"
    venv.tools_env(env, tmp_path / "logs", TOOLS, python=None, store=made[1])
    before = integrity.tool_entries(env, ("pytest",))
    site = integrity.site_packages(env)
    fake = site / "pluggy-99.0.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: pluggy\nVersion: 99.0\n"
                                   "Requires-Dist: evilpkg\n")  # fmt: skip
    (fake / "RECORD").write_text("evilpkg/__init__.py,,\n")
    (site / "evilpkg").mkdir()
    (site / "evilpkg" / "__init__.py").write_text("")
    after = integrity.tool_entries(env, ("pytest",))
    assert after == before and "evilpkg" not in after and fake.name not in after
