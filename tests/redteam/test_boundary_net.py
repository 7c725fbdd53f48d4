"""Issue 26, classes 2 and 5: a sandboxed step's network, and what crosses into it.

Attacks as an unprivileged program in the sandbox would make them (the harness runs as root
here, generated code as ``nobody``), each with its harm marker and an honest control:

* a step with network reaches neither a listener on the host's loopback, nor one bound to every
  interface through the host's own addresses, nor slirp4netns' gateway; its user-mode network
  is configured (the honest part);
* two runs at once cannot reach each other's ports;
* a forward reaches exactly its port (the model endpoint), nothing else;
* without slirp4netns a step with network gets none, never the host's, and the session warns;
* one benchmark session (module fixture) where a ``cmd:`` agent dumps its environment (a fake
  secret of the harness's is absent, the names given with ``--e2e-agent-env`` present), calls
  the forwarded scripted model (answered) and the harness's listener (refused), and a web app
  with ``network = true`` whose page calls the same listener (refused) while both apps, which
  behave honestly otherwise, still pass every requirement;
* a ``launch = "command"`` app with network snooping on its driver and browser (environ, mem,
  pidfd_getfd, ptrace, kill) and calling the harness: it sees none of them, gets nothing, and
  is graded as the honest app;
* pure logic: the allow-list, which URLs name a port to forward, a bad ``--e2e-agent-env``.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.net import Listener
from helpers.tasks import TaskFactory
from helpers.web import APP, SCRIPT, make_web_task

from pytest_e2ebench.isolation import network as usernet
from pytest_e2ebench.isolation.sandbox import Sandbox, resolve_mode
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM

needs_bwrap = pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)
needs_slirp = pytest.mark.skipif(usernet.missing() is not None, reason=usernet.FIX)
SECRET = "E2EBENCH_TEST_SECRET_TOKEN"


@pytest.fixture
def listeners():
    """One listener on the host's loopback and one on every interface."""
    made = [Listener("127.0.0.1"), Listener("0.0.0.0")]
    yield made
    for one in made:
        one.close()


# A program run in the sandbox: tries each "host:port" of argv, prints a JSON verdict per target.
REACH = """
import json, socket, sys
seen = {}
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), 3) as c:
            seen[target] = "open:" + c.recv(64).decode(errors="replace")
    except OSError as exc:
        seen[target] = "refused:" + type(exc).__name__
routes = open("/proc/net/route").read().split("\\n")[1:]
seen["default_route"] = any(r.split()[1:2] == ["00000000"] for r in routes if r.split())
print(json.dumps(seen))
"""


def reach(tmp_path: Path, targets: list[str], **kwargs) -> dict:
    """Run :data:`REACH` in the sandbox (bwrap) and return what it saw."""
    done = Sandbox(mode="bwrap").run(
        [sys.executable, "-c", REACH, *targets],
        cwd=Path("/"),
        env={"PATH": os.defpath},
        timeout=60,
        log=tmp_path / f"reach-{time.monotonic_ns()}.log",
        **kwargs,
    )
    assert done.returncode == 0, done.output
    return json.loads(done.output.strip().splitlines()[-1])


@needs_bwrap
@needs_slirp
def test_a_step_with_network_reaches_neither_the_hosts_loopback_nor_its_addresses(
    tmp_path, listeners
):
    loop, anywhere = listeners
    targets = [f"127.0.0.1:{loop.port}", f"10.0.2.2:{loop.port}", f"10.0.2.2:{anywhere.port}"]
    targets += [f"{a}:{anywhere.port}" for a in usernet.host_addresses()]
    seen = reach(tmp_path, targets, network=True)
    assert seen.pop("default_route") is True  # honest: user-mode networking is there
    assert all(v.startswith("refused") for v in seen.values()), seen
    assert loop.hits == [] and anywhere.hits == []
    # from the host the listener answers: refusals above are the namespace's doing
    with socket.create_connection(("127.0.0.1", loop.port), 3) as conn:
        assert conn.recv(64).startswith(b"HTTP/1.0 200")
    assert len(loop.hits) == 1


