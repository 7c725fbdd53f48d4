"""Red-team attacks on the three newest defences (issue 11), each graded through ``dir:``.

* the overlays of the writable folders and the harness's step that applies their upper layer
  back to the host folders (:mod:`pytest_e2ebench.isolation.overlay`);
* the per-run memory and pids cgroup (:func:`pytest_e2ebench.isolation.limits.run_cgroup`);
* the probe's records arriving live through a pipe (``E2EBENCH_PROBE_OUT_FD``).

They reuse the arena of ``tests/redteam/test_containment.py`` (markers, listeners, the uv cache canary,
and :meth:`Arena.check` after every session). An attack that is contained is a passing test; one
that works is kept as a strict ``xfail`` whose reason says exactly what gets through.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from helpers import containment

from pytest_e2ebench.isolation import limits

# needs bubblewrap; the probe forgers attack the one-process run's evidence layers (what guards
# the suites that cannot run split: a split run keeps them away from the probe, issue 39)
pytestmark = [containment.NEEDS_BWRAP, pytest.mark.usefixtures("inprocess_verdicts")]
FILL_ADD = containment.FILL_ADD

QUOTA = limits.Limits().quota_bytes
MEMORY = limits.Limits().memory


def _used_bytes(where) -> int:
    out = subprocess.run(["du", "-sk", str(where)], capture_output=True, text=True).stdout
    return int(out.split()[0]) << 10


# === the overlay's apply step ==================================================================

# One file of real data, then as many hard links to it as there are bytes in the quota: links
# cost the overlay's tmpfs no blocks, but the apply step copies every name as its own file.
HARD_LINKS = """\
import os
_FILL_OK = []
try:
    _home = os.environ["HOME"]
    _src = os.path.join(_home, "fill-hl-src")
    with open(_src, "wb") as _fh:
        for _ in range(48):
            _fh.write(b"x" * (1 << 20))  # 48 MiB: 2.3 % of the 2 GiB quota
    for _i in range(48):
        os.link(_src, os.path.join(_home, "fill-hl-%d" % _i))
    _FILL_OK.append(True)
except OSError as _exc:
    _FILL_OK.append(_exc)
"""


def _hard_links(arena) -> None:
    arena.submit(add=FILL_ADD, at_import=HARD_LINKS)


# Everything odd the apply step can meet, left in both writable folders (HOME under ``work``,
# and ``coverage``, whose data files the harness reads): links out of the tree and to the
# harness's own environment, links to a parent and to a folder that is later replaced, FIFOs,
# names with bytes that are not UTF-8 (and a newline), a 300-deep tree, a file replaced by a
# folder and the folder by a file again, a setuid/setgid file, a whiteout over a name the
# harness made.
APPLY_ODDITIES = r"""
import os, stat
_FILL_OK = []
def _oddities():
    targets = [t for t in __TARGETS__]
    home = os.environ["HOME"]
    cov = os.path.join(os.getcwd(), "coverage")
    for folder in (home, cov, os.path.join(os.getcwd(), "work")):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        def at(name):
            return os.path.join(folder, name)
        for i, target in enumerate(targets):
            try:
                os.symlink(target, at("out-%d" % i))
            except OSError:
                pass
        for name, target in (
            ("data.environ", "/proc/self/environ"),
            (".coverage.environ", "/proc/self/environ"),
            ("data.parent", ".."),
            ("data.root", "/"),
            ("up", "../../../.."),
        ):
            try:
                os.symlink(target, at(name))
            except OSError:
                pass
        for name in ("fifo", ".coverage.fifo", "data.fifo"):
            try:
                os.mkfifo(at(name))
            except OSError:
                pass
        for name in (b"odd-\xff\xfe\n\x01name", b"\xc3(", b"data.\x80\x81"):
            try:
                with open(os.path.join(folder.encode(), name), "wb") as fh:
                    fh.write(b"odd")
            except OSError:
                pass
        # a file, replaced by a folder (holding a link out), replaced by a file again
        try:
            open(at("flip"), "w").close()
            os.unlink(at("flip"))
            os.mkdir(at("flip"))
            os.symlink(targets[0], at("flip/inner"))
            os.mkdir(at("flop"))
            os.symlink("/etc", at("flop/etc"))
            os.unlink(at("flop/etc"))
            os.rmdir(at("flop"))
            os.symlink(os.path.dirname(targets[0]), at("flop"))  # folder -> link to outside
        except OSError:
            pass
        # a folder named like a link's target path, written through after the link is made
        try:
            os.symlink(os.path.dirname(targets[0]), at("via"))
            os.unlink(at("via"))
            os.mkdir(at("via"))
            with open(at("via/" + os.path.basename(targets[0])), "w") as fh:
                fh.write("through")
        except OSError:
            pass
        try:
            with open(at("suid"), "w") as fh:
                fh.write("#!/bin/sh\nid\n")
            os.chmod(at("suid"), 0o6777)
        except OSError:
            pass
        # deep: 300 levels of long names
        try:
            if not __DEEP__ or (__DEEP__ == "coverage") != (folder == cov):
                raise OSError("not here")
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            for _ in range(300):
                os.mkdir("d" * 200, dir_fd=fd)
                new = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = new
            os.symlink(targets[0], "bottom", dir_fd=fd)
            os.close(fd)
        except OSError:
            pass
    return True
