"""Convert ProjectEval's published JSON into task folders with three levels and parameters.

ProjectEval (Liu et al., 2025, arXiv:2503.07010) publishes ``data/project_eval_project.json``
(per project: ``nl_prompt``, ``nl_checklist``, ``skeleton``, ``testcode`` with each test's
parameter descriptions), ``data/project_eval_answer.json`` (the canonical solution's files),
``data/project_eval_parameter.json`` (the canonical parameter values, CPV) and
``data/material/<id>-*`` (input files of the console missions). ``e2ebench import projecteval
PATH OUT`` reads them from PATH (the repository or its ``data`` folder); nothing of it is
committed here.

Each project becomes ``OUT/projecteval-<id>/`` (see docs/projecteval.md): ``level1.md`` (the
prompt), ``checklist.json``, ``skeleton/``, ``reference/`` (the canonical answer with its
``parameters.json``), ``parameters.json`` (the PD) and ``tests/``: one requirement per
ProjectEval test, whose code is kept and called with the agent's parameter values. A
parameter is asked per test (``r<n>_<name>``), as ProjectEval asks per test case. A test that
needs what cannot run here (the clipboard, an image comparison, the interactive console
manager) is left out with the reason; a project without any usable test is not written.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime as dt
import json
import re
import shutil
import sys
from pathlib import Path, PurePosixPath

from ...environment.web import web_requirements
from ...errors import AgentFileError
from ...untrusted.parse import loads_python, read_json, said
from ...untrusted.peer import SAFE_ID, beneath, copy_file, safe_id
from . import add_arguments as shared_arguments
from . import write_report, write_task_toml

PROJECTS = "project_eval_project.json"
ANSWERS = "project_eval_answer.json"
PARAMETERS = "project_eval_parameter.json"
MATERIAL = "material"
MAX_DATASET_BYTES = 256 << 20  # the answers file is the largest (tens of MB)
THRESHOLD = 0.65  # ProjectEval's config.ini STRING_SIMILARITY_THRESHOLD
# Names a test may use that cannot be had in a sandboxed run, and why.
UNSUPPORTED = {
    "pyperclip": "uses the system clipboard (pyperclip), which a headless sandboxed run has not",
    "calculate_histogram_similarity": (
        "compares images with OpenCV histograms (utils.calculate_histogram_similarity); "
        "ProjectEval's own judge never reaches it: its Matplotlib manager rejects start_file"
    ),
}
# ProjectEval's interactive console manager: the name its test code drives the program by.
CONSOLE = "_subprocess"
# The parameter the harness adds for an interactive console project: ProjectEval's judge asks
# the model for the file to start (its start_file); here it is asked as any other parameter.
START_FILE = "start_file"
# What ProjectEval's run_judge.py installs for every website project and console project
# (``requirements[project_id]``), and the versions its requirements.txt pins (its judge's
# environment, which the projects it starts run in). Import name -> requirement.
PEER_INSTALLS = {
    "website": ("django", "matplotlib", "pyperclip", "qrcode", "markdown"),
    "console": ("openpyxl", "pandas"),
}
PEER_PINS = {
    "django": "django~=5.1.1",
    "markdown": "markdown~=3.7",
    "matplotlib": "matplotlib~=3.9.2",
    "pyperclip": "pyperclip~=1.9.0",
    "qrcode": "qrcode~=7.4.2",
    "openpyxl": "openpyxl~=3.1.5",
    "pandas": "pandas~=2.2.3",
}
# Import names whose distribution is named differently on PyPI.
DISTRIBUTIONS = {
    "PIL": "pillow",
    "yaml": "pyyaml",
    "sklearn": "scikit-learn",
    "cv2": "opencv-python",
}
# What the test code finds in its namespace, by project type (ProjectEval's judge namespaces).
WEB_IMPORTS = (
    "import calendar\nimport csv\nimport datetime as _dt\nimport os\nimport string\nimport time\n"
    "from datetime import datetime\n\nimport pytest\nfrom selenium.webdriver.common.by import By\n"
    "from selenium.webdriver.support import ui\n\nimport pe_utils as utils\n"
)
CONSOLE_IMPORTS = (
    "import calendar\nimport csv\nimport os\nimport runpy\nimport string\nimport time\n"
    "from datetime import datetime\n\nimport openpyxl\nimport pandas as pd\nimport pytest\n\n"
    "import pe_utils as utils\n\n"
    f"threshold = {THRESHOLD}  # ProjectEval's string-similarity threshold\n"
)


@dataclasses.dataclass
class ProjectReport:
    """What happened to one ProjectEval project."""

    project: str
    task: str | None = None
    error: str | None = None
    tests: int = 0
    parameters: int = 0
    skeleton_files: int = 0
    materials: int = 0
    # "<project>_<index> <page> / <function>: why", as ProjectEval's judge numbers its tests
    skipped_tests: list[str] = dataclasses.field(default_factory=list)
    numbering: dict[str, str] = dataclasses.field(default_factory=dict)  # R<n> -> <project>_<i>


class NotConvertible(Exception):
    """The project cannot become a task; the text says why."""


def data_dir(src: Path) -> Path | None:
    """The folder holding ProjectEval's JSON files: ``src`` or ``src/data``."""
    for candidate in (src, src / "data"):
        if (candidate / PROJECTS).is_file():
            return candidate
    return None


