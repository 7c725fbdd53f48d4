"""Installing a generated project: no byte the agent wrote runs outside the sandbox.

Issue 11, classes 2b, 2c, 3 and the install half of 8: requirements are vetted before the
harness's uv sees them, the build runs in the sandbox and cannot write into the test
environment or the uv cache, the wheel is inspected before the harness installs it, a
project's root is never on ``sys.path``, and an unreachable index is decided by the harness.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import re
import socket
import sysconfig
import threading
import zipfile
from pathlib import Path

import pytest
from helpers.attacks import PATCH_PYTEST as FORGE  # makes every test pass, if it ever runs
from helpers.batch import SharedSession, batch_folder
from helpers.tasks import CALC_CODE, CALC_TESTS

from pytest_e2ebench.environment import finder, integrity, venv, wheel
from pytest_e2ebench.environment.requirements import InstallRefused, build_system, vet
from pytest_e2ebench.errors import InfrastructureError
from pytest_e2ebench.isolation import process
from pytest_e2ebench.isolation.sandbox import resolve_mode

RUN = Path(".e2ebench", "dir-out", "calc", "run-1")
WRONG_ADD = dict(CALC_CODE, add="def add(a, b):\n    return 0\n")
needs_bwrap = pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)


def _install_data(pytester) -> dict:
    """What the venv stage recorded about the project's install."""
    return json.loads((pytester.path / RUN / "venv.json").read_text())["data"]


def _site(pytester) -> Path:
    return integrity.site_packages(pytester.path / RUN / "venv")


# --- requirements: only index requirements reach the harness's uv ---------------------------


@pytest.mark.parametrize(
    "text, written",
    [
        ("setuptools>=61", "setuptools>=61"),
        ("flit_core >=3.2,<4", "flit-core<4,>=3.2"),
        ("Wheel; python_version >= '3'", 'wheel; python_version >= "3"'),
        ("Name[b,a]==1.0", "name[a,b]==1.0"),
        ("evil.whl", "evil-whl"),  # never a file name in a requirements file
    ],
)
def test_index_requirements_pass_in_canonical_form(text, written):
    assert vet([text], "field") == [written]


@pytest.mark.parametrize(
    "text, says",
    [
        ("evil @ file:///tmp/evil", "direct reference"),
        ("evil @ https://example.org/evil-1.0.tar.gz", "direct reference"),
        ("./vendor/evil", "not a requirement"),
        ("--index-url http://127.0.0.1:9/simple", "not a requirement"),
    ],
)
def test_references_paths_and_options_are_refused_naming_the_field(text, says):
    with pytest.raises(InstallRefused, match=f"pyproject.toml .build-system. requires: .*{says}"):
        vet(["setuptools", text], "pyproject.toml [build-system] requires")


def test_a_requirements_field_that_is_not_a_list_of_strings_is_refused():
    with pytest.raises(InstallRefused, match="must be a list of strings"):
        vet("setuptools", "pyproject.toml [build-system] requires")


