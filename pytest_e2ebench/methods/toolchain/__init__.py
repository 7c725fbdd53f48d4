"""Tasks graded by their own toolchain (``kind = "toolchain"``): a C/C++ project built with make
and tested with googletest, a JavaScript project tested with Node's runner or Jest, and any
other whose tests write a machine-readable report (issue 43).

The task's ``[toolchain]`` table names the tools it needs and its suites; each suite has a
``build`` command, a ``run`` command, the ``format`` the harness reads its verdicts from
(:data:`FORMATS`) and an optional ``coverage`` command. ``[toolchain.requirements]`` maps each
requirement to the ids of its tests (``<suite>::<test id>``), the tests every run is counted
on. The task's test folder (``[tests] path``) is laid over the project (its files at their
paths, replacing the project's) before each suite: the test sources, the test makefile, the
inputs and expected outputs. See docs/writing-a-task.md and :mod:`.style`.
"""

from __future__ import annotations

import dataclasses
import re
import shutil

from ...taskmodel.sections import SectionSource, TaskSection, string_lists
from ...taskmodel.testindex import StaticTest

KIND = "toolchain"
# the verdicts' formats: gtest's JUnit XML (GTEST_OUTPUT), Node's JUnit reporter (Node >=
# 20.13), TAP (Node's tap reporter, any Node >= 18), Jest's --json report, and the run
# command's exit status (one test: the suite itself)
FORMATS = ("gtest", "node", "tap", "jest", "exit")
LANGUAGES = ("c", "cpp", "javascript", "typescript", "java", "shell")
FIELDS = ("name", "build", "run", "format", "coverage", "canary", "timeout", "programs")
# what the agent is told to deliver, by language (the task's ``[toolchain] deliver`` replaces it)
DELIVERY = {
    "cpp": "Deliver a C++ project built with make (g++, C++17; googletest is installed).",
    "c": "Deliver a C project built with make (gcc).",
    "javascript": "Deliver a JavaScript project for Node.js (CommonJS modules, no npm install).",
}
_ID = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclasses.dataclass(frozen=True)
class Suite:
    """One suite of a toolchain task: commands run in the sandbox from the project's root.

    ``build`` runs first (nothing of the report folder reachable), then ``run``, whose report
    the harness reads from ``{report}`` (gtest: also ``$GTEST_OUTPUT``), then ``coverage``,
    which writes an lcov tracefile to ``{lcov}``. ``canary``: the task's test file the harness
    appends its canary test to (a test that must fail; :mod:`.reports`)."""

    name: str
    run: str
    format: str
    build: str = ""
    coverage: str = ""
    canary: str = ""
    timeout: float = 0.0  # 0: the session's --e2e-timeout
    # an exit suite passes only if these files exist after its run: the programs it tests (an
    # acceptance script that exits 0 whatever happens passes no project that built nothing)
    programs: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON-able form (a stage key part)."""
        return {**dataclasses.asdict(self), "programs": list(self.programs)}


@dataclasses.dataclass(frozen=True)
class ToolchainSpec:
    """The ``[toolchain]`` table: the tools on PATH it needs, its suites, each requirement's
    tests, and what the agent is asked to deliver."""

    language: str
    tools: tuple[str, ...]
    suites: tuple[Suite, ...]
    requirements: tuple[tuple[str, tuple[str, ...]], ...]
    deliver: str = ""
    # npm packages the tests need, installed from the task's lockfile (never the project's)
    npm_lock: str = ""
    # DevEval's test-writing stages: stage -> (suite, folder of the test folder, instruction)
    stages: tuple[tuple[str, str, str, str], ...] = ()

    def stage_suite(self, stage: str) -> tuple[Suite, str, str] | None:
        """The suite, test folder and instruction of a test-writing stage (None: none)."""
        for name, suite, folder, prompt in self.stages:
            if name == stage:
                found = next(s for s in self.suites if s.name == suite)
                return found, folder, prompt
        return None

    def static_tests(self) -> list[StaticTest]:
        """The tests every run is counted on, each with its requirements."""
        owners: dict[str, list[str]] = {}
        for rid, ids in self.requirements:
            for test in ids:
                owners.setdefault(test, []).append(rid)
        return [StaticTest(test, tuple(rids), 1, 0) for test, rids in owners.items()]

    def missing_tools(self) -> list[str]:
        """The tools not found on PATH."""
        return [tool for tool in self.tools if shutil.which(tool) is None]

    def delivery(self) -> str:
        """The part of an agent's instructions that says what to deliver."""
        return self.deliver or DELIVERY.get(self.language, f"Deliver a {self.language} project.")

    def to_dict(self) -> dict:
        """JSON-able form (a stage key part)."""
        return {
            "language": self.language,
            "tools": list(self.tools),
            "suites": [s.to_dict() for s in self.suites],
            "requirements": {rid: list(ids) for rid, ids in self.requirements},
            "npm_lock": self.npm_lock,
            "stages": [list(entry) for entry in self.stages],
        }


