"""A web task's scenarios: the task model's scan, the plain test modules it writes for a run,
and what the run's web plugin collects from them (issue 28.6).

The stored features (tests/data/features) hold an outline, feature and scenario tags, two
names that slug alike, a name full of quotes, and two broken files. The collection runs the
test tools as a web run does (``-p e2ebench_web -p pytest_bdd.plugin``, no autoloaded
plugins), with ``--collect-only``: no browser starts.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.probe import PROBE_DIR
from pytest_e2ebench.probe import e2ebench_web as web
from pytest_e2ebench.taskmodel import features
from pytest_e2ebench.taskmodel.features import (
    parse_feature,
    scan_features,
    write_scenario_modules,
)

DATA = Path(__file__).parents[1] / "data" / "features"
# Writes every collected item's node id and requirement marks, as the probe reads them.
DUMP = """
import json, os

def pytest_collection_finish(session):
    items = {
        item.nodeid: sorted(str(a) for m in item.iter_markers("requirement") for a in m.args)
        for item in session.items
    }
    marks = {item.nodeid: sorted(m.name for m in item.iter_markers()) for item in session.items}
    with open(os.environ["DUMP"], "w") as f:
        json.dump({"items": items, "marks": marks}, f)

def pytest_collectreport(report):
    if report.failed:
        with open(os.environ["DUMP"] + ".errors", "a") as f:
            f.write(json.dumps([report.nodeid, str(report.longrepr)]) + "\\n")
"""


def collect(root: Path, scenarios: Path | None) -> tuple[dict, dict]:
    """Collect ``root/tests`` as a web run does: the items (node id -> requirement marks,
    and all marks) and the collection errors (node id -> message)."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    env.update(PYTHONPATH=str(PROBE_DIR), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    env.update(DUMP=str(root / "dump.json"), E2EBENCH_APP_DIR=str(root))
    if scenarios is not None:
        env[features.SCENARIOS_ENV] = str(scenarios)
    (root / "pytest.ini").write_text("[pytest]\n")
    args = ["-p", "e2ebench_web", "-p", "pytest_bdd.plugin", "-p", "no:cacheprovider"]
    subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-c", "pytest.ini", "--rootdir", str(root)]
        + ["--collect-only", "-q", "tests"],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    dump = json.loads((root / "dump.json").read_text())
    errors_file = root / "dump.json.errors"
    lines = errors_file.read_text().splitlines() if errors_file.exists() else []
    return dump, dict(json.loads(line) for line in lines)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The stored features as a run's tests folder, their modules written as the harness does,
    collected by the web plugin (plus one feature the index does not know)."""
    root = tmp_path_factory.mktemp("webrun")
    shutil.copytree(DATA, root / "tests")
    (root / "tests" / "conftest.py").write_text(DUMP)
    index = write_scenario_modules(root / "tests", root / "scenarios")
    (root / "tests" / "late.feature").write_text("Feature: Late\n  @R1\n  Scenario: X\n")
    dump, errors = collect(root, index.parent)
    return root, dump, errors


def test_the_run_collects_the_node_ids_and_requirements_the_scan_promises(run):
    root, dump, _ = run
    scanned, problems = scan_features(root / "tests" / "shop")
    want = {}
    for test in scanned:
        nodeid = test.nodeid.replace("tests/", "tests/shop/", 1)
        got = sorted(n for n in dump["items"] if n.split("[")[0] == nodeid)
        assert len(got) == test.cases, (nodeid, got)
        want.update(dict.fromkeys(got, sorted(test.requirements)))
    assert problems == []
    assert dump["items"] == want
    assert sorted(want) == [
        "tests/shop/basket.feature::test_a_b",
        "tests/shop/basket.feature::test_a_b_2",
        "tests/shop/basket.feature::test_adding_an_item[bread]",
        "tests/shop/basket.feature::test_adding_an_item[milk]",
        "tests/shop/basket.feature::test_an_empty_basket_says_so",
        "tests/shop/hostile.feature::test_it_s_n_import_os",
    ]
    assert want["tests/shop/basket.feature::test_an_empty_basket_says_so"] == ["R1", "R2"]
    # a tag that is not a requirement is an ordinary mark
    assert "smoke" in dump["marks"]["tests/shop/basket.feature::test_an_empty_basket_says_so"]


def test_a_broken_feature_is_its_own_collection_error_naming_file_line_and_fix(run):
    _, dump, errors = run
    assert set(errors) == {
        "tests/broken/notgherkin.feature",
        "tests/broken/twice.feature",
        "tests/late.feature",
    }
    assert errors["tests/broken/twice.feature"] == (
        "twice.feature: two scenarios are named 'Same'; rename one"
    )
    assert errors["tests/broken/notgherkin.feature"].startswith(
        "notgherkin.feature:5: not valid Gherkin"
    )
    assert "python -m pytest_e2ebench.taskmodel.features" in errors["tests/late.feature"]
    assert not [n for n in dump["items"] if "broken" in n]  # the rest of the folder collects


def test_the_written_modules_are_plain_pytest_bdd(run):
    root, _, _ = run
    index = json.loads((root / "scenarios" / features.INDEX).read_text())
    modules = [Path(e["module"]) for e in index.values() if e["module"]]
    assert len(modules) == 2 and all(m.is_relative_to(root / "scenarios") for m in modules)
    for module in modules:
        tree = ast.parse(module.read_text())
        imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        assert [(n.module, [a.name for a in n.names]) for n in imports] == [
            ("pytest_bdd", ["scenario"])
        ]
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert calls == {"scenario"}
        for function in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            # the scenario's name is a literal: its docstring and the decorator's argument
            assert function.decorator_list[0].args[1].value == ast.get_docstring(function)
    # a name with quotes, backslashes and code in it is written as the literal it is
    (hostile,), _ = parse_feature(root / "tests" / "shop" / "hostile.feature")
    assert "''' \"\"\" \\n \\' ); import os" in hostile["name"]
    tree = ast.parse((root / "scenarios" / "shop" / "hostile.py").read_text())
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert ast.get_docstring(function, clean=False) == hostile["name"]


def test_the_plugin_and_the_task_model_name_the_same_files():
    # two zones, two copies (the plugin imports nothing of the harness): held equal here
    assert web.SCENARIOS_ENV == features.SCENARIOS_ENV
    assert web.SCENARIO_INDEX == features.INDEX
    assert web.REQUIREMENT_TAG.pattern == features.REQUIREMENT_TAG.pattern


def test_loading_a_web_task_imports_no_probe():
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pytest_e2ebench.taskmodel.task import load_task\n"
        f"task = load_task(Path({str(Path(__file__).parents[2] / 'benchmark_tasks' / 'todolist')!r}))\n"
        "assert task.kind == 'web' and len(task.tests) == 31, (task.kind, len(task.tests))\n"
        "print(sorted(m for m in sys.modules if 'probe' in m or m.startswith('e2ebench')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
