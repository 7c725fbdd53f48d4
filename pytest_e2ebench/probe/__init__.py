"""The probe plugin loaded into test runs inside a task's virtual environment.

``e2ebench_probe.py`` must import nothing but pytest and the standard library: it runs in the
generated project's environment, where pytest-e2ebench itself is not installed.
"""

import compileall
import contextlib
import os
from pathlib import Path

PROBE_DIR = Path(__file__).parent
PROBE_PLUGIN = "e2ebench_probe"
NOCOV_PLUGIN = "e2ebench_nocov"  # pytest-cov's options, ignored, for a project's own suite
PV_PLUGIN = "e2ebench_pv"  # the pv fixture of ProjectEval-style tasks (issue #17)
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")  # from the harness's environment


def project_env(venv_python: Path, home: Path) -> dict[str, str]:
    """The environment of a process run with a project's environment ``venv_python``: a test
    run, a check's command, an app session. The probe's folder is on ``PYTHONPATH``; nothing
    of the harness's environment passes but :data:`KEEP_ENV`."""
    env = {k: os.environ[k] for k in KEEP_ENV if k in os.environ}
    env["PATH"] = f"{venv_python.parent}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.update(
        PYTHONPATH=str(PROBE_DIR),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTHONDONTWRITEBYTECODE="1",
        # `python -m` in the project's folder (the agent's own suite) must not put that folder
        # first on sys.path: a module there named like a test tool would shadow it
        PYTHONSAFEPATH="1",
        PYTHONHASHSEED="0",
        PYTHONIOENCODING="utf-8",
        HOME=str(home),
        TZ="UTC",
        VIRTUAL_ENV=str(venv_python.parent.parent),
    )
    env.setdefault("LANG", "C.UTF-8")
    return env


def compile_probe() -> None:
    """Byte-compile the probe's modules where they are, when that folder is writable (an
    editable install has no bytecode; pip compiles a wheel's): every test run imports them
    with bytecode writing off and would compile them again (about 60 ms each; issue 27).
    Best effort: a read-only install only loses that time."""
    with contextlib.suppress(OSError):
        compileall.compile_dir(PROBE_DIR, maxlevels=0, quiet=2)
