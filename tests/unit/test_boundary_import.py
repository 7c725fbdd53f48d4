"""Hostile peer datasets: importers copy nothing from outside the dataset (issue 26, class 4).

Each importer gets a dataset built here with one good project and hostile ones: paths that
are absolute or climb out with ``..``, ids that are ``..`` or a glob, links to ``/etc``, to
``/proc/self/environ`` and to a file holding a fake secret, and a dangling link. The good
project must import, each hostile one must be one entry of the import report with its
reason, and no byte from outside the dataset may reach the output. Pure logic: no session.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.deveval_sample import write_sample

from pytest_e2ebench.tools.importers import deveval, projecteval, realdevbench
from pytest_e2ebench.untrusted import peer

SECRET = "FAKE-SECRET-9f3c1d"
CREATED = projecteval.dt.date(2025, 1, 1)


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file outside every dataset, holding a fake secret."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\n")
    return path


def assert_nothing_from_outside(out: Path) -> None:
    """No link in ``out``, and no file there holds the secret, passwd or our environment."""
    environ = f"PATH={os.environ.get('PATH', '')}".encode()
    for folder, dirs, files in os.walk(out):
        for name in dirs + files:
            path = Path(folder, name)
            assert not path.is_symlink(), path
            if path.is_file():
                data = path.read_bytes()
                assert SECRET.encode() not in data, path
                assert b"root:x:0:0" not in data, path
                assert environ not in data, path


def errors_by(reports: list, key: str) -> dict:
    return {str(r[key]): r["error"] for r in reports if r.get("error")}


def test_peer_checks_ids_and_paths():
    assert peer.safe_id("12", "id") == "12" and peer.safe_id(7, "id") == "7"
    for bad in ("..", "../x", "a/b", "*", "", ".hidden", "a..b", True, None):
        with pytest.raises(ValueError, match="is not a safe id"):
            peer.safe_id(bad, "project_id")
    for bad in ("/etc/hostname", "../secret", "a/../../b", "", "a\x00b", 3):
        with pytest.raises(ValueError, match="not a relative path inside the dataset"):
            peer.relative_path(bad, "files")


# --- RealDevBench ---------------------------------------------------------------------------


def test_realdevbench_imports_the_good_project_and_reports_each_hostile_one(tmp_path, secret):
    src = tmp_path / "rdb"
    bench = src / "data" / "benchmark"
    for label in ("Good App", "Linky", "Folder Link", "Dangling"):
        (bench / label).mkdir(parents=True)
    (bench / "Good App" / "photo.png").write_bytes(b"\x89PNG good")
    (bench / "Linky" / "key.txt").symlink_to(secret)
    (bench / "Folder Link" / "notes.txt").write_text("fine\n")
    (bench / "Folder Link" / "etc").symlink_to("/etc")
    (bench / "Dangling" / "a.txt").write_text("ok\n")
    (bench / "Dangling" / "gone").symlink_to("nowhere")
    (src / "outside-link").symlink_to(secret.parent)

    def project(label, files=None):
        data = {"label": label, "prompt": "p", "features": ["One: do one thing."]}
        return data if files is None else {**data, "files": files}

    projects = [
        project("Good App", ["photo.png", "missing.csv"]),
        project("Absolute", ["/etc/hostname"]),
        project("Climb", ["../outside/secret.txt"]),
        project("Linky", ["data/benchmark/Linky/key.txt"]),
        project("Through Link", ["outside-link/secret.txt"]),
        project("Folder Link"),
        project("../../outside"),
        project("Dangling"),
    ]
    (src / "set.jsonl").write_text(
        "\n".join(json.dumps(p) for p in projects) + "\n" + "[" * 200_000 + "\n"
    )
    out = tmp_path / "tasks"
    reports = realdevbench.import_all(src, out, CREATED)

    errors = errors_by(reports, "source")
    labels = {r["source"]: r.get("label") for r in reports}
    by_label = {labels[s]: e for s, e in errors.items()}
    assert by_label == {
        "Absolute": "files: '/etc/hostname' is not a relative path inside the dataset",
        "Climb": "files: '../outside/secret.txt' is not a relative path inside the dataset",
        "Linky": (
            "data/benchmark/Linky/key.txt: is or lies behind a symbolic link "
            "(links are not followed)"
        ),
        "Through Link": (
            "outside-link/secret.txt: is or lies behind a symbolic link (links are not followed)"
        ),
        "Folder Link": "data/benchmark/Folder Link: links out of the dataset: etc (link to an "
        "absolute path (/etc))",
        "../../outside": "label: '../../outside' is not a relative path inside the dataset",
        None: "set.jsonl:9: nested deeper than 64 levels",
    }
    imported = {r["task"]: r for r in reports if "task" in r}
    assert set(imported) == {"good-app", "dangling"}
    assert imported["good-app"]["materials"] == 1
    assert imported["good-app"]["missing_files"] == ["missing.csv"]
    assert (out / "good-app" / "materials" / "photo.png").read_bytes() == b"\x89PNG good"
    assert sorted(p.name for p in out.iterdir()) == ["dangling", "good-app", "import-report.json"]
    assert_nothing_from_outside(out)


# --- DevEval --------------------------------------------------------------------------------


def _variant(sample: Path, src: Path, name: str, change) -> None:
    """A copy of the sample repository ``wordstat`` under ``src/name``, changed by ``change``."""
    shutil.copytree(sample / "wordstat", src / name)
    change(src / name)


def _config(repo: Path, **changes) -> None:
    config = json.loads((repo / "repo_config.json").read_text())
    (repo / "repo_config.json").write_text(json.dumps({**config, **changes}))


def test_deveval_imports_the_good_repository_and_reports_each_hostile_one(tmp_path, secret):
    src = tmp_path / "deveval"
    variants = {
        "good": lambda r: None,
        "dangling": lambda r: (r / "wordstat" / "gone").symlink_to("nowhere"),
        "etc": lambda r: (r / "wordstat" / "etc").symlink_to("/etc"),
        "environ": lambda r: (r / "examples" / "env.txt").symlink_to("/proc/self/environ"),
        "secret": lambda r: (r / "unit_tests" / "key.txt").symlink_to(secret),
        "abspath": lambda r: _config(r, PRD="/etc/passwd"),
        "climb": lambda r: _config(r, unit_tests="../good/unit_tests"),
        "data": lambda r: _config(r, required_files=["../outside/secret.txt"]),
        "prdlink": lambda r: ((r / "PRD.md").unlink(), (r / "PRD.md").symlink_to(secret)),
        "deep": lambda r: (r / "repo_config.json").write_text("[" * 200_000),
    }
    sample = write_sample(tmp_path / "sample")
    for name, change in variants.items():
        _variant(sample, src, name, change)
    out = tmp_path / "tasks"
    reports = deveval.import_all(src, out, CREATED)

    errors = {r.repo: r.error for r in reports if r.error}
    link = "is or lies behind a symbolic link (links are not followed)"
    assert errors == {
        "etc": "etc: links out of the dataset: wordstat/etc (link to an absolute path (/etc))",
        "environ": "examples: links out of the dataset: env.txt (link to an absolute path "
        "(/proc/self/environ))",
        "secret": f"unit_tests: links out of the dataset: key.txt (link to an absolute path "
        f"({secret}))",
        "abspath": "repo_config.json: PRD: '/etc/passwd' is not a relative path inside the dataset",
        "climb": "repo_config.json: unit_tests: '../good/unit_tests' is not a relative path "
        "inside the dataset",
        "data": "repo_config.json: required_files: '../outside/secret.txt' is not a relative "
        "path inside the dataset",
        "prdlink": f"repo_config.json: PRD: {link}",
        "deep": "repo_config.json: nested deeper than 64 levels",
    }
    imported = {r.repo: r for r in reports if not r.error}
    assert set(imported) == {"good", "dangling"}
    assert any("wordstat/gone: left out (dangling link" in n for n in imported["dangling"].notes)
    good = out / "deveval-good"
    assert (good / "reference" / "wordstat" / "stats.py").is_file()
    assert (good / "tests" / "unit").is_dir() and (good / "setup" / "examples").is_dir()
    assert sorted(p.name for p in out.iterdir()) == [
        "deveval-dangling",
        "deveval-good",
        "import-report.json",
    ]
    assert_nothing_from_outside(out)


# --- ProjectEval ----------------------------------------------------------------------------


def _console(pid: str) -> dict:
    test = "def test_out(entry):\n    stdout, stderr = utils.run_entry(entry)\n    assert stdout"
    return {
        "project_id": pid,
        "project_type": "console",
        "nl_prompt": "Print hello.",
        "framework_technical_stack": [{"language": "Python", "technical_stack": "None"}],
        "nl_checklist": [{"page": "Main", "function": [{"function": "Hello"}]}],
        "testcode": [
            {
                "page": "Main",
                "function": [
                    {
                        "function": "Hello",
                        "test": test,
                        "parameter": [{"name": "entry", "description": "the file to run"}],
                    }
                ],
            }
        ],
        "skeleton": [],
    }


def test_projecteval_imports_the_good_project_and_reports_each_hostile_one(tmp_path, secret):
    data = tmp_path / "pe" / "data"
    material = data / "material"
    material.mkdir(parents=True)
    (material / "2-input.txt").write_text("hello\n")
    (material / "3-key.txt").symlink_to(secret)
    (data.parent / "2-input.txt").write_text("outside the material folder\n")
    ids = ["2", "3", "..", "../material/2", "*", "/etc/passwd"]
    answer = [{"path": "main.py", "code": "print('hello')\n"}]
    (data / projecteval.PROJECTS).write_text(json.dumps([_console(i) for i in ids]))
    (data / projecteval.ANSWERS).write_text(json.dumps(dict.fromkeys(ids, answer)))
    cpv = {"Main": {"Hello": [{"name": "entry", "answer": "main.py"}]}}
    (data / projecteval.PARAMETERS).write_text(json.dumps(dict.fromkeys(ids, cpv)))
    out = tmp_path / "tasks"
    reports = projecteval.import_all(data.parent, out, CREATED)

    errors = {r.project: r.error for r in reports if r.error}
    unsafe = "is not a safe id (letters, digits, '.', '_', '-')"
    assert errors == {
        "3": "3-key.txt: is or lies behind a symbolic link (links are not followed)",
        "..": f"project_id: '..' {unsafe}",
        "../material/2": f"project_id: '../material/2' {unsafe}",
        "*": f"project_id: '*' {unsafe}",
        "/etc/passwd": f"project_id: '/etc/passwd' {unsafe}",
    }
    (good,) = [r for r in reports if not r.error]
    assert good.task == "projecteval-2" and good.materials == 1
    copied = out / "projecteval-2" / "tests" / "materials"
    assert [p.name for p in copied.iterdir()] == ["2-input.txt"]
    assert (copied / "2-input.txt").read_text() == "hello\n"
    assert sorted(p.name for p in out.iterdir()) == ["import-report.json", "projecteval-2"]
    assert_nothing_from_outside(out)


def test_projecteval_dataset_file_nested_too_deeply_is_refused_with_its_name(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / projecteval.PROJECTS).write_text("[" * 200_000)
    with pytest.raises(ValueError, match="project_eval_project.json: nested deeper than 64"):
        projecteval.import_all(tmp_path, tmp_path / "out", CREATED)


# --- peer code nested past the harness's walks of it ----------------------------------------

# Parses, then raised RecursionError in ast.unparse and NodeTransformer (from 450 and 600
# terms); outside every handler of SyntaxError it ended the whole import.
DEEP_CODE = "x = " + " + ".join(["1"] * 600) + "\n"
TOO_DEEP = "nested deeper than 200 levels"


def _one_failed_case(tmp_path, more_code: str = "", **fields) -> str:
    """Import the E2EDev sample with its Counter_01 case R2/1 changed (``fields`` replaced,
    ``more_code`` added to its step code): the project imports, that case alone fails; its
    reason."""
    from helpers.e2edev_sample import write_sample

    from pytest_e2ebench.tools.importers import e2edev

    src = write_sample(tmp_path / "src")
    data_file = src / "Counter_01" / "requirment_with_tests.json"
    data = json.loads(data_file.read_text())
    case = data["finegrained_rewith_test"]["2"]["test_cases"][0]
    case.update(fields)
    case["step_code"] += more_code
    data_file.write_text(json.dumps(data))
    reports = e2edev.import_all(src, tmp_path / "tasks", CREATED, vendoring=False)
    (counter,) = [r for r in reports if r.project == "Counter_01"]
    assert counter.task and counter.converted == 2
    assert [(f["requirement"], f["case"]) for f in counter.failed] == [("R2", 1)]
    return counter.failed[0]["reason"]


def test_e2edev_step_code_nested_too_deeply_is_one_cases_failure(tmp_path):
    assert TOO_DEEP in _one_failed_case(tmp_path, more_code="\n" + DEEP_CODE)


def test_e2edev_step_code_with_a_crowded_f_string_is_one_cases_failure(tmp_path):
    """Python 3.11 parses an f-string in time quadratic in its fields: the guard the file
    reader has (intake.parse_python) applies to peer code given as text too."""
    crowded = '\nx = f"' + "{a}" * 50_000 + '"\n'
    assert "an f-string of over 2000 fields" in _one_failed_case(tmp_path, more_code=crowded)


def test_projecteval_test_code_nested_too_deeply_is_one_tests_failure(tmp_path):
    data = tmp_path / "pe" / "data"
    data.mkdir(parents=True)
    projects = [_console("2"), _console("4")]
    deep = projects[1]["testcode"][0]["function"][0]
    deep["test"] += "\n    " + DEEP_CODE
    answer = [{"path": "main.py", "code": "print('hello')\n" + DEEP_CODE}]
    (data / projecteval.PROJECTS).write_text(json.dumps(projects))
    (data / projecteval.ANSWERS).write_text(json.dumps(dict.fromkeys(["2", "4"], answer)))
    cpv = {"Main": {"Hello": [{"name": "entry", "answer": "main.py"}]}}
    (data / projecteval.PARAMETERS).write_text(json.dumps(dict.fromkeys(["2", "4"], cpv)))
    reports = {r.project: r for r in projecteval.import_all(data.parent, tmp_path / "out", CREATED)}
    assert reports["2"].task == "projecteval-2" and not reports["2"].skipped_tests
    assert reports["4"].skipped_tests == [f"4_1 Main / Hello: its code: {TOO_DEEP}"]


def test_e2edev_step_pattern_that_backtracks_is_one_cases_failure_not_a_stall(tmp_path):
    """The importer matched the peer's regular expressions against the peer's steps: ``(a|aa)+b``
    against 60 ``a`` would have held it for years."""
    feature = "Feature: Slow\n  Scenario: Backtracking\n    Given the page shows " + "a" * 60
    code = (
        "from behave import given, use_step_matcher\nuse_step_matcher('re')\n\n"
        "@given('the page shows (a|aa)+b')\ndef slow(context):\n    pass\n"
    )
    reason = _one_failed_case(tmp_path, test_case=[feature + "!\n"], step_code=code)
    assert "take over 2 s to match" in reason
