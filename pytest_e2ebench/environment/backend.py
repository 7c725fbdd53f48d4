"""A project's PEP 517 build: its backend runs only inside the sandbox, offline.

The hooks are called through :mod:`pyproject_hooks` with a runner that executes them with
:meth:`Sandbox.run`: the backend is imported by the build environment's interpreter (which the
sandbox may only read), in a scratch copy of the repository (the repo stage stays untouched),
writing the wheel into an empty folder. The sandbox may write only the scratch copy, the wheel
folder and pyproject-hooks' control folder. What the hook process leaves there is the agent's:
its result file is read as bounded data (a regular file, not a link), checked and written
again by the harness before pyproject-hooks reads it, and the wheel is copied out the same way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pyproject_hooks

from .. import __version__
from ..isolation.intake import copy_tree, read_regular
from ..isolation.sandbox import Sandbox
from ..run.cache import tree_hash
from ..untrusted.parse import loads_json
from .requirements import InstallRefused

HOOK_TIMEOUT = 600.0
MAX_RESULT = 1 << 20
MAX_WHEEL = 256 << 20
# Left out of the scratch copy: nothing a build needs, and possibly large.
_IGNORE = ("__pycache__", ".git", ".venv", "venv", ".tox", "node_modules")
_WHEEL_FILE = re.compile(r"^[\w.+!-]+\.whl$")


@dataclasses.dataclass(frozen=True)
class BuildFolders:
    """The folders of one build, under a harness-owned temporary folder ``root``."""

    root: Path

    @property
    def env(self) -> Path:
        """The build environment (read-only to the sandbox)."""
        return self.root / "env"

    @property
    def src(self) -> Path:
        """The scratch copy of the repository."""
        return self.root / "src"

    @property
    def out(self) -> Path:
        """The empty folder the backend writes its wheel into."""
        return self.root / "out"

    @property
    def checked(self) -> Path:
        """Where the harness keeps its own copy of the wheel (never bound into the sandbox)."""
        return self.root / "checked"

    def prepare(self, repo: Path) -> None:
        """Make the scratch copy and the empty folders; the sandbox user may read ``root``."""
        os.chmod(self.root, 0o755)  # mkdtemp makes it 0700
        report = copy_tree(repo, self.src, ignore=_IGNORE)
        if report.exceeded:
            raise InstallRefused(f"the project is too large to build ({report.exceeded})")
        self.out.mkdir()
        self.checked.mkdir()


@dataclasses.dataclass
class HookRunner:
    """Runs pyproject-hooks' hook process inside the sandbox (a pyproject-hooks runner)."""

    sandbox: Sandbox
    folders: BuildFolders
    logs: Path
    step: str = "build-backend"

    def env(self) -> dict[str, str]:
        """A minimal environment: nothing of the harness's (no keys, no index settings)."""
        return {
            "PATH": f"{self.folders.env / 'bin'}{os.pathsep}/usr/bin:/bin",
            "VIRTUAL_ENV": str(self.folders.env),
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
            "PIP_NO_INDEX": "1",  # a backend that shells out to pip stays offline, and says so
        }

    def __call__(
        self,
        cmd: Sequence[str],
        cwd: str | None = None,
        extra_environ: dict[str, str] | None = None,
    ) -> None:
        """Run one hook; InstallRefused when it fails, times out or leaves no valid result."""
        control, hook, script = Path(cmd[-1]), cmd[-2], Path(cmd[1])
        done = self.sandbox.run(
            list(cmd),
            cwd=Path(cwd or self.folders.src),
            env={**self.env(), **(extra_environ or {})},
            timeout=HOOK_TIMEOUT,
            log=self.logs / f"{self.step}.log",
            writable=[self.folders.src, self.folders.out, control],
            readable=[self.folders.env, script.parent],
            network=False,
        )
        if done.timed_out:
            raise InstallRefused(f"the build backend's {hook} timed out after {HOOK_TIMEOUT:g}s")
        if done.returncode != 0:
            raise InstallRefused(
                f"the build backend's {hook} failed (logs/{self.step}.log):\n{done.tail(30)}"
            )
        _rewrite_result(control / "output.json", hook)


def _rewrite_result(path: Path, hook: str) -> None:
    """Replace the hook's result file by a checked copy with only the fields the harness uses.

    Dropped: the backend's warnings (pyproject-hooks would re-emit them in the harness).
    """
    try:
        data = loads_json(read_regular(path, MAX_RESULT), f"the {hook} result file")
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise InstallRefused(f"the build backend's {hook} left no valid result")
    value = data.get("return_val")
    if hook == "build_wheel":
        ok = value is None or (isinstance(value, str) and _WHEEL_FILE.match(value))
    else:
        ok = value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if not ok:
        raise InstallRefused(f"the build backend's {hook} returned {str(value)[:80]!r}")
    clean = {"return_val": value}
    for flag in ("unsupported", "no_backend", "hook_missing"):
        clean[flag] = data.get(flag) is True
    for text in ("traceback", "backend_error", "missing_hook_name"):
        if isinstance(data.get(text), str):
            clean[text] = data[text][-4000:]
    path.unlink()
    path.write_text(json.dumps(clean), encoding="utf-8")


