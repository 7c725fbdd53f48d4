"""Red-team round 11 on issue 26's boundary: the metering proxy, the CLI agent's folders, and
what the harness prints of agent and peer text.

Cheap: loopback HTTP against the real proxy, one real sandboxed step for the CLI agent's
folders, and in-process calls of the code that prints. Each test names its attack, what it
did before and what closed it.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pytest_e2ebench.agents.clitools import runner
from pytest_e2ebench.agents.clitools.specs import CLISpec, Launch
from pytest_e2ebench.collect import RequirementItem
from pytest_e2ebench.errors import AgentError, AgentFileError
from pytest_e2ebench.isolation.intake import copy_tree
from pytest_e2ebench.isolation.sandbox import machine_sandbox
from pytest_e2ebench.llm.accounting import Pricing
from pytest_e2ebench.proxy import Budget, Meter, MeteringProxy, Upstream
from pytest_e2ebench.proxy.dialects import Usage
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM, reply
from pytest_e2ebench.untrusted.text import printable

PRICING = Pricing(prices={"m": (1000.0, 1000.0)})  # $0.001 per token: one call spends $0.11
DATA = Path(__file__).resolve().parents[1] / "data"
CHAT = {"messages": [{"role": "user", "content": "hi"}]}

# --- the proxy: a request's stated length ----------------------------------------------------


def _raw_post(port: int, length: str, body: bytes) -> bytes:
    """What the proxy answers to a POST stating ``Content-Length: length``; the socket stays
    open for writing, as an agent that keeps sending would."""
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head.encode() + body)
        answer = b""
        try:
            while b"\r\n\r\n" not in answer:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except TimeoutError:
            pass  # still reading the body: no answer
    return answer


@pytest.mark.parametrize("length", ["-1", "ten"])
def test_a_request_of_a_negative_or_malformed_length_is_refused_unread(tmp_path, length):
    """Attack (c): a CLI agent's request stating ``Content-Length: -1``. The proxy read the
    body with ``rfile.read(-1)``, to the end of the connection: whatever the agent kept
    sending (gigabytes) went into the harness's memory, past the 32 MiB bound that a stated
    length is checked against, and the proxy never answered. ``ten`` raised in the handler
    (a traceback on the harness's stderr per request, no answer). Now refused with a 400."""
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    with MeteringProxy(None, meter, None, model="m") as proxy:
        answer = _raw_post(proxy.port, length, json.dumps(CHAT).encode())
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert meter.summary()["requests"] == 0


def test_a_stated_length_still_reads_the_body(tmp_path):
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    body = json.dumps(CHAT).encode()
    with MeteringProxy(None, meter, None, model="m") as proxy:
        answer = _raw_post(proxy.port, str(len(body)), body)
    assert answer.startswith(b"HTTP/1.1 502"), answer[:200]  # no upstream: read, then refused


# --- the proxy: the cost budget and the model the agent names --------------------------------


def _post(url: str, body: dict) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "x/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_model_without_a_price_does_not_switch_the_cost_budget_off(tmp_path):
    """Attack (c): the agent names a model the prices do not list (the upstream serves it,
    or an alias of the priced one). Its cost was None, the run's cost became None, and the
    budget's check ``cost is not None and cost >= max`` never held again: with
    ``--e2e-max-cost=0.1`` the agent made every further call. Now the model is the run's
    (issue 40: the call goes to "m", priced), and a run whose own model has no price spends
    a cost budget with its first call of tokens, saying why."""
    script = [reply("a", prompt_tokens=50, completion_tokens=5)] * 4
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget(cost_usd=0.1))
    with ScriptedLLM(script) as llm:
        upstream = Upstream(llm.base_url, "key", 10)
        with MeteringProxy(upstream, meter, None, model="m") as proxy:
            url = proxy.base_url + "/chat/completions"
            assert _post(url, {**CHAT, "model": "unpriced"}) == 200
        assert llm.requests[0]["model"] == "m" and meter.summary()["cost_usd"] > 0
        unpriced = Meter(tmp_path / "unpriced.jsonl", PRICING, Budget(cost_usd=0.1))
        with MeteringProxy(upstream, unpriced, None, model="unpriced") as proxy:
            url = proxy.base_url + "/chat/completions"
            statuses = [_post(url, {**CHAT, "model": "unpriced"}) for _ in range(3)]
    assert statuses == [200, 400, 400]
    assert "'unpriced' has no price" in unpriced.summary()["budget_exceeded"]


