"""A suite run split in two (issue 39): the verdicts where the project cannot reach.

The suite's process runs pytest, the probe, the test modules and every assertion with the
run's interpreter under ``-S``: the environment's site-packages (where the project is
installed) is not on its path, only links to the test tools (:data:`PARENT_TOOLS`), and a
finder that turns every other import into a proxy of the project's process
(``probe/e2ebench_split.py``). The project's process (``probe/e2ebench_host.py``) runs under
coverage in a sandbox of its own: another PID namespace and mount layout, which holds the
project, its environment, a shared scratch folder (``tmp_path``, ``TMPDIR``) and nothing of
the suite. The two talk over two pipes the harness made, data only
(``probe/e2ebench_wire.py``). A suite run from a copy of the project (``[tests] cwd =
"project"``) has that copy as both processes' working folder, shared at one path
(:func:`shared_copy`), and no file of the project's folders is loaded in the suite's process
whatever its path holds (:func:`guard_env`, ``e2ebench_split.ProjectFirst``).

A suite that cannot run so keeps the one-process run with all its evidence layers, and the
record says which mode graded it and why (:func:`inprocess_reason`).
"""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import sys
import threading
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..environment import integrity
from ..environment.finder import project_names
from ..errors import InfrastructureError
from ..isolation.limits import sized_tmpfs
from ..isolation.network import Mirror
from ..isolation.sandbox import Sandbox
from ..probe import PROBE_DIR, project_env

SPLIT, INPROCESS = "split", "inprocess"
PARENT_TOOLS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py",
                "pytest_timeout.py")  # fmt: skip
PARENT_BOOT = "e2ebench_parent.py"  # in the probe's folder: starts e2ebench_split.main
# ProjectFirst (probe/e2ebench_split.py): the project's folders and top-level names there
PROJECT_ENV, NAMES_ENV = "E2EBENCH_SPLIT_PROJECT", "E2EBENCH_SPLIT_NAMES"
COPY = "root"  # the copy of the project a [tests] cwd = "project" run is in, beside the scratch
HOST_MODULE = "e2ebench_host"
CHANNEL_ENV = "E2EBENCH_SPLIT_FDS"
HOST_GRACE = 20.0  # seconds the project's process has to end once the suite's has
SIDES_ENV = "E2EBENCH_SPLIT_SIDES"  # probe/e2ebench_sides.py: the reference's sides' file
MAX_SIDES = 16384  # sites one run reports (e2ebench_sides.MAX_SIDES)
# The split run is the default wherever a suite can run so; E2EBENCH_VERDICT_MODE=inprocess in
# the harness's environment grades every suite in one process, with the evidence layers only.
MODE_ENV = "E2EBENCH_VERDICT_MODE"


def policy() -> str:
    """The session's verdict policy (split unless ``E2EBENCH_VERDICT_MODE=inprocess``), part
    of the evaluation stage's key: a run graded under another policy is graded again."""
    return INPROCESS if os.environ.get(MODE_ENV) == INPROCESS else SPLIT


def inprocess_reason(*, tests, web, settings, written: bool, requires=()) -> str:
    """Why a suite runs in one process ("" when it runs split)."""
    if policy() != SPLIT:
        return f"every suite in one process ({MODE_ENV}=inprocess)"
    if tests is None:
        return "the agent's own tests, run where they are with its own settings"
    if web is not None:
        return "scenarios that drive a browser against the served app"
    if written:
        return "tests an agent wrote, graded against the reference"
    if settings is not None and settings.inprocess:
        return f"the task's own: {settings.inprocess} ([tests] inprocess)"
    if settings is not None and (settings.plugins or settings.rootdir_writable):
        return "pytest plugins or a root folder of the task's ([tests] plugins, rootdir_writable)"
    found = project_subclass(tests, _import_names(requires))
    if found:
        return f"a test's class mixes a project class with others ({found}), in one process"
    return ""


