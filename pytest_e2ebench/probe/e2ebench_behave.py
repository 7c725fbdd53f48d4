"""behave-style step decorators on top of pytest-bdd, for step code imported from E2EDev.

E2EDev's step code is written for behave: ``@given("text")`` / ``@when`` / ``@then`` / ``@step``
with parse-style parameters, each step taking a ``context`` first, and a browser created with
``webdriver.Chrome()`` on a ``file://`` path. The importer rewrites ``from behave import ...`` to
this module and every ``webdriver.Chrome(...)`` to :func:`driver`; the steps then run under
pytest-bdd, with ``context`` a fixture (a fresh attribute bag per scenario, from
:mod:`e2ebench_web`) and the browser the session's headless Chromium, reset between scenarios.
"""

from __future__ import annotations

import inspect
import sys

import pytest_bdd
from pytest_bdd import parsers

_matchers: dict[str, str] = {}  # module name -> "parse" | "re" | "cfparse"


def use_step_matcher(name: str) -> None:
    """behave's ``use_step_matcher``: the matcher of the steps defined after it in a module."""
    _matchers[sys._getframe(1).f_globals.get("__name__", "")] = name


def _parser(pattern: str, module: str):
    kind = _matchers.get(module, "parse")
    if kind == "re":
        return parsers.re(pattern if pattern.endswith("$") else pattern + "$")
    if kind == "cfparse":
        return parsers.cfparse(pattern)
    return parsers.parse(pattern)


def _decorator(kind: str, pattern: str):
    module = sys._getframe(2).f_globals.get("__name__", "")

    def register(func):
        names = list(inspect.signature(func).parameters)[1:]  # behave passes context first

        def step_function(context, **params):
            return func(context, **params)

        step_function.__signature__ = inspect.Signature(
            [
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for name in ["context", *names]
            ]
        )
        step_function.__name__ = func.__name__
        bdd = getattr(pytest_bdd, kind)
        # stacklevel 2: pytest-bdd puts the step fixture into the module that used the decorator
        bdd(_parser(pattern, module), stacklevel=2)(step_function)
        return func

    return register


def given(pattern: str):
    """behave ``@given``."""
    return _decorator("given", pattern)


def when(pattern: str):
    """behave ``@when``."""
    return _decorator("when", pattern)


def then(pattern: str):
    """behave ``@then``."""
    return _decorator("then", pattern)


def step(pattern: str):
    """behave ``@step``: matches after any keyword."""
    return _decorator("step", pattern)


Given, When, Then, Step = given, when, then, step


def driver(*args, **kwargs):
    """What ``webdriver.Chrome(...)`` became: the session's browser (arguments are ignored)."""
    from e2ebench_web import current_driver

    return current_driver()