def test_a_call_of_no_tokens_costs_nothing_whatever_model_it_names(tmp_path):
    """The same attack without an upstream that serves the model: the upstream's 404 carries
    no tokens, yet the call's model had no price, and the run's cost was None from then on."""
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget(cost_usd=0.5))
    meter.add({"path": "/v1/chat/completions"}, "no-such-model", Usage(), ok=False)
    meter.add({"path": "/v1/chat/completions"}, "m", Usage(prompt=100, completion=10), ok=True)
    summary = meter.summary()
    assert summary["cost_usd"] == pytest.approx(0.11)
    assert summary["budget_exceeded"] is None and meter.allow() is None


@pytest.mark.parametrize("background", [True, "yes"])
def test_a_background_response_is_refused_not_left_unmetered(tmp_path, background):
    """Attack (c): the agent asks the Responses API for a ``background`` response. It is
    answered at once, queued, with no usage, and its result is fetched later with a GET the
    proxy never forwards; yet a next call with ``previous_response_id`` gives the model that
    output: the tokens of the background work were never counted against any budget. The
    proxy forwarded it. Now it refuses such a request; the upstream never sees it."""
    script = [reply("a", prompt_tokens=50, completion_tokens=5)]
    meter = Meter(tmp_path / "proxy.jsonl", PRICING, Budget())
    with ScriptedLLM(script) as llm:
        upstream = Upstream(llm.base_url, "key", 10)
        with MeteringProxy(upstream, meter, None, model="m") as proxy:
            body = {"model": "m", "input": "work", "background": background}
            status = _post(proxy.base_url + "/responses", body)
        assert status == 400 and llm.requests == []


# --- the CLI agent's folders: the proxy's log beside it --------------------------------------

FORGER = r"""
art=$(dirname "$1"); ws=$(pwd)
cat "$1" > "$ws/requirements-read.md"
echo home > "$HOME/written" && echo ok > "$ws/home-ok"
{ printf '{"n": 1, "forged": true}\n' >> "$art/proxy.jsonl"; } 2>/dev/null || echo denied > "$ws/log-denied"
{ rm -f "$art/proxy.jsonl" && ln -s "$2" "$art/proxy.jsonl"; } 2>/dev/null || echo denied > "$ws/link-denied"
"$3" -c "import sys, urllib.request as u
r = u.Request(sys.argv[1] + '/chat/completions', b'{\"model\": \"m\", \"messages\": []}')
try: u.urlopen(r, timeout=20)
except Exception: pass" "$4"
"""


def _forger(tool: Path, canary: Path) -> CLISpec:
    def launch(tool_dir, proxy, model, prompt, max_steps) -> Launch:
        argv = ["/bin/sh", str(tool_dir / "forge.sh"), "{requirements}", str(canary)]
        return Launch(argv=[*argv, sys.executable, proxy], env={})

    (tool / "forge.sh").write_text(FORGER)
    return CLISpec("forger", "forger", "1", "npm", "openai-chat", "forge.sh", launch)


def test_a_cli_agent_cannot_forge_or_redirect_the_proxys_log(tmp_path, monkeypatch):
    """Attack (c): a CLI agent, whose sandbox could write all of ``<run>/agent/``, appended
    forged lines to ``proxy.jsonl`` (its trajectory, shown in the report) and put a link to a
    file of the harness's user in its place. The proxy appends a line per call, following
    links: outside an overlay the harness wrote through the link; under one (bubblewrap as
    root) the agent's copy replaced the harness's log when its writes were applied. Now the
    step writes only the workspace and its home (the folder is read-only to it), and the
    meter opens the log without following a link."""
    tool, canary = tmp_path / "tool", tmp_path / "canary.txt"
    tool.mkdir()
    canary.write_text("harness file\n")
    monkeypatch.setattr(runner, "install", lambda cli, version: tool)
    settings = types.SimpleNamespace(
        prices=(), model_params=(), co2=(), max_tokens=None, max_cost=None, max_steps=None,
        llm_cache="off", base_url="", model="m", agent_timeout=60, llm_key_env="E2E_NONE",
        llm_timeout=5, out=tmp_path,
    )  # fmt: skip
    agent = runner.CLIAgent("forger", _forger(tool, canary), "1", settings)
    ctx = types.SimpleNamespace(
        artifacts=tmp_path / "run" / "agent", stage="implement", sandbox=machine_sandbox()
    )
    ctx.artifacts.mkdir(parents=True)
    workspace = tmp_path / "run" / "workspace"
    workspace.mkdir()
    task = types.SimpleNamespace(id="t", requirements_text="# R1\n")
    with pytest.raises(AgentError, match="could not be reached"):  # no upstream: one 502
        agent.generate(task, 1, workspace, ctx)
    log = ctx.artifacts / "proxy.jsonl"
    assert canary.read_text() == "harness file\n"
    assert not log.is_symlink()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line.get("status") for line in lines] == [502] and "forged" not in lines[0]
    # what the agent needs still works: its requirements, its home, its workspace
    assert (workspace / "requirements-read.md").read_text() == "# R1\n"
    assert (workspace / "home-ok").is_file()
    assert (workspace / "log-denied").is_file() and (workspace / "link-denied").is_file()