@needs_bwrap
@needs_slirp
def test_a_forward_reaches_its_port_and_nothing_else(tmp_path, listeners):
    loop, anywhere = listeners
    other = Listener("127.0.0.1")
    try:
        seen = reach(
            tmp_path,
            [f"127.0.0.1:{loop.port}", f"127.0.0.1:{other.port}", f"127.0.0.1:{anywhere.port}"],
            network=True,
            forward=(loop.port,),
        )
    finally:
        other.close()
    assert seen[f"127.0.0.1:{loop.port}"].startswith("open:HTTP/1.0 200")  # the endpoint
    assert seen[f"127.0.0.1:{other.port}"].startswith("refused")
    assert seen[f"127.0.0.1:{anywhere.port}"].startswith("refused")
    assert len(loop.hits) == 1 and other.hits == [] and anywhere.hits == []


# Listens on a fixed port for a while (the victim run), or knocks on it (the attacker run).
VICTIM = """
import socket, sys, time
s = socket.create_server(("127.0.0.1", int(sys.argv[1])))
s.settimeout(0.2)
end, got = time.monotonic() + float(sys.argv[2]), 0
while time.monotonic() < end:
    try:
        s.accept()[0].close(); got += 1
    except OSError:
        pass
print("accepted", got)
"""
ATTACKER = """
import socket, sys, time
end, result = time.monotonic() + float(sys.argv[2]), "refused"
while time.monotonic() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close(); result = "open"
    except OSError:
        pass
    time.sleep(0.2)
print(result)
"""


@needs_bwrap
@needs_slirp
def test_two_runs_at_once_cannot_reach_each_others_ports(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    box = Sandbox(mode="bwrap")
    outputs: dict[str, str] = {}

    def run(name: str, code: str, seconds: float) -> None:
        done = box.run(
            [sys.executable, "-c", code, str(port), str(seconds)],
            cwd=Path("/"),
            env={"PATH": os.defpath},
            timeout=60,
            log=tmp_path / f"{name}.log",
            network=True,
        )
        outputs[name] = done.output.strip()

    victim = threading.Thread(target=run, args=("victim", VICTIM, 4.0))
    victim.start()
    time.sleep(1.0)  # the victim listens by now
    run("attacker", ATTACKER, 2.0)
    # the host does not see the victim's port either
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), 1).close()
    victim.join()
    assert outputs == {"victim": "accepted 0", "attacker": "refused"}


@needs_bwrap
def test_without_slirp4netns_a_step_with_network_gets_none_and_the_session_is_warned(
    tmp_path, listeners, monkeypatch
):
    monkeypatch.setattr(usernet, "SLIRP", "slirp4netns-not-installed")
    assert "apt-get install slirp4netns" in (resolve_mode("bwrap")[1] or "")
    loop, _ = listeners
    seen = reach(tmp_path, [f"127.0.0.1:{loop.port}"], network=True)
    assert seen == {
        f"127.0.0.1:{loop.port}": "refused:ConnectionRefusedError",
        "default_route": False,
    }
    assert loop.hits == []


# --- one benchmark session: a cmd: agent and a web app with network -----------------------

