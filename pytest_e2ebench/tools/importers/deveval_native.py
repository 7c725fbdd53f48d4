"""Convert DevEval's C/C++ and JavaScript repositories into toolchain tasks (issue 43).

DevEval (Li et al., 2024, arXiv:2403.08604) grades these with the scripts of each
``repo_config.json``: ``unit_test_script`` (C/C++: ``make test -f makefile_test`` then gcov;
JavaScript: ``npm install; npm run coverage``, Jest) and ``acceptance_test_script`` (C/C++: a
shell script that builds the program with its makefile and compares its outputs with
``expected_outputs/``). A task here (``kind = "toolchain"``, :mod:`pytest_e2ebench.methods.
toolchain`) runs the same commands, adapted to Debian: the unit suite is googletest's (its
verdicts from gtest's XML report, coverage from lcov), the acceptance suite the script's exit
status; JavaScript's suite is Jest's (its ``--json`` report, its lcov coverage), with the
packages of the repository's lockfile installed by ``npm ci``.

The task folder: ``requirements.md`` (the PRD, the two requirements ``R1`` acceptance and ``R2``
unit tests, and the files the repository provides), ``design/`` (as for Python),
``materials/`` (``required_files``: given to the agent, as DevEval gives them), ``tests/`` (the
test sources, the test makefile and the required files, laid over the project when graded) and
``reference/``. Java and the other JavaScript repository are listed, with the reason, as not
imported (:data:`NOT_IMPORTED`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ...errors import AgentFileError
from ...isolation.intake import IntakeLimits
from ...untrusted.peer import beneath, copy_file, relative_path
from . import fresh_folder, write_task_toml
from .deveval_repo import (
    CONFIG,
    DOCUMENTS,
    REQUIREMENTS,
    NotConvertible,
    RepoReport,
    copy_noting,
    named,
    task_id,
    text_of,
    write_design,
    write_reference,
)

LANGUAGES = ("cpp", "javascript")
LCOV = "lcov --quiet --capture --directory . --output-file {lcov} --rc lcov_branch_coverage=1"
JEST = (
    "node node_modules/jest/bin/jest.js --ci --json --outputFile={report} --coverage "
    "--coverageReporters=lcov"
)
JEST_LCOV = "cp coverage/lcov.info {lcov}"  # where --coverageReporters=lcov writes it
JAVA = (
    "Java: not imported: its build and tests run through ./gradlew, which downloads Gradle "
    "{gradle} from services.gradle.org and its dependencies from Maven Central at test time "
    "(the harness reaches only PyPI, Debian and npm); Debian 12's gradle package is 4.4.1, "
    "older than the wrapper's Gradle and than JUnit 5's platform (Gradle 4.6)"
)
# why a JavaScript repository whose tests need more than npm is not imported (by folder name)
NOT_IMPORTED = {
    "listen-now-frontend": (
        "JavaScript: not imported: its unit tests run in Karma on PhantomJS, whose npm package "
        "(phantomjs-prebuilt) downloads the browser from outside the npm registry in its install "
        "script, and its scripts wget chromedriver from chromedriver.storage.googleapis.com"
    ),
}
_GTEST = re.compile(r"^\s*TEST(?:_F)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.MULTILINE)
# the test binary: TEST_TARGET = X or MAIN = X (DevEval's makefiles), else the first rule's target
_TARGET = re.compile(r"^\s*(?:TEST_TARGET|MAIN)\s*=\s*(\S+)|^([\w.-]+)\s*:(?!=)", re.MULTILINE)
_PROGRAM = re.compile(r"""\./([A-Za-z_][\w.-]*)(?=[\s"';)]|$)""", re.MULTILINE)
_JEST_NAME = re.compile(r"""^(\s*)(describe|it|test)\s*\(\s*(['"`])(.*?)\3""")


def not_imported(repo: Path, config: dict) -> str | None:
    """Why a repository of another language than Python is not imported (None: it is)."""
    language = config.get("language")
    if language == "java":
        wrapper = repo / "gradle" / "wrapper" / "gradle-wrapper.properties"
        text = text_of(repo, wrapper) if wrapper.is_file() else ""
        found = re.search(r"gradle-([\d.]+)-(?:bin|all)\.zip", text)
        return JAVA.format(gradle=found[1] if found else "(its wrapper's)")
    if language not in LANGUAGES:
        return f"language {language!r}: not a language the importer knows"
    return NOT_IMPORTED.get(repo.name)


def import_native(repo: Path, out: Path, created, config: dict) -> RepoReport:
    """Write the toolchain task of one C/C++ or JavaScript repository under ``out``."""
    report = RepoReport(repo=repo.name)
    root = None
    try:
        why = not_imported(repo, config)
        if why:
            raise NotConvertible(why)
        texts = {k: text_of(repo, named(repo, config, k, f"{k}.md")) for k in DOCUMENTS}
        suites = {
            "acceptance": named(repo, config, "acceptance_tests", "acceptance_tests"),
            "unit": named(repo, config, "unit_tests", "unit_tests"),
        }
        missing = [p.name for p in suites.values() if not p.is_dir()]
        if missing:
            raise NotConvertible(f"missing {', '.join(missing)}/")
        root = fresh_folder(out, task_id(repo))
        root.mkdir(parents=True)
        provided = _write_files(repo, root, config, suites, report)
        toolchain = _toolchain(repo, root, config, suites)
        _write_toml(repo, root, texts["PRD"], provided, toolchain, created)
        write_design(root, texts)
    except (NotConvertible, AgentFileError) as exc:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        report.error = str(exc)
        return report
    report.task = root.name
    report.notes.append("no setup stage: its setup is a shell script of apt/npm commands")
    return report


def _write_files(repo: Path, root: Path, config: dict, suites: dict, report) -> list[str]:
    """tests/ (the suites and required files), materials/ (the required files) and
    reference/ (the rest but documents, examples and configuration); the required files."""
    tests = root / "tests"
    for folder in suites.values():
        if not (tests / folder.relative_to(repo)).exists():
            copy_noting(repo, folder, tests / folder.relative_to(repo), report)
    provided = _required(repo, config, [tests, root / "materials"])
    documents = [named(repo, config, k, f"{k}.md") for k in DOCUMENTS]
    examples = named(repo, config, "usage_examples", "examples")
    dropped = {*documents, *suites.values(), examples, repo / CONFIG}
    dropped |= {repo / "setup_shell_script.sh", repo / "node_modules"}
    write_reference(repo, root, dropped, report)
    return provided


def _required(repo: Path, config: dict, into: list[Path]) -> list[str]:
    """Copy the files ``required_files`` names (folders: their files) into each of ``into``
    at their paths; their paths."""
    named_files = config.get("required_files", [])
    found: list[str] = []
    for entry in named_files if isinstance(named_files, list) else []:
        pattern = relative_path(entry, f"{CONFIG}: required_files").as_posix()
        for source in sorted(repo.glob(pattern)) if "*" in pattern else [repo / pattern]:
            rel = source.relative_to(repo).as_posix()
            if rel == CONFIG or rel.split("/")[0] == "node_modules":
                continue
            beneath(repo, rel)  # no link on the way (AgentFileError)
            files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else []
            for path in files if source.is_dir() else [source] if source.is_file() else []:
                inner = path.relative_to(repo).as_posix()
                for dest in into:
                    copy_file(repo, inner, dest / inner, IntakeLimits().max_file_bytes)
                found.append(inner)
    return sorted(set(found))


def _toolchain(repo: Path, root: Path, config: dict, suites: dict) -> dict:
    """The task's ``[toolchain]`` table, from DevEval's scripts and the test sources."""
    if config.get("language") == "javascript":
        return _jest_toolchain(repo, root, config, suites)
    tests = root / "tests"
    has_makefile = (tests / "makefile_test").is_file()
    makefile = text_of(tests, tests / "makefile_test") if has_makefile else ""
    target = _TARGET.search(makefile)
    if not makefile or target is None:
        raise NotConvertible("no makefile_test naming its test binary (TEST_TARGET, MAIN, a rule)")
    unit_dir = tests / suites["unit"].relative_to(repo)
    sources = [
        p for p in sorted(unit_dir.rglob("*.cpp")) if "wildcard" in makefile or p.stem in makefile
    ]
    ids = [f"unit::{s}.{n}" for p in sources for s, n in _GTEST.findall(text_of(tests, p))]
    if not ids:
        raise NotConvertible("no googletest TEST() in the unit tests makefile_test builds")
    unit_script = str(config.get("unit_test_script", ""))
    build = unit_script.split(";")[0].strip() or "make -f makefile_test"
    acceptance = _adapted(str(config.get("acceptance_test_script", "")))
    tools = ["g++", "make", "lcov", *(["python3"] if "python3" in acceptance else [])]
    unit = {"name": "unit", "build": build, "run": f"./{target[1] or target[2]}", "format": "gtest"}
    unit |= {"canary": sources[0].relative_to(tests).as_posix(), "coverage": LCOV}
    accept = {"name": "acceptance", "run": acceptance, "format": "exit"}
    accept["programs"] = _programs(repo, tests / suites["acceptance"].relative_to(repo))
    return {
        "tools": tools,
        "suites": [unit, accept],
        "requirements": {"R1": ["acceptance"], "R2": list(dict.fromkeys(ids))},
        "stages": _stages(repo, config, suites, {"unit": "unit", "acceptance": "acceptance"}),
    }


def _stages(repo: Path, config: dict, suites: dict, names: dict) -> dict:
    """``[toolchain.stages]``: DevEval's test-writing stages the repository has prompts for
    (its ``coarse_*_test_prompt``), each with its suite, folder and the prompts."""
    found = {}
    for kind, suite in names.items():
        prompts = config.get(f"coarse_{kind}_test_prompt")
        if not isinstance(prompts, dict) or not prompts:
            continue  # DevEval has no such stage for this repository
        text = "\n\n".join(str(v) for v in prompts.values())[:20_000]
        folder = suites[kind].relative_to(repo).as_posix()
        found[f"{kind}-tests"] = {"suite": suite, "folder": folder, "prompt": text}
    return found


def _programs(repo: Path, folder: Path) -> list[str]:
    """The programs the acceptance scripts run (``./NAME``) that the reference's makefile
    names: the suite fails when they were not built, whatever the script's exit status
    (graph-cpp's script exits 0 on an empty project)."""
    makefile = repo / "makefile" if (repo / "makefile").is_file() else repo / "Makefile"
    rules = text_of(repo, makefile) if makefile.is_file() else ""
    found = [
        name
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
        for name in _PROGRAM.findall(text_of(folder, path))
    ]
    return [n for n in dict.fromkeys(found) if re.search(rf"\b{re.escape(n)}\b", rules)]


def _adapted(script: str) -> str:
    """DevEval's acceptance script for Debian and read-only test files: ``chmod +x X; ./X``
    becomes ``bash X`` (the task's files are bound read-only), ``python`` is ``python3``."""
    script = re.sub(r"chmod \+x (\S+)\s*;\s*\./\1", r"bash \1", script)
    return re.sub(r"\bpython\b(?!3)", "python3", script)


def _jest_toolchain(repo: Path, root: Path, config: dict, suites: dict) -> dict:
    """A Jest repository's table: one suite (DevEval's unit and acceptance tests are the same
    folder), its tests named as Jest's ``fullName``; the lockfile installed by npm ci."""
    tests = root / "tests"
    if not (tests / "package-lock.json").is_file():
        raise NotConvertible("no package-lock.json among the required files: nothing pins npm")
    found = {tests / f.relative_to(repo) for f in suites.values()}
    specs = sorted({p for folder in found for p in folder.rglob("*.js")})
    ids = [f"jest::{name}" for p in specs for name in _jest_names(text_of(tests, p))]
    if not ids or not specs:
        raise NotConvertible("no Jest describe()/it() tests found")
    suite = {"name": "jest", "run": JEST, "format": "jest", "coverage": JEST_LCOV}
    suite["canary"] = specs[0].relative_to(tests).as_posix()
    unique = list(dict.fromkeys(ids))
    return {
        "tools": ["node"],
        "npm_lock": "package-lock.json",
        "suites": [suite],
        "requirements": {"R1": unique, "R2": unique},
        "stages": _stages(repo, config, suites, {"unit": "jest", "acceptance": "jest"}),
    }


def _jest_names(text: str) -> list[str]:
    """The ``fullName`` of each ``it``/``test`` of a spec file: the enclosing ``describe``
    names and its own, joined by spaces (read by indentation, as these files are written)."""
    names, stack = [], []
    for line in text.splitlines():
        found = _JEST_NAME.match(line)
        if found is None:
            continue
        indent = len(found[1])
        stack = [(i, n) for i, n in stack if i < indent]
        if found[2] == "describe":
            stack.append((indent, found[4]))
        else:
            names.append(" ".join([*(n for _, n in stack), found[4]]))
    return names


def _write_toml(repo: Path, root: Path, prd: str, provided, toolchain: dict, created) -> None:
    """requirements.md (the PRD, R1 and R2, the provided files) and task.toml."""
    title = next((line.lstrip("# ").strip() for line in prd.splitlines() if line.strip()), "")
    given = ""
    if provided:
        listed = "\n".join(f"- `{p}`" for p in provided[:200])
        given = (
            "\n\n## Files provided\n\nThese files are given in `materials/` and are in place, at "
            f"these paths, when the project is built and tested:\n\n{listed}\n"
        )
    (root / "requirements.md").write_text(prd.rstrip() + "\n" + REQUIREMENTS + given, "utf-8")
    meta = {
        "id": root.name,
        "title": (title or root.name)[:120],
        "kind": "toolchain",
        "language": "javascript" if "npm_lock" in toolchain else "cpp",
        "created": created,
        "source": f"DevEval {repo.name}",
        "tests": {"path": "tests", "timeout": 300},
        "toolchain": toolchain,
    }
    write_task_toml(root, meta)