# --- what reaches the terminal ----------------------------------------------------------------

ESCAPES = "\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIH4=\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\u202e"


def _explained(message: str, title: str, nodeid: str, note: str) -> str:
    """What a failing requirement prints (RequirementItem's own code), for one failing test."""
    item = types.SimpleNamespace(
        requirement=types.SimpleNamespace(id="R1", title=title),
        agent=types.SimpleNamespace(label="dir-x"),
        run=1,
        record={"notes": [note], "dir": "/out/x", "agent_run": {}},
        config=types.SimpleNamespace(option=types.SimpleNamespace(tbstyle="long")),
    )
    item._explain = types.MethodType(RequirementItem._explain, item)
    item.record["requirements"] = [
        {
            "id": "R1",
            "verdict": "not_implemented",
            "tests": 1,
            "passed": 0,
            "failing": [{"nodeid": nodeid, "outcome": "failed", "message": message}],
        }
    ]
    with pytest.raises(pytest.fail.Exception) as info:
        RequirementItem.runtest(item)
    return str(info.value)


def test_escape_sequences_of_the_project_and_a_peer_do_not_reach_the_terminal():
    """Attack (a, f): a project whose exception message holds terminal escape sequences
    (clear the screen, write the clipboard with OSC 52, a hyperlink, a carriage return over
    the line, a right-to-left override), the same in a peer task's requirement title, in an
    agent's test id and in a note naming one of its files. pytest printed the failing
    requirement's text as it was: every sequence reached the user's terminal. Now each
    control character is printed as a visible escape."""
    text = _explained(
        f"AssertionError: {ESCAPES}\nsecond line{ESCAPES}",
        f"Parse {ESCAPES} versions",
        f"tests/test_x.py::test_{ESCAPES}",
        f"dropped pkg/{ESCAPES}.py",
    )
    assert not any(c in text for c in "\x1b\x07\r\u202e"), repr(text)
    assert "\\x1b[2J" in text and "\\u202e" in text and "second line\\x1b" in text
    assert text.count("\n") == 5  # six lines: the message's own newline kept, none added


@pytest.mark.parametrize(
    ("text", "lines", "shown"),
    [
        ("a\tb\nc", True, "a\tb\nc"),
        ("a\nb", False, "a\\x0ab"),
        ("\x00\x7f\x85\u2028\u2066", True, "\\x00\\x7f\\x85\\u2028\\u2066"),
        ("ünïcode, 数字, emoji 😀", True, "ünïcode, 数字, emoji 😀"),
    ],
)
def test_printable_escapes_controls_only(text, lines, shown):
    assert printable(text, lines=lines) == shown


def test_a_file_name_with_a_control_character_is_not_taken_in(tmp_path):
    """Attack (f): a project file named with an escape sequence or a newline reached every
    report and log naming the project's files (coverage's terminal table, notes). Intake now
    drops such names, and names the drop escaped."""
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "ok.py").write_text("x = 1\n")
    (src / "pkg" / "\x1b[2Jevil.py").write_text("x = 2\n")
    (src / "pkg" / "new\nline.py").write_text("x = 3\n")
    report = copy_tree(src, tmp_path / "dest")
    assert sorted(p.name for p in (tmp_path / "dest" / "pkg").iterdir()) == ["ok.py"]
    assert sorted(report.dropped) == [
        ("pkg/\\x1b[2Jevil.py", "name holds a control character"),
        ("pkg/new\\x0aline.py", "name holds a control character"),
    ]


