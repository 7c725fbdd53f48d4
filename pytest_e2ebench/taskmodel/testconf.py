"""How a task's reference tests run: the optional fields of ``[tests]`` real suites need.

``task.toml`` may say, besides ``path`` and ``timeout`` (see docs/writing-a-task.md):

* ``cwd = "project"``: the run starts in a writable copy of the project's folder (the
  repository root, as the reference's own suite sees it) instead of the folder holding the
  tests (``"tests"``, the default);
* ``data = "data"``: a folder (of the task; of the reference for a PyPI reference) whose
  contents are copied into the run's working directory;
* ``[tests.env]``: environment variables of the test run;
* ``plugins = ["pytest-asyncio==0.23.8"]``: pytest plugins the suite needs, installed into the
  run's environment with the test tools and loaded (``-p`` their entry point);
* ``[tests.ini]``: pytest settings (``markers``, ``asyncio_mode``, ...), over those the
  reference project defines in its pytest.ini, pyproject.toml, tox.ini or setup.cfg (read as
  data, never executed);
* ``[tests.exclude]``: node-id globs of tests that depend on the environment (a network, a
  GPU), each with the reason: not run and not graded;
* ``python = "3.12"``: the interpreter of the run's environment, when uv finds it installed;
* ``rootdir_on_path = true``: the packages and modules at the project's root import as they do
  when the suite runs from the root (``from src.pkg import x``), from the run's repository;
* ``rootdir_writable = true`` (with ``cwd = "project"``): the tests sit, read-only, in
  ``tests/`` of the run's writable copy of the project, so paths they build from their own
  ``__file__`` (``dirname(__file__)/../out.txt``) land in that copy;
* ``inprocess = "why"``: the suite is graded in one process, not split (docs/sandbox.md), for
  the reason given: the import gate writes it where the reference passes more tests so.

Every problem names the file, the field and the fix.
"""

from __future__ import annotations

import configparser
import dataclasses
import fnmatch
import re
import shutil
import tomllib
from pathlib import Path

from ..environment.finder import ROOTED_ENV
from ..environment.requirements import InstallRefused, vet
from ..errors import InfrastructureError
from ..isolation.intake import IntakeLimits, copy_tree

