"""Issue 26, the boundary's remaining edges: what an app, a page or a peer's code can reach.

* a ``launch = "command"`` app lists every listening TCP socket of its network namespace
  (``/proc/net/tcp``, ``tcp6``) and connects to each: it shared its browser's namespace, so
  chromedriver's and DevTools' ports were there (no authentication: it could drive the browser
  that grades it). Now it has a namespace of its own (a relay the harness owns brings the
  browser to its port). Here under an unprivileged harness (``setpriv`` to ``nobody``), where it
  used to run inside the driver's sandbox; the root harness's case is the snooping app's
  ``ports`` in test_boundary_net.py;
* a page's script calls chromedriver: it listens on a Fetch "bad port", which Chromium refuses
  to every page, and DevTools has no port at all (a pipe);
* E2EDev's runner (``e2ebench verify-import e2edev``) runs the peer's step code: it ran outside
  the sandbox with the harness's environment. Now through ``Sandbox.run``, an allow-list of
  variables.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers.app import make_command_app, scripted
from helpers.tasks import TaskFactory

from pytest_e2ebench.isolation import network as usernet
from pytest_e2ebench.isolation.sandbox import resolve_mode
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM

needs_slirp = pytest.mark.skipif(usernet.missing() is not None, reason=usernet.FIX)
needs_bwrap = pytest.mark.skipif(
    resolve_mode("auto")[0] != "bwrap", reason="needs bubblewrap (apt-get install bubblewrap)"
)
NOBODY = 65534

# The app: before serving, every listening socket of its namespace, and whether it connects.
SCAN = """import functools, http.server, json, socket, sys
found = {}
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        fields = line.split()
        if fields[3] == "0A":  # LISTEN
            port = int(fields[1].rsplit(":", 1)[1], 16)
            try:
                socket.create_connection(("127.0.0.1", port), 2).close()
                found[port] = "open"
            except OSError as exc:
                found[port] = "refused " + type(exc).__name__
with open("scan.json", "w") as fh:
    json.dump(found, fh)
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=".")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""
INI = """[pytest]
e2ebench_tasks = tasks
e2ebench_model = scripted-model
e2ebench_llm_retries = 0
e2ebench_app_cases = 3-6
"""


def reachable_by(uid: int, python: str) -> bool:
    """True when ``uid`` can run ``python`` as a harness (its folders readable)."""
    check = "import pathlib, sys; pathlib.Path(sys.executable).resolve().parent.stat()"
    drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    done = subprocess.run(["setpriv", *drop, python, "-c", check], capture_output=True)
    return done.returncode == 0


@pytest.fixture(scope="module")
def nobodys_python():
    """An interpreter ``nobody`` can run with this checkout installed: this one, or (when it
    lives where ``nobody`` cannot read, e.g. under /root) a venv of the system's Python of
    the same version, made with uv."""
    if os.geteuid() != 0:
        pytest.skip("runs the harness as nobody: needs root to switch")
    if reachable_by(NOBODY, sys.executable):
        yield sys.executable
        return
    system = shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}", path="/usr/bin")
    if system is None or shutil.which("uv") is None:
        pytest.skip(f"uid {NOBODY} cannot read this Python, and no system Python to use")
    # not under pytest's temporary folder: that is the harness's alone (0700)
    folder = Path(tempfile.mkdtemp(prefix="e2ebench-nobody-"))
    folder.chmod(0o755)
    venv = folder / "venv"
    subprocess.run(["uv", "venv", "-q", str(venv), "--python", system], check=True)
    repo = Path(__file__).parents[2]
    python = str(venv / "bin" / "python")
    subprocess.run(["uv", "pip", "install", "-q", "--python", python, "-e", str(repo)], check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(venv)], check=True)
    yield python
    shutil.rmtree(folder, ignore_errors=True)


