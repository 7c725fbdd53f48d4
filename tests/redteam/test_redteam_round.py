"""An independent attack round on issue 26's boundary (network namespaces, the bounded parser,
peer data, the probe's guard), as an unprivileged agent's code would make the attacks.

Cheap: two sandboxed commands (no benchmark session) and in-process checks. Each test names
its attack; an attack that still works is an ``xfail(strict=True)`` naming the fix, so the
test turns red (XPASS) once the fix lands and the mark must go.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_e2ebench.errors import AgentFileError
from pytest_e2ebench.isolation import network as usernet
from pytest_e2ebench.isolation.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.untrusted import parse, peer

needs_bwrap = pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)
needs_slirp = pytest.mark.skipif(usernet.missing() is not None, reason=usernet.FIX)
PROBE = Path(__file__).resolve().parents[2] / "pytest_e2ebench" / "probe"

# Run in the sandbox: argv = TCP port, UDP port, then the host's IPv6 addresses. Prints JSON.
EDGES = r"""
import json, os, socket, stat, sys
tcp_port, udp_port, six = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
out = {"fds": sorted(int(f) for f in os.listdir("/proc/self/fd") if int(f) > 2)}
out["fd_targets"] = [os.readlink(f"/proc/self/fd/{f}") for f in out["fds"] if os.path.exists(f"/proc/self/fd/{f}")]

def tcp(name, addr, family=socket.AF_INET, dev=None):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        if dev:  # unprivileged since Linux 5.7: leave through tap0 whatever the route says
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())
        s.connect(addr)
        out[name] = "open:" + s.recv(32).decode(errors="replace")
    except OSError as exc:
        out[name] = "refused:" + type(exc).__name__
    finally:
        s.close()

tcp("dns address, another port", ("10.0.2.3", tcp_port))
tcp("gateway", ("10.0.2.2", tcp_port))
tcp("slirp broadcast", ("10.0.2.255", tcp_port))
tcp("v6 loopback", ("::1", tcp_port), socket.AF_INET6)
tcp("v4-mapped gateway", ("::ffff:10.0.2.2", tcp_port), socket.AF_INET6)
for a in six:
    tcp(f"host v6 {a}", (a, tcp_port), socket.AF_INET6)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for a in ("255.255.255.255", "10.0.2.255", "10.0.2.2", "10.0.2.3"):
    try:
        u.sendto(b"udp-" + a.encode(), (a, udp_port))
    except OSError:
        pass
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tap = os.path.exists("/sys/class/net/tap0") or "tap0" in open("/proc/net/dev").read()
if tap:
    b.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"tap0")
for a in ("127.0.0.1", "127.0.0.2") if tap else ():
    tcp(f"{a} bound to tap0", (a, tcp_port), dev="tap0")
    try:  # a datagram slirp4netns would hand to the host's loopback as addressed
        b.sendto(b"udp-tap0-" + a.encode(), (a, udp_port))
    except OSError:
        pass
for kind, args in (("raw", (socket.AF_INET, socket.SOCK_RAW, 6)), ("packet", (17, 3))):
    try:
        socket.socket(*args).close()
        out[kind] = "open"
    except OSError as exc:
        out[kind] = "refused:" + type(exc).__name__
out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
out["sys"] = os.path.exists("/sys/class")
try:
    out["pid1_environ"] = len(open("/proc/1/environ", "rb").read())
except OSError as exc:
    out["pid1_environ"] = "refused:" + type(exc).__name__
out["unix_sockets"] = open("/proc/net/unix").read().splitlines()[1:]
found = []
for root, dirs, files in os.walk("/"):
    if root in ("/proc", "/sys", "/dev", "/usr"):
        dirs[:] = []
    for f in files:
        p = os.path.join(root, f)
        try:
            if stat.S_ISSOCK(os.lstat(p).st_mode):
                found.append(p)
        except OSError:
            pass