try:
    _FILL_OK.append(_oddities())
except BaseException as _exc:
    _FILL_OK.append(_exc)
"""


def _oddities(arena, deep: str) -> str:
    targets = repr([str(t) for t in arena.targets])
    return APPLY_ODDITIES.replace("__TARGETS__", targets).replace("__DEEP__", repr(deep))


def _apply_oddities(arena, deep: str) -> None:
    arena.submit(add="def add(a, b):\n    return 0\n", at_import=_oddities(arena, deep))


def _no_setuid_root_file(root) -> None:
    """No setuid or setgid file of root's anywhere under ``root`` (paths over PATH_MAX too)."""
    for dirpath, dirnames, filenames, dirfd in os.fwalk(root):
        for name in dirnames + filenames:
            st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            assert not (st.st_mode & 0o6000 and st.st_uid == 0), (dirpath[:200], name)


# === the run's cgroup ==========================================================================

# Memory the kernel holds for the run outside its processes' address spaces: data queued on
# UNIX stream sockets (cgroup v1 charges socket buffers to a memory cgroup only if they are
# accounted as kernel memory). Two children (1024 descriptors each) each try to queue 2.4 GiB
# on 300 socket pairs, and check that the host's available memory really dropped by more than
# the run's 4 GiB limit. Measured here: the kernel charges it, kills the run at the limit, and
# the harness records ``memory``.
SOCKET_MEMORY = """\
import os, socket, time
_FILL_OK = []


def _available():
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) << 10
    return 0


def _hold(report):
    pairs, queued, chunk = [], 0, b"x" * (1 << 20)
    for _ in range(300):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
        a.setblocking(False)
        pairs.append((a, b))
        while True:
            try:
                queued += a.send(chunk)
            except (BlockingIOError, OSError):
                break
    os.write(report, str(queued).encode().ljust(32))
    time.sleep(6)


try:
    _before = _available()
    _reads, _kids = [], []
    for _ in range(2):
        _r, _w = os.pipe()
        _pid = os.fork()
        if _pid == 0:
            try:
                _hold(_w)
            finally:
                os._exit(0)
        os.close(_w)  # a child killed at the memory limit ends its pipe
        _reads.append(_r)
        _kids.append(_pid)
    _queued = sum(int(os.read(_r, 32).strip() or 0) for _r in _reads)
    _drop = _before - _available()
    for _pid in _kids:
        os.kill(_pid, 9)
        os.waitpid(_pid, 0)
    print("E2E-RED queued %d MiB, available dropped %d MiB" % (_queued >> 20, _drop >> 20))
    _FILL_OK.append(True if _queued > (9 << 29) and _drop > (4 << 30) else
                    MemoryError("held %d MiB" % (_drop >> 20)))
except BaseException as _exc:
    _FILL_OK.append(_exc)
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(MEMORY != 4 << 30, reason="sized for the default 4 GiB run limit")
def test_cgroup_memory_counts_socket_buffers(arena):
    if not limits.cgroup_roots().get("memory"):
        pytest.skip("no writable memory cgroup here")
    arena.submit(add=FILL_ADD, at_import=SOCKET_MEMORY)
    arena.grade()
    run = arena.assert_r1_fails()
    assert "memory" in run["test_run"]["containment"], run["test_run"]
    arena.check()


# The run's processes are killed when its command ends: one that stops itself (SIGSTOP), one
# blocked reading a FIFO nobody opens, and one that double-forks after a delay (so it is not yet
# born when the harness first looks) must all be gone, and leave nothing written.
LINGERERS = """\
import os, sys
_FILL_OK = [False]
_CODES = {
    "stop": "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)",
    "fifo": "import os; p = os.environ['HOME'] + '/fifo-x'; os.mkfifo(p); open(p).read()",
    "late": "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "signal.signal(signal.SIGHUP, signal.SIG_IGN); time.sleep(0.5); "
            "os.fork() == 0 and os.setsid(); time.sleep(120)",
}
for _how, _code in _CODES.items():
    if os.fork() == 0:
        try:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", _code, __MARKER__])
        finally:
            os._exit(0)
