"""The run-layout options of ``[tests]`` (issue 30): ``rootdir_on_path`` (the repository's
root-level packages importable, as when the suite runs from the root) and ``rootdir_writable``
(the tests read-only inside the run's writable copy of the project). In-process, plus real
interpreter and sandbox runs of a fraction of a second each."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.environment import finder
from pytest_e2ebench.environment.integrity import HARNESS_NAMES
from pytest_e2ebench.evaluation.runner import tree_digest
from pytest_e2ebench.isolation.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.taskmodel.testconf import TestSettings, parse_settings, prepare_run


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _repo(tmp_path: Path) -> Path:
    """A src-layout project whose root also holds what must never become importable."""
    outside = _write(tmp_path / "outside", {"lib/evil.py": "X = 1\n"})
    repo = _write(
        tmp_path / "repo",
        {
            "src/pkg/__init__.py": "VALUE = 'from the repository'\n",
            "helpers.py": "",
            "tools/gen.py": "",
            "docs/index.md": "",  # no Python: not a package
            "pytest_timeout.py": "",  # a test tool's name
            "e2ebench_probe.py": "",  # the probe's
            "hmac.py": "",  # the standard library's
            "sitecustomize.py": "",
            "conftest.py": "",
            "setup.py": "",
            "test_root.py": "",
            "tests/test_x.py": "",
        },
    )
    (repo / "lib").symlink_to(outside / "lib")  # a link: never followed
    return repo


def test_root_names_are_the_projects_own_and_never_a_tool_the_probe_or_the_stdlib(tmp_path):
    assert finder.root_names(_repo(tmp_path), HARNESS_NAMES) == ("helpers", "src", "tools")


def _import(site: Path, rooted: bool, statement: str) -> subprocess.CompletedProcess:
    """Run ``statement`` in an isolated interpreter that loaded the finder from ``site``."""
    env = {k: v for k, v in os.environ.items() if k != finder.ROOTED_ENV}
    if rooted:
        env[finder.ROOTED_ENV] = "1"
    code = f"import sys; sys.path.insert(0, {str(site)!r}); import {finder.FINDER_MODULE}; "
    return subprocess.run(
        [sys.executable, "-I", "-c", code + statement],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_finder_maps_root_names_only_in_a_run_that_asks_and_only_to_the_repository(
    tmp_path,
):
    repo = _repo(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    rooted = (finder.root_names(repo, HARNESS_NAMES), str(repo))
    finder.install(site, {}, rooted=rooted)
    show = "import src.pkg as m; print(m.VALUE, m.__file__)"
    done = _import(site, True, show)
    assert done.stdout.split() == ["from", "the", "repository", str(repo / "src/pkg/__init__.py")]
    assert "ModuleNotFoundError" in _import(site, False, show).stderr
    # a tool's or the standard library's name is never the repository's, nor a followed link
    for name in ("hmac", "pytest_timeout", "e2ebench_probe", "sitecustomize", "lib.evil"):
        done = _import(site, True, f"import {name} as m; print(getattr(m, '__file__', ''))")
        assert str(repo) not in done.stdout, (name, done.stdout)


@pytest.mark.parametrize(
    "fields, problem",
    [
        ({"rootdir_writable": True}, 'add cwd = "project" to [tests]'),
        ({"rootdir_on_path": "yes"}, "'tests.rootdir_on_path' = 'yes' must be true or false"),
    ],
)
def test_layout_fields_are_checked(tmp_path, fields, problem):
    problems: list[str] = []
    settings = parse_settings(fields, tmp_path, None, False, "task.toml", problems)
    assert len(problems) == 1 and problem in problems[0]
    assert not settings.rootdir_on_path and not settings.rootdir_writable


def test_rootdir_writable_puts_the_suite_in_the_copy_in_place_of_the_projects_tests(tmp_path):
    repo = _write(tmp_path / "repo", {"pkg/a.py": "", "tests/test_own.py": "", "data.txt": "d"})
    suite, work = tmp_path / "suite", tmp_path / "suite" / "work"
    work.mkdir(parents=True)
    settings = TestSettings(cwd="project", rootdir_on_path=True, rootdir_writable=True)
    setup = prepare_run(settings, Path(sys.executable), repo, suite, work)
    assert (setup.cwd, setup.tests) == (work / "root", work / "root" / "tests")
    assert not setup.tests.exists()  # the project's own tests are not the suite
    assert (setup.cwd / "data.txt").read_text() == "d"
    assert setup.env == {finder.ROOTED_ENV: "1"}
    plain = prepare_run(TestSettings(), Path(sys.executable), repo, suite, work)
    assert (plain.cwd, plain.tests, plain.env) == (suite, suite / "tests", {})


def test_of_a_suite_packages_parent_only_the_suite_is_the_suites(tmp_path):
    """pytest puts the parent of a suite that is a package on sys.path: under
    rootdir_writable that is the project's copy, whose ``src`` must still come from the
    repository (through the finder), not be left to the suite."""
    root = _write(
        tmp_path / "root",
        {"tests/__init__.py": "", "tests/test_a.py": "", "tests/helpers.py": "", "pkg.py": ""},
    )
    (root / "src" / "calc").mkdir(parents=True)
    assert finder.suite_modules(root / "tests") == "tests"
    flat = _write(tmp_path / "flat", {"tests/test_a.py": "", "tests/helpers.py": ""})
    assert finder.suite_modules(flat / "tests") == "helpers:test_a"


def test_the_suites_digest_sees_a_change_a_new_file_and_a_rename(tmp_path):
    tests = _write(tmp_path / "tests", {"test_a.py": "def test_a(): pass\n", "sub/test_b.py": ""})
    before = tree_digest(tests)
    assert tree_digest(tests) == before
    (tests / "test_a.py").write_text("def test_a(): assert True\n")
    assert tree_digest(tests) != before
    (tests / "test_a.py").write_text("def test_a(): pass\n")
    (tests / "conftest.py").write_text("")
    assert tree_digest(tests) != before
    (tests / "conftest.py").unlink()
    (tests / "sub").rename(tests / "sub2")
    assert tree_digest(tests) != before
    (tests / "sub2").rename(tests / "sub")
    (tests / "link.py").symlink_to(tests / "test_a.py")
    assert tree_digest(tests) != before


@pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)
def test_a_run_writes_its_copy_but_not_the_suite_inside_it(tmp_path):
    """What an agent's code can do to the tests under rootdir_writable: nothing."""
    work = tmp_path / "work"
    tests = _write(work / "root" / "tests", {"test_a.py": "def test_a(): pass\n"})
    before = tree_digest(tests)
    script = (
        "cd root; echo out > ../root/out.txt; "
        "echo 'def test_a(): pass  # rewritten' > tests/test_a.py; "
        "echo x > tests/conftest.py; mv tests tests_moved; rm -rf tests; true"
    )
    done = Sandbox(mode="bwrap").run(
        ["/bin/bash", "-c", script],
        cwd=work,
        env={"PATH": "/usr/bin:/bin"},
        timeout=60,
        log=tmp_path / "log.txt",
        writable=[work],
        readable=[tests],
    )
    assert done.returncode == 0, (tmp_path / "log.txt").read_text()
    assert (work / "root" / "out.txt").read_text() == "out\n"
    assert tree_digest(tests) == before
    assert not (work / "root" / "tests_moved").exists()
    assert os.stat(tests).st_uid == os.getuid()  # left to the harness, not given to the sandbox