out["path_sockets"] = found
print(json.dumps(out))
"""


class Catch:
    """Host listeners on every interface (TCP and UDP) that record what reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("0.0.0.0", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("0.0.0.0", 0))
        self.six = socket.create_server(("::", self.tcp.getsockname()[1]), family=socket.AF_INET6)
        self.hits: list = []
        for sock in (self.tcp, self.six):
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()
        threading.Thread(target=self._datagrams, daemon=True).start()

    def _accept(self, sock) -> None:
        while True:
            try:
                conn, peer_addr = sock.accept()
            except OSError:
                return
            self.hits.append(("tcp", peer_addr))
            with conn:
                conn.sendall(b"HOST-SECRET")

    def _datagrams(self) -> None:
        while True:
            try:
                self.hits.append(("udp", self.udp.recvfrom(64)))
            except OSError:
                return

    def close(self) -> None:
        for sock in (self.tcp, self.udp, self.six):
            sock.close()


def host_v6() -> list[str]:
    """The host's own global IPv6 addresses (slirp4netns here has no IPv6)."""
    try:
        links = json.loads(subprocess.run(["ip", "-j", "-6", "addr"], capture_output=True).stdout)
    except (OSError, ValueError):
        return []
    return [a["local"] for x in links for a in x["addr_info"] if a.get("scope") == "global"]


def edges(tmp_path: Path, catch: Catch, **kwargs) -> dict:
    """Run :data:`EDGES` as a sandboxed step (bwrap, ``kwargs`` for ``Sandbox.run``)."""
    ports = [str(catch.tcp.getsockname()[1]), str(catch.udp.getsockname()[1])]
    kwargs.update(cwd=Path("/"), env={"PATH": os.defpath}, timeout=90)
    kwargs["log"] = tmp_path / f"edges-{time.monotonic_ns()}.log"
    args = [sys.executable, "-I", "-c", EDGES, *ports, *host_v6()]
    done = Sandbox(mode="bwrap").run(args, **kwargs)
    assert done.returncode == 0, done.output
    return json.loads(done.output.strip().splitlines()[-1])


@pytest.fixture
def catch():
    made = Catch()
    yield made
    made.close()


@needs_bwrap
@needs_slirp
def test_the_edges_of_a_step_with_network_reach_nothing_of_the_host(tmp_path, catch):
    """Attack: slirp4netns' DNS address on another port, its broadcast, IPv6 (loopback, v4-mapped, the host's global address), UDP broadcast,
    raw and packet sockets; and, the one that worked, TCP and UDP to 127.0.0.1 from a socket
    bound to ``tap0`` (slirp4netns relayed both to the host's loopback until 127.0.0.0/8 was
    routed unreachable in the namespace's main table); and what the process inherits or sees (descriptors, /proc, /sys,
    the harness's environment through PID 1, Unix sockets)."""
    seen = edges(tmp_path, catch, network=True)
    time.sleep(0.5)  # a datagram in flight
    assert catch.hits == []
    reached = {k: v for k, v in seen.items() if isinstance(v, str) and v.startswith("open")}
    assert reached == {}
    assert seen["fd_targets"] == [] and seen["pids"] == [1, 2] and seen["sys"] is False
    assert str(seen["pid1_environ"]).startswith("refused")
    assert seen["unix_sockets"] == [] and seen["path_sockets"] == []


@needs_bwrap
def test_a_cmd_agent_gets_a_writable_home_of_its_runs_own(tmp_path, monkeypatch):
    """A ``cmd:`` agent had the harness's HOME (/root), which is not in its sandbox: a tool
    that keeps a config or cache there failed. Now ``<run>/agent/home/``, writable."""
    from types import SimpleNamespace

    from pytest_e2ebench.agents.cmd import CommandAgent

    monkeypatch.setenv("HOME", "/root")
    workspace, artifacts = tmp_path / "ws", tmp_path / "run" / "agent"
    workspace.mkdir()
    artifacts.mkdir(parents=True)
    ctx = SimpleNamespace(
        artifacts=artifacts, stage="implement", inputs=None, sandbox=Sandbox(mode="bwrap")
    )
    task = SimpleNamespace(id="t", requirements_text="r")
    command = 'cd && git config --global user.name x && echo "$HOME" > {workspace}/home.txt'
    outcome = CommandAgent("cmd:x", command, 60).generate(task, 1, workspace, ctx)
    assert outcome.details["exit_status"] == 0, (artifacts / "cmd.log").read_text()
    assert (workspace / "home.txt").read_text().strip() == str(artifacts / "home")
    assert "name = x" in (artifacts / "home" / ".gitconfig").read_text()


