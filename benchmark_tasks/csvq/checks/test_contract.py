"""csvq's delivery contract, checked by the harness with its fixtures (docs/plugins.md).

These run in the harness's own pytest session, never in the project's environment: they read
the project through ``e2e_repo`` and run commands in the sandbox through ``e2e_venv``.
"""

import tomllib

import pytest

# Generous for a loaded CI machine: the sandbox and the interpreter start in ~0.1 s here.
HELP_SECONDS = 1.0  # the contract; the assertion allows 3x for a loaded machine


@pytest.mark.requirement("R19")
def test_help_answers_in_under_a_second(e2e_venv):
    result = e2e_venv.run(["python", "-m", "csvq", "--help"], timeout=10)
    assert result.returncode == 0, result.output
    assert result.output.startswith("usage: csvq"), result.output[:200]
    assert result.duration_s < HELP_SECONDS * 3, f"--help took {result.duration_s:.2f} s"


@pytest.mark.requirement("R19", "R20")
def test_usage_error_is_one_line_with_status_2(e2e_venv, e2e_requirement):
    result = e2e_venv.run(["python", "-m", "csvq", "--no-such-option", "x.csv"], timeout=10)
    assert result.returncode == 2, f"{e2e_requirement.id}: {result.output}"
    assert result.output.startswith("csvq: error:"), result.output[:200]


# "standard library only; no third-party runtime dependencies" (non-functional requirements):
# reading CSV input (R1) is where a third-party parser would come in.
@pytest.mark.requirement("R1")
def test_no_runtime_dependencies(e2e_repo):
    text = e2e_repo.read_text("pyproject.toml")
    assert text is not None, "no pyproject.toml at the project root"
    project = tomllib.loads(text).get("project", {})
    assert not project.get("dependencies"), project.get("dependencies")
