"""The bounded steps' child (issue 40, item 5): a named function run in a child interpreter,
its result back through JSON; over its time or memory bound, nested too deep or ended by a
signal it is the input's (the agent's) failure, ``OverBound`` naming the bound; any other
failure is the harness's, an InfrastructureError with the child's log."""

from __future__ import annotations

import os
import signal
import time

import pytest

from pytest_e2ebench.errors import InfrastructureError
from pytest_e2ebench.untrusted import child


def answer(a, b):
    return {"sum": a + b, "kinds": {"x"}, "pair": (a, b), "where": os.getcwd()}


def sleep(seconds):
    time.sleep(seconds)


def allocate(mebibytes):
    return len(bytearray(mebibytes << 20))


def nest(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return repr(value)  # repr recurses once per level: RecursionError past the limit


def crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def fail():
    raise KeyError("a bug of the harness")


def _call(function, *args, **bounds):
    return child.call(function, *args, step="the test step", stage="tests", **bounds)


def test_the_result_comes_back_through_json_from_a_harness_folder(tmp_path):
    found = _call(answer, 2, 3)
    assert found["sum"] == 5 and found["kinds"] == ["x"] and found["pair"] == [2, 3]
    assert found["where"] == os.getcwd()  # relative paths mean what they mean here


def test_over_the_time_bound_is_the_inputs_failure_and_the_child_is_ended():
    start = time.monotonic()
    with pytest.raises(child.OverBound) as over:
        _call(sleep, 30, seconds=1)
    assert time.monotonic() - start < 10
    assert over.value.why == "over its time bound (1 s)"
    assert str(over.value) == "the test step stopped, over its time bound (1 s)"


def test_over_the_memory_bound_is_the_inputs_failure():
    with pytest.raises(child.OverBound) as over:
        _call(allocate, 1024, memory=512 << 20)
    assert over.value.why == "over its memory bound (512 MiB)"
    assert _call(allocate, 16, memory=512 << 20) == 16 << 20  # within it, the value


def test_nested_too_deep_and_a_signal_are_the_inputs_failures():
    with pytest.raises(child.OverBound, match="nested too deep"):
        _call(nest, 100_000)
    with pytest.raises(child.OverBound, match=f"ended by signal {int(signal.SIGSEGV)}"):
        _call(crash)


def test_any_other_failure_is_the_harness_with_the_childs_log():
    with pytest.raises(InfrastructureError) as error:
        _call(fail)
    assert error.value.stage == "tests"
    assert "the test step failed in its child (status 1)" in str(error.value)
    assert "KeyError: 'a bug of the harness'" in str(error.value)


def test_only_a_module_level_function_can_be_called():
    with pytest.raises(TypeError):
        _call(lambda: 1)


def test_small_tree_counts_the_files_it_is_asked_about(tmp_path):
    (tmp_path / "a.py").write_text("x" * 100)
    (tmp_path / "b.txt").write_text("x" * 10_000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_c.py").write_text("x" * 100)
    assert child.small_tree(tmp_path, max_bytes=200, max_files=2)
    assert not child.small_tree(tmp_path, max_bytes=199, max_files=2)
    assert not child.small_tree(tmp_path, max_bytes=200, max_files=1)
    only_tests = child.small_tree(
        tmp_path, max_bytes=100, max_files=1, names=lambda n: n.startswith("test_")
    )
    assert only_tests