# -- the bounded parser's depth scan -----------------------------------------------------------

DEEP = "[" * 200 + "]" * 200


@pytest.mark.parametrize(
    "text",
    [
        f"x = '''a''''\ny = {DEEP}\n",  # a literal multi-line string may end in up to 5 quotes
        f"x = '''a'''''\ny = {DEEP}\n",
        f'x = """a""""\ny = {DEEP}\n',  # the same for basic multi-line strings
        f'x = """a"""""\ny = {DEEP}\n',
    ],
    ids=["literal+1", "literal+2", "basic+1", "basic+2"],
)
def test_the_toml_scan_sees_nesting_after_a_multiline_string_with_extra_quotes(text):
    """Attack: TOML lets a multi-line string end in four or five quotes; a scan that stops at
    the first three mistakes the rest for an unterminated string and measures nothing after
    it, so tomllib met the nesting unmeasured (RecursionError at 900 levels: caught, but only
    because everything is; value_depth caught 200)."""
    assert parse.toml_depth(text) > parse.MAX_DEPTH
    import tomllib

    assert tomllib.loads(text.replace(DEEP, "1"))["x"].startswith("a")  # valid TOML


# -- peer data ---------------------------------------------------------------------------------


def test_an_importer_does_not_copy_a_hard_link_to_a_file_beside_the_dataset(tmp_path):
    """Attack: a dataset whose extraction left a hard link (tarfile without a filter, a
    shared machine) to a file outside it: no symbolic link anywhere, so it was copied (the
    secret in the task's materials). Now refused, naming the file."""
    secret = tmp_path / "secret.env"
    secret.write_text("API_KEY=hunter2\n")
    (tmp_path / "ds" / "proj").mkdir(parents=True)
    os.link(secret, tmp_path / "ds" / "proj" / "config.txt")
    with pytest.raises(AgentFileError, match="config.txt is a hard link"):
        peer.copy_folder(tmp_path / "ds", "proj", tmp_path / "out")
    with pytest.raises(AgentFileError, match="hard link"):
        peer.copy_file(tmp_path / "ds", "proj/config.txt", tmp_path / "one.txt", 1000)
    assert not (tmp_path / "out" / "config.txt").exists() and not (tmp_path / "one.txt").exists()
    # honest: two names of one file, both inside the dataset, copy as two files
    os.unlink(tmp_path / "ds" / "proj" / "config.txt")
    (tmp_path / "ds" / "proj" / "a.txt").write_text("same\n")
    os.link(tmp_path / "ds" / "proj" / "a.txt", tmp_path / "ds" / "proj" / "b.txt")
    peer.copy_folder(tmp_path / "ds", "proj", tmp_path / "honest")
    assert (tmp_path / "honest" / "b.txt").read_text() == "same\n"


# -- the probe's guard ---------------------------------------------------------------------------


def as_project(tmp_path: Path, script: str):
    """Run ``script`` as a project's file (outside the standard library and the tools) beside
    a one-test suite, with the guard importable; its last line of output, as JSON."""
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "test_a.py").write_text("def test_a():\n    assert 1 == 1\n")
    project = tmp_path / "project.py"
    project.write_text(script)
    args = [sys.executable, str(project), str(PROBE), str(tmp_path / "suite")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout.strip().splitlines()[-1])