"""


def _lingerers(arena) -> None:
    arena.submit(
        add=FILL_ADD,
        at_import=LINGERERS.replace("__MARKER__", repr(arena.marker))
        + arena.standalone("lingerers"),
    )


# === the probe's pipe ==========================================================================

# The probe's writer is a TextIOWrapper; its identity is watched, its *instance* attributes are
# not: a ``write`` set on the instance shadows the type's method. The replacement re-signs every
# record with the key found in the probe's module, turning every test into a pass except the
# honeypots, which it recognises from the ``collected`` record: a name that is another collected
# test's name with one word of honeypot.py's word list added (or a number appended). The
# honeypots keep failing, so pytest's exit status 1 agrees with the records.
PIPE_FORGER = r"""
import hashlib as _hl, hmac as _hm, json as _js, re as _re, sys as _sys
_WORDS = {"again", "basic", "simple", "typical", "other", "second", "variant", "values",
          "example", "case", "more", "common", "repeat", "usual", "plain"}


def _honeypots(nodeids):
    scopes = {}
    for nodeid in nodeids:
        base = nodeid.split("[")[0]
        scope, _, name = base.rpartition("::")
        scopes.setdefault(scope, set()).add(name)
    found = set()
    for scope, names in scopes.items():
        for name in names:
            parts = name.split("_")
            for i, word in enumerate(parts):
                if word in _WORDS and "_".join(parts[:i] + parts[i + 1:]) in names:
                    found.add(scope + "::" + name)
            numbered = _re.match(r"(.+)_\d+$", name)
            if numbered and numbered.group(1) in names:
                found.add(scope + "::" + name)
    return found


_probe = _sys.modules.get("e2ebench_probe")
if _probe is not None and vars(_probe)["_state"]["out"] is not None:
    _key = vars(_probe)["_KEY"]
    _out = vars(_probe)["_state"]["out"]
    # a file object: shadow its write method; a bare descriptor: replace the probe's writer
    _real_write = _out.write if hasattr(_out, "write") else vars(_probe)["_write"]
    _honey = set()

    def _forge(line):
        global _honey
        try:
            body = _js.loads(_js.loads(line)["body"])
        except Exception:
            return line
        if body.get("kind") == "collected":
            _honey = _honeypots(body["nodeids"])
        elif body.get("kind") == "test" and body["nodeid"].split("[")[0] not in _honey:
            body.update(outcome="passed", message="")
        else:
            return line
        text = _js.dumps(body, sort_keys=True)
        mac = _hm.new(_key, text.encode(), _hl.sha256).hexdigest()
        return _js.dumps({"mac": mac, "body": text}) + "\n"

    if hasattr(_out, "write"):
        def _write(text):
            return _real_write("".join(_forge(l) for l in text.splitlines(True)))

        _out.write = _write
    else:
        def _write(fd, data):
            text = data.decode()
            _real_write(fd, "".join(_forge(l) for l in text.splitlines(True)).encode())
            return len(data)

        _probe._write = _write
"""

NOTHING = {
    "calc/sub.py": "def sub(a, b):\n    return 0\n",
    "calc/mul.py": "def mul(a, b):\n    return 0\n",
}


# No key: raw records written into the probe's descriptor (its number read from the probe) in the
# middle of the run, each a complete line claiming a pass, and a half line that glues itself to
# the probe's next record.
PIPE_RAW = r"""
import json as _js, os as _os, sys as _sys
_probe = _sys.modules.get("e2ebench_probe")
_out = vars(_probe)["_state"]["out"] if _probe is not None else None
_fd = _out if isinstance(_out, int) else (_out.fileno() if _out is not None else -1)
try:
    for _n, _id in enumerate(("tests/test_calc.py::test_add[1-2-3]",
                             "tests/test_calc.py::test_add[0-0-0]",
                             "tests/test_calc.py::test_add[-1-1-0]")):
        _body = _js.dumps({"kind": "test", "nodeid": _id, "outcome": "passed", "message": "",
                           "requirements": ["R1"], "seq": 1000 + _n}, sort_keys=True)
        _os.write(_fd, (_js.dumps({"mac": "0" * 64, "body": _body}) + "\n").encode())
    _os.write(_fd, b'{"mac": "')
except OSError:
    pass
"""


# No probe touched at all: every function returns an object equal to everything, except when
# the calling test is a honeypot (its name is a sibling's name plus one of honeypot.py's words):
# then a plain wrong value, so the honeypots fail as the reference's do.
ALWAYS_EQUAL = r"""
import re as _re, sys as _sys
_WORDS = {"again", "basic", "simple", "typical", "other", "second", "variant", "values",
          "example", "case", "more", "common", "repeat", "usual", "plain"}


class _Equal:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