CWD_CHOICES = ("tests", "project")
# The pytest settings a task (or its reference's own configuration) may give the harness's
# test run; ``addopts`` and friends are not honoured (they could load anything).
INI_KEYS = {
    "markers": "lines",
    "filterwarnings": "lines",
    "usefixtures": "lines",
    "python_files": "words",
    "python_classes": "words",
    "python_functions": "words",
    "xfail_strict": "value",
    "asyncio_mode": "value",
    "asyncio_default_fixture_loop_scope": "value",
    "asyncio_default_test_loop_scope": "value",
    "empty_parameter_set_mark": "value",
}
# Variables the harness sets itself or that change what the interpreter loads.
_RESERVED_ENV = re.compile(
    r"^(PATH|HOME|TMPDIR|VIRTUAL_ENV|LD_.*|PYTHON.*|PYTEST_.*|COV_CORE_.*|COVERAGE_.*|E2EBENCH_.*)$"
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PYTHON = re.compile(r"^3\.\d{1,2}(\.\d{1,2})?$")
_BUILTIN_WARNING = re.compile(r"^(|[A-Z][A-Za-z]*(Warning|Error|Exception))$")
REFERENCE_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


@dataclasses.dataclass(frozen=True)
class TestSettings:
    """The optional ``[tests]`` fields of a task, validated."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    cwd: str = "tests"
    data: Path | None = None  # the folder whose contents go into the working directory
    env: tuple[tuple[str, str], ...] = ()
    plugins: tuple[str, ...] = ()  # requirement strings, installed with the test tools
    ini: tuple[tuple[str, tuple[str, ...]], ...] = ()  # pytest settings, one value per line
    ini_source: str = ""  # where the reference's own settings came from
    exclude: tuple[tuple[str, str], ...] = ()  # (node-id glob, reason)
    python: str | None = None
    rootdir_on_path: bool = False  # the project's root-level names importable (finder.py)
    rootdir_writable: bool = False  # the tests inside the writable copy of the project
    inprocess: str = ""  # why the suite is graded in one process ("": split where it can be)

    def excluded(self, nodeid: str) -> str | None:
        """The reason ``nodeid`` is excluded, or None."""
        for pattern, reason in self.exclude:
            if fnmatch.fnmatchcase(nodeid, pattern) or fnmatch.fnmatchcase(nodeid, pattern + "::*"):
                return reason
        return None

    def excluded_any(self, tests) -> bool:
        """Whether any of ``tests`` (static tests) is excluded."""
        return any(self.excluded(t.nodeid) for t in tests)

    def ini_text(self, base: str) -> str:
        """The harness's ini file ``base`` (``[pytest]`` and its markers) with these settings."""
        settings = dict(self.ini)
        markers = [m for m in settings.pop("markers", ()) if not m.startswith("requirement")]
        lines = base.rstrip("\n").splitlines() + [f"    {m}" for m in markers]
        for key, values in settings.items():
            if INI_KEYS[key] == "lines":
                lines += [f"{key} =", *(f"    {v}" for v in values)]
            else:
                lines.append(f"{key} = {' '.join(values)}")
        return "\n".join(lines) + "\n"

    def key(self) -> tuple:
        """What of these settings changes a test run (part of its cache key)."""
        layout = (self.rootdir_on_path, self.rootdir_writable)
        return (
            self.cwd,
            str(self.data or ""),
            self.env,
            self.plugins,
            self.ini,
            self.exclude,
            layout,
            *((self.inprocess,) if self.inprocess else ()),  # (keys of split runs unchanged)
        )


def _lines(value, kind: str) -> tuple[str, ...] | None:
    """An ini value (a TOML list or string, or an ini file's text) as clean lines."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    if isinstance(value, str):
        items = value.splitlines() if kind == "lines" else value.split()
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = value
    else:
        return None
    out = tuple(" ".join(v.split()) for v in items if v.strip())
    return out if kind != "value" or len(out) == 1 else None


def _clean_ini(raw: dict, where: str, problems: list[str] | None) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        if key not in INI_KEYS:
            if problems is not None:
                problems.append(
                    f"{where}: field 'tests.ini.{key}' is not a setting the harness honours; "
                    f"use one of {', '.join(INI_KEYS)} (declare plugins in tests.plugins)"
                )
            continue
        lines = _lines(value, INI_KEYS[key])
        if lines is None:
            if problems is not None:
                problems.append(
                    f"{where}: field 'tests.ini.{key}' = {value!r} must be "
                    + ("one string" if INI_KEYS[key] == "value" else "a string or a list of them")
                )
            continue
        if key == "filterwarnings":
            # a category of the reference's own package would not exist in another project
            lines = tuple(
                ln for ln in lines if _BUILTIN_WARNING.match((ln.split(":") + ["", ""])[2].strip())
            )
        out[key] = lines
    return out


def reference_ini(reference: Path | None) -> tuple[dict[str, tuple[str, ...]], str]:
    """The honoured pytest settings of the reference's own configuration, and its file name.

    Read as data, in pytest's order of precedence; the first file with a pytest section wins.
    """
    if reference is None:
        return {}, ""
    for name in REFERENCE_CONFIGS:
        path = reference / name
        if not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            if name == "pyproject.toml":
                section = tomllib.loads(text).get("tool", {}).get("pytest", {})
                section = section.get("ini_options") if isinstance(section, dict) else None
            else:
                parser = configparser.ConfigParser(interpolation=None)
                parser.read_string(text)
                wanted = "tool:pytest" if name == "setup.cfg" else "pytest"
                section = dict(parser[wanted]) if parser.has_section(wanted) else None
        except (OSError, UnicodeDecodeError, ValueError, configparser.Error):
            continue
        if isinstance(section, dict):
            return _clean_ini(section, name, None), name
    return {}, ""


def parse_settings(
    test_conf: dict, root: Path, reference: Path | None, pinned: bool, where: str, problems: list
) -> TestSettings:
    """Validate the optional fields of ``[tests]``; problems are appended to ``problems``."""
    cwd = test_conf.get("cwd", "tests")
    if cwd not in CWD_CHOICES:
        problems.append(
            f"{where}: field 'tests.cwd' = {cwd!r} is not a working directory the harness "
            f'knows; write cwd = "project" (a copy of the project\'s folder, the repository '
            'root the reference\'s suite expects) or cwd = "tests" (the default)'
        )
        cwd = "tests"
    data = _data_dir(test_conf.get("data"), reference if pinned else root, pinned, where, problems)
    env = _env(test_conf.get("env", {}), where, problems)
    plugins = _plugins(test_conf.get("plugins", []), where, problems)
    ini, source = reference_ini(reference)
    raw_ini = test_conf.get("ini", {})
    if not isinstance(raw_ini, dict):
        problems.append(
            f"{where}: field 'tests.ini' must be a table ([tests.ini] asyncio_mode = ...)"
        )
        raw_ini = {}
    ini.update(_clean_ini(raw_ini, where, problems))
    exclude = test_conf.get("exclude", {})
    if not isinstance(exclude, dict) or not all(
        isinstance(v, str) and v.strip() for v in exclude.values()
    ):
        problems.append(
            f"{where}: field 'tests.exclude' must map node-id globs to the reason, e.g. "
            '[tests.exclude] then "tests/test_net.py::*" = "needs the network"'
        )
        exclude = {}
    python = test_conf.get("python")
    if python is not None and (not isinstance(python, str) or not _PYTHON.match(python)):
        problems.append(
            f"{where}: field 'tests.python' = {python!r} must be a Python version like \"3.12\""
        )
        python = None
    rooted, writable = _layout(test_conf, cwd, where, problems)
    inprocess = test_conf.get("inprocess", "")
    if not isinstance(inprocess, str):
        problems.append(
            f"{where}: field 'tests.inprocess' = {inprocess!r} must be the reason the suite is "
            'graded in one process, e.g. inprocess = "its threads call back into the tests"'
        )
        inprocess = ""
    return TestSettings(
        inprocess=inprocess.strip()[:300],
        rootdir_on_path=rooted,
        rootdir_writable=writable,
        cwd=cwd,
        data=data,
        env=tuple(sorted(env.items())),
        plugins=tuple(plugins),
        ini=tuple(sorted(ini.items())),
        ini_source=source,
        exclude=tuple(exclude.items()),
        python=python,
    )


def _layout(test_conf: dict, cwd: str, where: str, problems: list) -> tuple[bool, bool]:
    """``tests.rootdir_on_path`` and ``tests.rootdir_writable``: booleans; the second only
    with ``cwd = "project"`` (the copy it puts the tests in)."""
    values = []
    for name in ("rootdir_on_path", "rootdir_writable"):
        value = test_conf.get(name, False)
        if not isinstance(value, bool):
            problems.append(f"{where}: field 'tests.{name}' = {value!r} must be true or false")
            value = False
        values.append(value)
    if values[1] and cwd != "project":
        problems.append(
            f"{where}: field 'tests.rootdir_writable' needs the run to start in the copy of "
            'the project it puts the tests in; add cwd = "project" to [tests]'
        )
        values[1] = False
    return values[0], values[1]


def _data_dir(raw, base: Path | None, pinned: bool, where: str, problems: list) -> Path | None:
    """``tests.data``: a folder of the task (of the reference, when pinned) the tests read."""
    if raw is None:
        return None
    fix = 'write data = "data" (a folder of the task whose contents the tests read)'
    if not isinstance(raw, str) or Path(raw).is_absolute() or ".." in raw:
        problems.append(f"{where}: field 'tests.data' = {raw!r} is not a relative path; {fix}")
    elif base is not None and not (base / raw).is_dir():
        problems.append(
            f"{where}: field 'tests.data' = {raw!r}: no such folder"
            f"{' in the reference' if pinned else ''}; create it or {fix}"
        )
    elif base is not None:
        return (base / raw).resolve()
    return None


def _env(env, where: str, problems: list) -> dict[str, str]:
    """``tests.env``: variables for the test run, none the harness sets itself."""
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        problems.append(
            f"{where}: field 'tests.env' must be a table of strings, e.g. "
            '[tests.env] then TZ_NAME = "Europe/Paris"'
        )
        return {}
    for name in env:
        if not _ENV_NAME.match(name) or _RESERVED_ENV.match(name):
            problems.append(
                f"{where}: field 'tests.env.{name}': "
                + (
                    "the harness sets this variable itself (or it changes what Python loads); "
                    "remove it"
                    if _ENV_NAME.match(name)
                    else "not a variable name; use letters, digits and '_'"
                )
            )
    return {k: v for k, v in env.items() if _ENV_NAME.match(k) and not _RESERVED_ENV.match(k)}


def _plugins(plugins, where: str, problems: list) -> list[str]:
    """``tests.plugins``: pinned index packages the test run installs (vetted)."""
    if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
        problems.append(
            f"{where}: field 'tests.plugins' must be a list of requirement strings, e.g. "
            'plugins = ["pytest-asyncio==0.23.8"]'
        )
        return []
    try:
        return vet(plugins, f"{where}: field 'tests.plugins'")
    except InstallRefused as exc:
        problems.append(f'{exc}; name index packages like "pytest-asyncio==0.23.8"')
        return []


@dataclasses.dataclass(frozen=True)
class RunSetup:
    """What :func:`prepare_run` adds to a test run."""

    cwd: Path
    tests: Path  # where the run's copy of the tests goes
    readable: tuple[Path, ...] = ()
    args: tuple[str, ...] = ()
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    trusted: tuple[Path, ...] = ()  # the plugins' files: hook implementations the probe accepts


# names the harness's suite folder already uses (data files may not take them)
_SUITE_NAMES = frozenset({"tests", "work", "config", "coverage", "artifacts"})


def prepare_run(
    settings: TestSettings, venv_python: Path, repo: Path, suite: Path, work: Path
) -> RunSetup:
    """Lay out the working directory of a harness-owned test run; the arguments it needs.

    ``cwd = "project"``: a writable copy of the project (taken in like any agent output:
    bounded, no link followed) with the data on top, under ``work``. Otherwise the run starts
    in the suite folder, beside the tests, with the data read-only there.
    ``rootdir_writable``: the tests go to ``tests/`` of that copy (the project's own
    ``tests/`` there is removed: the suite is the harness's), read-only in the run.
    """

    readable: list[Path] = []
    if settings.cwd == "project":
        cwd = work / "root"
        copy_tree(repo, cwd, IntakeLimits(max_files=20_000, max_bytes=256 << 20))
    else:
        cwd = suite
    tests = cwd / "tests" if settings.rootdir_writable else suite / "tests"
    if settings.rootdir_writable:
        _remove(tests)
    taken = _SUITE_NAMES if settings.cwd != "project" else {"tests"}
    if settings.data is not None:
        for item in sorted(settings.data.iterdir()):
            if (settings.cwd != "project" or settings.rootdir_writable) and item.name in taken:
                raise InfrastructureError(
                    "tests",
                    f"the data file {item.name!r} of [tests] data takes a name of the harness's "
                    "suite folder; rename it"
                    + ("" if settings.cwd == "project" else ' or set cwd = "project"'),
                )
            dest = cwd / item.name
            if item.is_dir():
                shutil.copytree(item, dest, dirs_exist_ok=True, symlinks=False)
            else:
                _remove(dest)
                shutil.copy2(item, dest)
            if settings.cwd != "project":
                readable.append(dest)
    if settings.python:
        # an interpreter the task asked for: its installation, read-only (found by uv, see
        # venv.find_python; the harness's own is bound into every sandbox already)
        readable += interpreter_home(venv_python.parent.parent)
    names, trusted = plugin_files(venv_python, settings.plugins)
    env = dict(settings.env)
    if settings.rootdir_on_path:
        env[ROOTED_ENV] = "1"
    return RunSetup(
        cwd=cwd,
        tests=tests,
        readable=tuple(readable),
        args=tuple(a for n in names for a in ("-p", n)),
        env=env,
        trusted=trusted,
    )


def _remove(path: Path) -> None:
    """Remove a file, link or folder of the run's copy (a link is removed, never followed)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def interpreter_home(venv: Path) -> list[Path]:
    """The installation folder of the interpreter a virtual environment was made from."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return []
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip().startswith("/"):
            home = Path(value.strip()).resolve()
            return [home.parent if home.name == "bin" else home]
    return []


def required_python(requires: str, harness: str) -> str | None:
    """The Python version a project's ``Requires-Python`` asks for when the harness's
    (``"3.11"``) does not satisfy it: the lowest 3.x that does; None when the harness's does."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(requires)
    except InvalidSpecifier:
        return None
    if spec.contains(f"{harness}.0", prereleases=True) or spec.contains(harness):
        return None
    return next((f"3.{m}" for m in range(8, 20) if spec.contains(f"3.{m}.0")), None)


def plugin_files(venv_python: Path, plugins: tuple[str, ...]) -> tuple[list[str], tuple[Path, ...]]:
    """The ``pytest11`` entry-point names of the ``plugins`` installed in the environment, and
    the top-level files of their distributions (read from the metadata, as data)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wanted = {canonicalize_name(Requirement(p).name) for p in plugins}
    if not wanted:
        return [], ()
    names: list[str] = []
    files: set[Path] = set()
    found: set[str] = set()
    for site in (venv_python.parent.parent / "lib").glob("python*/site-packages"):
        for info in sorted(site.glob("*.dist-info")):
            name = canonicalize_name(info.name[: -len(".dist-info")].rsplit("-", 1)[0])
            if name not in wanted:
                continue
            found.add(name)
            points = configparser.ConfigParser(interpolation=None, delimiters=("=",))
            points.optionxform = str  # entry-point names keep their case
            try:
                points.read_string((info / "entry_points.txt").read_text(encoding="utf-8"))
                record = (info / "RECORD").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError, configparser.Error):
                continue
            if points.has_section("pytest11"):
                names += [k.strip() for k in points["pytest11"]]
            for line in record.splitlines():
                top, sep, _ = line.split(",", 1)[0].partition("/")
                # packages only: the probe trusts folders (a single-module plugin stays not)
                if sep and top not in ("..", "") and not top.endswith((".dist-info", ".data")):
                    files.add(site / top)
    missing = wanted - found
    if missing:
        raise InfrastructureError(
            "tests",
            f"the test environment lacks the plugins {', '.join(sorted(missing))} of "
            "[tests] plugins: rebuild it (--e2e-rerun)",
        )
    return names, tuple(sorted(files))


def suite_nodeids(task) -> tuple[str, ...]:
    """The node ids of the task's excluded tests, as the harness's suite folder names them
    (its tests always sit in ``tests/``)."""
    out = []
    for nodeid, _ in task.excluded:
        head, _, rest = nodeid.partition("/")
        out.append(f"tests/{rest}" if rest else nodeid)
    return tuple(out)