def _load(path: Path, kind: type):
    # Peer data: bounded, no link, depth-checked (untrusted.parse); None when missing.
    data = read_json(path.parent, path.name, max_bytes=MAX_DATASET_BYTES)
    if data is not None and not isinstance(data, kind):
        raise AgentFileError(path.name, f"expected a JSON {kind.__name__}")
    return data


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "test"


def _safe_path(raw: object) -> PurePosixPath | None:
    """A relative path inside the task (None for an absolute or escaping one)."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = PurePosixPath(raw.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return path


def _write_files(files: object, dest: Path, what: str) -> tuple[int, list[str]]:
    """Write ProjectEval's ``[{"path", "code"}]`` list under ``dest``; count and problems."""
    written, problems = 0, []
    if not isinstance(files, list):
        return 0, [f"{what} is not a list of files"]
    for entry in files:
        path = (
            _safe_path(entry.get("path") or entry.get("file")) if isinstance(entry, dict) else None
        )
        if path is None or not isinstance(entry.get("code"), str):
            problems.append(f"{what}: an entry without a usable path and code was left out")
            continue
        target = dest.joinpath(*path.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(entry["code"], encoding="utf-8")
        written += 1
    return written, problems


def _cpv(parameters: dict, page: str, function: str) -> dict[str, str]:
    found = ((parameters.get(page) or {}).get(function)) or []
    return {
        p["name"]: str(p["answer"])
        for p in found
        if isinstance(p, dict) and isinstance(p.get("name"), str) and "answer" in p
    }


def _convert_test(code: str, number: int, website: bool):
    """(definition, function name, argument names) of one test, or NotConvertible."""
    text = code.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    try:  # peer code: a tree too deep for ast.unparse below is refused, never a crash
        tree = loads_python(text, "its code")
    except AgentFileError as exc:
        raise NotConvertible(said(exc)) from None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(defs) != 1:
        raise NotConvertible(f"its code defines {len(defs)} functions, not one")
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
    }
    for name, why in UNSUPPORTED.items():
        if name in used:
            raise NotConvertible(why)
    func = defs[0]
    func.name = f"_pe_r{number}_{_slug(func.name)}"
    args = [a.arg for a in func.args.args]
    if website and (not args or args[0] != "driver"):
        raise NotConvertible("a website test must take the browser (driver) first")
    return ast.unparse(tree), func.name, args


def import_project(
    project: dict, answers: dict, cpvs: dict, material: Path | None, out: Path, created: dt.date
) -> ProjectReport:
    """Write one project's task folder (or say why not)."""
    pid = str(project.get("project_id", "?"))
    report = ProjectReport(project=pid[:80])
    try:
        # the id names files (material/<id>-*, the task folder): letters, digits, ._- only
        safe_id(project.get("project_id"), "project_id")
        _import(project, answers, cpvs, material, out, created, report)
    except (NotConvertible, AgentFileError) as exc:
        report.error = str(exc)
        report.task = None
        if SAFE_ID.fullmatch(pid):
            shutil.rmtree(out / f"projecteval-{_slug(pid)}", ignore_errors=True)
    return report


