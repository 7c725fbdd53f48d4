"""Task validation: every problem names the file, the field and the fix."""

from __future__ import annotations

import datetime as dt

import pytest

from pytest_e2ebench.errors import TaskError
from pytest_e2ebench.taskmodel.task import load_task


def problems_of(root) -> str:
    with pytest.raises(TaskError) as info:
        load_task(root)
    return str(info.value)


def test_valid_task_loads_with_tags_tests_and_sizes(tasks):
    task = load_task(tasks.make())
    assert task.id == "calc" and task.kind == "library" and task.created == dt.date(2026, 11, 1)
    assert [(r.id, r.tags) for r in task.requirements] == [
        ("R1", ("core",)),
        ("R2", ("core", "extra")),
        ("R3", ()),
    ]
    assert [(t.nodeid, t.requirements, t.cases) for t in task.tests] == [
        ("tests/test_calc.py::test_add", ("R1",), 3),
        ("tests/test_calc.py::test_sub", ("R2",), 1),
        ("tests/test_calc.py::test_sub_negative", ("R2",), 1),
        ("tests/test_calc.py::TestMul::test_mul", ("R3",), 1),
        ("tests/test_calc.py::TestMul::test_mul_zero", ("R3",), 1),
    ]
    assert task.size == {"requirements": 3, "tests": 7, "reference_files": 4, "reference_lines": 12}


@pytest.mark.parametrize(
    "toml, expected",
    [
        (
            'id = "calc"\ntitle = "x"\ncreated = 2026-01-01\n',
            "calc/task.toml: field 'kind' is missing; add kind = \"library\" (one of library, cli, data, web, app, toolchain)",
        ),
        (
            'id = "calc"\ntitle = "x"\nkind = "game"\ncreated = 2026-01-01\n',
            "calc/task.toml: field 'kind' = 'game' is not a task kind; use one of library, cli, data, web, app, toolchain",
        ),
        (
            'id = "other"\ntitle = "x"\nkind = "cli"\ncreated = 2026-01-01\n',
            "calc/task.toml: field 'id' = 'other' differs from the folder name",
        ),
        (
            'id = "calc"\ntitle = "x"\nkind = "cli"\ncreated = "2026-01-01"\n',
            "calc/task.toml: field 'created' = '2026-01-01' has the wrong type (str)",
        ),
        (
            'id = "calc"\ntitle = "x"\nkind = "cli"\ncreated = 2026-01-01\n[tests]\ntimeout = 0\n',
            "calc/task.toml: field 'tests.timeout' = 0 must be a positive number",
        ),
        (
            'id = "calc"\ntitle = "x"\nkind = "cli"\ncreated = 2026-01-01\n[tests]\npath = "nope"\n',
            "calc/task.toml: field 'tests.path' = 'nope': no such folder",
        ),
        ('id = "calc"\ntitle = "x\nkind = "cli"\n', "calc/task.toml: not valid TOML ("),
    ],
)
def test_task_toml_problems(tasks, toml, expected):
    assert expected in problems_of(tasks.make(toml=toml))


def test_requirement_problems(tasks):
    text = "### R1: One\n### R1: Again\n### R2 missing colon\n### R3: Three\nTags: Bad-Tag\n"
    message = problems_of(tasks.make(requirements=text))
    assert "calc/requirements.md: requirement R1 is defined twice; renumber one of them" in message
    assert "calc/requirements.md:3: '### R2 missing colon' is not a requirement heading" in message
    assert "tags ['Bad-Tag'] of R3 are not marker names" in message


def test_no_requirements(tasks):
    assert "calc/requirements.md: no requirements found; add sections headed '### R1: <title>'" in (
        problems_of(tasks.make(requirements="# nothing here\n"))
    )


def test_unknown_tag_untagged_test_and_requirement_without_test(tasks):
    tests = {
        "test_x.py": (
            "import pytest\n\n"
            "@pytest.mark.requirement('R9')\ndef test_unknown():\n    pass\n\n"
            "def test_untagged():\n    pass\n\n"
            "@pytest.mark.requirement('R1', 'R2')\ndef test_ok():\n    pass\n"
        )
    }
    message = problems_of(tasks.make(tests=tests))
    assert (
        "calc/tests/test_x.py::test_unknown (line 4): tagged with requirement 'R9', which is "
        "not in requirements.md (known: R1, R2, R3); fix the marker or add '### R9: <title>'"
    ) in message
    assert "calc/tests/test_x.py::test_untagged (line 7): no requirement tag" in message
    assert "calc/requirements.md: requirement R3 has no test; tag at least one test" in message


def test_non_literal_marker_and_syntax_error(tasks):
    tests = {
        "test_a.py": "import pytest\nRID = 'R1'\n@pytest.mark.requirement(RID)\ndef test_a():\n    pass\n",
        "test_b.py": "def test_b(:\n",
    }
    message = problems_of(tasks.make(tests=tests))
    assert "calc/tests/test_a.py:3: requirement marker arguments must be string literals" in message
    assert "calc/tests/test_b.py:1: syntax error" in message


def test_missing_files(tasks, pytester):
    root = tasks.make()
    (root / "requirements.md").unlink()
    message = problems_of(root)
    assert (
        "calc/requirements.md: missing; write the requirements document the agent sees" in message
    )
    (root / "task.toml").unlink()
    assert "calc/task.toml: missing" in problems_of(root)


def test_mapping_tags_tests_we_cannot_edit(tasks):
    tests = {
        "test_up.py": "def test_alpha():\n    pass\n\ndef test_beta():\n    pass\n\n"
        "class TestGamma:\n    def test_one(self):\n        pass\n"
    }
    extra = (
        '[tests.requirements]\nR1 = ["tests/test_up.py::test_alpha"]\n'
        'R2 = ["tests/test_up.py::test_b*"]\nR3 = ["tests/test_up.py::TestGamma"]\n'
    )
    task = load_task(tasks.make(tests=tests, toml_extra=extra))
    assert {t.nodeid: t.requirements for t in task.tests} == {
        "tests/test_up.py::test_alpha": ("R1",),
        "tests/test_up.py::test_beta": ("R2",),
        "tests/test_up.py::TestGamma::test_one": ("R3",),
    }


def test_pytestmark_lists_and_parametrize_products(tasks):
    tests = {
        "test_m.py": (
            "import pytest\n"
            "pytestmark = [pytest.mark.requirement('R1'), pytest.mark.slow]\n\n"
            "@pytest.mark.requirement('R2', 'R3')\n"
            "@pytest.mark.parametrize('a', [1, 2])\n"
            "@pytest.mark.parametrize('b', (3, 4, 5))\n"
            "def test_grid(a, b):\n    pass\n\n"
            "@pytest.mark.parametrize('a', list(range(3)))\n"
            "def test_dynamic(a):\n    pass\n"
        )
    }
    task = load_task(tasks.make(tests=tests))
    assert [(t.requirements, t.cases) for t in task.tests] == [
        (("R1", "R2", "R3"), 6),
        (("R1",), 1),
    ]


def test_bad_task_is_a_collection_error_with_the_problems(pytester, tasks):
    tasks.make(requirements="### R1: only\n")
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-tasks=tasks")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the other tasks would run (issue 31)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting tasks/calc/task.toml*",
            "invalid benchmark task */calc:",
            "  - calc/tests/test_calc.py::test_sub (line *): tagged with requirement 'R2', which is not*",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