SILENCE = r"""
import gc, json, sys, threading
sys.path.insert(0, sys.argv[1])
import _pytest.nodes  # loaded by pytest before the probe in a test run
import e2ebench_guard as guard
got = []
guard.install_audit_hook(guard.SuiteCode(sys.argv[2]), (), got.append)
gc.get_objects()
before = len(got)
space = vars(guard)  # every switch a plain write reaches (no audit event for any of them)
space["_state"] = {"busy": True, "seen": set(), "emit": None}  # the old flag, if it came back
space["_BUSY"].add(threading.get_ident())  # the re-entry set, were it the hook's
space["_SEEN"].update((str(i), str(i)) for i in range(100))  # fake reports fill the limit
space["_CONFIG"].update(emit=None, suite=(), stdlib=("/",), trusted=("/",))
space["_EVENTS"] = space["_FORBIDDEN"] = frozenset()
space["_judge"] = space["_project_frame"] = lambda *a: None
space["_realpath"] = space["type"] = lambda *a: None
gc.get_referrers(got)
open(sys.argv[2] + "/test_a.py").read()
import ctypes
ctypes.string_at(id(got), 8)
print(json.dumps([before, len(got) - before, [r["changed"] for r in got]]))
"""


def test_a_project_cannot_switch_the_audit_hook_off_with_a_dictionary_write(tmp_path):
    """Attack: ``sys.modules['e2ebench_guard']._state['busy'] = True`` (the hook's re-entry
    flag) made the hook return at once for every event; the project then read the suite,
    walked ``gc`` and used ``ctypes`` unseen, and cleared the flag before the probe looked.
    Now the installed hook is a sealed copy (its own globals and builtins, a per-thread
    re-entry set): no write to the module, its sets or its dictionaries reaches it."""
    before, after, changed = as_project(tmp_path, SILENCE)
    assert before == 1  # the hook works: gc.get_objects is evidence
    assert after >= 3, changed  # and keeps working after every write
    said = " ".join(c for record in changed[before:] for c in record)
    for evidence in ("gc.get_referrers", "read the suite's", "ctypes.string_at"):
        assert evidence in said, said


INSIDE = r"""
import gc, json, subprocess, sys
sys.path.insert(0, sys.argv[1])
import _pytest.nodes  # loaded by pytest before the probe in a test run
import e2ebench_guard as guard
got = []
guard.install_audit_hook(guard.SuiteCode(sys.argv[2]), (), got.append)
ran = []

def act(*_):  # what the project wants to do unseen
    if not ran:
        ran.append(len(got))
        gc.get_objects()
        open(sys.argv[2] + "/test_a.py").read()
    return "x"

class Evil:
    __repr__ = __str__ = act

try:
    subprocess.Popen([Evil()])
except Exception:
    pass
print(json.dumps({"ran_inside_hook": bool(ran) and len(got) == ran[0], "events": len(got)}))
"""


def test_the_audit_hook_runs_no_code_of_the_projects_while_it_ignores_events(tmp_path):
    """Attack: the hook stringified the lists in an event's arguments (``subprocess.Popen``'s
    argv: ``str(list)`` calls each item's ``__repr__``): the project's code ran *inside*
    the hook, which ignores every event meanwhile, so ``gc.get_objects`` and a read of the suite went unseen (0
    events; a state-hiding fix would not help). Now the hook reads exact types only."""
    seen = as_project(tmp_path, INSIDE)
    assert seen["ran_inside_hook"] is False, seen


# -- the test-writing oracle's variants -----------------------------------------------------------


def _shape(text: str) -> str:
    """What a written test can assert instead of bytes: the syntax tree with docstrings out,
    each function's locals named by order of appearance, definitions sorted by name."""
    import ast
    import hashlib

    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            body[0] = ast.Pass()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names: dict[str, str] = {}
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.setdefault(sub.id, f"v{len(names)}")
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id in names:
                    sub.id = names[sub.id]
        if isinstance(node, ast.Module | ast.ClassDef):
            node.body.sort(key=lambda n: getattr(n, "name", "") or ast.dump(n))
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