@dataclasses.dataclass
class Converted:
    """A project's tests as the harness runs them."""

    pd: dict[str, str] = dataclasses.field(default_factory=dict)  # parameter -> description
    cpv: dict[str, str] = dataclasses.field(default_factory=dict)  # parameter -> canonical
    requirements: list[str] = dataclasses.field(default_factory=list)
    blocks: list[str] = dataclasses.field(default_factory=list)
    console: bool = False  # a test drives the interactive program (_subprocess)


def _test_block(
    definition: str,
    name: str,
    args: list[str],
    keys: dict,
    number: int,
    fn: dict,
    website: bool,
    console: bool,
) -> str:
    """The pytest test calling ProjectEval's test function ``name`` with the agent's values."""
    call = ", ".join(
        "driver" if website and a == "driver" else f"value(pv, {keys[a]!r})" for a in args
    )
    fixture = "driver, pv, value" if website else "pv, value, mission"
    if console:
        fixture += ", console"
    # the test code reads the running program as the global _subprocess, as in ProjectEval
    bind = "    global _subprocess\n    _subprocess = console\n" if console else ""
    return (
        f'{definition}\n\n\n@pytest.mark.requirement("R{number}")\n'
        f"def test_r{number}_{_slug(str(fn.get('function')))}({fixture}):\n{bind}"
        f"    result = {name}({call})\n"
        "    # ProjectEval's judge: a test passes when it returns nothing\n"
        '    assert result is None, f"the test returned {result!r}"\n'
    )


def _convert_tests(project: dict, cpvs: dict, website: bool, report: ProjectReport) -> Converted:
    """Every test of ``project`` that can run here; the others go to the report with why.

    A test is named as ProjectEval's judge logs it, ``<project>_<index>`` (its index counts
    every test of the project, in order), so both runners' verdicts can be paired.
    """
    pid, done = report.project, Converted()
    descriptions = {
        (page.get("page"), fn.get("function")): fn.get("description", "")
        for page in project.get("nl_checklist") or []
        if isinstance(page, dict)
        for fn in page.get("function") or []
        if isinstance(fn, dict)
    }
    index = 0
    for page in project.get("testcode") or []:
        for fn in (page.get("function") or []) if isinstance(page, dict) else []:
            index += 1
            peer_id = f"{pid}_{index}"
            label = f"{page.get('page')} / {fn.get('function')}"
            number = len(done.blocks) + 1
            try:
                definition, name, args = _convert_test(str(fn.get("test", "")), number, website)
            except NotConvertible as exc:
                report.skipped_tests.append(f"{peer_id} {label}: {exc}")
                continue
            described = {
                p["name"]: p.get("description", "")
                for p in fn.get("parameter") or []
                if isinstance(p, dict) and isinstance(p.get("name"), str)
            }
            canonical = _cpv(cpvs, page.get("page"), fn.get("function"))
            wanted = [a for a in args if not (website and a == "driver")]
            missing = [a for a in wanted if a not in described or a not in canonical]
            if missing:
                report.skipped_tests.append(
                    f"{peer_id} {label}: argument(s) {', '.join(missing)} have no parameter "
                    "description or canonical value"
                )
                continue
            keys = {a: f"r{number}_{a}" for a in wanted}
            for arg, key in keys.items():
                done.pd[key] = f"{described[arg] or arg} (for the test of '{label}')"
                done.cpv[key] = canonical[arg]
            console = CONSOLE in definition
            done.console |= console
            about = descriptions.get((page.get("page"), fn.get("function"))) or ""
            done.requirements.append(f"### R{number}: {label}\n\n{about}".rstrip())
            done.blocks.append(
                _test_block(definition, name, args, keys, number, fn, website, console)
            )
            report.numbering[f"R{number}"] = peer_id
    return done


def canonical_imports(answer: list) -> set[str]:
    """The top-level modules the canonical answer's Python files import that are neither
    standard library nor its own (a file or folder of the answer)."""
    found: set[str] = set()
    own: set[str] = set()
    for entry in answer:
        path = (
            _safe_path(entry.get("path") or entry.get("file")) if isinstance(entry, dict) else None
        )
        if path is None:
            continue
        own.update(part.removesuffix(".py") for part in path.parts)
        if path.suffix != ".py" or not isinstance(entry.get("code"), str):
            continue
        try:
            tree = loads_python(entry["code"], str(path))
        except AgentFileError:
            continue  # the answer's problem; its run will show it
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in own}


