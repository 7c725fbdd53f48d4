"""The bounded parser is the only way agent-written and peer-published files are read.

Issue 26, class 3: ``json.loads`` and ``tomllib.loads`` recurse per level of nesting, so an
agent's 200,000 ``[`` raised ``RecursionError`` in six places that expected ``ValueError``,
and the run left the mean as a harness error. The fix is structural: one module
(:mod:`pytest_e2ebench.untrusted.parse`) reads such files, and this test walks the package's
syntax trees and fails when a module outside the allow-list below calls a raw primitive:
``json.load(s)``, ``tomllib.load(s)``, ``open`` / ``Path.open`` / ``os.open`` for reading,
``read_text`` or ``read_bytes`` as a method. Each allowed module says why its reads are of
harness-zone files (or are themselves the boundary); a new module that reads files must
either use the boundary functions or be added here with its reason, in review.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import pytest
from helpers.structure import raw_reads

from pytest_e2ebench.errors import AgentFileError
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.untrusted import parse

PACKAGE = Path(parse.__file__).resolve().parents[1]
GRADEBOOK = PACKAGE.parent / "benchmark_tasks" / "gradebook"

# module (relative to the package) -> why its raw reads are not of project-zone data
ALLOWED = {
    "isolation/mounts.py": "reads /proc (the host's mounts, a pid's start time) and the owner "
    "files the harness writes beside its own mount points",
    "untrusted/child.py": "the bounded steps' child: the harness's own code; it reads the call "
    "pickled into a harness temporary folder and the child's log there (never the project's); the "
    "result comes back through the bounded parser",
    # the boundary itself
    "untrusted/parse.py": "the bounded parser: depth measured before json/tomllib see the text",
    "isolation/intake.py": "the bounded, link-free reader everything else builds on",
    "untrusted/archive.py": "the bounded unpacker of peer archives: regular files only, O_EXCL",
    "isolation/overlay.py": "applies a sandbox's upper layer with descriptors that follow no link",
    "environment/integrity.py": "hashes the test tools' files with O_NOFOLLOW descriptors",
    "isolation/process.py": "opens the harness's own log file (O_NOFOLLOW) before a command starts",
    "environment/wheel.py": "inspects a built wheel as data: entry count, sizes and names bounded",
    "agents/tools.py": "writes the agent's files with O_NOFOLLOW descriptors (os.open)",
    "proxy/meter.py": "appends to the proxy's log with O_NOFOLLOW descriptors (os.open)",
    # code that runs inside the sandbox, in the project zone itself
    "probe/e2ebench_app.py": "the app driver inside the sandbox; reads the harness's pipe",
    "probe/e2ebench_probe.py": "the probe inside the sandboxed test run; opens its output pipe",
    "probe/e2ebench_pv.py": "inside the sandboxed test run; reads the harness-written PV file",
    "probe/e2ebench_sides.py": "the split run's suite process: reads the test modules and the "
    "harness-written sides file (never the project's)",
    "probe/e2ebench_web.py": "the web plugin inside the sandboxed test run; serves the app",
    "probe/e2ebench_wire.py": "the split run's channel, in both sandboxes: a frame's size bounded "
    "before it is read, nesting errors caught, every value decoded by its fixed schema",
    "evaluation/checks/fixtures.py": "the check session's plugin: its context file is the harness's",
    # the harness's own files: tasks, caches, results, downloads it checks by hash
    "taskmodel/task.py": "task folders (harness zone: trusted task content)",
    "taskmodel/features.py": "a task's feature files (task content; the E2EDev importer's own output)",
    "methods/projecteval/__init__.py": "a task's ProjectEval files (task content)",
    "methods/projecteval/masker.py": "masks a copy of the task's reference (task content)",
    "taskmodel/mutants.py": "a task's mutants.toml and its reference (task content)",
    "migrate/static.py": "rewrites the task's reference tests (task content)",
    "taskmodel/skips.py": "parses the task's reference tests (task content)",
    "evaluation/honeypot.py": "reads the task's reference tests to plant honeypots (task content)",
    "evaluation/split.py": "reads the task's reference tests for classes they subclass (task content)",
    "taskmodel/testindex.py": "indexes the task's reference tests (task content)",
    "taskmodel/testconf.py": "the reference's pytest settings and the test tools' dist-info",
    "run/cache.py": "the run folder's manifests and lock, written by the harness",
    "run/progress.py": "the session's progress files, written by the harness",
    "tools/verify.py": "the harness's own eval.json manifests",
    "tools/selfcheck.py": "the harness's own results.json",
    "report/results.py": "results.json the harness wrote (e2ebench report/compare)",
    "report/terminal.py": "records the harness's workers put on reports",
    "evaluation/runner.py": "coverage's JSON, produced by the harness's own interpreter",
    "llm/accounting.py": "the price table shipped in the package (llm/prices.toml)",
    "llm/cache.py": "the LLM cache, written by the harness",
    "llm/outage.py": "the harness's outage note",
    "isolation/limits.py": "cgroup files of the kernel",
    "environment/source.py": "the harness's download cache (hash-checked sdists) and its markers",
    "environment/vendor.py": "npm's answers and packages pinned by hash, in the harness's cache",
    "environment/sri.py": "npm's copies of vendored files, from the harness's vendor cache",
    "tools/localmodel.py": "model downloads checked by hash, the harness's server log, and "
    "/proc/cpuinfo's flags",
    "methods/stages/mermaid.py": "the harness's own parser script in its cache",
    "methods/app/validate.py": "results.json of a session the harness ran",
    "tools/testing/scripted_llm.py": "test double: requests from the harness's own client",
    "tools/importers/e2edev_verify.py": "task folders, reports and results the importer wrote",
    "tools/importers/projecteval_verify.py": "reports, results and markers the harness wrote",
    "isolation/network/__init__.py": "ip's and bubblewrap's JSON, and the kernel's namespace files",
    "probe/e2ebench_guard.py": "inside the sandboxed test run; compiles the suite's own files",
    "methods/stages/variants.py": "a harness copy of the task's reference (task content)",
    "tools/testing/demo_model.py": "the task's reference files, served by the stand-in model",
    "tools/importers/__init__.py": "reads back the task.toml text the importer just wrote",
    "schema/__init__.py": "the package's own JSON Schema file",
    "tools/importers/pins.py": "the package's own dataset pins (tools/importers/datasets.toml)",
    "environment/backend.py": "copies the wheel it built and inspected into its own store (harness zone)",
    "evaluation/planting/twins.py": "a harness copy of the task's reference tests (task content)",
    "proxy/tape.py": "the proxy's own tape of answers, written by the harness",
    "tools/testing/cli_scripts.py": "test double: the task's reference files it hands an agent",
    "tools/testing/dialects.py": "test double: requests from the agents the harness runs",
}


@functools.cache
def _modules() -> dict[str, list[tuple[int, str]]]:
    return {
        path.relative_to(PACKAGE).as_posix(): raw_reads(ast.parse(path.read_bytes()))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_only_listed_modules_read_files_with_raw_primitives():
    offenders = {
        module: hits for module, hits in _modules().items() if hits and module not in ALLOWED
    }
    assert not offenders, (
        "project-zone files (agent workspaces, run outputs of sandboxed processes, peer "
        "datasets) must be read through pytest_e2ebench.untrusted.parse; a module that reads "
        "only harness-zone files goes into ALLOWED with its reason:\n"
        + "\n".join(
            f"  {m}: {', '.join(f'{w} (line {n})' for n, w in h)}" for m, h in offenders.items()
        )
    )


def test_the_allow_list_has_no_stale_entries():
    modules = _modules()
    stale = [m for m in ALLOWED if not modules.get(m)]
    assert not stale, f"no raw reads left in {stale}: remove them from ALLOWED"


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("import json\njson.loads(x)", True),
        ("from json import loads", True),
        ("import tomllib\ntomllib.load(fh)", True),
        ("p.read_text()", True),
        ("(root / name).read_bytes()", True),
        ("open(p)", True),
        ("open(p, 'rb')", True),
        ("open(p, 'w')", False),
        ("p.open()", True),
        ("p.open('a')", False),
        ("os.open(p, flags)", True),
        ("read_text(root, rel, 10)", False),  # the boundary's (and intake's) functions
        ("json.dumps(x)", False),
        ("peer.read_text(root, rel)", False),
    ],
)
def test_the_scan_sees_each_primitive(source, caught):
    assert bool(raw_reads(ast.parse(source))) is caught


# --- the parser itself, on hostile input -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("parameters.json", "[" * 200_000, "nested deeper than 64 levels"),
        ("parameters.json", '{"a": ' * 5000 + "1" + "}" * 5000, "nested deeper than 64 levels"),
        ("pyproject.toml", "a = " + "[" * 5000 + "]" * 5000, "nested deeper than 64 levels"),
        ("pyproject.toml", "a = " + "{b = " * 5000 + "1" + "}" * 5000, "nested deeper than 64"),
        ("pyproject.toml", "[" + ".".join(["k"] * 5000) + "]\n", "nested deeper than 64 levels"),
        ("pyproject.toml", "[project\n", "not valid TOML ("),
        ("parameters.json", '{"a": 1', "not valid JSON ("),
        ("parameters.json", '{"a": ' + "9" * 5000 + "}", "not valid JSON ("),
    ],
)
def test_hostile_content_is_one_error_naming_the_file(tmp_path, name, content, problem):
    (tmp_path / name).write_text(content)
    read = parse.read_toml if name.endswith(".toml") else parse.read_json
    with pytest.raises(AgentFileError) as info:
        read(tmp_path, name)
    assert info.value.where == name and problem in info.value.problem
    assert isinstance(info.value, ValueError)


def test_strings_comments_and_nesting_within_bounds_parse_as_usual(tmp_path):
    text = (
        'x = "[[[[" # [[[[ {{\ny = \'\'\'\n[[[[\'\'\'\nz = """[[\\"""[["""\n'
        "w = '[['\n[t]\nq = [[1], [2], {a = [3]}]\n"
    )
    assert parse.loads_toml(text, "t.toml") == {
        "x": "[[[[",
        "y": "[[[[",
        "z": '[["""[[',
        "w": "[[",
        "t": {"q": [[1], [2], {"a": [3]}]},
    }
    assert parse.loads_json('{"a": "[[[\\"{", "b": [[[]]]}', "j") == {"a": '[[["{', "b": [[[]]]}
    assert parse.json_depth("[" * 64 + "]" * 64) == 64
    assert parse.loads_json("[" * 64 + "]" * 64, "j") is not None


def test_links_size_encoding_and_absence(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"key": "s3cr3t"}')
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "parameters.json").symlink_to(secret)
    (repo / "via").symlink_to(tmp_path)
    (repo / "big.json").write_text("[" + "1," * 600_000 + "1]")
    (repo / "latin.txt").write_bytes(b"caf\xe9")
    os.mkfifo(repo / "fifo")
    cases = {
        "parameters.json": "is or lies behind a symbolic link",
        "via/secret.json": "is or lies behind a symbolic link",
        "big.json": "is larger than 1048576 bytes",
        "latin.txt": "not valid UTF-8 (byte 0xe9 at offset 3)",
        "fifo": "cannot be read",
        "../secret.json": "not a relative path inside the folder",
        "/etc/passwd": "not a relative path inside the folder",
    }
    for rel, problem in cases.items():
        with pytest.raises(AgentFileError) as info:
            parse.read_json(repo, rel)
        assert problem in str(info.value) and str(info.value).startswith(rel), rel
    assert parse.read_json(repo, "missing.json") is None
    assert parse.read_text(repo, "sub/nothing.txt") is None
    assert parse.read_text(repo, "latin.txt/below") is None
    (tmp_path / "alias").symlink_to(repo)  # the caller's own folder may be reached by a link
    assert parse.read_data(tmp_path / "alias", "latin.txt") == b"caf\xe9"