# The cmd: agent: dumps its environment, calls its model endpoint and the harness's listener,
# then hands in the honest app (so the run itself is graded as usual).
AGENT = """
import json, os, pathlib, socket, sys, urllib.request
out = pathlib.Path("probe")
out.mkdir()
(out / "env.json").write_text(json.dumps(dict(os.environ)))
try:
    with urllib.request.urlopen(os.environ["OPENAI_BASE_URL"] + "/models", timeout=10) as r:
        (out / "model.txt").write_text(str(r.status) + " " + r.read().decode())
except Exception as exc:
    (out / "model.txt").write_text("failed " + repr(exc))
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), 3).close()
    (out / "host.txt").write_text("open")
except OSError as exc:
    (out / "host.txt").write_text("refused " + type(exc).__name__)
"""
# The page of a web app with network: calls the harness's listener (loopback, slirp4netns'
# gateway, the host's addresses), then behaves.
PAGE_ATTACK = """
for (const url of URLS) { fetch(url, {mode: 'no-cors'}).catch(() => {}); }
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory):  # one test uses it: under -n a module fixture runs per worker
    """One benchmark session: a ``dir:`` attacker and a ``cmd:`` agent on a
    web task with ``network = true``; a harness listener and a scripted model outside."""
    root = tmp_path_factory.mktemp("boundary-net")
    tasks = TaskFactory(root)
    task = make_web_task(tasks)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("[tests]\n", "[tests]\nnetwork = true\n"))
    loop, anywhere = Listener("127.0.0.1"), Listener("0.0.0.0")
    urls = [f"http://127.0.0.1:{loop.port}/", f"http://10.0.2.2:{loop.port}/"]
    urls += [f"http://{a}:{anywhere.port}/" for a in usernet.host_addresses()]
    attacker = root / "submissions" / "greet"
    attacker.mkdir(parents=True)
    (attacker / "index.html").write_text(APP)
    (attacker / "app.js").write_text(f"const URLS = {json.dumps(urls)};\n{PAGE_ATTACK}{SCRIPT}")
    app = {"index.html": APP, "app.js": SCRIPT}
    write = " && ".join(
        f"echo {base64.b64encode(text.encode()).decode()} | base64 -d > {name}"
        for name, text in app.items()
    )
    agent = base64.b64encode(AGENT.encode()).decode()
    command = f"echo {agent} | base64 -d > /tmp/a.py && python3 /tmp/a.py {loop.port} && {write}"
    with ScriptedLLM() as llm:
        env = dict(os.environ, OPENAI_BASE_URL=llm.base_url, OPENAI_API_KEY="sk-allowed")
        env[SECRET] = "s3cret-of-the-harness"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                "--e2e-tasks=tasks",
                f"--e2e-agent=dir:{attacker.parent},cmd:{command}",
                "--e2e-agent-env=OPENAI_BASE_URL,OPENAI_API_KEY",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    loop.close()
    anywhere.close()
    results = json.loads((root / ".e2ebench" / "results.json").read_text())
    runs = {
        kind: run
        for run in results["tasks"]
        for kind in ("dir", "cmd")
        if run["agent"].startswith(kind)
    }
    probe = next((root / ".e2ebench").rglob("probe/env.json")).parent
    return {"done": done, "runs": runs, "probe": probe, "hits": loop.hits + anywhere.hits}


@pytest.mark.slow
@pytest.mark.browser
@needs_bwrap
@needs_slirp
def test_a_web_task_with_network_and_a_cmd_agent_reach_nothing_of_the_host(session):
    """One session (one test, so -n runs it once); every broken marker is listed."""
    broken = []
    for agent in ("dir", "cmd"):  # honest: both apps pass, the page's calls aside
        verdicts = {r["id"]: r["verdict"] for r in session["runs"][agent]["requirements"]}
        if verdicts != {"R1": "implemented", "R2": "implemented"}:
            broken.append(f"{agent}: {verdicts}\n{session['done'].stdout[-3000:]}")
    if session["hits"]:  # the page's fetches and the agent's connection
        broken.append(f"the harness's listeners were reached: {session['hits']}")
    if not (session["probe"] / "host.txt").read_text().startswith("refused"):
        broken.append("the cmd: agent reached the harness's listener")
    env = json.loads((session["probe"] / "env.json").read_text())
    if SECRET in env:
        broken.append("the harness's secret reached the cmd: agent")
    allowed = {"PATH", "HOME", "TERM", "TZ", "LANG", "LANGUAGE", "OPENAI_BASE_URL"}
    allowed |= {"OPENAI_API_KEY", "E2EBENCH_TASK", "E2EBENCH_RUN", "E2EBENCH_STAGE"}
    allowed |= {"PWD", "SHLVL", "_", "OLDPWD"}  # the shell's own
    extra = {k for k in env if k not in allowed and not k.startswith("LC_")}
    if extra or env.get("OPENAI_API_KEY") != "sk-allowed":
        broken.append(f"the cmd: agent's environment is not the allow-list: {sorted(extra)}")
    model = (session["probe"] / "model.txt").read_text()
    if not model.startswith("200 "):  # honest: the forwarded model endpoint answers
        broken.append(f"the cmd: agent did not reach its model: {model[:300]}")
    assert broken == []


# --- an app task's command app: apart from its browser and driver -------------------------

# Before serving, the app tries what a process of the driver's uid could do to the driver and
# the browser (read their environment and memory, take a descriptor with pidfd_getfd, attach
# with ptrace, signal them), and calls the harness's listener; it writes what it got.
SNOOP = """import contextlib, ctypes, functools, http.server, json, os, signal, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
found, me = {}, os.getpid()
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) == me:
        continue
    pid, got = int(entry), []
    for name in ("environ", "mem", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                got.append(f"{name}:" + fh.read(4096).decode(errors="replace"))
        except OSError as exc:
            got.append(f"{name}:denied {exc.errno}")
    try:
        pidfd = os.pidfd_open(pid)
        taken = libc.syscall(438, pidfd, 3, 0)  # pidfd_getfd(pidfd, 3, 0)
        got.append("getfd:" + ("denied" if taken < 0 else "TAKEN"))
    except OSError as exc:
        got.append(f"getfd:denied {exc.errno}")
    got.append("ptrace:" + ("denied" if libc.ptrace(16, pid, 0, 0) != 0 else "ATTACHED"))
    found[pid] = got
with contextlib.suppress(ProcessLookupError):
    os.kill(-1, signal.SIGKILL)
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[2])), 3).close()
    found["host"] = "open"
