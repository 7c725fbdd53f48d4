"""The shared tool layer: real files, a real bash, errors as observations."""

from __future__ import annotations

import json
import os
import shlex
import sys

import pytest

from pytest_e2ebench.agents.tools import OUTPUT_LIMIT, TOOL_NAMES, Toolbox
from pytest_e2ebench.isolation.sandbox import Sandbox


@pytest.fixture
def box(tmp_path):
    work = tmp_path / "repo"
    work.mkdir()
    # mode none named on purpose: the commands are this file's own, not an agent's
    none = Sandbox(mode="none")
    return Toolbox(work, {"PATH": os.environ["PATH"]}, tmp_path, command_timeout=5, sandbox=none)


def call(box, name, **args):
    return box.run(name, json.dumps(args))


def test_create_view_replace_find_grep(box):
    assert (
        call(box, "create", path="pkg/mod.py", content="a = 1\nb = 2\n")
        == "wrote pkg/mod.py (2 lines)"
    )
    assert call(box, "view", path="pkg/mod.py") == "     1  a = 1\n     2  b = 2"
    assert call(box, "view", path="pkg/mod.py", start_line=2) == "     2  b = 2"
    assert (
        call(box, "str_replace", path="pkg/mod.py", old_str="b = 2", new_str="b = 3")
        == "edited pkg/mod.py"
    )
    assert call(box, "find", pattern="**/*.py") == "pkg/mod.py"
    assert call(box, "grep", pattern=r"b = \d") == "pkg/mod.py:2: b = 3"
    assert box.written == ["pkg/mod.py", "pkg/mod.py"]


def test_a_grep_that_backtracks_is_stopped_not_a_stall(box, monkeypatch):
    """The agent writes the expression and the file: (a|aa)+b over 60 a took years in the
    harness's process before grep had a time bound."""
    monkeypatch.setattr("pytest_e2ebench.agents.tools.GREP_SECONDS", 1.0)
    call(box, "create", path="slow.txt", content="a" * 60 + "!\n")
    found = call(box, "grep", pattern="(a|aa)+b")
    assert found.startswith("[the search took over 1 s and was stopped"), found
    assert call(box, "grep", pattern="a!") == "slow.txt:1: " + "a" * 60 + "!"  # still greps


def test_errors_become_observations(box):
    call(box, "create", path="x.py", content="x = 1\nx = 1\n")
    assert call(box, "str_replace", path="x.py", old_str="x = 1", new_str="y") == (
        "ERROR: old_str occurs 2 times in x.py; it must occur exactly once"
    )
    assert (
        call(box, "view", path="../outside.txt") == "ERROR: ../outside.txt: outside the repository"
    )
    assert (
        call(box, "create", path="/etc/evil", content="")
        == "ERROR: /etc/evil: outside the repository"
    )
    assert call(box, "view", path="missing.py").startswith("ERROR: [Errno 2] No such file")
    assert (
        call(box, "launch", x=1)
        == f"ERROR: unknown tool 'launch'; use one of {', '.join(TOOL_NAMES)}"
    )
    assert box.run("view", "{not json").startswith(
        "ERROR: the arguments of view are not valid JSON"
    )
    assert box.run("view", "{not json").endswith(
        "view(path: string; start_line: integer, optional)"
    )
    # what a real model sent (issue 19): answered with the tool's arguments, not Python internals
    assert call(box, "bash", command="ls", type="shell") == (
        "ERROR: bad arguments for bash: unknown argument(s) 'type'. Use bash(command: string)"
    )
    assert call(box, "view", nope="x") == (
        "ERROR: bad arguments for view: unknown argument(s) 'nope'; missing 'path'. "
        "Use view(path: string; start_line: integer, optional)"
    )
    assert call(box, "view", path="x.py", start_line="2") == "     2  x = 1"  # "2" is taken
    assert "'start_line' must be an integer" in call(box, "view", path="x.py", start_line="two")
    assert "'content' must be a string" in call(box, "create", path="y.py", content=["a"])
    assert call(box, "grep", pattern="(").startswith("ERROR: ")


def test_bash_output_exit_code_truncation_and_timeout(box):
    assert call(box, "bash", command="echo hi; exit 3") == "hi\n\n[exit code 3]"
    # the harness's interpreter by its path: "python" on PATH may be a shim (pyenv) or another
    # venv's that the sandboxed shell cannot reach
    python = shlex.quote(sys.executable)
    long = call(box, "bash", command=f"{python} -c 'print(\"x\" * {OUTPUT_LIMIT * 2})'")
    assert f"[output truncated: {OUTPUT_LIMIT + 1} more characters]" in long
    assert call(box, "bash", command="sleep 30").endswith("[command killed after 5 s]")


def test_submit(box):
    assert call(box, "submit", summary="all done") == "submitted"
    assert box.submitted == "all done"


@pytest.mark.parametrize(
    "name, args",
    [
        ("view", {"path": "a.py", "start_line": 1e999}),  # OverflowError
        ("view", {"path": "a\x00.py"}),  # ValueError: embedded null byte
        ("bash", {"command": "echo \x00"}),  # ValueError in the exec
        ("grep", {"pattern": "(" * 3000 + ")" * 3000}),  # RecursionError in re.compile
        ("grep", {"pattern": "a{99999999999}"}),  # OverflowError in re.compile
    ],
)
def test_what_a_models_arguments_make_a_tool_raise_is_its_observation(box, name, args):
    """Issue 40's audit: these escaped ``Toolbox.run`` ("never raises") and the run became a
    harness error, out of the means; each is the model's ERROR observation."""
    (box.workspace / "a.py").write_text("x = 1\n")
    assert call(box, name, **args).startswith("ERROR: ")


def test_a_working_folder_the_command_made_unenterable_is_its_failure(tmp_path):
    """``chmod 0 sub`` by an earlier step, then a command in ``sub``: the wrapper's ``cd``
    failed and the sandbox said it could not start the command (an infrastructure error). It is
    the command's exit status 125 with the reason."""
    from pytest_e2ebench.isolation.sandbox import resolve_mode

    mode, _ = resolve_mode("auto")
    if mode != "bwrap":
        pytest.skip("needs bubblewrap")
    work = tmp_path / "repo"
    (work / "sub").mkdir(parents=True)
    sandbox = Sandbox(mode)
    log = tmp_path / "log"
    env = {"PATH": "/usr/bin:/bin"}
    sandbox.run(["chmod", "0", "sub"], cwd=work, env=env, timeout=20, log=log, writable=[work])
    done = sandbox.run(["/bin/true"], cwd=work / "sub", env=env, timeout=20, log=log,
                       writable=[work])  # fmt: skip
    assert done.returncode == 125 and "cannot be entered" in done.output, done