def _strings(table: dict, name: str, where: str, problems: list[str]) -> list[str]:
    value = table.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(
            f"{where}: field 'toolchain.{name}' must be a list of strings, "
            'e.g. tools = ["g++", "make"]'
        )
        return []
    return value


def parse_suite(raw: object, number: int, where: str, problems: list[str]) -> Suite | None:
    """One ``[[toolchain.suites]]`` entry, every problem naming the field and the fix."""
    field = f"{where}: toolchain.suites[{number}]"
    if not isinstance(raw, dict):
        problems.append(f"{field} must be a table with name, run and format")
        return None
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        problems.append(f"{field}: unknown field(s) {', '.join(unknown)}; use {', '.join(FIELDS)}")
    name, run, fmt = raw.get("name"), raw.get("run"), raw.get("format")
    bad = []
    if not isinstance(name, str) or not _ID.match(name):
        bad.append(f'{field}.name = {name!r} must match [a-z][a-z0-9_-]* (e.g. "unit")')
    if not isinstance(run, str) or not run.strip():
        bad.append(f'{field}.run is missing; give the test command, e.g. run = "./run_tests"')
    if fmt not in FORMATS:
        bad.append(f"{field}.format = {fmt!r}: use one of {', '.join(FORMATS)}")
    texts = {k: raw.get(k, "") for k in ("build", "coverage", "canary")}
    bad += [f"{field}.{k} must be a string" for k, v in texts.items() if not isinstance(v, str)]
    timeout = raw.get("timeout", 0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
        bad.append(f"{field}.timeout = {timeout!r} must be a positive number of seconds")
    if fmt != "exit" and not texts["canary"]:
        bad.append(
            f"{field}.canary is missing; name the test file the harness appends its canary "
            'test to (a test that must fail), e.g. canary = "unit_tests/test_stack.cpp"'
        )
    programs = raw.get("programs", [])
    if not isinstance(programs, list) or not all(
        isinstance(p, str) and p and ".." not in p.split("/") and not p.startswith("/")
        for p in programs
    ):
        bad.append(f'{field}.programs must be a list of relative paths, e.g. ["graph"]')
    problems.extend(bad)
    if bad:
        return None
    return Suite(
        name, run, fmt, texts["build"], texts["coverage"], texts["canary"], timeout, tuple(programs)
    )


def parse_toolchain(source: SectionSource) -> ToolchainSpec | None:
    """The task model's ``toolchain`` attribute: a toolchain task's table, else None."""
    if source.kind != KIND:
        return None
    where, problems, meta = source.where, source.problems, source.meta
    table = meta.get("toolchain")
    if not isinstance(table, dict):
        problems.append(
            f"{where}: a toolchain task needs a [toolchain] table with its suites "
            "([[toolchain.suites]] name, run, format); see docs/writing-a-task.md"
        )
        return None
    language = meta.get("language")
    if language not in LANGUAGES:
        problems.append(
            f"{where}: field 'language' = {language!r}: a toolchain task names its language, "
            f"one of {', '.join(LANGUAGES)}"
        )
    raw_suites = table.get("suites", [])
    suites = [
        parse_suite(raw, n, where, problems)
        for n, raw in enumerate(raw_suites if isinstance(raw_suites, list) else [])
    ]
    suites = [s for s in suites if s is not None]
    if not raw_suites or not isinstance(raw_suites, list):
        problems.append(f"{where}: field 'toolchain.suites' is missing; add [[toolchain.suites]]")
    names = [s.name for s in suites]
    if len(set(names)) != len(names):
        problems.append(f"{where}: toolchain.suites: two suites have one name; rename one")
    requirements = _requirements(table, suites, where, problems)
    deliver, lock = table.get("deliver", ""), table.get("npm_lock", "")
    if not isinstance(deliver, str) or not isinstance(lock, str):
        problems.append(f"{where}: fields 'toolchain.deliver' and 'toolchain.npm_lock' are strings")
        deliver, lock = "", ""
    tools = _strings(table, "tools", where, problems)
    stages = _stages(table, suites, where, problems)
    return ToolchainSpec(
        str(language), tuple(tools), tuple(suites), requirements, deliver, lock, stages
    )


TEST_STAGES = ("acceptance-tests", "unit-tests")


def _stages(table: dict, suites, where: str, problems: list[str]) -> tuple:
    """``[toolchain.stages]``: each test-writing stage's suite, folder and instruction, e.g.
    ``unit-tests = {suite = "unit", folder = "unit_tests", prompt = "..."}``."""
    raw = table.get("stages", {})
    known = {s.name for s in suites}
    found = []
    for stage, entry in raw.items() if isinstance(raw, dict) else []:
        entry = entry if isinstance(entry, dict) else {}
        suite, folder, prompt = (entry.get(k, "") for k in ("suite", "folder", "prompt"))
        texts = all(isinstance(v, str) for v in (suite, folder, prompt))
        if stage not in TEST_STAGES or not texts or suite not in known or not folder:
            problems.append(
                f"{where}: toolchain.stages.{stage} must be one of {', '.join(TEST_STAGES)} = "
                '{suite = "<a suite>", folder = "<its test folder>", prompt = "..."}'
            )
            continue
        found.append((stage, suite, folder.strip("/"), prompt))
    if not isinstance(raw, dict):
        problems.append(f"{where}: field 'toolchain.stages' must be a table")
    return tuple(found)


def _requirements(table: dict, suites, where: str, problems: list[str]) -> tuple:
    """``[toolchain.requirements]``: requirement id -> test ids, each of a known suite; an
    ``exit`` suite is one test, named as the suite."""
    raw = table.get("requirements", {})
    if not string_lists(raw):
        problems.append(
            f"{where}: field 'toolchain.requirements' must map requirement ids to lists of "
            'test ids, e.g. R1 = ["unit::Stack.Push", "acceptance"]'
        )
        return ()
    known = {s.name: s for s in suites}
    for rid, ids in raw.items():
        for test in ids:
            suite = known.get(test.split("::", 1)[0])
            exit_suite = suite is not None and suite.format == "exit"
            if (
                suite is None
                or (exit_suite and test != suite.name)
                or (not exit_suite and "::" not in test)
            ):
                problems.append(
                    f"{where}: toolchain.requirements.{rid} names {test!r}, which is no test of "
                    f"a suite ({', '.join(known) or 'none'}); write '<suite>::<test id>' (an "
                    "exit suite: its name)"
                )
    return tuple((rid, tuple(ids)) for rid, ids in raw.items())


def toolchain_tests(spec: ToolchainSpec | None) -> list[StaticTest] | None:
    """The task's tests, when its kind is this one (the task model's scan is not run)."""
    return spec.static_tests() if spec is not None else None


TASK_SECTIONS = (TaskSection(KIND, parse_toolchain, kind=KIND, tests=toolchain_tests),)
# the method's parts (pytest_e2ebench.methods): its task kind's evaluation style, and the
# stages of a toolchain task's evaluation with the plan fields their keys are made of
EVALUATIONS = f"{__name__}.style:EVALUATIONS"
STAGE_INPUTS = {
    # a toolchain task's suites (.style: its spec and npm packages upstream)
    "toolchain-eval": ("tests_hash", "timeout", "requires", "test_timeout"),
    "toolchain-npm": (),
}


def toolchain_of(task) -> ToolchainSpec | None:
    """A task's ``[toolchain]`` table as parsed (its slot), or None for any other task."""
    return task.slots.get(KIND)
