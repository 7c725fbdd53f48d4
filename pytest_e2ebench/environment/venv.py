"""Build one virtual environment per (task, agent, run) with uv and install the project.

The environment gets the harness's own versions of pytest, coverage and pytest-timeout (so a
test run measures the project, not a tool upgrade) and then the generated project, imported
from the repository so coverage sees its files where they are. Failing to create the
environment or to install the harness's tools is an infrastructure error; a project that does
not install is the agent's failure and is recorded, not raised.

No interpreter, tool or build step that can load a byte the agent wrote runs outside the
sandbox (issue 11, classes 2b, 2c, 3); only the harness talks to the package index:

1. ``[build-system] requires`` are vetted (index requirements only, :mod:`.requirements`) and
   installed by the harness's uv into a separate build environment;
2. in the sandbox, offline, from a scratch copy of the repository, the backend names further
   build requirements (vetted, installed by the harness) and builds a wheel into an empty
   folder (:mod:`.backend`); the build environment is read-only to the sandbox, the test
   environment and the uv cache are not visible to it at all;
3. the wheel is inspected as data (:mod:`.wheel`) and installed by the harness's uv, without
   dependencies and offline (unpacking a wheel runs none of its code); a harness-written
   import finder maps the project's own top-level names to the repository (:mod:`.finder`);
4. the harness installs the runtime dependencies the wheel's metadata declares (vetted,
   constrained to the versions of everything already in the environment), then checks that
   the test tools' files are unchanged (:mod:`.integrity`).

Every uv call runs with configuration discovery off, from a folder the harness owns. Whether
the index is unreachable is decided by asking it (:func:`index_reachable`), never from uv's
output, which the project can fill with anything.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ..errors import InfrastructureError
from ..isolation import process
from ..isolation.sandbox import Sandbox
from ..run.cache import key_of, locked, remove
from . import backend, finder, integrity, wheel
from .requirements import InstallRefused, build_system, vet
from .workspace import is_installable

TOOLS = ("pytest", "coverage", "pytest-timeout")
INSTALL_TIMEOUT = 600.0
TEMPLATE_DAYS = 2  # a build or tools template older than this is removed (prune_templates)
# Part of every environment's cache key: bump it when how a project is installed changes.
INSTALL_FORMAT = 5  # 3: the finder leaves the names of the suite's own modules to it; 4: and
# knows the root-level names for [tests] rootdir_on_path; 5: the tools' file (integrity.TOOLS_FILE)
INDEX_CHECK_TIMEOUT = 10.0
DEFAULT_INDEX = "https://pypi.org/simple"


@functools.cache
def uv_binary() -> str:
    """Path of the uv executable shipped by the ``uv`` package."""
    try:
        import uv

        return uv.find_uv_bin()
    except (ImportError, FileNotFoundError) as exc:
        raise InfrastructureError("venv", f"uv is not available ({exc}); pip install uv") from None


def pinned(names: tuple[str, ...]) -> tuple[str, ...]:
    """``name==version`` of each package, pinned to what the harness runs with."""
    pins = []
    for name in names:
        try:
            pins.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            pins.append(name)
    return tuple(pins)


@functools.cache
def tool_requirements() -> tuple[str, ...]:
    """``name==version`` of the test tools, pinned to what the harness runs with."""
    return pinned(TOOLS)


def fingerprint() -> dict[str, object]:
    """What, besides the project, determines an environment (part of its cache key)."""
    return {
        "python": sys.version,
        "tools": tool_requirements(),
        "uv": uv_binary(),
        "install": INSTALL_FORMAT,
    }


def python_of(venv: Path) -> Path:
    """The interpreter of a virtual environment."""
    return venv / "bin" / "python"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["UV_PYTHON_DOWNLOADS"] = "never"  # never fetch an interpreter: use the harness's
    env["UV_LINK_MODE"] = "copy"  # a venv file never shares its inode with the cache
    env.setdefault("UV_NO_PROGRESS", "1")
    return env


def _uv(args: list[str], logs: Path, name: str) -> process.Completed:
    """Run the harness's uv from ``logs``, a harness folder, with configuration discovery off
    (no uv.toml or pyproject.toml found from a folder applies)."""
    logs.mkdir(parents=True, exist_ok=True)
    return process.run(
        [uv_binary(), *args, "--no-config"],
        cwd=logs,
        env=_env(),
        timeout=INSTALL_TIMEOUT,
        log=logs / f"{name}.log",
    )


def index_url() -> str:
    """The package index the harness's uv uses (its environment, as uv reads it)."""
    return os.environ.get("UV_DEFAULT_INDEX") or os.environ.get("UV_INDEX_URL") or DEFAULT_INDEX