def test_an_invalid_pyproject_names_the_file_and_the_reason(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[build-system\nrequires = 1\n")
    with pytest.raises(InstallRefused, match=r"^pyproject.toml: not valid TOML \(.+\)"):
        build_system(tmp_path)


def test_a_pyproject_that_is_a_link_is_not_followed(tmp_path):
    secret = tmp_path / "secret.toml"
    secret.write_text("[build-system]\nrequires = []\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").symlink_to(secret)
    with pytest.raises(InstallRefused, match="pyproject.toml: is or lies behind a symbolic link"):
        build_system(repo)


def test_a_project_without_a_build_system_gets_the_legacy_backend(tmp_path):
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    assert build_system(tmp_path)["build-backend"] == "setuptools.build_meta:__legacy__"


# --- the wheel, inspected as data --------------------------------------------------------


def make_wheel(where: Path, files: dict[str, str], name: str = "calc") -> Path:
    """A wheel holding ``files`` plus minimal metadata (a RECORD with real hashes)."""
    info = f"{name}-0.1.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        record.append(f"{path},sha256={base64.urlsafe_b64encode(digest).rstrip(b'=').decode()},")
    path = where / f"{name}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in files.items():
            zf.writestr(rel, text)
        zf.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return path


def _inspect(path: Path) -> wheel.WheelContents:
    return wheel.inspect(
        path,
        reserved=integrity.HARNESS_NAMES | {"packaging"},
        commands=frozenset({"python", "pytest"}),
        dists=frozenset({"pytest", "packaging"}),
    )


def test_a_clean_wheel_says_what_it_installs(tmp_path):
    path = make_wheel(
        tmp_path,
        {
            "calc/__init__.py": "",
            "helpers.py": "",
            "calc-0.1.data/purelib/extra/__init__.py": "",
            "calc-0.1.data/scripts/calc-tool": "#!python\n",
            "calc-0.1.data/data/share/calc/readme.txt": "",
            "calc-0.1.dist-info/entry_points.txt": "[console_scripts]\ncalc = calc:main\n",
        },
    )
    assert _inspect(path).top_level == ("calc", "extra", "helpers")


@pytest.mark.parametrize(
    "rel, says",
    [
        ("zz_forge.pth", "ships a .pth file (zz_forge.pth)"),
        ("calc/deep/zz.pth", "ships a .pth file (calc/deep/zz.pth)"),
        ("_pytest/runner.py", "ships '_pytest' (_pytest/runner.py), a name of the test tools"),
        ("pytest.py", "ships 'pytest'"),
        ("packaging/version.py", "ships 'packaging'"),  # derived from RECORDs, not a hand list
        ("sitecustomize.py", "ships a sitecustomize module"),
        ("usercustomize/__init__.py", "ships a usercustomize module"),
        ("calc-0.1.data/purelib/zz.pth", "ships a .pth file"),
        ("calc-0.1.data/platlib/pluggy/__init__.py", "ships 'pluggy'"),
        ("calc-0.1.data/data/lib/python3.11/site-packages/x.py", "outside share/"),
        ("calc-0.1.data/scripts/python", "over the environment's 'python'"),
        ("pytest-9.0.dist-info/RECORD", "another distribution's metadata"),
        ("../outside.py", "unsafe path"),
        ("/etc/evil.py", "unsafe path"),
    ],
)
def test_a_wheel_that_would_load_code_into_the_test_process_is_refused(tmp_path, rel, says):
    path = make_wheel(tmp_path, {"calc/__init__.py": "", rel: FORGE})
    with pytest.raises(InstallRefused, match=re.escape(says)):
        _inspect(path)


def test_a_console_script_over_an_environment_command_is_refused(tmp_path):
    scripts = "[console_scripts]\npytest = calc:main\n"
    path = make_wheel(
        tmp_path, {"calc/__init__.py": "", "calc-0.1.dist-info/entry_points.txt": scripts}
    )
    with pytest.raises(InstallRefused, match="a command over the environment's 'pytest'"):
        _inspect(path)


def test_a_project_named_like_a_test_tool_distribution_is_refused(tmp_path):
    path = make_wheel(tmp_path, {"mytool/__init__.py": ""}, name="pytest")
    with pytest.raises(InstallRefused, match="named 'pytest' like a distribution"):
        _inspect(path)


def test_a_wheel_too_big_to_unpack_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(wheel, "MAX_ENTRIES", 3)
    path = make_wheel(tmp_path, {f"calc/m{i}.py": "" for i in range(5)})
    with pytest.raises(InstallRefused, match="more than 3 entries"):
        _inspect(path)


# --- the test tools' files, before and after --------------------------------------------


def _fake_venv(root: Path) -> Path:
    site = root / "lib" / "python3.11" / "site-packages"
    (site / "_pytest").mkdir(parents=True)
    (site / "_pytest" / "runner.py").write_text("def runtestprotocol(): ...\n")
    (site / "pytest-9.0.dist-info").mkdir()
    (site / "pytest-9.0.dist-info" / "RECORD").write_text(
        "_pytest/runner.py,sha256=x,1\npytest-9.0.dist-info/RECORD,,\n../../../bin/pytest,,\n"
    )
    (root / "bin").mkdir()
    (root / "bin" / "pytest").write_text("#!/bin/sh\n")
    (root / "bin" / "python").symlink_to("/usr/bin/python3")
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return site


def test_a_dependency_that_changes_pytests_files_is_named(tmp_path):
    site = _fake_venv(tmp_path)
    before = integrity.snapshot(tmp_path)
    assert {"_pytest", "pytest", "py", "e2ebench_probe"} <= before.names
    assert before.pins() == ["pytest==9.0"]
    integrity.check(tmp_path, before)  # unchanged: fine
    (site / "evil-1.0.dist-info").mkdir()
    (site / "evil-1.0.dist-info" / "RECORD").write_text("_pytest/runner.py,,\n")
    (site / "_pytest" / "runner.py").write_text("FORGED = True\n")
    with pytest.raises(
        InstallRefused,
        match=r"dependency evil changed pytest's files \(lib/python3.11/site-packages/_pytest/runner.py\)",
    ):
        integrity.check(tmp_path, before)


def test_a_replaced_python_in_bin_is_noticed(tmp_path):
    _fake_venv(tmp_path)
    before = integrity.snapshot(tmp_path)
    (tmp_path / "bin" / "python").unlink()
    (tmp_path / "bin" / "python").write_text("#!/bin/sh\n")
    with pytest.raises(
        InstallRefused, match=r"changed the virtual environment's files \(bin/python\)"
    ):
        integrity.check(tmp_path, before)


def test_a_dependency_that_adds_startup_code_is_named_unless_it_is_setuptools(tmp_path):
    site = _fake_venv(tmp_path)
    before = integrity.snapshot(tmp_path)
    (site / "setuptools-80.0.dist-info").mkdir()
    (site / "setuptools-80.0.dist-info" / "RECORD").write_text("distutils-precedence.pth,,\n")
    (site / "distutils-precedence.pth").write_text("import os\n")
    (site / finder.PTH_FILE).write_text(f"import {finder.FINDER_MODULE}\n")
    integrity.check(tmp_path, before, allowed=frozenset({finder.PTH_FILE}))
    (site / "evil-1.0.dist-info").mkdir()
    (site / "evil-1.0.dist-info" / "RECORD").write_text("zz_forge.pth,,\n")
    (site / "zz_forge.pth").write_text(FORGE)
    with pytest.raises(
        InstallRefused, match=r"dependency evil added zz_forge.pth to site-packages"
    ):
        integrity.check(tmp_path, before, allowed=frozenset({finder.PTH_FILE}))


# --- the import finder ------------------------------------------------------------------


def test_a_project_without_packaging_exposes_only_its_own_names(tmp_path):
    for rel in [
        "calc/__init__.py",
        "tools.py",
        "sitecustomize.py",
        "usercustomize.py",
        "conftest.py",
        "setup.py",
        "test_calc.py",
        "pytest_timeout.py",
        "tests/test_x.py",
        "docs/readme.txt",
        "src/engine/__init__.py",
        "src/calc/__init__.py",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "linked.py").symlink_to(tmp_path / "tools.py")
    roots = finder.project_names(tmp_path, integrity.HARNESS_NAMES)
    assert roots == {
        "calc": str(tmp_path),  # the root wins over src/
        "tools": str(tmp_path),
        "engine": str(tmp_path / "src"),
    }


def test_modules_directly_in_src_are_also_importable_as_src_dot_name(tmp_path):
    """DevEval's tests import ``src.hybrid``; a bare ``sitecustomize`` in src/ stays out."""
    for rel in ["src/hybrid.py", "src/sitecustomize.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    roots = finder.project_names(tmp_path, integrity.HARNESS_NAMES)
    assert roots == {"src": str(tmp_path), "hybrid": str(tmp_path / "src")}


def test_a_wheels_names_are_found_at_the_root_in_src_or_one_folder_down(tmp_path):
    for rel in ["a/__init__.py", "src/b/__init__.py", "lib/c.py", "tests/d/__init__.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    roots = finder.locate(tmp_path, ["a", "b", "c", "tests", "generated"])
    assert roots == {"a": str(tmp_path), "b": str(tmp_path / "src"), "c": str(tmp_path / "lib")}


# --- the package index, asked by the harness ---------------------------------------------


class _Index(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the standard library's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<html></html>")

    def log_message(self, *args):
        pass


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_index_is_reachable_when_it_answers_the_harness(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.delenv("UV_OFFLINE", raising=False)
        monkeypatch.delenv("UV_INDEX_URL", raising=False)
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"http://127.0.0.1:{server.server_port}/simple")
        assert venv.index_reachable()
        monkeypatch.setenv("UV_OFFLINE", "1")
        assert not venv.index_reachable()
    finally:
        server.shutdown()
        server.server_close()
    monkeypatch.delenv("UV_OFFLINE")
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"http://127.0.0.1:{_closed_port()}/simple")
    assert not venv.index_reachable(timeout=2)


@pytest.mark.parametrize("reachable", [True, False])
def test_uvs_words_do_not_decide_who_failed(tmp_path, monkeypatch, reachable):
    # A project can make uv print anything, "dns error" included: only the harness's own
    # request to the index decides.
    said = "error: Failed to fetch: dns error: tcp connect error: Connection refused"
    failed = process.Completed(["uv"], 2, said, 0.1, False, False)
    monkeypatch.setattr(venv, "_uv", lambda *args, **kwargs: failed)
    monkeypatch.setattr(venv, "index_reachable", lambda: reachable)
    expected = InstallRefused if reachable else InfrastructureError
    with pytest.raises(expected, match="dependencies"):
        venv._fetch("dependencies", ["anything"], tmp_path / "python", tmp_path)


# --- attacks, graded through dir: ---------------------------------------------------------

# A build backend (in the project, through backend-path) that wraps setuptools and tries to
# plant a .pth that passes every test into the run's environment, the shared uv cache and
# the harness's own site-packages. It prints what it managed.
PLANTING_BACKEND = """\
import glob, os, sys
from setuptools import build_meta as _setuptools

TARGETS = {targets!r}
FORGE = {forge!r}


def _plant():
    for pattern in [*TARGETS, os.path.join(sys.prefix, "lib", "python*", "site-packages")]:
        for folder in glob.glob(pattern):
            try:
                with open(os.path.join(folder, "zz_forge.pth"), "w") as fh:
                    fh.write("import zz_forge\\n")
                with open(os.path.join(folder, "zz_forge.py"), "w") as fh:
                    fh.write(FORGE)
                print("PLANTED", folder, file=sys.stderr)
            except OSError as exc:
                print("BLOCKED", folder, exc, file=sys.stderr)


def get_requires_for_build_wheel(config_settings=None):
    _plant()
    return _setuptools.get_requires_for_build_wheel(config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _plant()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
"""


@needs_bwrap
def test_a_build_backend_cannot_write_into_the_test_venv_or_the_uv_cache(pytester, tasks):
    tasks.make()
    out = tasks.reference(pytester.path / "out" / "calc", WRONG_ADD)
    uv_cache = Path(os.environ.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    harness_site = Path(sysconfig.get_paths()["purelib"])
    targets = [
        str(pytester.path / RUN / "venv" / "lib" / "python*" / "site-packages"),
        str(uv_cache),
        str(harness_site),
    ]
    tasks.write(
        out / "_build" / "planting.py",
        PLANTING_BACKEND.format(targets=targets, forge=FORGE),
    )
    pyproject = out / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'build-backend = "setuptools.build_meta"',
            'build-backend = "planting"\nbackend-path = ["_build"]',
        )
    )
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=1)  # the project installed; add is wrong
    assert _install_data(pytester)["ok"] is True
    logs = (pytester.path / RUN / "logs" / "build-wheel.log").read_text()
    assert "PLANTED" not in logs
    for folder in [_site(pytester), uv_cache, harness_site]:
        assert not (folder / "zz_forge.pth").exists(), folder
    # only the harness's own: its finder's, uv's and coverage's
    harness = {finder.PTH_FILE, "_virtualenv.pth", "a1_coverage.pth"}
    assert {p.name for p in _site(pytester).glob("*.pth")} <= harness


MARKING_SETUP = """\
from pathlib import Path
from setuptools import setup

Path({marker!r}).write_text("built on the host")
setup(name="evilbuild", version="1.0")
"""


def test_a_root_sitecustomize_of_a_project_without_packaging_never_runs(pytester, tasks, results):
    tasks.make()
    out = pytester.path / "out" / "calc"
    for module, text in WRONG_ADD.items():
        tasks.write(out / "calc" / f"{module}.py", text)
    tasks.write(
        out / "calc" / "__init__.py",
        "from .add import add\nfrom .sub import sub\nfrom .mul import mul\n",
    )
    for name in ["sitecustomize.py", "usercustomize.py", "src/sitecustomize.py"]:
        tasks.write(out / name, FORGE)
    tasks.write(out / "zz_forge.pth", "import sitecustomize\n")
    # Named like a test tool: if it were importable, the test run would break.
    tasks.write(
        out / "pytest_timeout.py", "raise SystemExit('the project shadows pytest_timeout')\n"
    )
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(passed=2, failed=1)
    assert results()["tasks"][0]["install"] == {"method": "path", "ok": True}
    source = (_site(pytester) / f"{finder.FINDER_MODULE}.py").read_text()
    assert "'calc':" in source
    assert "'sitecustomize'" not in source and "'pytest_timeout'" not in source


# An in-project build backend that writes its wheel by hand: the package, plus EXTRA.
HANDMADE_BACKEND = """\
import base64, hashlib, os, zipfile

EXTRA = {extra!r}


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {{}}
    for name in sorted(os.listdir("calc")):
        if name.endswith(".py"):
            files["calc/" + name] = open(os.path.join("calc", name)).read()
    files.update(EXTRA)
    info = "calc-0.1.dist-info"
    files[info + "/METADATA"] = "Metadata-Version: 2.1\\nName: calc\\nVersion: 0.1\\n"
    files[info + "/WHEEL"] = "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    files[info + "/entry_points.txt"] = "[console_scripts]\\ncalc-add = calc.cli:main\\n"
    record = []
    for path, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        record.append(path + ",sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() + ",")
    record.append(info + "/RECORD,,")
    name = "calc-0.1-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
        zf.writestr(info + "/RECORD", "\\n".join(record) + "\\n")
    return name
"""
CLI = "import sys\nfrom calc import add\n\ndef main():\n    print(add(*map(int, sys.argv[1:])))\n"
# The add test runs the wheel's console script, so R1 passes only when it works.
CLI_TEST = """\
import subprocess
import pytest


@pytest.mark.requirement("R1")
def test_add_through_the_command():
    done = subprocess.run(["calc-add", "2", "3"], capture_output=True, text=True)
    assert done.stdout.strip() == "5", done.stdout + done.stderr
"""


WHEELS = {  # run number: what the handmade backend adds to the wheel, and the refusal
    1: ({}, None),
    2: ({"zz_forge.pth": "import _pytest\n"}, "ships a .pth file (zz_forge.pth)"),
    3: ({"_pytest/zz_forge.py": FORGE}, "ships '_pytest' (_pytest/zz_forge.py)"),
}


DIRECT = {4: "build-system", 5: "dependencies"}  # run number: where the direct reference is


def direct_reference(batch: SharedSession, run: int, field: str) -> None:
    """Run ``run``: calc naming a local project that marks the host when built, in ``field``."""
    out = batch.tasks.reference(batch.variant("calc", run), CALC_CODE)
    marker = batch.root / f"evilbuild-ran-{run}"
    batch.tasks.write(out / "evilbuild" / "setup.py", MARKING_SETUP.format(marker=str(marker)))
    reference = f"evilbuild @ file://{out / 'evilbuild'}"
    pyproject = out / "pyproject.toml"
    text = pyproject.read_text()
    if field == "build-system":
        text = text.replace('"setuptools>=61"', f'"setuptools>=61", "{reference}"')
    else:
        text = text.replace("[project]\n", f'[project]\ndependencies = ["{reference}"]\n')
    pyproject.write_text(text + '[tool.setuptools]\npackages = ["calc"]\n')


@pytest.fixture(scope="module")
def wheels(request, tmp_path_factory) -> SharedSession:
    """One session of ``dir:out``: one handmade wheel per run (``WHEELS``), read by
    ``TestBatchWheels``."""
    with batch_folder(request, tmp_path_factory, "wheels") as root:
        batch = SharedSession(root)
        batch.tasks.make(tests={"test_calc.py": CALC_TESTS, "test_cli.py": CLI_TEST})
        for run, (extra, _) in WHEELS.items():
            out = batch.tasks.reference(batch.variant("calc", run), CALC_CODE)
            batch.tasks.write(out / "calc" / "cli.py", CLI)
            batch.tasks.write(out / "_build" / "handmade.py", HANDMADE_BACKEND.format(extra=extra))
            (out / "pyproject.toml").write_text(
                '[build-system]\nrequires = []\nbuild-backend = "handmade"\n'
                'backend-path = ["_build"]\n'
            )
        for run, field in DIRECT.items():
            direct_reference(batch, run, field)
        batch.run(
            "--e2e-agent=dir:out",
            "--e2e-tasks=tasks",
            f"--e2e-runs={len(WHEELS) + len(DIRECT)}",
        )
        yield batch


@pytest.mark.slow
@pytest.mark.shares_session
class TestBatchWheels:
    """The readers of the one session of handmade wheels (one xdist worker builds it)."""

    @pytest.mark.parametrize("run", list(WHEELS), ids=["clean", "pth", "_pytest"])
    def test_a_wheel_that_ships_a_pth_or_a_test_tool_is_refused(self, wheels, run):
        refused = WHEELS[run][1]
        where = Path(wheels.record("calc", run)["dir"])
        install = json.loads((where / "venv.json").read_text())["data"]
        outcomes = set(wheels.outcomes("dir-out", run).values())
        if refused is None:
            assert outcomes == {"passed"}
            assert install["ok"] is True
            return
        assert outcomes == {"failure"}
        assert install["ok"] is False
        assert refused in install["log"]
        site = integrity.site_packages(where / "venv")
        assert not (site / "zz_forge.pth").exists()
        assert not (site / "_pytest" / "zz_forge.py").exists()
        assert not list(site.glob("calc*"))

    @pytest.mark.parametrize("run", list(DIRECT), ids=list(DIRECT.values()))
    def test_a_direct_reference_is_refused_and_never_installed(self, wheels, run):
        assert set(wheels.outcomes("dir-out", run).values()) == {"failure"}
        where = Path(wheels.record("calc", run)["dir"])
        install = json.loads((where / "venv.json").read_text())["data"]
        assert install["ok"] is False
        assert "is a direct reference (a URL or a path)" in install["log"]
        field = "pyproject.toml [build-system] requires" if run == 4 else "Requires-Dist"
        note = f"note: the project failed to install: {field}"
        failures = wheels.failures("dir-out", run)
        assert re.search(re.escape(note) + ".*evilbuild @ file", failures), failures
        assert not (wheels.root / f"evilbuild-ran-{run}").exists()
        site = integrity.site_packages(where / "venv")
        assert not list(site.glob("evilbuild*"))
        assert not list(site.glob("calc*"))  # nothing of the project left half-way


def test_an_invalid_pyproject_is_the_agents_failure_and_the_note_says_why(pytester, tasks, results):
    tasks.make()
    out = tasks.reference(pytester.path / "out" / "calc", CALC_CODE)
    (out / "pyproject.toml").write_text("[project\nname = 'calc'\n")
    result = pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks")
    result.assert_outcomes(failed=3)
    run = results()["tasks"][0]
    assert run["status"] == "ok" and run["install"] == {"method": "editable", "ok": False}
    assert any(
        n.startswith("the project failed to install: pyproject.toml: not valid TOML (")
        for n in run["notes"]
    ), run["notes"]
