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


# Run in the sandbox by the build environment's interpreter instead of pyproject-hooks' script
# alone: that script answers get_requires_for_build_wheel and then, in the same process, when
# the backend asked for nothing beyond the build environment's requirements, build_wheel into
# a second control folder (one sandbox and interpreter start per build instead of two; the
# harness uses that result only if it, too, finds nothing new was asked: HookRunner.answer).
_PAIR_SCRIPT = """\
import importlib.util, json, os, sys, traceback
script, first, second, known = sys.argv[1:5]
here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != here]
spec = importlib.util.spec_from_file_location("_in_process", script)
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)
sys.argv = [script, "get_requires_for_build_wheel", first]
hooks.main()
with open(os.path.join(first, "output.json")) as fh:
    asked = json.load(fh).get("return_val")
if isinstance(asked, list) and set(asked) <= set(json.loads(known)):
    sys.argv = [script, "build_wheel", second]
    open(os.path.join(second, "started"), "w").close()  # a failure from here is build_wheel's
    try:
        hooks.main()
    except BaseException:
        traceback.print_exc()  # the harness runs build_wheel on its own: it fails there
"""
_PAIR_NAME = "e2ebench_hook_pair.py"


@dataclasses.dataclass
class HookRunner:
    """Runs pyproject-hooks' hook process inside the sandbox (a pyproject-hooks runner).

    ``known``: the build environment's requirements; given, get_requires_for_build_wheel and
    a speculative build_wheel share one process (:data:`_PAIR_SCRIPT`), whose wheel result
    answers the later build_wheel call (:meth:`answer`) unless :meth:`discard` was called.
    """

    sandbox: Sandbox
    folders: BuildFolders
    logs: Path
    step: str = "build-backend"
    known: tuple[str, ...] | None = None
    # (build_wheel's input, its output.json or how the process failed in it)
    speculative: tuple[dict, bytes | InstallRefused] | None = None

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
        if hook == "build_wheel" and self.answer(control):
            return
        if hook == "get_requires_for_build_wheel" and self.known is not None:
            self._paired(list(cmd), control, cwd, extra_environ)
            return
        done = self._run(list(cmd), control, cwd, extra_environ, [script.parent])
        self._check(done, hook)
        _rewrite_result(control / "output.json", hook)

    def _check(self, done, hook: str) -> None:
        """InstallRefused when the hook's process timed out or failed."""
        if done.timed_out:
            raise InstallRefused(f"the build backend's {hook} timed out after {HOOK_TIMEOUT:g}s")
        if done.returncode != 0:
            raise InstallRefused(
                f"the build backend's {hook} failed (logs/{self.step}.log):\n{done.tail(30)}"
            )

    def _run(self, args: list[str], control: Path, cwd, extra_environ, readable: list[Path]):
        return self.sandbox.run(
            args,
            cwd=Path(cwd or self.folders.src),
            env={**self.env(), **(extra_environ or {})},
            timeout=HOOK_TIMEOUT,
            log=self.logs / f"{self.step}.log",
            writable=[self.folders.src, self.folders.out, control],
            readable=[self.folders.env, *readable],
            network=False,
        )

    def _paired(self, cmd: list[str], control: Path, cwd, extra_environ) -> None:
        """get_requires_for_build_wheel with a speculative build_wheel in one process.

        InstallRefused as for the hook alone when the process failed before the build began;
        a failure after it began is build_wheel's, raised when build_wheel is asked
        (:meth:`answer`), so a failing build runs once, as without pairing."""
        pair = self.folders.root / "pair"
        pair.mkdir(exist_ok=True)
        (pair / _PAIR_NAME).write_text(_PAIR_SCRIPT, encoding="utf-8")
        second = control / "wheel"
        second.mkdir()
        kwargs = {"wheel_directory": os.path.abspath(self.folders.out)}
        kwargs.update(config_settings=None, metadata_directory=None)
        (second / "input.json").write_text(json.dumps({"kwargs": kwargs}), encoding="utf-8")
        known = json.dumps(list(self.known or ()))
        args = [cmd[0], str(pair / _PAIR_NAME), cmd[1], str(control), str(second), known]
        done = self._run(args, control, cwd, extra_environ, [Path(cmd[1]).parent, pair])
        if (second / "started").exists():
            try:
                self._check(done, "build_wheel")
            except InstallRefused as exc:
                self.speculative = ({"kwargs": kwargs}, exc)
        else:
            self._check(done, "get_requires_for_build_wheel")
        _rewrite_result(control / "output.json", "get_requires_for_build_wheel")
        if self.speculative is None:
            try:
                result = read_regular(second / "output.json", MAX_RESULT)
            except (OSError, ValueError):
                return  # not built (something new asked, or it failed)
            self.speculative = ({"kwargs": kwargs}, result)

    def discard(self) -> None:
        """Forget the speculative wheel (the backend asked for more: build with it)."""
        self.speculative = None

    def answer(self, control: Path) -> bool:
        """Answer build_wheel from the speculative build, if there is one for the same input:
        its result file checked like any other (:func:`_rewrite_result`)."""
        kept, self.speculative = self.speculative, None
        if kept is None:
            return False
        try:
            asked = loads_json(read_regular(control / "input.json", MAX_RESULT), "input.json")
        except (OSError, ValueError):
            return False
        if asked != kept[0]:
            return False
        if isinstance(kept[1], InstallRefused):
            raise kept[1]
        (control / "output.json").write_bytes(kept[1])
        _rewrite_result(control / "output.json", "build_wheel")
        shared = self.logs / "build-backend.log"
        log = shared.read_text(errors="replace") if shared.is_file() else ""
        (self.logs / "build-wheel.log").write_text(
            "built by the process of get_requires_for_build_wheel (the backend asked for "
            "nothing new); that process's output:\n" + log
        )
        return True


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