# --- coverage data the project wrote ------------------------------------------------------


def _coverage_data(tmp_path: Path) -> tuple[Path, Path]:
    """A project and one real coverage data file of a run that imported it."""
    repo, data = tmp_path / "repo", tmp_path / "suite-coverage"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text(
        "def f(x):\n    if x:\n        return 1\n    return 2\n"
    )
    data.mkdir()
    script = tmp_path / "suite.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(repo)!r})\nimport pkg\npkg.f(1)\n")
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", "--branch", f"--source={repo}"]
        + [f"--data-file={data / 'data.good'}", str(script)],
        cwd=repo,
        check=True,
    )
    return repo, data


SLOW_VIEW = (
    "create view file as with recursive c(x) as (select 1 union all select x + 1 from c "
    "where x < 3000000000) select 1 as id, 'pkg/__init__.py' as path from (select max(x) from c)"
)
GENERATED = (
    "create table file (id integer primary key, "
    "path text generated always as (hex(zeroblob(100000000))) virtual)"
)


def test_coverage_data_that_is_not_plain_coverage_data_is_refused_unqueried(tmp_path, monkeypatch):
    """Attack (d, f): the project writes, beside its run's real coverage data, a 53 KB data
    file whose ``file`` table is a view counting to three billion (and one whose paths are a
    generated column of 200 MB each). coverage.py's steps in the harness query ``file``:
    each ran to its timeout, 300 s to list the measured files and 900 s for the reports of
    the extended suite, per suite and run, and the run's coverage was lost. Now a data file
    is read only when its schema is coverage.py's own tables, plain; the rest is counted."""
    import shutil
    import sqlite3

    from pytest_e2ebench.evaluation import runner as suite_runner

    repo, data = _coverage_data(tmp_path)
    for name, create in (("data.view", SLOW_VIEW), ("data.generated", GENERATED)):
        shutil.copy(data / "data.good", data / name)
        db = sqlite3.connect(data / name)
        db.execute("drop table file")
        db.execute(create)
        db.commit()
        db.close()
    # the old code's steps ran to their timeout: 30 s here keeps its failure short
    monkeypatch.setattr(suite_runner, "COVERAGE_TIMEOUT", 30.0)
    found = suite_runner.coverage_totals(tmp_path / "where", repo, [data], reports=True)
    assert "error" not in found, found
    assert found["refused_data_files"] == 2
    assert (found["statements"], found["covered_lines"]) == (4, 3)


# --- a peer's archive: names that drive a terminal -------------------------------------------