# A written test of the code's shape, by three routes: the source file, inspect, the code object.
SHAPE_TESTS = """\
import hashlib, inspect, pathlib

import semverkit
from semverkit import parse


def test_the_files_shape():
    text = pathlib.Path(semverkit.__file__).read_text()
    assert hashlib.sha256(text.encode()).hexdigest()


def test_the_functions_source():
    assert "def parse" in inspect.getsource(parse)


def test_the_bytecode():
    assert parse.__code__.co_code
"""

# What an honest written test does: import, call, look at a signature, format a failure.
HONEST_TESTS = """\
import inspect

import pytest
from semverkit import parse


def test_behaviour():
    assert str(parse("1.2.3")) == "1.2.3"
    assert "text" in inspect.signature(parse).parameters
    with pytest.raises(Exception) as caught:
        parse("x")
    assert "x" in str(caught.value)
"""


def _written_run(tmp_path: Path, tests: str) -> list[str]:
    """A written test module run as the oracle runs it (the probe, its audit hook guarding the
    code under test); the tamper evidence it leaves."""
    from pytest_e2ebench.evaluation import tamper
    from pytest_e2ebench.evaluation.runner import read_probe

    reference = Path(__file__).resolve().parents[2] / "benchmark_tasks" / "semverkit" / "reference"
    suite = tmp_path / "tests"
    suite.mkdir(parents=True)
    (suite / "test_written.py").write_text(tests)
    out = tmp_path / "probe.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": f"{PROBE}:{reference}",
        "E2EBENCH_PROBE_OUT": str(out),
        "E2EBENCH_PROBE_SUITE": str(suite),
        "E2EBENCH_PROBE_TRUSTED": str(suite),
        "E2EBENCH_PROBE_UNDER_TEST": str(reference),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    args = ["-p", "e2ebench_probe", "-p", "no:cacheprovider", "-q", str(suite)]
    subprocess.run([sys.executable, "-m", "pytest", *args], cwd=tmp_path, env=env, timeout=120)
    probe = read_probe(out, "")
    assert {t["outcome"] for t in probe["tests"]} == {"passed"}, probe["tests"]
    return tamper.evidence(probe, returncode=probe["exitstatus"], timed_out=False)


def test_a_written_test_of_the_codes_shape_fails_the_variant_oracle(tmp_path):
    """Attack on class 6: instead of the reference's file hashes (caught by the variants), a
    written test hashes the reference's syntax tree, normalised for what the variants change
    (layout, comments, docstrings, local names, the order of functions). It passes on the
    reference and on its variant, and fails on a one-operator mutant: oracle and mutation score
    100 % with no behaviour tested (measured on semverkit and cronexpr's references).

    Fixed at the cause: in the test stages' runs the probe's audit hook guards the code under
    test as it guards a suite (the tests are the agent's, the reference the harness's): reading
    its source files (directly, through ``inspect`` or ``linecache``) or a function's code object
    is evidence, and evidence fails the oracle (``stages/testing.py``). Importing it is not."""
    from pytest_e2ebench.methods.stages.variants import variant_source

    root = Path(__file__).resolve().parents[2] / "benchmark_tasks"
    files = [*root.glob("semverkit/reference/**/*.py"), *root.glob("cronexpr/reference/**/*.py")]
    texts = [p.read_text() for p in files if "test" not in p.name]
    # why the variant alone cannot catch it: the shape survives every variant, as before
    assert texts and all(_shape(t) == _shape(variant_source(t)) for t in texts)
    evidence = " ".join(_written_run(tmp_path / "shape", SHAPE_TESTS))
    assert "read the suite's" in evidence and "semverkit/__init__.py" in evidence, evidence
    assert "semverkit/version.py" in evidence, evidence  # inspect.getsource, through linecache
    assert "read the code object of parse, under test" in evidence, evidence
    assert _written_run(tmp_path / "honest", HONEST_TESTS) == []