@pytest.mark.parametrize(
    "scan, unit, count",
    [
        ("toml_depth", '"""\\"""\\"', 100_000),
        ("json_depth", '"\\"', 300_000),
        ("toml_depth", "'", 500_000),
    ],
    ids=["toml-escaped-quotes", "json-escaped-quotes", "toml-unterminated"],
)
def test_the_scans_are_linear_on_adversarial_text(scan, unit, count):
    """Unterminated and escaped quotes cannot make the depth scans quadratic: eight times the
    text costs about eight times the CPU (a quadratic scan: 64 times). Measured as a ratio of
    this process's CPU time, best of three, so a loaded machine does not fail it (an absolute
    limit in seconds did, at load 30-60)."""
    import time

    def cpu(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            getattr(parse, scan)(text)
            best = min(best, time.process_time() - start)
        return max(best, 1e-4)

    ratio = cpu(unit * count) / cpu(unit * (count // 8))
    assert ratio < 24, f"{scan}: 8x the text took {ratio:.1f}x the CPU"


# --- the readers that used to raise RecursionError, each the agent's failure -------------


@pytest.fixture
def hostile(tmp_path) -> Path:
    """A project whose every agent-read file is 5,000 levels deep."""
    (tmp_path / "parameters.json").write_text("[" * 200_000)
    (tmp_path / "checklist.json").write_text("[" * 200_000)
    (tmp_path / "pyproject.toml").write_text("a = " + "[" * 5000 + "]" * 5000)
    return tmp_path


def test_each_reader_turns_deep_nesting_into_the_agents_failure(hostile):
    from pytest_e2ebench.environment.requirements import InstallRefused, build_system
    from pytest_e2ebench.methods.projecteval.cascade import read_checklist
    from pytest_e2ebench.methods.projecteval.params import read_answers
    from pytest_e2ebench.methods.projecteval.similarity import answer_checklist
    from pytest_e2ebench.methods.stages.setup import dependencies

    deep = "nested deeper than 64 levels"
    spec = load_task(GRADEBOOK).slots["projecteval"]
    answers = read_answers(hostile, spec)
    assert answers["values"] == {}
    assert set(answers["problems"].values()) == {f"parameters.json: {deep}"}
    assert read_checklist(hostile) == (None, None, f"checklist.json: {deep}")
    assert answer_checklist(hostile) is None
    with pytest.raises(InstallRefused, match=f"^pyproject.toml: {deep}$"):
        build_system(hostile)
    with pytest.raises(InstallRefused, match=f"^pyproject.toml: {deep}$"):
        dependencies(hostile)
    (hostile / "requirements.txt").symlink_to("/etc/passwd")
    with pytest.raises(InstallRefused, match="^requirements.txt: is or lies behind a symbolic"):
        dependencies(hostile)
