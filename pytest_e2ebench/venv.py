"""Build one virtual environment per (task, agent, run) with uv and install the project.

The environment gets the harness's own versions of pytest, coverage and pytest-timeout (so a
test run measures the project, not a tool upgrade) and then the generated project, editable so
coverage sees its files where they are. Failing to create the environment or to install the
harness's tools is an infrastructure error; a project that does not install is the agent's
failure and is recorded, not raised.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import os
import sys
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


@functools.cache
def tool_requirements() -> tuple[str, ...]:
    """``name==version`` of the test tools, pinned to what the harness runs with."""
    pins = []
    for name in TOOLS:
        try:
            pins.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            pins.append(name)
    return tuple(pins)


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
    if not is_installable(repo):
        site = next((venv / "lib").glob("python*/site-packages"))
        paths = [str(repo)] + ([str(repo / "src")] if (repo / "src").is_dir() else [])
        (site / "_e2ebench_project.pth").write_text("\n".join(paths) + "\n")
        return InstallResult("path", True, "no pyproject.toml/setup.py: project root on sys.path")
    # Installing runs the project's build code: sandboxed, with the network it needs for the
    # build requirements (the only network access generated code gets).
    sandbox = sandbox or Sandbox()
    cache = Path(env.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    cache.mkdir(parents=True, exist_ok=True)
    project = sandbox.run(
        [uv, "pip", "install", "--python", py, "-e", str(repo)],
        cwd=repo,
        env=env,
        timeout=INSTALL_TIMEOUT,
        log=logs / "project.log",
        writable=[venv, repo, cache],
        network=True,
        drop=False,
    )
    if project.returncode != 0 and project.output.startswith("bwrap:"):
        raise InfrastructureError(
            "sandbox", f"the sandbox could not run the install: {project.tail(3)}"
        )
    if project.timed_out:
        return InstallResult("editable", False, f"install timed out after {INSTALL_TIMEOUT:g}s")
    return InstallResult("editable", project.returncode == 0, project.tail(40))


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
