"""behave-style step decorators on top of pytest-bdd, for step code imported from E2EDev.

E2EDev's step code is written for behave: ``@given("text")`` / ``@when`` / ``@then`` / ``@step``
with parse-style parameters, each step taking a ``context`` first (with ``context.table`` and
``context.text`` for a step's data table and doc string), and a browser created with
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


class _Behave(parsers.StepParser):
    """A step matcher that, like behave, ignores the colon ending a step's text.

    behave drops it (``And the table holds:`` followed by a table matches
    ``@given("the table holds")``); pytest-bdd matches the text as written.
    """

    def __init__(self, inner: parsers.StepParser):
        super().__init__(inner.name)
        self.inner = inner

    def _text(self, name: str) -> str:
        stripped = name[:-1] if name.endswith(":") else name
        return name if self.inner.is_matching(name) else stripped

    def is_matching(self, name: str) -> bool:
        return self.inner.is_matching(self._text(name))

    def parse_arguments(self, name: str):
        return self.inner.parse_arguments(self._text(name))


def _parser(pattern: str, module: str):
    kind = _matchers.get(module, "parse")
    if kind == "re":
        return _Behave(parsers.re(pattern if pattern.endswith("$") else pattern + "$"))
    if kind == "cfparse":
        return _Behave(parsers.cfparse(pattern))
    return _Behave(parsers.parse(pattern))


class Row:
    """A row of behave's ``context.table``: by heading (``row["Name"]``) or by position."""

    def __init__(self, headings: list[str], cells: list[str]):
        self.headings = headings
        self.cells = cells

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return self.cells[self.headings.index(key)]
            except ValueError:
                raise KeyError(key) from None
        return self.cells[key]

    def get(self, key, default=None):
        try:
            return self[key]
        except (KeyError, IndexError):
            return default

    def as_dict(self) -> dict[str, str]:
        return dict(zip(self.headings, self.cells, strict=False))

    def keys(self):
        return list(self.headings)

    def items(self):
        return list(self.as_dict().items())

    def values(self):
        return list(self.cells)

    def __iter__(self):
        return iter(self.cells)

    def __len__(self):
        return len(self.cells)


class Table:
    """behave's ``context.table``: the first row holds the headings; iterating gives the rest."""

    def __init__(self, raw: list[list[str]]):
        self.headings = list(raw[0]) if raw else []
        self.rows = [Row(self.headings, list(cells)) for cells in raw[1:]]

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        return self.rows[index]


def _decorator(kind: str, pattern: str):
    module = sys._getframe(2).f_globals.get("__name__", "")

    def register(func):
        names = list(inspect.signature(func).parameters)[1:]  # behave passes context first

        def step_function(context, datatable=None, docstring=None, **params):
            # behave's step data: the table and the doc string of this step (None without)
            context.table = None if datatable is None else Table(datatable)
            context.text = docstring
            return func(context, **params)

        step_function.__signature__ = inspect.Signature(
            [
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for name in ["context", *names]
            ]
            + [
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
                for name in ("datatable", "docstring")
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
