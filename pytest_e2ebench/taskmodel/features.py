"""A web task's Gherkin scenarios: read statically, and written out as plain test modules.

The harness reads a web task's ``*.feature`` files to know, without running anything, which
scenarios it has, which requirements each one checks (its ``@R<n>`` tags and its feature's)
and how many tests pytest will make of it (:func:`scan_features`). For a run it writes one
plain pytest-bdd module per feature file (:func:`write_scenario_modules`): one
``@scenario``-decorated test function per scenario, named as the scan names it. The web plugin
of the test run (``probe/e2ebench_web.py``) collects each feature file as a module whose
object is that file, so a scenario's node id is the feature file's:
``tests/features/todo.feature::test_add_an_item`` (outline rows are parameters,
``...::test_add_many[3]``), the id the scan gives and results.json keys.

``python -m pytest_e2ebench.taskmodel.features TESTS OUT`` writes the modules for a tests
folder by hand (docs/web.md: running a task's scenarios outside the harness).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from .testindex import StaticTest

REQUIREMENT_TAG = re.compile(r"^R\d+$")
# A scenario's line: indentation, keyword ("Example:" is Gherkin's synonym of "Scenario:";
# "Examples:" is not), name.
SCENARIO_LINE = re.compile(
    r"^([ \t]*)((?:Scenario(?: Outline| Template)?|Example)[ \t]*:)[ \t]*(.*?)[ \t]*$",
    re.MULTILINE,
)
# What the run's web plugin reads in the folder of written modules (E2EBENCH_SCENARIOS):
# feature file (resolved path) -> {"module": its module's path, "problems": [...]}.
INDEX = "scenarios.json"
SCENARIOS_ENV = "E2EBENCH_SCENARIOS"


def scenario_function(scenario: str, taken: set[str]) -> str:
    """The test function name of a scenario: ``test_`` + its name as an identifier, unique."""
    slug = re.sub(r"\W+", "_", scenario.lower(), flags=re.ASCII).strip("_") or "scenario"
    name = f"test_{slug}"[:80]
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.add(candidate)
    return candidate


def parse_feature(path: Path) -> tuple[list[dict], list[str]]:
    """The scenarios of one feature file, and problems (each naming the file and line).

    A scenario is ``{"name", "function", "tags", "requirements", "cases", "line"}``;
    ``requirements`` are its ``R<n>`` tags and its feature's, ``cases`` its example rows (1
    for a plain scenario). The file is read by pytest-bdd's own parser, the one that runs it.
    """
    from gherkin.errors import CompositeParserException, ParserError
    from pytest_bdd.exceptions import FeatureError, GherkinParseError
    from pytest_bdd.parser import FeatureParser

    try:
        feature = FeatureParser(str(path.parent), path.name).parse()
    except GherkinParseError as exc:
        return [], [
            f"{path.name}:{exc.line}: not valid Gherkin: {exc.message} ({exc.line_content!r})"
        ]
    except (FeatureError, CompositeParserException, ParserError, ValueError) as exc:
        return [], [f"{path.name}: not valid Gherkin: {str(exc).strip()[:300]}"]
    declared = [m[3] for m in SCENARIO_LINE.finditer(path.read_text(encoding="utf-8"))]
    problems = [
        f"{path.name}: two scenarios are named {name!r}; rename one"
        for name in sorted({n for n in declared if declared.count(n) > 1})
    ]
    taken: set[str] = set()
    scenarios = []
    for name, template in feature.scenarios.items():
        tags = sorted(set(feature.tags) | set(template.tags))
        rows = sum(len(ex.examples) for ex in template.examples)
        if template.templated and not rows:
            problems.append(
                f"{path.name}:{template.line_number}: scenario outline {name!r} has no "
                "example rows; add an Examples: table"
            )
        scenarios.append(
            {
                "name": name,
                "function": scenario_function(name, taken),
                "tags": tags,
                "requirements": [t for t in tags if REQUIREMENT_TAG.match(t)],
                "cases": max(rows, 1),
                "line": template.line_number,
            }
        )
    if not scenarios and not problems:
        problems.append(f"{path.name}: no scenarios; add 'Scenario:' sections")
    return scenarios, problems


def feature_files(tests: Path) -> list[Path]:
    """The feature files under a tests folder, sorted."""
    return sorted(p for p in tests.rglob("*.feature") if "__pycache__" not in p.parts)


def scan_features(tests: Path, *, label: str = "tests") -> tuple[list[StaticTest], list[str]]:
    """Every scenario of the feature files under ``tests``, as tests with requirement tags.

    Node ids are what the run reports: ``tests/features/todo.feature::test_add_an_item``.
    """
    found: list[StaticTest] = []
    problems: list[str] = []
    for path in feature_files(tests):
        rel = f"{label}/{path.relative_to(tests).as_posix()}"
        scenarios, issues = parse_feature(path)
        problems.extend(rel + issue[len(path.name) :] for issue in issues)
        for sc in scenarios:
            found.append(
                StaticTest(
                    nodeid=f"{rel}::{sc['function']}",
                    requirements=tuple(sc["requirements"]),
                    cases=sc["cases"],
                    line=sc["line"],
                )
            )
    return found, problems


def scenario_module(feature: str, scenarios: list[dict], title: str) -> str:
    """The source of a plain pytest-bdd test module for one feature file's scenarios.

    ``feature`` is the feature file's path as the module names it (relative to the module's
    folder); ``title`` what the docstring calls it. Names are written as literals (``repr``):
    a scenario's name is task text, never code.
    """
    lines = [
        f'"""The scenarios of {title} as pytest tests (pytest-bdd).',
        "",
        "Written by pytest-e2ebench for one run (pytest_e2ebench/taskmodel/features.py); the web",
        "plugin e2ebench_web collects them under the feature file's node id.",
        '"""',
        "",
        "from pytest_bdd import scenario",
        "",
        f"FEATURE = {feature!r}",
    ]
    for sc in scenarios:
        lines += [
            "",
            "",
            f"@scenario(FEATURE, {sc['name']!r})",
            f"def {sc['function']}():",
            f"    {sc['name']!r}",
        ]
    return "\n".join(lines) + "\n"


def write_scenario_modules(tests: Path, out: Path, *, label: str = "tests") -> Path:
    """One test module per feature file under ``tests``, written under ``out``, and the index
    the web plugin reads (``out/scenarios.json``); the index's path.

    A feature file with problems (not Gherkin, two scenarios of one name, ...) gets no module:
    its index entry lists them, and the plugin reports them as that file's collection error,
    naming the file and line, as task validation does.
    """
    index: dict[str, dict] = {}
    for path in feature_files(tests):
        rel = path.relative_to(tests)
        scenarios, problems = parse_feature(path)
        entry: dict = {"problems": problems, "module": None}
        if not problems:
            module = out / rel.parent / f"{path.stem}.py"
            module.parent.mkdir(parents=True, exist_ok=True)
            feature = os.path.relpath(path.resolve(), module.parent.resolve())
            title = f"{label}/{rel.as_posix()}"
            module.write_text(scenario_module(feature, scenarios, title), encoding="utf-8")
            entry["module"] = str(module.resolve())
        index[str(path.resolve())] = entry
    out.mkdir(parents=True, exist_ok=True)
    (out / INDEX).write_text(json.dumps(index, indent=1, sort_keys=True), encoding="utf-8")
    return out / INDEX


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m pytest_e2ebench.taskmodel.features TESTS OUT")
    written = write_scenario_modules(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{SCENARIOS_ENV}={written.parent.resolve()}")