except OSError as exc:
    found["host"] = "refused " + type(exc).__name__
ports = []  # every listening TCP socket of its namespace (chromedriver's, DevTools' when shared)
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    with contextlib.suppress(OSError):
        for line in open(table).read().splitlines()[1:]:
            if line.split()[3] == "0A":
                ports.append(int(line.split()[1].rsplit(":", 1)[1], 16))
found["ports"] = ports
with open("snoop.json", "w") as fh:
    json.dump(found, fh)
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=".")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


@pytest.mark.slow
@pytest.mark.browser
@needs_bwrap
@needs_slirp
def test_a_command_app_with_network_cannot_reach_its_driver_its_browser_or_the_host(
    pytester, tasks, results, listeners
):
    from helpers.app import make_command_app, run, scripted

    loop, _ = listeners
    make_command_app(tasks, SNOOP)
    toml = tasks.tasks / "greeter" / "task.toml"
    command = f'command = ["python3", "server.py", "{{port}}", "{loop.port}"]\nnetwork = true\n'
    toml.write_text(
        toml.read_text().replace('command = ["python3", "server.py", "{port}"]\n', command)
    )
    with ScriptedLLM() as llm:
        scripted(llm)
        result = run(pytester, llm, "--e2e-agent=reference")
    result.assert_outcomes(passed=3)  # honest: it serves, the browser reaches it on loopback
    snoop = json.loads(next(pytester.path.glob(".e2ebench/**/eval/app/snoop.json")).read_text())
    assert snoop.pop("host").startswith("refused") and loop.hits == []
    assert snoop.pop("ports") == []  # its own namespace: no port of its browser's
    # only its own PID namespace's first process is there, and nothing of it is readable
    for pid, got in snoop.items():
        assert all(("denied" in g) for g in got if not g.startswith("cmdline:")), (pid, got)
    # the one process it sees is its sandbox's own first process (bubblewrap's), none of the
    # driver's or the browser's
    cmdlines = [g for got in snoop.values() for g in got if g.startswith("cmdline:")]
    assert [c.split("\0")[0] for c in cmdlines] == ["cmdline:bwrap"], cmdlines


