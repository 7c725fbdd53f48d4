"""The static test index counts what pytest collects (issue 20.2), checked against pytest."""

from __future__ import annotations

import textwrap

import pytest

from pytest_e2ebench.taskmodel.testindex import scan_tests

TRICKY = textwrap.dedent("""
    import unittest
    import pytest
    from pytest import fixture

    pytestmark = pytest.mark.requirement("R1")


    @pytest.fixture
    def test_data():  # a fixture named like a test
        return 1


    @fixture(name="other")
    def test_other():
        return 2


    def test_uses(test_data, other):
        assert test_data + other == 3


    class Checks(unittest.TestCase):  # unittest: collected whatever its name
        def test_one(self):
            self.assertTrue(True)

        def helper(self):
            pass


    class MoreChecks(Checks):  # inherits test_one, adds its own
        def test_two(self):
            self.assertEqual(1, 1)


    class BaseSuite:  # not collected itself
        def test_shared(self):
            assert True


    @pytest.mark.requirement("R2")
    class TestDerived(BaseSuite):  # collects test_shared too
        @pytest.mark.parametrize("x", [1, 2, 3])
        def test_own(self, x):
            assert x

        class TestInner:
            def test_nested(self):
                assert True


    class TestOverrides(TestDerived):
        def test_shared(self):  # overrides: one test, not two
            assert True


    class TestWithInit:  # pytest does not collect a class with __init__
        def __init__(self):
            pass

        def test_never(self):
            assert False


    class TestOptedOut:
        __test__ = False

        def test_never(self):
            assert False
    """)


def test_static_index_matches_pytest_collection(pytester):
    pytester.makepyfile(test_tricky=TRICKY)
    pytester.makeini("[pytest]\nmarkers =\n    requirement: r\n")
    found, problems = scan_tests(pytester.path / "test_tricky.py", label="t")
    assert problems == []
    collected = pytester.runpytest(
        "--collect-only", "-q", "-p", "no:randomly", "-W", "ignore::pytest.PytestCollectionWarning"
    )
    pytest_ids = {
        line.split("::", 1)[1].split("[")[0]
        for line in collected.outlines
        if line.startswith("test_tricky.py::")
    }
    static_ids = {t.nodeid.split("::", 1)[1] for t in found}
    assert static_ids == pytest_ids
    cases = {t.nodeid.split("::", 1)[1]: t.cases for t in found}
    items = [line for line in collected.outlines if line.startswith("test_tricky.py::")]
    assert sum(cases.values()) == len(items)
    by_id = {t.nodeid.split("::", 1)[1]: t for t in found}
    assert by_id["TestDerived::test_shared"].requirements == ("R1", "R2")
    assert by_id["TestOverrides::test_shared"].requirements == ("R1", "R2")  # marks inherit
    assert by_id["MoreChecks::test_one"].requirements == ("R1",)


@pytest.mark.parametrize(
    "source",
    [
        "__test__ = False\ndef test_a():\n    pass\n",
        "import pytest\n@pytest.fixture\ndef test_a():\n    pass\n",
    ],
)
def test_modules_without_tests(tmp_path, source):
    (tmp_path / "test_m.py").write_text(source)
    assert scan_tests(tmp_path / "test_m.py") == ([], [])


def test_a_mapping_can_name_parametrized_cases():
    from pytest_e2ebench.taskmodel.testindex import StaticTest, apply_mapping

    test = StaticTest("tests/t.py::test_codec", ("R1",), 3, 1)
    (mapped,) = apply_mapping(
        [test], {"R2": ["tests/t.py::test_codec[utf8-*]"], "R3": ["tests/t.py::test_c*"]}
    )
    assert mapped.requirements == ("R1", "R2", "R3")
    assert mapped.requirements_of("tests/t.py::test_codec[utf8-strict]") == ["R1", "R2", "R3"]
    assert mapped.requirements_of("tests/t.py::test_codec[latin1-strict]") == ["R1", "R3"]
    # brackets in a case glob are literal, not a character class
    (other,) = apply_mapping([test], {"R2": ["tests/t.py::test_codec[u]"]})
    assert other.requirements_of("tests/t.py::test_codec[u]") == ["R1", "R2"]
    assert other.requirements_of("tests/t.py::test_codecu") == ["R1"]


def test_the_suites_own_naming_rules(tmp_path):
    from pytest_e2ebench.taskmodel.testindex import Naming

    (tmp_path / "check_api.py").write_text(
        "class DescribeApi:\n    def it_works(self):\n        pass\n\n"
        "def it_parses():\n    pass\n\ndef test_not_by_these_rules():\n    pass\n"
    )
    naming = Naming.from_ini(
        {
            "python_files": ("check_*.py",),
            "python_classes": ("Describe",),
            "python_functions": ("it_",),
        }
    )
    found, _ = scan_tests(tmp_path, naming=naming)
    assert sorted(t.nodeid for t in found) == [
        "tests/check_api.py::DescribeApi::it_works",
        "tests/check_api.py::it_parses",
    ]
    assert scan_tests(tmp_path) == ([], [])  # pytest's defaults see nothing there
