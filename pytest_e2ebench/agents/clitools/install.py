"""The tool cache of the built-in CLI agents: each version installed once, hash-checked,
outside the repository and read-only to every run.

``$E2EBENCH_CACHE/agents/<name>-<version>/`` (default ``~/.cache/pytest-e2ebench/agents``).
A version this package ships a lock for (``locks/<name>-<version>/``) is installed from it:
npm packages with ``npm ci`` (the lock's ``integrity`` sha512 of every package, checked by
npm), Python packages into a virtual environment of the system interpreter (the one the
sandbox has) with ``pip --require-hashes --no-deps``. Another version (``NAME@X.Y.Z``) gets a
lock made at first use from the registry's own hashes (``npm install --package-lock-only``,
``uv pip compile --generate-hashes``), kept beside the install and said in the record. Once
complete the folder is made read-only; the sandbox binds it read-only as well.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from pathlib import Path

from ...environment.source import cache_root
from ...errors import AgentError
from .specs import CLISpec

LOCKS = Path(__file__).parent / "locks"
SYSTEM_PYTHON = "/usr/bin/python3"  # the sandbox binds /usr: a venv of it runs there
INSTALL_TIMEOUT = 1800.0
DONE = ".e2ebench-installed"


def tool_root() -> Path:
    """Where the agents' installs are kept."""
    return cache_root() / "agents"


def pinned(spec: CLISpec, version: str) -> bool:
    """True when this package ships the lock of ``version``."""
    return (LOCKS / f"{spec.name}-{version}").is_dir()


def install(spec: CLISpec, version: str) -> Path:
    """The installed tool folder of ``spec`` at ``version`` (installed now if needed)."""
    folder = tool_root() / f"{spec.name}-{version}"
    if (folder / DONE).is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.parent / f".{folder.name}.lock"):
        if (folder / DONE).is_file():
            return folder  # another worker installed it meanwhile
        if folder.exists():
            _make_writable(folder)
            shutil.rmtree(folder)  # a half-made install of a killed session
        folder.mkdir()
        try:
            _lock_files(spec, version, folder)
            if spec.kind == "npm":
                command = ["npm", *spec.npm_install, "--no-audit", "--no-fund", "--ignore-scripts"]
                _run(command, folder, spec)
            else:
                _run([SYSTEM_PYTHON, "-m", "venv", str(folder)], folder, spec)
                pip = [str(folder / "bin/pip"), "install", "--isolated", "--no-input"]
                pip += ["--require-hashes", "--no-deps", "-r", "requirements.txt"]
                _run(pip, folder, spec)
            if not (folder / spec.binary).exists():
                raise AgentError(f"{spec.name} {version}: {spec.binary} is missing after install")
        except BaseException:
            _make_writable(folder)
            shutil.rmtree(folder, ignore_errors=True)
            raise
        (folder / DONE).write_text("pinned\n" if pinned(spec, version) else "locked at first use\n")
        _make_read_only(folder)
    return folder


def _lock_files(spec: CLISpec, version: str, folder: Path) -> None:
    """Copy the shipped lock into ``folder``, or make one from the registry's hashes."""
    shipped = LOCKS / f"{spec.name}-{version}"
    if shipped.is_dir():
        for path in shipped.iterdir():
            shutil.copyfile(path, folder / path.name)
        return
    if spec.kind == "npm":
        (folder / "package.json").write_text('{"name": "e2ebench-agent", "private": true}\n')
        command = ["npm", "install", "--package-lock-only", "--save-exact", "--no-audit"]
        _run([*command, "--no-fund", f"{spec.package}@{version}"], folder, spec)
        return
    (folder / "requirements.in").write_text(f"{spec.package}=={version}\n")
    uv = shutil.which("uv")
    if uv is None:
        raise AgentError(f"{spec.name}@{version}: locking an unshipped version needs uv")
    command = [uv, "pip", "compile", "--python", SYSTEM_PYTHON, "--generate-hashes"]
    _run([*command, "--no-header", "requirements.in", "-o", "requirements.txt"], folder, spec)


def _run(args: list[str], cwd: Path, spec: CLISpec) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "NPM_CONFIG_"))}
    try:
        done = subprocess.run(
            args, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AgentError(f"installing {spec.name}: {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-600:]
        raise AgentError(f"installing {spec.name}: `{' '.join(args[:3])}` failed: {tail}")


@contextlib.contextmanager
def _locked(path: Path):
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _make_read_only(folder: Path) -> None:
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
    folder.chmod(folder.stat().st_mode & ~0o222)


def _make_writable(folder: Path) -> None:
    for root, dirs, _ in os.walk(folder):
        for name in dirs:
            with contextlib.suppress(OSError):
                (Path(root) / name).chmod(0o755)
    with contextlib.suppress(OSError):
        folder.chmod(0o755)