def test_a_peer_archive_member_named_with_an_escape_sequence_is_refused(tmp_path):
    """Attack (a): ``e2ebench fetch`` of a swapped archive whose member is named
    ``data/\\x1b]0;…\\x07\\x1b[2J….json``. It was unpacked as named, and every importer's report
    and error naming it carried the sequence to the terminal. Now the member is refused, and
    the error shows the name escaped (every AgentFileError does)."""
    import tarfile

    from pytest_e2ebench.untrusted.archive import unpack

    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("top/data/ok.json", f"top/data/{ESCAPES[:12]}x.json"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(AgentFileError) as info:
        unpack(archive, tmp_path / "out", ("data",))
    assert "has a control character in its name" in str(info.value)
    assert "\x1b" not in str(info.value) and "\\x1b[2J" in str(info.value)
    assert not (tmp_path / "out").exists()


# --- a results file from elsewhere ------------------------------------------------------------


def test_a_foreign_results_file_does_not_put_local_files_into_the_report(tmp_path):
    """Attack (a, f): ``e2ebench report peer/results.json --html report.html`` of a results
    file someone published, whose record says ``"dir": "/"`` and names a file of this machine
    as its trajectory (``/etc/shadow``, a key; here a secret beside the file). The report read
    the run's files wherever ``dir`` said: the secret's first lines were in the HTML. Now a
    results file's runs are read only inside the out folder it lies in."""
    import argparse
    import copy

    from pytest_e2ebench.report.commands import report

    secret = tmp_path / "home" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("SECRET-KEY-LINE\n")
    document = json.loads((DATA / "results" / "tipcalc-reference-nop-dir.json").read_text())
    peer, own = copy.deepcopy(document["tasks"][0]), copy.deepcopy(document["tasks"][0])
    peer.update(dir="/", agent="peer", agent_run={"details": {"trajectory": str(secret)}})
    run = tmp_path / "out" / "own" / "run-1"
    (run / "agent").mkdir(parents=True)
    (run / "agent" / "proxy.jsonl").write_text("OWN-TRAJECTORY-LINE\n")
    own.update(dir=str(run), agent_run={"details": {"trajectory": str(run / "agent/proxy.jsonl")}})
    document["tasks"] = [peer, own]
    results = tmp_path / "out" / "results.json"
    results.write_text(json.dumps(document))
    args = argparse.Namespace(results=[results], html=tmp_path / "r.html", json=None)
    assert report(args, out=io.StringIO()) == 0
    html = (tmp_path / "r.html").read_text()
    assert "SECRET-KEY-LINE" not in html
    assert "OWN-TRAJECTORY-LINE" in html  # a run of the file's own out folder still shows


# --- a tree deeper than Python's recursion ---------------------------------------------------


def _deep(root: Path, levels: int) -> Path:
    """``root`` holding ``levels`` nested folders (each with a file), made relative to open
    descriptors as an agent would (a path that deep is longer than PATH_MAX)."""
    root.mkdir(parents=True)
    fd = os.open(root, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        os.close(os.open("f.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.symlink("/etc", "etc", dir_fd=fd)
    os.close(fd)
    return root


def test_a_workspace_deeper_than_pythons_recursion_is_the_agents_failure(tmp_path):
    """Attack (f): an agent leaves a workspace 1,200 folders deep (where its writes are not
    applied through an overlay: an unprivileged harness). Intake stops at 64 levels, then the
    harness removed the agent's copy with ``shutil.rmtree``, which recurses once per level:
    ``RecursionError``, and the run became a harness error, out of the mean. The same for
    every removal of an agent's folder (``run.cache.remove``: a rerun's artifacts, a stage's
    output). Now removal walks with a bounded stack: the run is graded as an empty
    repository, the limit named, and the link at the bottom is removed, not followed."""
    from pytest_e2ebench.environment.workspace import take_in
    from pytest_e2ebench.isolation.intake import IntakeLimits

    workspace = _deep(tmp_path / "run" / "repo", 1200)
    try:
        report = take_in(workspace, IntakeLimits())
    finally:  # a tree left that deep breaks pytest's own removal of old temporary folders
        subprocess.run(["rm", "-rf", str(tmp_path / "run" / "repo.raw")], check=True)
    assert report.exceeded == "max_depth" and sorted(os.listdir(tmp_path / "run")) == ["repo"]
    assert list(workspace.iterdir()) == [] and Path("/etc/passwd").exists()


def test_data_nested_past_path_max_counts_against_the_quota(tmp_path):
    """Attack (f): where writes are measured by the watchdog (no overlay), the project puts its
    data under folders nested past PATH_MAX (21 names of 200 characters). The watchdog walks
    by path: ``scandir`` failed with ENAMETOOLONG there and it went on, so everything below
    was uncounted, and the disk filled past the 2 GiB quota. Now such a folder is over it."""
    from pytest_e2ebench.isolation.limits import Limits, Quota

    root = tmp_path / "work"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(21):
        os.mkdir("n" * 200, dir_fd=fd)
        inner = os.open("n" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with os.fdopen(os.open("fill", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as out:
        out.write(b"x" * (2 << 20))
    os.close(fd)
    quota = Quota([root], Limits(quota_bytes=1 << 20))
    assert quota.check() == "disk_quota"
    assert Quota([tmp_path / "work" / ("n" * 200)], Limits()).check() == "disk_quota"


def test_a_foreign_results_file_nested_too_deep_is_named_not_a_crash(tmp_path):
    """The same command on a results file of 100,000 ``[``: ``json.loads`` raised
    ``RecursionError`` out of ``e2ebench report`` (a traceback, no file named). Now it is
    read by the bounded parser: a ResultsError naming the file."""
    from pytest_e2ebench.report.results import ResultsError, load

    (tmp_path / "results.json").write_text("[" * 100_000)
    with pytest.raises(ResultsError, match="nested deeper than 64 levels"):
        load(tmp_path / "results.json")