def test_requirements(kind: str, answer: list) -> list[str]:
    """``[tests] requires``: what ProjectEval's judge installs for this kind of project and
    what the canonical code imports, at the versions ProjectEval's requirements.txt pins."""
    website = kind == "website"
    names = set(PEER_INSTALLS["website" if website else "console"]) | canonical_imports(answer)
    if not website:
        # the test code's namespace (pd, openpyxl) and utils.string_similarity
        names |= {"openpyxl", "pandas", "rapidfuzz"}
    requires = sorted(PEER_PINS.get(n, DISTRIBUTIONS.get(n, n)) for n in names)
    if website:
        requires += [r for r in web_requirements() if r.startswith("selenium")]
    return requires


def start_file(answer: list) -> str | None:
    """The canonical answer's program to start: its only Python file, or the one file with a
    ``__main__`` guard (ProjectEval asks the model; its canonical answers have one file)."""
    files = [
        (str(path), entry["code"])
        for entry in answer
        if isinstance(entry, dict) and isinstance(entry.get("code"), str)
        for path in [_safe_path(entry.get("path") or entry.get("file"))]
        if path is not None and path.suffix == ".py"
    ]
    mains = [p for p, code in files if "__main__" in code]
    if len(files) == 1:
        return files[0][0]
    return mains[0] if len(mains) == 1 else None


