"""The evaluation style of toolchain tasks (issue 43): registered for ``kind = "toolchain"`` in
:data:`pytest_e2ebench.run.evaluation.EVALUATIONS` through :data:`EVALUATIONS` here.

Nothing is migrated and no virtual environment is built: the environment is the machine's
toolchain (checked on PATH) and, for a task with an npm lockfile, the packages it pins,
installed once into the session's shared folder (``npm ci --ignore-scripts`` in the sandbox,
its network the only one; the lockfile's integrity hashes pin every package) and bound
read-only into the suites. The suites run in :mod:`.runner`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ...errors import InfrastructureError
from ...run.cache import file_hash, key_of, locked
from ...run.evaluation import Environment, Outcomes
from ...run.plan import Steps
from . import toolchain_of
from .runner import ENV, run_suites

NPM_TIMEOUT = 900.0


class ToolchainSuite:
    """A project built and tested with the task's own toolchain commands."""

    __test__ = False
    drops_materials = True
    uses_browser = False
    shares_census = True

    def requires(self, task) -> tuple[str, ...]:
        """The tools the task names (part of the plan; nothing is installed for them)."""
        spec = toolchain_of(task)
        return tuple(spec.tools) if spec is not None else ()

    def migration(self, settings) -> str:
        """The task's tests run as they are: nothing is migrated."""
        return "none"

    def judge_mode(self, settings) -> str:
        """``--e2e-judge``."""
        return settings.judge

    def environment(self, steps: Steps, repo: Path, repo_hash: str) -> Environment:
        """The task's npm packages (shared by every run of the task), if it pins any."""
        task = steps.ctx.task
        spec = toolchain_of(task)
        if not spec.npm_lock:
            return Environment(Path(sys.executable), {"method": "toolchain", "ok": True}, "")
        lock = task.tests_dir / spec.npm_lock
        manifest = lock.with_name("package.json")
        name = f"npm-{key_of('npm', file_hash(lock), file_hash(manifest))[:12]}"
        shared = steps.settings.out / ".shared"
        with locked(shared):
            stage = steps.stage("toolchain-npm", name, folder=shared, lock=file_hash(lock))
            install = stage.load()
            if install is None:
                steps.ctx.progress({"doing": "installing the task's npm packages (npm ci)"})
                install = stage.commit(_npm_ci(stage.reset(), lock, manifest, steps.ctx.sandbox))
        return Environment(Path(sys.executable), install, stage.key)

    def run(self, steps: Steps, env: Environment, repo: Path, repo_hash: str) -> Outcomes:
        """Every suite of the task on the project (cached)."""
        task, ctx = steps.ctx.task, steps.ctx
        steps.now("tests")
        spec = toolchain_of(task).to_dict()
        stage = steps.stage("toolchain-eval", "eval", repo_hash=repo_hash, env=env.key, spec=spec)
        test_run = stage.load()
        if test_run is None:
            ctx.progress({"doing": "building and running the task's suites"})
            modules = env.install.get("node_modules")
            extended = run_suites(
                task, repo, stage.reset(), ctx.sandbox, steps.settings.timeout, modules
            )
            test_run = stage.commit({"extended": extended, "original": None, "all_coverage": None})
        return Outcomes(test_run, {}, stage.key)


def _npm_ci(folder: Path, lock: Path, manifest: Path, sandbox) -> dict:
    """``npm ci --ignore-scripts`` of the task's lockfile into ``folder`` (sandboxed, its
    network the only one); the install record (``node_modules``: where the packages are)."""
    if shutil.which("npm") is None:
        raise InfrastructureError("toolchain", "the task pins npm packages, but npm is not on PATH")
    for source in (lock, manifest):
        shutil.copy2(source, folder / source.name)
    cache = folder / ".npm-cache"
    done = sandbox.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--cache", str(cache)],
        cwd=folder,
        env={**ENV, "HOME": str(folder)},
        timeout=NPM_TIMEOUT,
        log=folder / "npm.log",
        writable=[folder],
        network=True,
    )
    if done.returncode != 0:
        raise InfrastructureError("toolchain", f"npm ci failed: {done.tail(5)}")
    shutil.rmtree(cache, ignore_errors=True)
    return {"method": "npm ci", "ok": True, "node_modules": str(folder / "node_modules")}


EVALUATIONS = {"toolchain": ToolchainSuite()}