# --- pure logic: the allow-list and which ports are forwarded ------------------------------


def test_a_cmd_agents_environment_is_the_allow_list_and_its_loopback_urls_are_forwarded():
    from pytest_e2ebench.agents.cmd import agent_environment

    harness = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "LC_ALL": "C.UTF-8",
        "OPENAI_BASE_URL": "http://127.0.0.1:8123/v1",
        "OPENAI_API_KEY": "sk-allowed",
        "ANTHROPIC_API_KEY": "sk-other-provider",
        "AWS_SECRET_ACCESS_KEY": "cloud",
        "PROXY_URL": "http://localhost/",
        "REMOTE": "https://api.example.com/v1",
    }
    names = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROXY_URL", "REMOTE", "ABSENT")
    env, ports = agent_environment(names, harness)
    assert set(env) == {"PATH", "HOME", "LC_ALL", *names} - {"ABSENT"}
    assert ports == (8123, 80)  # loopback URLs only; the remote endpoint needs no forward
    assert agent_environment((), harness) == (
        {"PATH": "/usr/bin", "HOME": "/root", "LC_ALL": "C.UTF-8"},
        (),
    )


@pytest.mark.parametrize(
    "value, port",
    [
        ("http://127.0.0.1:8000/v1", 8000),
        ("https://localhost/v1", 443),
        ("http://[::1]:8000/", None),  # the forward listens on 127.0.0.1 only
        ("http://10.0.0.5:8000/", None),
        ("127.0.0.1:8000", None),
        ("http://127.0.0.1:99999/", None),
        ("file:///etc/passwd", None),
    ],
)
def test_only_a_loopback_url_names_a_port_to_forward(value, port):
    from pytest_e2ebench.agents.cmd import loopback_port

    assert loopback_port(value) == port


def test_an_agent_env_that_is_no_variable_name_is_a_usage_error(pytester):
    result = pytester.runpytest("--e2e-agent=nop", "--e2e-agent-env=OPENAI_API_KEY,1-BAD")
    result.stderr.fnmatch_lines(
        ["*--e2e-agent-env=OPENAI_API_KEY,1-BAD: '1-BAD' is not a variable name*"]
    )


# --- structure: the one place ---------------------------------------------------------------


@pytest.mark.parametrize("mode, flag", [("bwrap", "--unshare-net"), ("unshare", "--net")])
@pytest.mark.parametrize("network", [False, True])
def test_every_sandboxed_command_gets_a_network_namespace_of_its_own(mode, flag, network):
    box = Sandbox(mode=mode)
    args = box.command(["true"], cwd=Path("/"), network=network, gate_fd=12)
    assert flag in args and "nsenter" not in args
    # the command runs behind the gate the network's setup opens
    gate = args.index("e2ebench-gate")
    assert "read -r -n1 -u 12" in args[gate - 1] and args[gate + 1 :] == ["true"]


def test_no_sandboxed_command_is_given_the_harness_environment():
    """A call of ``.run(...)`` with sandbox arguments (``writable``, ``readable``, ``network``)
    whose ``env`` reads ``os.environ`` wholesale hands the harness's keys to the project zone."""
    import ast

    import pytest_e2ebench

    root = Path(pytest_e2ebench.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if "probe" in path.parts:  # runs inside the sandbox already
            continue
        for func in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            # names the function binds to something read from os.environ (env = dict(...))
            tainted = {
                target.id
                for node in ast.walk(func)
                if isinstance(node, ast.Assign) and "os.environ" in ast.unparse(node.value)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            for node in ast.walk(func):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                names = {k.arg for k in node.keywords}
                if node.func.attr != "run" or not names & {"writable", "readable", "network"}:
                    continue
                for kw in node.keywords:
                    text = ast.unparse(kw.value) if kw.arg == "env" else ""
                    if "os.environ" in text or text in tainted:
                        found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert sorted(set(found)) == []