def index_reachable(timeout: float = INDEX_CHECK_TIMEOUT) -> bool:
    """True when the package index answers the harness itself (a page of a harness tool).

    Asked after a failed install, because uv's output is no evidence: a project can make uv
    print anything (a package named like an error message, an unreachable URL).
    """
    if os.environ.get("UV_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return False  # the harness itself is configured offline
    url = f"{index_url().rstrip('/')}/pytest/"
    if url.startswith("file://"):
        return Path(urllib.request.url2pathname(url[len("file://") :])).is_dir()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as page:
            page.read(1)
        return True
    except urllib.error.HTTPError as exc:
        return exc.code < 500  # it answered: up, whatever it thinks of the request
    except (OSError, ValueError):  # URLError, timeouts, a malformed index URL
        return False


@dataclasses.dataclass(frozen=True)
class InstallResult:
    """How the generated project got into the environment."""

    method: str  # "editable" (built, imported from the repo) | "path" (no packaging) | "served"
    ok: bool
    log: str
    reason: str = ""  # one line: why it failed

    def to_dict(self) -> dict:
        """JSON-able form."""
        return dataclasses.asdict(self)


def find_python(version: str, logs: Path) -> str:
    """The interpreter of Python ``version`` uv finds installed (it never downloads one here:
    ``UV_PYTHON_DOWNLOADS=never``); InfrastructureError saying how to provide it otherwise."""
    found = _uv(["python", "find", version], logs, f"python-{version}")
    lines = found.output.splitlines() if found.returncode == 0 else []
    path = [ln.strip() for ln in lines if ln.strip().startswith("/")][-1:]
    if not path:
        raise InfrastructureError(
            "venv",
            f"the task asks for Python {version} ([tests] python), which uv does not find "
            f"installed; install it (uv python install {version}, or your system's package) "
            "or put its python on PATH",
        )
    return path[0]


def create_venv(
    venv: Path,
    logs: Path,
    packages: list[str],
    *,
    stage: str,
    seed: bool = False,
    prefix: str = "",
    python: str | None = None,
    relocatable: bool = False,
    compiled: bool = False,
) -> None:
    """Create ``venv`` with uv and install ``packages``, if any (harness code only).

    ``python``: a version the task asks for (default: the harness's interpreter).
    ``relocatable``: its scripts find their interpreter relative to themselves (a template
    that is cloned elsewhere, :func:`build_env`, :func:`tools_env`).
    ``compiled``: the packages' modules byte-compiled by uv (``--compile-bytecode``).
    Failing here is never the agent's fault: an :class:`InfrastructureError` of ``stage``.
    """
    interpreter = find_python(python, logs) if python else sys.executable
    flags = [*(["--seed"] if seed else []), *(["--relocatable"] if relocatable else [])]
    made = _uv(
        ["venv", "--quiet", *flags, "--python", interpreter, str(venv)],
        logs,
        f"{prefix}venv",
    )
    if made.returncode != 0:
        raise InfrastructureError(stage, f"uv venv failed:\n{made.tail()}")
    if not packages:
        return
    args = ["pip", "install", "--quiet", *(["--compile-bytecode"] if compiled else [])]
    tools = _uv([*args, "--python", str(python_of(venv)), *packages], logs, f"{prefix}tools")
    if tools.returncode != 0:
        raise InfrastructureError(stage, install_failure(packages, tools))


def uv_cause(output: str, limit: int = 240) -> str:
    """uv's own one-line explanation of a failed resolution or install, if it gave one
    (``Because foo==1 depends on Python>=3.12 ...``), for the report; never a decision."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        text = line.strip().lstrip("╰─▶×").strip()
        if text.startswith("cause:"):
            text = text[len("cause:") :].strip()
        elif not text.startswith("Because "):
            continue
        for more in lines[number + 1 :]:  # uv wraps its sentence to the terminal's width
            more = more.strip()
            if not more or more.startswith(("And because", "hint:", "help:", "error:")):
                break
            text += " " + more
        text = " ".join(text.split(", we can conclude")[0].split())
        return text if len(text) <= limit else text[: limit - 1] + "…"
    return ""


def install_failure(packages: list[str], done: process.Completed) -> str:
    """What failed when the harness installed ``packages`` (its own tools, a task's test
    requirements): the index unreachable, a requirement no version satisfies, or a build."""
    listed = ", ".join(packages)
    tail = done.tail()
    if done.timed_out:
        return f"installing {listed} timed out after {INSTALL_TIMEOUT:g}s:\n{tail}"
    if not index_reachable():
        return (
            f"installing {listed} failed: the package index {index_url()} does not answer "
            f"the harness; check the network or UV_DEFAULT_INDEX:\n{tail}"
        )
    text = done.output
    if "requirements are unsatisfiable" in text or "No solution found" in text:
        return (
            f"installing {listed} failed: no versions satisfy these requirements together "
            f"(a pin that does not exist, or conflicting pins: {uv_cause(text) or 'see below'}); "
            f"fix the task's [tests] requires/plugins:\n{tail}"
        )
    if "not found in the package registry" in text or "was not found in the package" in text:
        return f"installing {listed} failed: a package is not on {index_url()}:\n{tail}"
    return f"installing {listed} failed (the index answers; see uv's message):\n{tail}"


def _fetch(
    what: str,
    requirements: list[str],
    python: Path,
    logs: Path,
    constraints: list[str] = (),
    compiled: bool = False,
) -> None:
    """Install vetted index requirements (harness uv, online, wheels only).

    Wheels only (``--no-build``): building a source distribution would run its code on the
    host. InfrastructureError if the index does not answer the harness; else InstallRefused.
    ``compiled``: byte-compiled by uv (a template that many processes will import from).
    """
    if not requirements:
        return
    (logs / f"{what}.txt").write_text("\n".join(requirements) + "\n")
    args = ["pip", "install", "--python", str(python), "--no-build", "-r", f"{what}.txt"]
    args += ["--compile-bytecode"] if compiled else []
    if constraints:
        (logs / f"{what}-constraints.txt").write_text("\n".join(constraints) + "\n")
        args += ["-c", f"{what}-constraints.txt"]
    done = _uv(args, logs, what)
    if done.returncode == 0:
        return
    if not index_reachable():
        raise InfrastructureError(
            "venv",
            f"the package index {index_url()} does not answer the harness (while installing "
            f"the project's {what}):\n{done.tail()}",
        )
    failed = "timed out" if done.timed_out else "did not install"
    raise InstallRefused(f"the project's {what} {failed} (logs/{what}.log):\n{done.tail(40)}")


def install_requirements(what: str, requirements: list[str], python: Path, logs: Path) -> None:
    """Install vetted index requirements into the environment of ``python`` (harness uv).

    Wheels only; InstallRefused when they do not install, InfrastructureError when the index
    does not answer the harness (see :func:`_fetch`).
    """
    _fetch(what, requirements, python, logs)


def build_env(env: Path, requires: list[str], logs: Path, store: Path | None, linked: bool) -> None:
    """Create the build environment ``env`` with the project's (vetted) build requirements.

    With a ``store`` (the session's wheel store, harness-owned and never bound into a sandbox)
    ``env`` is a clone of a template made once per key (:func:`template_key`) in
    ``<store>/build-envs``: one uv venv and install per set of requirements instead of one
    per build (issue 27). ``linked``: the clone's files are hard links to the template's,
    for a build whose hooks may only read ``env`` (a sandbox with namespaces), where both are on
    one file system (copies else); before the harness installs anything into it,
    :func:`own_files` gives it copies of its own.
    """
    if store is None:
        create_venv(env, logs, [], stage="venv", prefix="build-")
        _fetch("build-requirements", requires, python_of(env), logs)
        return

    def make(template: Path) -> None:
        create_venv(template, logs, [], stage="venv", prefix="build-", relocatable=True)
        # compiled: each build's hooks import the backend (setuptools: hundreds of modules)
        _fetch("build-requirements", requires, python_of(template), logs, compiled=True)

    template = _template(store / "build-envs" / template_key(requires), requires, make)
    env.parent.mkdir(parents=True, exist_ok=True)
    # a link cannot cross file systems: a store on a tmpfs and the build folder in /tmp on disk,
    # or the other way round, get copies (own_files then has nothing to do)
    linked = linked and template.stat().st_dev == env.parent.stat().st_dev
    copy = os.link if linked else shutil.copy2
    shutil.copytree(template, env, symlinks=True, copy_function=copy)


def template_key(requires: list[str]) -> str:
    """What a build environment depends on: the requirements, the interpreter, uv and its
    settings (the index), the install format and the UTC day (the index's state: a
    template is made again each day, so it never lags far behind a fresh install)."""
    settings = {
        k: v for k, v in os.environ.items() if k.startswith("UV_") and k != "UV_NO_PROGRESS"
    }
    day = time.strftime("%Y-%m-%d", time.gmtime())
    parts = (list(requires), sys.executable, sys.version, uv_binary(), index_url(), settings)
    return key_of("build-env", *parts, INSTALL_FORMAT, day)[:24]


def tools_env(
    venv: Path, logs: Path, tools: list[str], *, python: str | None, store: Path | None, prefix=""
) -> None:
    """Create ``venv`` with the test tools ``tools`` (harness code only).

    With a ``store`` (the session's wheel store, harness-owned and never bound into a sandbox)
    ``venv`` is a copy of a template made once per key (:func:`template_key`) in
    ``<store>/tools-envs``, its modules byte-compiled: one uv install per set of tools instead
    of one per run, and no test run's interpreter compiles pytest, coverage and their
    dependencies again from source (each did: the run's environment is read-only to it and
    it writes no bytecode; issue 27). The copy's files are its own (not links): the harness
    installs the project into it. Without a store, a fresh install, as before.
    """
    # each environment says what its tools are before any project is in it (TOOLS_FILE)
    if store is None:
        create_venv(venv, logs, tools, stage="venv", python=python, prefix=prefix)
        integrity.write_tools(venv)
        return

    def make(template: Path) -> None:
        options = {"python": python, "relocatable": True, "compiled": True}
        create_venv(template, logs, tools, stage="venv", prefix=prefix, **options)
        integrity.write_tools(template)

    clone(_template(store / "tools-envs" / tools_key(tools, python), tools, make), venv)


def tools_key(tools: list[str], python: str | None) -> str:
    """The key of the tools' template: :func:`template_key` over the tools and the Python
    version asked for."""
    return template_key([*tools, f"python={python or ''}"])


def _template(where: Path, listed: list[str], make: Callable[[Path], None]) -> Path:
    """The environment of the template in ``where``, made by ``make`` unless complete (under
    the folder's lock; older templates beside it pruned first)."""
    with locked(where):
        if not (where / "complete").is_file():
            prune_templates(where.parent, keep=where.name)
            remove(where / "env")
            make(where / "env")
            (where / "complete").write_text("\n".join(listed) + "\n")
    return where / "env"


def prune_templates(folder: Path, keep: str) -> None:
    """Remove the templates in ``folder`` (``build-envs``, ``tools-envs``) made more than
    :data:`TEMPLATE_DAYS` days ago, but ``keep``: a template's key holds the UTC day it was
    made on, so no session uses one after that day, and without this a session folder kept a
    template of 17-64 MB per day and key."""
    cutoff = time.time() - TEMPLATE_DAYS * 86_400
    for old in folder.iterdir():
        if old.name == keep or not old.is_dir() or old.is_symlink():
            continue
        try:
            made = (old / "complete").stat().st_mtime
        except OSError:
            continue  # being made now, or not a template: left alone
        if made < cutoff:
            remove(old)


def clone(template: Path, venv: Path) -> None:
    """Copy ``template`` into ``venv`` (files of its own, links kept as links, each file's
    mtime kept, so its compiled modules stay valid): coreutils' ``cp -a``, 6-9 times faster
    here than :func:`shutil.copytree` on a venv's thousand files; that where ``cp`` is not
    GNU's or fails."""
    venv.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["cp", "-a", "--", f"{template}/.", str(venv)], capture_output=True, check=False
    )
    if done.returncode != 0:
        shutil.copytree(template, venv, symlinks=True, dirs_exist_ok=True)


def own_files(env: Path) -> None:
    """Give every file of a linked clone (:func:`build_env`) an inode of its own, so what the
    harness installs into it never reaches the template."""
    if (env / "pyvenv.cfg").stat().st_nlink < 2:
        return  # made fresh, or copied
    spare = env.with_name(f"{env.name}-own")
    shutil.copytree(env, spare, symlinks=True)
    shutil.rmtree(env)
    spare.rename(env)


def bare(venv: Path, repo: Path, logs: Path) -> InstallResult:
    """An environment with nothing installed but ``repo``'s top-level names (DevEval's base).

    For the setup stage: the agent's dependencies are installed into it afterwards, so what
    its examples import must come from them (not from the test tools of :func:`build`).
    """
    create_venv(venv, logs, [], stage="venv")
    roots = finder.project_names(repo, integrity.snapshot(venv).names)
    finder.install(integrity.site_packages(venv), roots)
    found = ", ".join(sorted(roots)) or "nothing"
    return InstallResult("path", True, f"no packaging: imports {found} from the repository")


def build(
    venv: Path,
    repo: Path,
    logs: Path,
    test_requires: tuple[str, ...],
    sandbox: Sandbox,
    *,
    install_project: bool = True,
    python: str | None = None,
    wheels: Path | None = None,
) -> InstallResult:
    """Create ``venv``, install the test tools (plus a task's ``test_requires``) and the project.

    ``sandbox`` runs the build backend's hooks (the project's code): the session's, or
    :func:`~pytest_e2ebench.isolation.sandbox.machine_sandbox` outside one; it has no default.
    ``wheels``: a harness-owned folder of wheels already built from identical content (one
    session's; see :func:`backend.reuse`), or None to build always.

    The task's test requirements are the harness's: failing to install them is an
    infrastructure error, like failing to install pytest. A web app is not installed
    (``install_project=False``): it is served, and no test process imports it.
    """
    tools = [*tool_requirements(), *test_requires]
    tools_env(venv, logs, tools, python=python, store=wheels)
    if not install_project:
        return InstallResult("served", True, "a web app: served from the repository, not installed")
    logs.mkdir(parents=True, exist_ok=True)
    before = integrity.snapshot(venv)
    if not is_installable(repo):
        roots = finder.project_names(repo, before.names)
        rooted = (finder.root_names(repo, before.names), str(repo))
        finder.install(integrity.site_packages(venv), roots, rooted=rooted)
        found = ", ".join(sorted(roots)) or "nothing"
        return InstallResult("path", True, f"no packaging: imports {found} from the repository")
    try:
        return InstallResult("editable", True, _install(venv, repo, logs, sandbox, before, wheels))
    except InstallRefused as exc:
        site = integrity.site_packages(venv)
        if (site / finder.PTH_FILE).exists() or {
            p.name for p in site.glob("*.dist-info")
        } - before.dist_infos:
            # As after a failed ``pip install``: nothing of the project is left half-way
            # (nor a dependency's changes to the tools): start again from the tools alone.
            shutil.rmtree(venv)
            tools_env(venv, logs, tools, python=python, store=wheels, prefix="clean-")
        message = str(exc)
        reason = message.splitlines()[0].rstrip(":")
        cause = uv_cause(message)
        return InstallResult("editable", False, message, f"{reason}: {cause}" if cause else reason)


def _wheel(
    system: dict, folders: backend.BuildFolders, logs: Path, sandbox: Sandbox, wheels: Path | None
) -> Path:
    """The project's wheel: built by its backend in the sandbox, or the one an earlier build of
    identical content left in ``wheels`` (see :func:`backend.build_key`)."""
    key = backend.build_key(folders, system, sandbox)
    built = backend.reuse(wheels, key, folders, logs)
    if built is not None:
        return built
    runner = backend.HookRunner(sandbox, folders, logs, known=tuple(system["requires"]))
    caller = backend.hook_caller(system, runner)
    asked = vet(
        backend.requires_for_wheel(caller, runner),
        "the build backend's get_requires_for_build_wheel",
    )
    extra = [r for r in asked if r not in system["requires"]]
    if extra:
        runner.discard()  # built without them, if at all: build again once they are in
        own_files(folders.env)
    _fetch("backend-requirements", extra, python_of(folders.env), logs)
    built = backend.build_wheel(caller, runner)
    backend.keep(wheels, key, built)
    return built


def _install(
    venv: Path,
    repo: Path,
    logs: Path,
    sandbox: Sandbox,
    before: integrity.Snapshot,
    wheels: Path | None = None,
) -> str:
    """Build, inspect and install the project and its dependencies; InstallRefused if not."""
    system = build_system(repo)
    site = integrity.site_packages(venv)
    with tempfile.TemporaryDirectory(prefix="e2ebench-build-", ignore_cleanup_errors=True) as tmp:
        folders = backend.BuildFolders(Path(tmp))
        folders.prepare(repo)
        # links only where the hooks cannot write the template's files through them: a
        # read-only bind (bubblewrap) or another user (root's files, 0644)
        linked = sandbox.mode == "bwrap" or sandbox.drops_privileges
        build_env(folders.env, system["requires"], logs, wheels, linked)
        built = _wheel(system, folders, logs, sandbox, wheels)
        contents = wheel.inspect(
            built, reserved=before.names, commands=before.commands, dists=frozenset(before.dists)
        )
        dependencies = vet(list(contents.requires), f"Requires-Dist of {built.name}")
        # Unpacking a wheel runs none of its code; --no-cache: its bytes stay out of the cache.
        args = ["pip", "install", "--python", str(python_of(venv)), "--no-deps", "--offline"]
        done = _uv([*args, "--no-cache", str(built)], logs, "install-wheel")
        if done.returncode != 0:
            raise InstallRefused(
                f"the built wheel did not install (logs/install-wheel.log):\n{done.tail(20)}"
            )
    roots = finder.locate(repo, contents.top_level)
    installed = {n: [str(site / n)] for n in roots if (site / n).is_dir()}
    finder.install(site, roots, installed, (finder.root_names(repo, before.names), str(repo)))
    _fetch("dependencies", dependencies, python_of(venv), logs, before.pins())
    integrity.check(venv, before, allowed=frozenset({finder.PTH_FILE}))
    return (
        f"built {built.name}; imports {', '.join(sorted(roots)) or 'nothing'} from the "
        f"repository; declared dependencies: {', '.join(dependencies) or 'none'}"
    )


def agent_env(venv: Path, logs: Path) -> dict[str, str]:
    """An environment for an agent's shell: a fresh venv with pip and pytest, first on PATH.

    The agent installs its own project into it if it wants to; the graded environment is
    built separately, from the repository alone.
    """
    if not python_of(venv).exists():
        # setuptools: so the agent can pip install --no-build-isolation without a network
        create_venv(
            venv,
            logs,
            [*tool_requirements(), "setuptools"],
            stage="agent",
            seed=True,
            prefix="agent-",
        )
    env = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM", "TMPDIR")}
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', os.defpath)}",
        VIRTUAL_ENV=str(venv),
        HOME=str(venv.parent / "home"),
        PYTHONDONTWRITEBYTECODE="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    (venv.parent / "home").mkdir(exist_ok=True)
    return env