def project_subclass(tests: Path, libraries: frozenset[str] = frozenset()) -> str:
    """``file: class`` of the first class in the suite's Python files with a base imported
    from outside the suite, the standard library, the test tools and ``libraries`` (the
    task's test libraries' import names) that cannot run split (:func:`_carried`), or "".
    Read from the task's own files: the agent's project plays no part."""
    files = sorted(tests.rglob("*.py"))
    local = {p.stem for p in files} | {p.name for p in tests.rglob("*") if p.is_dir()}
    tools = {name.removesuffix(".py") for name in PARENT_TOOLS} | {"conftest", "__future__"}
    tools |= libraries
    for path in files:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue  # pytest reports it
        foreign = _foreign_names(tree, local | tools)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and not _carried(node, foreign):
                return f"{path.relative_to(tests)}: {node.name}"
    return ""


def _carried(node: ast.ClassDef, foreign: set[str]) -> bool:
    """Whether a test's class can run split: no base from outside the suite, or only such
    bases and no metaclass or class keyword (then it is made in the project's process too,
    its methods called back: ``e2ebench_split.RemoteType``)."""
    outside = [_root(b) in foreign for b in node.bases]
    return not any(outside) or (all(outside) and not node.keywords)


def _import_names(requires) -> frozenset[str]:
    """The import names the task's test libraries most likely have (a distribution's name as
    an identifier): a wrong guess only keeps a suite in one process."""
    names = set()
    for line in requires:
        with contextlib.suppress(InvalidRequirement):
            names.add(canonicalize_name(Requirement(line).name).replace("-", "_"))
    return frozenset(names)


def _foreign_names(tree: ast.Module, known: set[str]) -> set[str]:
    """The names a module binds by importing from neither the standard library nor ``known``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs = [(a.name, a.asname or a.name.partition(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            pairs = [(node.module, a.asname or a.name) for a in node.names]
        else:
            continue
        for module, bound in pairs:
            top = module.partition(".")[0]
            if top not in sys.stdlib_module_names and top not in known:
                names.add(bound)
    return names


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else ""


def mode(**suite) -> tuple[str, str]:
    """(verdict mode, why) of a suite: :func:`inprocess_reason`'s arguments."""
    why = inprocess_reason(**suite)
    return (INPROCESS, why) if why else (SPLIT, "")


def tools_view(venv_python: Path, where: Path, requires: tuple[str, ...] = ()) -> Path:
    """A folder of links to the test tools in the run's environment, and to the task's test
    libraries (``requires``, ``[tests]``) with what they require: the suite's process's only
    site of third-party code (the project's files are not there). The libraries' entries come
    from the list the harness wrote before the project was installed (``integrity.TOOLS_FILE``,
    checked with the tools' files after), never from metadata the project's install could add."""
    venv = venv_python.parent.parent
    names = list(PARENT_TOOLS)
    if requires:
        entries = integrity.tool_entries(venv, requires)
        if entries is None:
            raise InfrastructureError(
                "tests", f"{venv} lists no test tools ({integrity.TOOLS_FILE}): --e2e-rerun"
            )
        names += [e for e in entries if e not in names]
    site = integrity.site_packages(venv)
    where.mkdir(parents=True, exist_ok=True)
    for name in names:
        if (site / name).exists():
            os.symlink(site / name, where / name)
    return where