def app_session(
    root: Path, llm: ScriptedLLM, *, uid: int | None, python: str = sys.executable
) -> subprocess.CompletedProcess:
    """A benchmark session on the scanning app in ``root``; as ``uid`` when given."""
    (root / "pytest.ini").write_text(INI)
    args = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    args += ["--e2e-agent=reference", f"--e2e-llm-base-url={llm.base_url}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    if uid is not None:
        # an unprivileged harness: its own HOME and caches, every file of the session its own
        home = root / "home"
        home.mkdir()
        env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
        env["UV_CACHE_DIR"] = str(home / ".cache" / "uv")
        subprocess.run(["chown", "-R", f"{uid}:{uid}", str(root)], check=True)
        drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all"]
        args = ["setpriv", *drop, *args]
    return subprocess.run(
        args, cwd=root, env=env, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.mark.slow
@pytest.mark.browser
@needs_bwrap
def test_a_command_app_finds_no_port_of_its_browser_under_an_unprivileged_harness(
    nobodys_python,
):
    """The root harness's case: test_boundary_net.py's snooping app (its ``ports``)."""
    uid, python = NOBODY, nobodys_python
    root = Path(tempfile.mkdtemp(prefix="e2ebench-edges-"))
    root.chmod(0o755)
    try:
        make_command_app(TaskFactory(root), SCAN)
        with ScriptedLLM() as llm:
            scripted(llm)
            done = app_session(root, llm, uid=uid, python=python)
        assert "3 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
        scan = json.loads(next(root.glob(".e2ebench/**/eval/app/scan.json")).read_text())
        assert scan == {}, f"the app reached ports of its browser's: {scan}"
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.browser
def test_a_page_reaches_neither_chromedriver_nor_devtools(tmp_path):
    sys.path.insert(0, str(Path(__file__).parents[2] / "pytest_e2ebench" / "probe"))
    import e2ebench_web as web

    browser = web.Browser(tmp_path, offline=True)
    (tmp_path / "index.html").write_text("<p>hi</p>")
    server = web.AppServer(tmp_path)
    try:
        driver = browser.start()
        port = driver.service.port
        assert port in web.DRIVER_PORTS  # in no namespace of its own here: one of them is free
        driver.get(server.url)
        called = driver.execute_async_script(
            "const done = arguments[0];"
            f"fetch('http://127.0.0.1:{port}/session', {{method: 'POST', mode: 'no-cors',"
            "  body: '{\"capabilities\": {}}'}).then(() => done('reached'), e => done('' + e));"
        )
        assert called.startswith("TypeError"), called
        # no DevTools port: chromedriver talks to Chromium over a pipe
        assert "debuggerAddress" not in driver.capabilities.get("goog:chromeOptions", {})
    finally:
        browser.quit()
        server.close()


HOSTILE_STEPS = """import json, os
from behave import given

@given("the peer's step runs")
def step(context):
    with open("env.json", "w") as fh:
        json.dump(dict(os.environ), fh)
    try:
        with open(os.environ.get("E2EBENCH_OUTSIDE", "{outside}"), "w") as fh:
            fh.write("written by the peer")
    except OSError:
        pass
    os.symlink("{outside}", "behave.log")  # where the harness kept behave's output
"""


@pytest.mark.slow
@needs_bwrap
def test_e2edevs_runner_runs_the_peers_step_code_sandboxed_without_the_harness_env(
    tmp_path, monkeypatch
):
    from pytest_e2ebench.tools.importers.e2edev_verify import (
        behave_env,
        behave_log,
        run_behave_case,
    )

    monkeypatch.setenv("E2EBENCH_TEST_SECRET_TOKEN", "s3cret-of-the-harness")
    outside = tmp_path / "outside.txt"
    python = behave_env(tmp_path / "out", [])
    (tmp_path / "proj" / "app").mkdir(parents=True)
    (tmp_path / "proj" / "app" / "index.html").write_text("<p>hi</p>")
    case = {
        "test_case": ["Feature: f\n  Scenario: s\n    Given the peer's step runs\n"],
        "step_code": HOSTILE_STEPS.replace("{outside}", str(outside)),
    }
    work = tmp_path / "work"
    verdict, why = run_behave_case(
        tmp_path / "proj", tmp_path / "proj" / "app", None, case, work, 120, python
    )
    assert verdict == "pass", why + behave_log(work).read_text()[-2000:]
    log = behave_log(work)  # the harness's, outside the folder the step code writes
    assert not log.is_symlink() and "1 feature passed" in log.read_text()
    env = json.loads((work / "env.json").read_text())
    assert "E2EBENCH_TEST_SECRET_TOKEN" not in env and not outside.exists()


# --- two sessions at once: a hostile cmd: agent beside a reference run of a web task --------

# The hostile agent, for SECONDS: slirp4netns' gateway's whole range once, then again and again
# every port of its loopback and chromedriver's ports on the gateway and the host's addresses;
# every open port it finds gets a chromedriver "new session" POST. Then it hands in the honest
# app. It notes when it scanned (the victim's browser must have run meanwhile).
ATTACKER = """
import errno, json, pathlib, select, socket, sys, time
SECONDS, HOSTS, DRIVER = float(sys.argv[1]), sys.argv[2:], [6000, 6566, 6665, 10080]
found = {}

def scan(host, ports, wait=0.3):
    for start in range(0, len(ports), 500):
        pending = {}
        for port in ports[start:start + 500]:
            s = socket.socket(); s.setblocking(False)
            if s.connect_ex((host, port)) not in (0, errno.EINPROGRESS):
                s.close(); continue  # refused or unreachable at once
            pending[s] = port
        deadline = time.monotonic() + wait
        while pending and time.monotonic() < deadline:
            _, ready, _ = select.select([], list(pending), [], 0.05)
            for s in ready:
                port = pending.pop(s)
                ok = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                try:  # reset between the select and here (slirp's refusals): no find either
                    peer = s.getpeername() if ok else None
                except OSError:
                    peer = None
                # a port connected to itself (TCP's simultaneous open on loopback) is no find
                if peer is not None and s.getsockname() != peer:
                    found[f"{host}:{port}"] = hijack(host, port)
                s.close()
        for s in pending:
            s.close()

def hijack(host, port):
    try:
        with socket.create_connection((host, port), 2) as c:
            body = b'{"capabilities": {}}'
            c.sendall(b"POST /session HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: "
                      b"application/json\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body)
            return c.recv(200).decode(errors="replace")
    except OSError as exc:
        return "open, then " + type(exc).__name__

began, end = time.time(), time.monotonic() + SECONDS
scan("10.0.2.2", list(range(1, 65536)), 0.2)
rounds = 0
while time.monotonic() < end:
    scan("127.0.0.1", list(range(1, 65536)), 0.05)
    for host in HOSTS:
        scan(host, DRIVER)
    rounds += 1
pathlib.Path("probe").mkdir()
window = [began, time.time()]
pathlib.Path("probe/found.json").write_text(json.dumps({"rounds": rounds, "open": found,
                                                         "window": window}))
"""


def web_session(root: Path, agent: str, *extra: str) -> subprocess.Popen:
    """A benchmark session on the web task in ``root`` (started, not awaited)."""
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--e2e-tasks=tasks"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.Popen(
        [*args, f"--e2e-agent={agent}", *extra],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.slow
@pytest.mark.browser
@needs_bwrap
@needs_slirp
def test_a_hostile_session_beside_a_reference_web_run_changes_and_finds_nothing(tmp_path):
    from helpers.net import Listener
    from helpers.web import APP as WEB_APP
    from helpers.web import SCRIPT as WEB_SCRIPT
    from helpers.web import make_web_task

    roots = {name: tmp_path / name for name in ("victim", "attacker")}
    for root in roots.values():
        task = make_web_task(TaskFactory(root))
        toml = task / "task.toml"  # with network: its browser has slirp4netns too
        toml.write_text(toml.read_text().replace("[tests]\n", "[tests]\nnetwork = true\n"))
    harness = Listener("0.0.0.0")  # a harness port on every interface, watched
    hosts = ["10.0.2.2", *usernet.host_addresses()]
    honest = " && ".join(
        f"echo {base64.b64encode(text.encode()).decode()} | base64 -d > {name}"
        for name, text in {"index.html": WEB_APP, "app.js": WEB_SCRIPT}.items()
    )
    attack = base64.b64encode(ATTACKER.encode()).decode()
    hostile = f"echo {attack} | base64 -d > /tmp/a.py && python3 /tmp/a.py 45 {' '.join(hosts)}"
    try:
        victim = web_session(roots["victim"], "reference")  # ~30 s alone
        attacker = web_session(roots["attacker"], f"cmd:{hostile} && {honest}")
        outputs = {
            name: proc.communicate(timeout=600)[0]
            for name, proc in (("victim", victim), ("attacker", attacker))
        }
    finally:
        harness.close()
    records = {}
    for name, root in roots.items():
        written = root / ".e2ebench" / "results.json"
        assert written.is_file(), outputs[name][-3000:]
        results = json.loads(written.read_text())
        records[name] = results["tasks"][0]
    for name, record in records.items():  # each graded as alone: the honest app, untouched
        verdicts = {r["id"]: r["verdict"] for r in record["requirements"]}
        assert verdicts == {"R1": "implemented", "R2": "implemented"}, outputs[name][-3000:]
        assert not (record.get("containment") or {}).get("tampered"), record.get("containment")
        assert not record["test_run"].get("containment"), record["test_run"]
    found = json.loads(next(roots["attacker"].rglob("probe/found.json")).read_text())
    assert found["rounds"] > 0 and found["open"] == {}, found
    # the victim's browser ran while the attacker scanned (chromedriver writes its log then)
    log = next(roots["victim"].rglob("artifacts/chromedriver.log"))
    assert found["window"][0] < log.stat().st_mtime < found["window"][1], found["window"]
    assert harness.hits == []