def _in_honeypot():
    frame = _sys._getframe(2)
    while frame is not None and not frame.f_code.co_name.startswith("test"):
        frame = frame.f_back
    if frame is None:
        return False
    name = frame.f_code.co_name
    me = frame.f_locals.get("self")
    names = set(vars(type(me))) if me is not None else set(frame.f_globals)
    parts = name.split("_")
    for i, word in enumerate(parts):
        if word in _WORDS and "_".join(parts[:i] + parts[i + 1:]) in names:
            return True
    numbered = _re.match(r"(.+)_\d+$", name)
    return bool(numbered and numbered.group(1) in names)


def _answer(*args):
    return None if _in_honeypot() else _Equal()
"""


def _always_equal(arena) -> None:
    files = {"calc/_answer.py": ALWAYS_EQUAL}
    for name in ("add", "sub", "mul"):
        files[f"calc/{name}.py"] = (
            f"from ._answer import _answer\n\ndef {name}(a, b):\n    return _answer(a, b)\n"
        )
    arena.submit(add=files.pop("calc/add.py"), files=files)


# The three forgers of the probe's records, and the attacks on the overlay's apply step and the
# run's cgroup that need only their own run (each ran alone before): each its own run of one
# session. The memory attack stays alone.
FORGERS = {
    "pipe_writer": lambda arena: arena.submit(
        add="def add(a, b):\n    return 0\n",
        at_import=PIPE_FORGER + arena.standalone("pipe-forger"),
        files=NOTHING,
    ),
    "pipe_raw": lambda arena: arena.submit(
        add="def add(a, b):\n    return 0\n",
        at_import=PIPE_RAW + arena.standalone("pipe-raw"),
    ),
    "always_equal": _always_equal,
}
CONTAINED = {
    "hard_links": _hard_links,
    "apply-": lambda arena: _apply_oddities(arena, ""),
    "apply-home": lambda arena: _apply_oddities(arena, "home"),
    "apply-coverage": lambda arena: _apply_oddities(arena, "coverage"),
    "lingerers": _lingerers,
}
VARIANTS = {**FORGERS, **CONTAINED}


@pytest.fixture(scope="module")
def probe_forgers(request, tmp_path_factory):
    names = list(VARIANTS)
    with containment.arena_batch(request, tmp_path_factory, "probe", names) as arenas:
        for name, made in arenas.items():
            VARIANTS[name](made)
        containment.grade_batch(arenas)
        yield arenas


@pytest.mark.slow
@pytest.mark.timeout(containment.BATCH_TIMEOUT + 100)
@pytest.mark.shares_session
class TestBatchProbeForgers:
    """The readers of one session (a ``TestBatch`` class: one xdist worker runs them all): the
    probe's forgers, the overlay's apply step and the cgroup's lingerers."""

    def test_probe_pipe_writer_replaced_with_a_re_signing_one(self, probe_forgers):
        probe_forgers["pipe_writer"].assert_r1_fails(forging=True)
        probe_forgers["pipe_writer"].check()

    def test_probe_pipe_raw_records_without_the_key_are_evidence(self, probe_forgers):
        run = probe_forgers["pipe_raw"].assert_r1_fails(forging=True)
        assert "tampered" in run["test_run"]["containment"], run["test_run"]
        probe_forgers["pipe_raw"].check()

    def test_always_equal_objects_that_avoid_the_honeypots(self, probe_forgers):
        run = probe_forgers["always_equal"].assert_r1_fails(forging=True)
        assert "tampered" in run["test_run"]["containment"], run["test_run"]
        probe_forgers["always_equal"].check()

    def test_overlay_hard_links_are_not_multiplied_past_the_quota(self, probe_forgers):
        # the session's folder holds every run: the links multiplied would be 2.3 GiB of it
        used = _used_bytes(probe_forgers["hard_links"].root)
        assert used < QUOTA, f"{used >> 20} MiB on the host disk after a run with a 2 GiB quota"
        # 48 MiB under a 2 GiB quota is allowed: the links stay links, nothing is multiplied
        probe_forgers["hard_links"].check()

    @pytest.mark.parametrize("deep", ["", "home"])
    def test_overlay_apply_of_links_fifos_odd_names_and_deep_trees(self, probe_forgers, deep):
        arena = probe_forgers[f"apply-{deep}"]
        arena.assert_r1_fails()  # and the run is recorded: the apply step did not crash the session
        _no_setuid_root_file(arena.root)
        arena.check()

    def test_deep_tree_in_the_coverage_folder_is_graded_not_a_harness_error(self, probe_forgers):
        probe_forgers["apply-coverage"].assert_r1_fails()
        probe_forgers["apply-coverage"].check()

    def test_cgroup_leaves_no_stopped_blocked_or_late_process(self, probe_forgers):
        probe_forgers["lingerers"].assert_r1_fails()
        probe_forgers["lingerers"].check()  # no process with the marker in its command line