def hook_caller(system: dict, runner: HookRunner) -> pyproject_hooks.BuildBackendHookCaller:
    """The hook caller of the project's backend, running hooks through ``runner``."""
    try:
        return pyproject_hooks.BuildBackendHookCaller(
            str(runner.folders.src),
            system["build-backend"],
            backend_path=system["backend-path"],
            runner=runner,
            python_executable=str(runner.folders.env / "bin" / "python"),
        )
    except ValueError as exc:  # a backend-path outside the project
        raise InstallRefused(f"pyproject.toml: [build-system] backend-path: {exc}") from None


def _call(caller, runner: HookRunner, step: str, hook: str, *args):
    runner.step = step
    try:
        return getattr(caller, hook)(*args)
    except pyproject_hooks.BackendUnavailable as exc:
        raise InstallRefused(
            f"the build backend {caller.build_backend!r} cannot be imported "
            f"(logs/{step}.log):\n{exc.traceback[-2000:]}"
        ) from None
    except (pyproject_hooks.HookMissing, pyproject_hooks.UnsupportedOperation) as exc:
        raise InstallRefused(f"the build backend cannot {hook} ({exc})") from None


def requires_for_wheel(caller, runner: HookRunner) -> list[str]:
    """The backend's ``get_requires_for_build_wheel``, asked in the sandbox (not yet vetted)."""
    return list(_call(caller, runner, "build-backend", "get_requires_for_build_wheel") or [])


def build_wheel(caller, runner: HookRunner) -> Path:
    """Build the wheel in the sandbox; the harness's own copy of it, read without links."""
    folders = runner.folders
    name = _call(caller, runner, "build-wheel", "build_wheel", str(folders.out))
    if not name:
        raise InstallRefused("the build backend's build_wheel named no wheel")
    try:
        data = read_regular(folders.out / name, MAX_WHEEL)
    except (OSError, ValueError) as exc:
        raise InstallRefused(f"the built wheel {name} cannot be read ({exc})") from None
    wheel = folders.checked / name
    wheel.write_bytes(data)
    return wheel


def build_key(folders: BuildFolders, system: dict, sandbox: Sandbox) -> str:
    """What a wheel built in ``folders`` depends on, hashed: the scratch copy's bytes (taken
    before any hook ran), the ``[build-system]`` table, the build environment's distributions
    and versions, the interpreter, the harness's version and the sandbox mode."""
    site = next((folders.env / "lib").glob("python*/site-packages"), None)
    dists = sorted(p.name for p in site.glob("*.dist-info")) if site else []
    parts = [tree_hash(folders.src), system, dists, sys.version, __version__, sandbox.mode]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


STORE_ENV = "E2EBENCH_WHEEL_STORE"


def store_for(out: Path) -> Path:
    """The wheel store of a session writing to ``out``: its own ``.shared/wheels``, or the
    folder ``$E2EBENCH_WHEEL_STORE`` names (the project's test suite shares one fresh folder
    among all its sessions; whoever can write that folder chooses the wheels installed)."""
    return store_in(out / ".shared")


def store_in(shared: Path) -> Path:
    """The wheel store of the session whose harness folder is ``shared`` (``<out>/.shared``):
    see :func:`store_for`."""
    env = os.environ.get(STORE_ENV)
    return Path(env) if env else shared / "wheels"


def reuse(store: Path | None, key: str, folders: BuildFolders, logs: Path) -> Path | None:
    """The wheel an earlier build of the same ``key`` left in ``store``, copied into the
    harness's own folder (read as bounded data, no links), or None.

    ``store`` is the harness's (never bound into a sandbox): a wheel gets there only after a
    build succeeded and was read back by :func:`build_wheel`, so a hit skips exactly the two
    sandboxed hook runs that would rebuild the same bytes (issue 27).
    """
    entry = store / key if store else None
    if entry is None or not entry.is_dir():
        return None
    names = [p.name for p in entry.iterdir() if _WHEEL_FILE.match(p.name)]
    if len(names) != 1:
        return None
    try:
        data = read_regular(entry / names[0], MAX_WHEEL)
    except (OSError, ValueError):
        return None
    wheel = folders.checked / names[0]
    wheel.write_bytes(data)
    (logs / "build-wheel.log").write_text(
        f"reused {names[0]}, built earlier from identical content (key {key})\n"
    )
    return wheel


def keep(store: Path | None, key: str, wheel: Path) -> None:
    """Put the harness's copy of a built ``wheel`` into ``store`` under ``key`` (atomically:
    a concurrent run sees the whole entry or none)."""
    if store is None:
        return
    store.mkdir(parents=True, exist_ok=True, mode=0o700)
    staging = store / f".{key}.{os.getpid()}"
    staging.mkdir(mode=0o700)
    (staging / wheel.name).write_bytes(wheel.read_bytes())
    try:
        staging.rename(store / key)
    except OSError:  # another run kept the same key first: its wheel is as good
        for leftover in staging.iterdir():
            leftover.unlink()
        staging.rmdir()
