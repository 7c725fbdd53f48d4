"""Build one virtual environment per (task, agent, run) with uv and install the project.

The environment gets the harness's own versions of pytest, coverage and pytest-timeout (so a
test run measures the project, not a tool upgrade) and then the generated project, editable so
coverage sees its files where they are. Failing to create the environment or to install the
harness's tools is an infrastructure error; a project that does not install is the agent's
failure and is recorded, not raised.

Only the harness talks to the package index. The project is installed PEP 517-style with the
isolation done by hand: the harness installs ``[build-system] requires``; the build backend,
asked inside the sandbox and offline, names any further build requirements, which the harness
installs; the project is built and installed inside the sandbox, offline, without
dependencies; then the harness installs the runtime dependencies its built metadata declares
(constrained to the harness's tool versions). An unreachable index is an infrastructure error;
a requirement the index does not have, a build that fails, or dependencies that conflict with
the test tools are the agent's failure.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import json
import os
import re
import sys
import tomllib
from pathlib import Path

from . import process
from .errors import InfrastructureError
from .sandbox import Sandbox
from .workspace import is_installable

TOOLS = ("pytest", "coverage", "pytest-timeout")
INSTALL_TIMEOUT = 600.0


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
    return {"python": sys.version, "tools": tool_requirements(), "uv": uv_binary()}


def python_of(venv: Path) -> Path:
    """The interpreter of a virtual environment."""
    return venv / "bin" / "python"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["UV_PYTHON_DOWNLOADS"] = "never"  # never fetch an interpreter: use the harness's
    env["UV_LINK_MODE"] = "copy"  # the sandbox puts the cache on another mount
    env.setdefault("UV_NO_PROGRESS", "1")
    return env


@dataclasses.dataclass(frozen=True)
class InstallResult:
    """How the generated project got into the environment."""

    method: str  # "editable" | "path" (no packaging: root and src/ on sys.path) | "served" (web)
    ok: bool
    log: str

    def to_dict(self) -> dict:
        """JSON-able form."""
        return dataclasses.asdict(self)


def _create(
    venv: Path, logs: Path, packages: list[str], *, stage: str, seed: bool = False, prefix: str = ""
) -> None:
    """Create ``venv`` with uv and install ``packages`` (harness code only, no project code).

    Failing here is never the agent's fault: an :class:`InfrastructureError` of ``stage``.
    """
    uv, env = uv_binary(), _env()
    logs.mkdir(parents=True, exist_ok=True)

    def step(name: str, args: list[str]) -> process.Completed:
        return process.run(
            args, cwd=logs, env=env, timeout=INSTALL_TIMEOUT, log=logs / f"{prefix}{name}.log"
        )

    made = step(
        "venv",
        [
            uv,
            "venv",
            "--quiet",
            *(["--seed"] if seed else []),
            "--python",
            sys.executable,
            str(venv),
        ],
    )
    if made.returncode != 0:
        raise InfrastructureError(stage, f"uv venv failed:\n{made.tail()}")
    tools = step(
        "tools", [uv, "pip", "install", "--quiet", "--python", str(python_of(venv)), *packages]
    )
    if tools.returncode != 0:
        raise InfrastructureError(
            stage,
            f"installing {', '.join(packages)} failed; is the package index reachable?\n"
            f"{tools.tail()}",
        )


def build(
    venv: Path,
    repo: Path,
    logs: Path,
    test_requires: tuple[str, ...] = (),
    sandbox: Sandbox | None = None,
    *,
    install_project: bool = True,
) -> InstallResult:
    """Create ``venv``, install the test tools (plus a task's ``test_requires``) and the project.

    The task's test requirements are the harness's: failing to install them is an
    infrastructure error, like failing to install pytest. A web app is not installed
    (``install_project=False``): it is served, and no test process imports it.
    """
    _create(venv, logs, [*tool_requirements(), *test_requires], stage="venv")
    if not install_project:
        return InstallResult("served", True, "a web app: served from the repository, not installed")
    uv, env, py = uv_binary(), _env(), str(python_of(venv))
    logs.mkdir(parents=True, exist_ok=True)
    if not is_installable(repo):
        site = _site_packages(venv)
        paths = [str(repo)] + ([str(repo / "src")] if (repo / "src").is_dir() else [])
        (site / "_e2ebench_project.pth").write_text("\n".join(paths) + "\n")
        return InstallResult("path", True, "no pyproject.toml/setup.py: project root on sys.path")
    # The project's build code is the agent's: it runs only inside the sandbox and offline.
    # Everything fetched from the package index is fetched by the harness (uv, no project
    # code): the build requirements first, then what the build backend asks for, then the
    # runtime dependencies the built metadata declares.
    sandbox = sandbox or Sandbox()
    cache = Path(env.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    cache.mkdir(parents=True, exist_ok=True)
    constraints = logs / "tool-constraints.txt"
    constraints.write_text("\n".join(tool_requirements()) + "\n")

    def fetch(what: str, requirements: list[str]) -> InstallResult | None:
        """Install index packages (harness, online); the failure if they do not install."""
        if not requirements:
            return None
        reqs = logs / f"{what}.txt"
        reqs.write_text("\n".join(requirements) + "\n")
        done = process.run(
            [uv, "pip", "install", "--python", py, "-r", str(reqs), "-c", str(constraints)],
            cwd=logs,
            env=env,
            timeout=INSTALL_TIMEOUT,
            log=logs / f"{what}.log",
        )
        if done.returncode == 0:
            return None
        if _UNREACHABLE.search(done.output):
            raise InfrastructureError(
                "venv", f"the package index is unreachable while installing {what}:\n{done.tail()}"
            )
        return InstallResult(
            "editable", False, f"the project's {what} did not install:\n{done.tail(40)}"
        )

    def sandboxed(name: str, args: list[str]) -> process.Completed:
        done = sandbox.run(
            args,
            cwd=repo,
            env=env,
            timeout=INSTALL_TIMEOUT,
            log=logs / f"{name}.log",
            writable=[venv, repo, cache],
            network=False,
            drop=False,
        )
        if done.returncode != 0 and done.output.startswith("bwrap:"):
            raise InfrastructureError(
                "sandbox", f"the sandbox could not run the install: {done.tail(3)}"
            )
        return done

    try:
        system = _build_system(repo)
    except ValueError as exc:
        return InstallResult("editable", False, f"pyproject.toml: {exc}")
    static = system["requires"]
    failed = fetch("build-requirements", static)
    if failed:
        return failed
    asked = sandboxed(
        "build-backend",
        [py, "-c", _ASK_BACKEND, system["build-backend"], *system["backend-path"]],
    )
    dynamic = _last_json_line(asked.output) if asked.returncode == 0 else None
    if dynamic is None:
        return InstallResult("editable", False, f"the build backend failed:\n{asked.tail(40)}")
    failed = fetch("backend-requirements", [r for r in dynamic if r not in static])
    if failed:
        return failed
    site = _site_packages(venv)
    before = set(site.glob("*.dist-info"))
    project = sandboxed(
        "project",
        [
            uv,
            "pip",
            "install",
            "--python",
            py,
            "--offline",
            "--no-build-isolation",
            "--no-deps",
            "-e",
            str(repo),
        ],
    )
    if project.timed_out:
        return InstallResult("editable", False, f"install timed out after {INSTALL_TIMEOUT:g}s")
    if project.returncode != 0:
        return InstallResult("editable", False, project.tail(40))
    new = sorted(set(site.glob("*.dist-info")) - before)
    built = [importlib.metadata.PathDistribution(d) for d in new]
    # uv evaluates each requirement's markers (an optional extra's are false) as pip would.
    failed = fetch("dependencies", (built[0].requires or []) if built else [])
    if failed and built:
        # As with a failed ``pip install``: a project whose dependencies are missing is not
        # left installed half-way.
        process.run(
            [uv, "pip", "uninstall", "--python", py, built[0].metadata["Name"]],
            cwd=logs,
            env=env,
            timeout=INSTALL_TIMEOUT,
            log=logs / "uninstall.log",
        )
    return failed or InstallResult("editable", True, project.tail(40))


# What the build backend wants besides its static requirements (PEP 517
# get_requires_for_build_editable), asked inside the sandbox, offline; printed as JSON.
# Arguments: the backend, then its backend-path entries.
_ASK_BACKEND = """\
import importlib, json, os, sys
name, paths = sys.argv[1], sys.argv[2:]
sys.path[:0] = [os.path.abspath(p) for p in paths]
module, _, attrs = name.partition(":")
backend = importlib.import_module(module)
for attr in filter(None, attrs.split(".")):
    backend = getattr(backend, attr)
hook = getattr(backend, "get_requires_for_build_editable", None) or getattr(
    backend, "get_requires_for_build_wheel", None)
print(json.dumps(list(hook()) if hook else []))
"""
_UNREACHABLE = re.compile(
    r"Failed to fetch|error sending request|dns error|Connection refused|Could not connect|"
    r"network is unreachable|tcp connect error|offline mode|Network connectivity is disabled",
    re.IGNORECASE,
)


# PEP 517/518 defaults for a project that does not name its build system
_LEGACY_BUILD_SYSTEM = {
    "requires": ["setuptools>=40.8.0"],
    "build-backend": "setuptools.build_meta:__legacy__",
    "backend-path": [],
}


def _build_system(repo: Path) -> dict:
    """``[build-system]`` of the project with the PEP 517/518 defaults filled in.

    Raises ValueError for a pyproject.toml that is not valid TOML or a malformed table.
    """
    path = repo / "pyproject.toml"
    if not path.is_file():
        return dict(_LEGACY_BUILD_SYSTEM)
    try:
        declared = tomllib.loads(path.read_text(encoding="utf-8")).get("build-system", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid TOML ({exc})") from None
    system = {**_LEGACY_BUILD_SYSTEM, **declared}
    for field in ("requires", "backend-path"):
        if not isinstance(system[field], list) or not all(
            isinstance(r, str) for r in system[field]
        ):
            raise ValueError(f"[build-system] {field} must be a list of strings")
    if not isinstance(system["build-backend"], str):
        raise ValueError("[build-system] build-backend must be a string")
    return system


def _site_packages(venv: Path) -> Path:
    """The site-packages folder of a virtual environment."""
    return next((venv / "lib").glob("python*/site-packages"))


def _last_json_line(output: str) -> list[str] | None:
    for line in reversed(output.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        return None
    return None


def agent_env(venv: Path, logs: Path) -> dict[str, str]:
    """An environment for an agent's shell: a fresh venv with pip and pytest, first on PATH.

    The agent installs its own project into it if it wants to; the graded environment is
    built separately, from the repository alone.
    """
    if not python_of(venv).exists():
        # setuptools: so the agent can pip install --no-build-isolation without a network
        _create(
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