class Host:
    """The project's process of one split run, beside the suite's: started on enter in its
    own sandbox, given an end of each pipe; on exit waited for (and ended when it lingers).

    ``fds`` and ``env`` are what the suite's process needs; ``done`` what the sandbox said of
    the project's process."""

    def __init__(
        self,
        sandbox: Sandbox,
        command: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        timeout: float,
        log: Path,
        writable: list[Path],
        readable: list[Path],
        shared: list[Path],
        served: bool = False,
    ) -> None:
        self.sandbox, self.command, self.shared = sandbox, command, list(shared)
        self.options = dict(cwd=cwd, env=env, timeout=timeout, log=log)
        self.options.update(writable=writable, readable=readable, shared=self.shared)
        # served: the ports the project's process listens on are mirrored into the suite's
        # namespace (its browser's pages), one way (:mod:`..isolation.network.mirror`)
        self.mirror = Mirror() if served else None
        self.options["netns"] = None if self.mirror is None else self.mirror.source_ready
        self.suite_netns = None if self.mirror is None else self.mirror.target_ready
        self.done = None
        self.error: BaseException | None = None
        self.stop = threading.Event()

    def __enter__(self) -> Host:
        to_host_r, self._to_host_w = os.pipe()
        self._from_host_r, from_host_w = os.pipe()
        # a byte on the third pipe interrupts what the project does (the test's timeout)
        stop_r, stop_w = os.pipe()
        self.fds = (self._from_host_r, self._to_host_w, stop_w)
        self.env = {CHANNEL_ENV: ",".join(map(str, self.fds))}
        ends = (to_host_r, from_host_w, stop_r)
        command = [*self.command, *map(str, ends)]
        self._thread = threading.Thread(target=self._run, args=(command, ends), daemon=True)
        self._thread.start()
        return self

    def _run(self, command: list[str], fds: tuple[int, ...]) -> None:
        try:
            self.done = self.sandbox.run(command, pass_fds=fds, stop=self.stop, **self.options)
        except BaseException as exc:  # raised on the suite's thread, in __exit__
            self.error = exc
        finally:
            for fd in fds:  # the suite's process now reads the end of the channel
                with contextlib.suppress(OSError):
                    os.close(fd)

    def __exit__(self, *exc) -> None:
        if self.mirror is not None:
            self.mirror.close()
        for fd in self.fds:  # the project's process reads the end of the channel
            with contextlib.suppress(OSError):
                os.close(fd)
        if exc[0] is not None:
            self.stop.set()  # unwinding (SIGTERM, Ctrl-C, an error): nobody awaits its answer
        try:
            self._thread.join(HOST_GRACE)
        finally:  # also when a SIGTERM ends the grace: the project's sandbox is undone first
            if self._thread.is_alive():
                self.stop.set()
                self._thread.join()
        if self.error is not None and exc[0] is None:
            raise self.error


@contextlib.contextmanager
def scratch(sandbox: Sandbox, fallback: Path):
    """The folder both processes write (``tmp_path``, ``TMPDIR``): a tmpfs of the sandbox's
    quota, bound into both as it is (an overlay per sandbox would hide each one's writes from
    the other); ``fallback`` where no tmpfs can be mounted (the sandbox measures it there)."""
    limits = sandbox.limits
    with sized_tmpfs(limits.quota_bytes, limits.quota_files, ("scratch",)) as volume:
        where = fallback if volume is None else volume / "scratch"
        where.mkdir(exist_ok=True)
        yield where


def shared_copy(copy: Path, scratch: Path) -> Path:
    """The copy of the project a ``[tests] cwd = "project"`` suite runs in, moved beside the
    scratch folder (into its tmpfs, of the run's quota, where there is one): bound as it is
    into both processes at the same path, it is both working folders, so what a test writes
    there the project reads, and back, as in one process."""
    where = scratch.parent / COPY
    shutil.move(copy, where)
    return where


def guard_env(folders: list[Path]) -> dict[str, str]:
    """What the suite's process keeps the project's files out with (``ProjectFirst``): the
    project's ``folders`` (its copy, its repository) and the top-level modules and packages
    found there and in their ``src/`` (less the standard library's, the start-up modules',
    the test tools' and the probe's names, which stay this process's own)."""
    tools = {n.removesuffix(".py") for n in PARENT_TOOLS}
    reserved = frozenset(tools | {p.stem for p in PROBE_DIR.glob("e2ebench_*.py")})
    names = set()
    for folder in folders:
        names.update(project_names(folder, reserved))
    return {
        PROJECT_ENV: os.pathsep.join(map(str, folders)),
        NAMES_ENV: os.pathsep.join(sorted(names)),
    }


def host_command(venv_python: Path, rc: Path) -> list[str]:
    """The project's process: the host under coverage (its descriptors are appended)."""
    return [str(venv_python), "-m", "coverage", "run", f"--rcfile={rc}", "-m", HOST_MODULE]


def host_env(venv_python: Path, home: Path, shared: Path, task_env: dict[str, str]) -> dict:
    """The project's process's environment: the project's, the task's ``[tests] env``, the
    shared scratch folder; nothing of the suite's process (no test id, no suite path)."""
    env = project_env(venv_python, home)
    env.update(task_env, TMPDIR=str(shared))
    return env


def parent_command(venv_python: Path, tools: Path) -> list[str]:
    """The suite's process: pytest, without ``site`` (pytest's arguments are appended)."""
    return [str(venv_python), "-S", str(PROBE_DIR / PARENT_BOOT), str(tools)]