def _import(project, answers, cpvs, material, out, created, report) -> None:
    pid = report.project
    kind = project.get("project_type")
    if kind not in ("website", "console", "batch"):
        raise NotConvertible(f"project type {kind!r} is not supported (website, console, batch)")
    website = kind == "website"
    stack = " ".join(
        str(s.get("technical_stack", "")) for s in project.get("framework_technical_stack") or []
    )
    if website and "django" not in stack.lower():
        raise NotConvertible(f"a website on {stack or 'no stack'}: only Django sites are served")
    prompt = project.get("nl_prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise NotConvertible("no nl_prompt (the level-1 prompt)")
    answer = answers.get(pid)
    if not isinstance(answer, list) or not answer:
        raise NotConvertible(f"no canonical answer in {ANSWERS}")
    checklist = project.get("nl_checklist")
    if not isinstance(checklist, list) or not checklist:
        raise NotConvertible("no nl_checklist (the level-2 checklist)")
    task = f"projecteval-{_slug(pid)}"
    root = out / task
    if root.exists():
        shutil.rmtree(root)
    (root / "tests").mkdir(parents=True)
    done = _convert_tests(project, cpvs, website, report)
    if not done.blocks:
        raise NotConvertible(
            "no usable test ("
            + ("; ".join(report.skipped_tests[:3]) or "the project has no testcode")
            + ")"
        )
    if done.console:
        program = start_file(answer)
        if program is None:
            raise NotConvertible(
                "its console tests need the program to start; the canonical "
                "answer has no single Python file with a __main__ guard"
            )
        done.pd[START_FILE] = "the Python file to start for the interactive console tests"
        done.cpv[START_FILE] = program
    report.tests = len(done.blocks)
    report.parameters = len(done.pd)
    _write_task(root, project, answer, done, report, stack, created, material)
    report.task = task


def _write_task(root, project, answer, done: Converted, report, stack, created, material):
    """The task folder's files (the tests converted already)."""
    pid, kind = report.project, project.get("project_type")
    website = kind == "website"
    prompt = project["nl_prompt"]
    written, problems = _write_files(answer, root / "reference", "the canonical answer")
    if not written:
        raise NotConvertible("; ".join(problems) or "the canonical answer has no files")
    (root / "reference" / "parameters.json").write_text(
        json.dumps(done.cpv, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    report.skeleton_files, skeleton_problems = _write_files(
        project.get("skeleton"), root / "skeleton", "the skeleton"
    )
    report.skipped_tests += skeleton_problems
    for name, text in (
        ("level1.md", prompt.strip() + "\n"),
        ("checklist.json", json.dumps(project["nl_checklist"], indent=1, ensure_ascii=False)),
        ("parameters.json", json.dumps(done.pd, indent=1, ensure_ascii=False) + "\n"),
        (
            "requirements.md",
            f"# ProjectEval project {pid}\n\n{prompt.strip()}\n\nTechnical stack: "
            f"{stack or 'any'} (Python).\n\n## Requirements (one per ProjectEval test)\n\n"
            + "\n\n".join(done.requirements)
            + "\n",
        ),
    ):
        (root / name).write_text(text, encoding="utf-8")
    imports = WEB_IMPORTS if website else CONSOLE_IMPORTS
    module = f'"""ProjectEval project {pid}: its tests, called with the agent\'s parameters."""\n\n'
    if done.console:
        imports += "\n_subprocess = None  # the running program (the console fixture sets it)\n"
    (root / "tests" / "test_projecteval.py").write_text(
        module + imports + "\n\n" + "\n\n".join(done.blocks), encoding="utf-8"
    )
    (root / "tests" / "pe_utils.py").write_text(UTILS, encoding="utf-8")
    (root / "tests" / "conftest.py").write_text(
        WEB_CONFTEST if website else CONSOLE_CONFTEST, encoding="utf-8"
    )
    if not website and material is not None and material.is_dir():
        folder = root / "tests" / "materials"
        for path in sorted(material.glob(f"{pid}-*")):  # pid checked by safe_id
            if copy_file(material, path.name, folder / path.name, MAX_DATASET_BYTES):
                report.materials += 1
    write_task_toml(root, _task_meta(root.name, project, answer, report, created))


def _task_meta(task: str, project: dict, answer: list, report, created) -> dict:
    """task.toml of an imported project."""
    kind = project.get("project_type")
    website = kind == "website"
    return {
        "id": task,
        "title": _title(project["nl_prompt"]),
        "kind": "cli",
        "language": "python",
        "created": created,
        "source": f"ProjectEval project {report.project} ({kind}), imported by e2ebench import "
        "projecteval",
        "tests": {
            "path": "tests",
            # a website's first test also waits for the site's migrations and start
            "timeout": 240 if website else 60,
            "requires": test_requirements(kind, answer),
            **({"browser": True} if website else {}),
        },
        "projecteval": {
            "level1": "level1.md",
            "checklist": "checklist.json",
            "parameters": "parameters.json",
            **({"skeleton": "skeleton"} if report.skeleton_files else {}),
        },
    }


def _title(prompt: str) -> str:
    first = prompt.strip().splitlines()[0]
    return first if len(first) <= 100 else first[:97] + "..."


def import_all(src: Path, out: Path, created: dt.date) -> list[ProjectReport]:
    """Import every project of the dataset at ``src`` into ``out`` (and import-report.json)."""
    data = data_dir(src)
    if data is None:
        raise FileNotFoundError(f"no {PROJECTS} in {src} or {src / 'data'}")
    projects = _load(data / PROJECTS, list) or []
    answers = _load(data / ANSWERS, dict) or {}
    cpvs = _load(data / PARAMETERS, dict) or {}
    material = beneath(data, MATERIAL)
    out.mkdir(parents=True, exist_ok=True)
    reports = []
    for project in projects:
        if not isinstance(project, dict):
            reports.append(ProjectReport(project="?", error="not a JSON object"))
            continue
        pid = str(project.get("project_id", "?"))
        reports.append(
            import_project(
                project,
                answers,
                cpvs.get(pid) or {},
                material if material.is_dir() else None,
                out,
                created,
            )
        )
    write_report(out, reports)
    return reports


def not_imported(reports: list[ProjectReport]) -> list[str]:
    """One line per project or test left out, with why (tests as ``<project>_<index>``)."""
    lines = [f"project {r.project}: {r.error}" for r in reports if r.error]
    return lines + [s for r in reports for s in r.skipped_tests]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench import projecteval``."""
    shared_arguments(
        parser,
        "ProjectEval's repository (or its data folder) holding project_eval_project.json",
        dt.date(2025, 3, 10),  # ProjectEval's first public release (arXiv:2503.07010)
        "release date written into each task.toml (default 2025-03-10)",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print per project what was imported and skipped; 1 when nothing was."""
    try:
        reports = import_all(args.src, args.out, args.created)
    except (FileNotFoundError, ValueError) as exc:
        print(f"e2ebench: {exc}", file=sys.stderr)
        return 1
    for r in reports:
        if not r.error:
            print(
                f"{r.task}: imported {r.tests} tests, {r.parameters} parameters, "
                f"{r.skeleton_files} skeleton files, {r.materials} material files"
            )
    left_out = not_imported(reports)
    print(f"not imported ({len(left_out)}):" if left_out else "not imported: nothing")
    for line in left_out:
        print(f"  {line}")
    done = sum(1 for r in reports if not r.error)
    tests = sum(r.tests for r in reports)
    print(
        f"{done} of {len(reports)} projects imported, {tests} tests; "
        f"report: {args.out / 'import-report.json'}"
    )
    return 0 if done else 1


UTILS = '''"""Helpers ProjectEval's test code calls as ``utils.*`` (written for pytest-e2ebench)."""

import contextlib
import io
import os
import runpy
import subprocess
import time

SETTLE = 0.3  # seconds without new output: the program waits for its next input
READ_BOUND = 10.0  # seconds to wait for output at all


class ConsoleProgram:
    """ProjectEval's console manager, deterministic: the program runs with its input from a
    pipe and its output appended to ``output.txt`` in its folder, as in ProjectEval; a read
    waits for the first output and then until the output has not grown for SETTLE seconds
    (ProjectEval reads after a fixed 0.1 s, so a slow machine gets less of the answer)."""

    def __init__(self, python, program, folder):
        self.path = os.path.join(folder, "output.txt")
        self.out = open(self.path, "a", encoding="utf-8")
        self.tell = os.path.getsize(self.path)
        self.process = subprocess.Popen(
            [python, program], cwd=folder, stdin=subprocess.PIPE, stdout=self.out,
            stderr=subprocess.DEVNULL, text=True,
        )

    def _settle(self):
        deadline = time.monotonic() + READ_BOUND
        size = lambda: os.path.getsize(self.path)  # noqa: E731
        while size() <= self.tell and self.process.poll() is None:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        last, quiet = size(), time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - quiet < SETTLE:
            time.sleep(0.02)
            if size() != last:
                last, quiet = size(), time.monotonic()

    def read_output(self):
        """The lines printed since the last read, up to a prompt line (``>>>`` or ``$ ``)."""
        self._settle()
        lines = []
        with open(self.path, encoding="utf-8") as f:
            f.seek(self.tell)
            while True:
                line = f.readline()
                if not line:
                    break
                lines.append(line)
                if ">>>" in line or "$ " in line:
                    break
            self.tell = f.tell()
        return lines

    def send_command(self, command):
        """Type ``command`` and a newline; what the program printed in answer."""
        self.process.stdin.write(command + "\\n")
        self.process.stdin.flush()
        return "".join(self.read_output())

    def poll(self):
        """The exit status, waiting up to 5 s for an exit under way (None: still running)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        return self.process.poll()

    def stop(self):
        """Kill the program (by its own pid) and close its output."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(OSError):  # the program may have closed its end
            self.process.stdin.close()
        self.out.close()


def rename_file(src, dst):
    """Rename ``src`` to ``dst`` (an error propagates, as in ProjectEval)."""
    os.rename(src, dst)


def run_entry(path):
    """Run the program at ``path`` as __main__; its (stdout, stderr), or the error twice."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(path, run_name="__main__")
    except BaseException as exc:  # noqa: BLE001 - a program's error is its output here
        return str(exc), str(exc)
    return out.getvalue(), err.getvalue()


def string_similarity(first, second):
    """1 - Levenshtein distance / the longer length (1.0 for two empty strings)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.normalized_similarity(str(first), str(second))


def selenium_find_minimum_ancestor(driver, source_tag, check_by, check_text):
    """The nearest ancestor (up to 5 levels) of ``source_tag`` holding the element sought."""
    from selenium.webdriver.common.by import By

    tag = source_tag
    for _ in range(5):
        try:
            tag.find_element(check_by, check_text)
            return tag
        except Exception:  # noqa: BLE001 - not here: one level up
            tag = tag.find_element(By.XPATH, "./ancestor::*[1]")
    raise AssertionError("No minimum ancestor found")
'''
CONSOLE_CONFTEST = '''"""The tests run in a copy of the project, the mission's materials beside it.

``pv`` and ``project_dir`` come from the harness's e2ebench_pv plugin (docs/projecteval.md).
"""

import shutil
from pathlib import Path

import pytest

MATERIALS = Path(__file__).parent / "materials"


@pytest.fixture(scope="session")
def _mission_dir(tmp_path_factory, project_dir):
    """One working copy for the whole run: ProjectEval runs a project's tests in order in one
    folder (a later test reads what an earlier one made the program write)."""
    work = tmp_path_factory.mktemp("mission") / "project"
    shutil.copytree(project_dir, work, ignore=shutil.ignore_patterns("__pycache__"))
    if MATERIALS.is_dir():
        for path in MATERIALS.iterdir():
            shutil.copy2(path, work / path.name)
    return work


@pytest.fixture
def mission(_mission_dir, monkeypatch):
    """The working folder (project and materials), made the current directory."""
    work = _mission_dir
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(work))
    return work


@pytest.fixture
def value():
    """``value(pv, name)``: the agent's value of a parameter (fails the test if unusable)."""
    return lambda pv, name: pv(name)


@pytest.fixture(scope="session")
def _console(_mission_dir, pv_session):
    """The interactive program (the start_file parameter), started once in the working folder
    before the first test that drives it, as ProjectEval starts it before the project's tests."""
    import sys

    import pe_utils

    program = pe_utils.ConsoleProgram(sys.executable, pv_session("start_file"), _mission_dir)
    yield program
    program.stop()


@pytest.fixture
def console(_console, mission):
    """The running program, for a test that drives it (ProjectEval's ``_subprocess``)."""
    return _console
'''
WEB_CONFTEST = '''"""The agent's Django site on a loopback port of the run, and a headless Chromium.

``pv`` and ``project_dir`` come from the harness's e2ebench_pv plugin (docs/projecteval.md).
A parameter value that is a URL on localhost (ProjectEval's answers use port 8000) is moved to
the port this run serves the site on.
"""

import os
import re
import shutil
import site as _site
import socket
import subprocess
import sys
import time

import pytest

# ProjectEval's standard superuser, which its login tests use (where django.contrib.auth is)
ADMIN = (
    "from django.contrib.auth.models import User\\n"
    "User.objects.filter(username='Admin').exists() or "
    "User.objects.create_superuser('Admin', 'admin@example.com', 'abc#12345')"
)
_LOCAL = re.compile(r"^https?://(localhost|127\\.0\\.0\\.1)(:\\d+)?", re.IGNORECASE)
READY = 120.0  # a loaded machine: importing a site (matplotlib's first font scan) takes long


@pytest.fixture(scope="session")
def live_site(tmp_path_factory, project_dir):
    """Migrate the site's database and serve it with runserver on a free loopback port."""
    work = tmp_path_factory.mktemp("site") / "project"
    shutil.copytree(project_dir, work, ignore=shutil.ignore_patterns("__pycache__"))
    if not (work / "manage.py").is_file():
        pytest.fail("the project has no manage.py at its root", pytrace=False)
    # -S: without the environment's .pth files, the project is imported from this writable
    # copy (where its database goes), not from the read-only project folder it is installed
    # from; the installed libraries (Django) come from site-packages on PYTHONPATH.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), *_site.getsitepackages()]),
           # a site that plots: no display, and matplotlib's font cache in the run's own folder
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(work.parent / "matplotlib")}
    python = [sys.executable, "-S"]
    for step in (["makemigrations", "--noinput"], ["migrate", "--noinput"], ["shell", "-c", ADMIN]):
        subprocess.run([*python, "manage.py", *step], cwd=work, env=env,
                       capture_output=True, timeout=120)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = open(work.parent / "server.log", "wb")
    proc = subprocess.Popen(
        [*python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + READY
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail(f"the site did not serve on port {port}: "
                    f"{(work.parent / 'server.log').read_text(errors='replace')[-400:]}",
                    pytrace=False)
    yield f"http://127.0.0.1:{port}"
    proc.kill()
    proc.wait()
    log.close()


# Loaded into every document before its own scripts: counts the work a page has under way
# that will change it later without any change now (a fetch or XMLHttpRequest not answered
# yet, a timer of at most 2 s set outside a timer: a slow view's answer, a delayed message).
# A timer set from a timer's callback is not counted, so a page's clock does not keep it busy.
PENDING = """
(() => {
  let busy = 0, inTimer = false;
  const timers = new Set(), setT = window.setTimeout, clearT = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...args) {
    const track = !inTimer && typeof fn === "function" && (Number(delay) || 0) <= 2000;
    const id = setT.call(window, function () {
      if (timers.delete(id)) busy--;
      inTimer = true;
      try { return fn.apply(this, args); } finally { inTimer = false; }
    }, delay);
    if (track) { timers.add(id); busy++; }
    return id;
  };
  window.clearTimeout = function (id) {
    if (timers.delete(id)) busy--;
    return clearT.call(window, id);
  };
  const fetchOf = window.fetch;
  if (fetchOf) {
    window.fetch = function (...args) {
      busy++;
      return fetchOf.apply(this, args).finally(() => { busy--; });
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    busy++;
    this.addEventListener("loadend", () => { busy--; }, {once: true});
    return send.apply(this, args);
  };
  Object.defineProperty(window, "__e2ebenchBusy", {value: () => busy});
})();
"""
# Run in the page after every action (a click, typing, a visit): resolves once the document is
# loaded, has no work under way (PENDING) and nothing in it has changed for `quiet` ms since,
# so a test reads the page its action led to, whatever the machine's speed (ProjectEval reads
# right after clicking).
SETTLE = """
const done = arguments[arguments.length - 1];
const quiet = arguments[0];
let last = performance.now();
const seen = new MutationObserver(() => { last = performance.now(); });
seen.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
const check = () => {
  if (window.__e2ebenchBusy && window.__e2ebenchBusy() > 0) { last = performance.now(); }
  if (document.readyState === "complete" && performance.now() - last >= quiet) {
    seen.disconnect();
    done(true);
  } else {
    setTimeout(check, 25);
  }
};
check();
"""
QUIET_MS = 200
SETTLE_TRIES = 3  # a navigation during the wait ends the script: wait in the new page


def settle(driver):
    """Wait until the page is loaded and has stopped changing (bounded by the script timeout)."""
    from selenium.common.exceptions import TimeoutException, WebDriverException

    for _ in range(SETTLE_TRIES):
        try:
            driver.execute_async_script(SETTLE, QUIET_MS)
            return
        except TimeoutException:
            return  # a page that never settles (an animation) is read after the bound
        except WebDriverException:
            time.sleep(0.1)


def _settling_listener():
    from selenium.webdriver.support.abstract_event_listener import AbstractEventListener

    class Settling(AbstractEventListener):
        """After each action a test takes, wait for the page to settle."""

        def after_click(self, element, driver):
            settle(driver)

        def after_change_value_of(self, element, driver):
            settle(driver)

        def after_navigate_to(self, url, driver):
            settle(driver)

        def after_navigate_back(self, driver):
            settle(driver)

        def after_navigate_forward(self, driver):
            settle(driver)

    return Settling()


@pytest.fixture(scope="session")
def _browser(tmp_path_factory):
    """The harness's headless Chromium (e2ebench_web.Browser: the same flags, window size,
    seeded Math.random and clean profile every run, offline, killed by pid at the end), whose
    actions wait for the page to settle."""
    from e2ebench_web import Browser
    from selenium.webdriver.support.event_firing_webdriver import EventFiringWebDriver

    browser = Browser(tmp_path_factory.mktemp("browser"), offline=True)
    driver = browser.start()
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PENDING})
    driver.set_page_load_timeout(10)  # ProjectEval: 3 s; a sandboxed first load needs more
    driver.set_script_timeout(5)  # the longest a page may keep changing after an action
    yield EventFiringWebDriver(driver, _settling_listener())
    browser.quit()


@pytest.fixture
def driver(_browser, live_site):
    """The browser, with the site up: one session for all tests, in order, as in ProjectEval
    (a test may rely on an earlier one's login or data)."""
    return _browser


@pytest.fixture
def value(live_site):
    """``value(pv, name)``: the agent's value, a localhost URL moved to the served port."""
    return lambda pv, name: _LOCAL.sub(live_site, pv(name), count=1)
'''
