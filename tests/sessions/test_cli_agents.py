"""The built-in CLI agents (issue 29), each driven through its own tools by the scripted
server, in its own API, through the run's metering proxy: no mock of the agents.

One recorded session (``-n 2``) runs every working agent on ``calc`` (the script writes the
reference: 1.0) and claude-code also on ``calcnil`` (the script writes nothing: 0) and
``calcnet`` (its Bash tool tries the host's loopback and the internet: both refused, the proxy
reached). A second session replays claude-code's runs with the scripted server stopped
(identical metrics; the tape is the proxy's, the same for every agent); a third gives
claude-code a token budget below what its script needs (the agent's failure, with the note);
a fourth runs claude-code and codex on the bundled gradebook against ``e2ebench demo-model``
(the real command, as a newcomer starts it), which writes the reference through their tools;
the last two replay claude-code's calc run after its requirements changed (the agent reads
them first): by content, an error naming the request that missed; by position, as recorded.
The agents' installs are the user's tool cache (``$E2EBENCH_CACHE``), made once per version.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.batch import Batch, batch_folder

from pytest_e2ebench.environment.source import cache_root
from pytest_e2ebench.tools.testing.cli_scripts import Dispatcher, Driver, reference_files
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM

# three sessions, eleven agent runs (six agents): 6 min at a load of about 10 on 2 cores,
# with the agents already in the tool cache (a fresh cache adds their installs: docs/agents.md)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

AGENTS = ("aider", "claude-code", "codex", "gemini-cli", "mini-swe-agent", "opencode", "qwen-code")
# the default run's agents: the two quickest installs (npm, about a minute each from a cold
# cache); the PyPI ones take 7-10 minutes to install cold, so all seven run with --cli-agents
# (tox -e agents). claude-code carries the nothing, network, replay and budget checks.
DEFAULT_AGENTS = ("claude-code", "codex")
BUNDLED = Path(__file__).resolve().parents[2] / "benchmark_tasks"
METRICS = ("impl_rate", "tokens_sent", "tokens_generated", "cost_usd", "steps")
# the step's own view of the network, written by its Bash tool into the workspace
NET_PROBE = (
    "python3 - > net.txt <<'E2EBENCH_EOF'\n"
    "import os, socket, urllib.parse\n"
    "def reach(host, port):\n"
    "    try:\n"
    "        socket.create_connection((host, port), timeout=3).close()\n"
    "        return 'open'\n"
    "    except OSError as exc:\n"
    "        return type(exc).__name__\n"
    "proxy = urllib.parse.urlsplit(os.environ['ANTHROPIC_BASE_URL'])\n"
    "print('loopback', reach('127.0.0.1', {port}))\n"
    "print('internet', reach('pypi.org', 443))\n"
    "print('proxy', reach(proxy.hostname, proxy.port))\n"
    "E2EBENCH_EOF"
)


# claude-code's first action on calc: read the requirements (beside its workspace), so that
# changed requirements change its next request (the replay by content notices)
READ_REQUIREMENTS = "cat ../agent/requirements.md"


def drivers(batch: Batch, port: int) -> dict:
    """Each (agent, task)'s script: write the reference, write nothing, probe the network."""
    files = reference_files(batch.tasks.tasks / "calc")
    found = {(agent, "calc"): Driver.writing(agent, files) for agent in AGENTS}
    writes = [("write", path, text) for path, text in files]
    found[("claude-code", "calc")] = Driver("claude-code", [("run", READ_REQUIREMENTS), *writes])
    found[("claude-code", "calcnil")] = Driver("claude-code", [])
    found[("claude-code", "calcnet")] = Driver(
        "claude-code", [("run", NET_PROBE.format(port=port))]
    )
    return found


def session(batch: Batch, llm: ScriptedLLM | None, agents, *extra: str):
    """One benchmark session of ``agents`` against ``llm`` (None: an address nobody serves)."""
    url = llm.base_url if llm else "http://127.0.0.1:9/v1"
    return batch.run(
        f"--e2e-agent={','.join(agents)}",
        "--e2e-model=scripted-model",
        f"--e2e-llm-base-url={url}",
        "-o",
        "e2ebench_prices=scripted-model 2.0 8.0",
        "-p",
        "no:randomly",
        "--e2e-tasks=tasks",
        *extra,
        env={"E2EBENCH_CACHE": str(cache_root())},  # the user's tool cache, not the batch's
        timeout=1500,
    )


@contextlib.contextmanager
def demo_model(root: Path, tasks: str):
    """``e2ebench demo-model --tasks TASKS`` as a user starts it (a subprocess of the real
    command, on the free loopback port it picks): (its base URL, the lines it printed)."""
    command = [sys.executable, "-m", "pytest_e2ebench.cli", "demo-model", "--tasks", tasks]
    server = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        printed = [server.stdout.readline()]
        while printed[-1] and "Ctrl-C" not in printed[-1]:  # its last line says how to stop it
            printed.append(server.stdout.readline())
        url = re.search(r"http://127\.0\.0\.1:\d+/v1", printed[0])
        assert url, printed
        yield url.group(0), printed
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()


def demo_session(batch: Batch, agents) -> None:
    """``agents`` on the bundled gradebook against ``e2ebench demo-model``, with the
    command it prints for a CLI agent (issue 42, item 3)."""
    shutil.copytree(BUNDLED / "gradebook", batch.root / "demo-tasks" / "gradebook")
    with demo_model(batch.root, "demo-tasks") as (url, printed):
        batch.demo_printed = printed
        batch.run(
            f"--e2e-agent={','.join(agents)}",
            "--e2e-model=demo-model",
            f"--e2e-llm-base-url={url}",
            "--e2e-tasks=demo-tasks",
            "-o",
            "e2ebench_prices=demo-model 3 15",
            "--e2e-out=demo",
            "-p",
            "no:randomly",
            "-n",
            "2",
            env={"E2EBENCH_CACHE": str(cache_root())},
            timeout=900,
        )
    batch.demo = results(batch, "demo")


def changed_replays(batch: Batch) -> None:
    """calc's requirements changed since claude-code's run was recorded: replayed by content
    (the default) and by position (issue 42, item 6), with the upstream stopped."""
    requirements = batch.tasks.tasks / "calc" / "requirements.md"
    requirements.write_text(requirements.read_text() + "\nThe functions take integers.\n")
    for match in ("content", "position"):
        session(
            batch,
            None,
            ["claude-code"],
            "--e2e-llm-cache=replay",
            f"--e2e-replay-match={match}",
            "--e2e-rerun",
            "--e2e-out=recorded",
            "-k",
            "calc and not calcn",
        )
        batch.changed[match] = results(batch, "recorded")


def chosen_agents(config) -> tuple[str, ...]:
    """The agents this session runs: all seven with ``--cli-agents``, else the default two."""
    return AGENTS if config.getoption("--cli-agents") else DEFAULT_AGENTS


@pytest.fixture(scope="module")
def batch(request, tmp_path_factory):
    """The recorded session (every agent on calc; claude-code also on calcnil and calcnet),
    the runs replayed without upstream, and claude-code under a token budget."""
    with batch_folder(request, tmp_path_factory, "cli-agents") as root:
        batch = Batch(root)
        batch.changed = {}
        for task in ("calc", "calcnil", "calcnet"):
            batch.tasks.make(task)
        with ScriptedLLM(model="scripted-model") as llm:
            llm.push(*[Dispatcher(drivers(batch, llm.port))] * 200)
            session(
                batch,
                llm,
                chosen_agents(request.config),
                "--e2e-llm-cache=record",
                "--e2e-out=recorded",
                "-k",
                "calc and not calcn or claude-code",
                "-n",
                "2",
            )
            batch.recorded = results(batch, "recorded")
        # upstream stopped: an address nobody serves; answers only from the tape (every
        # agent's calc run, claude-code's calcnil too)
        session(
            batch,
            None,
            chosen_agents(request.config),
            "--e2e-llm-cache=replay",
            "--e2e-rerun",
            "--e2e-out=recorded",
            "-k",
            "calc and not calcn or claude-code and not calcnet",
        )
        batch.replayed = results(batch, "recorded")
        with ScriptedLLM(model="scripted-model") as llm:
            llm.push(*[Dispatcher(drivers(batch, llm.port))] * 50)
            session(
                batch,
                llm,
                ["claude-code"],
                "--e2e-max-tokens=20000",
                "--e2e-out=budget",
                "-k",
                "calc and not calcn",
            )
        batch.budget = results(batch, "budget")
        demo_session(batch, chosen_agents(request.config))
        changed_replays(batch)
        yield batch


def results(batch: Batch, out: str) -> dict:
    """The session's results.json, or its output when it wrote none."""
    if not (batch.root / out / "results.json").is_file():
        raise AssertionError(f"the session wrote no results:\n{batch.output()[-5000:]}")
    return batch.results(out)


def record(results: dict, agent: str, task: str) -> dict:
    for entry in results["tasks"]:
        if (entry["agent"], entry["task"]) == (agent, task):
            return entry
    raise AssertionError(f"no record of {agent} on {task}: {json.dumps(results)[:2000]}")


@pytest.mark.shares_session
class TestBatchCLIAgents:
    """The readers of the one batch (one xdist worker builds it: the root conftest)."""

    @pytest.mark.parametrize("agent", AGENTS)
    def test_writes_the_reference_through_its_tools(self, batch, agent, request):
        if agent not in chosen_agents(request.config):
            pytest.skip(f"{agent}: its install takes minutes; run with --cli-agents")
        run = record(batch.recorded, agent, "calc")
        metrics = run["metrics"]
        assert metrics["impl_rate"] == 1.0, run["agent_run"]
        # a file per call and a last answer; aider writes every file in its one answer
        assert metrics["steps"] >= (1 if agent == "aider" else 3)
        assert metrics["tokens_sent"] > 0 and metrics["tokens_generated"] > 0
        rate = (metrics["tokens_sent"] * 2 + metrics["tokens_generated"] * 8) / 1e6
        assert metrics["cost_usd"] == pytest.approx(rate, rel=1e-3)
        details = run["agent_run"]["details"]
        assert details["agent_spec"]["name"] == agent and details["agent_spec"]["lock"] == "pinned"
        assert details["proxy"]["steps"] == metrics["steps"]
        assert Path(details["trajectory"]).is_file()
        # the run as an ATIF v1.8 trajectory (issue 42): the agent's tool calls, paired with
        # what it sent back to the model, and every step's tokens
        atif = pytest.importorskip("atif")
        trajectory = atif.Trajectory.model_validate_json(Path(details["atif"]).read_text())
        agent_steps = [s for s in trajectory.steps if s.source == "agent"]
        assert len(agent_steps) == metrics["steps"]
        assert sum(s.metrics.prompt_tokens for s in agent_steps) == metrics["tokens_sent"]
        if agent != "aider":  # aider writes its files in its answer's text, with no tool call
            assert any(s.tool_calls and s.observation for s in agent_steps), trajectory.steps

    @pytest.mark.parametrize("agent", AGENTS)
    def test_the_demo_model_drives_the_agent_to_the_reference(self, batch, agent, request):
        """Issue 42, item 3: the agent is told only the requirements' path; the demo model
        reads it, knows the task and writes its reference through the agent's own tools
        (every built-in CLI agent with --cli-agents)."""
        if agent not in chosen_agents(request.config):
            pytest.skip(f"{agent}: its install takes minutes; run with --cli-agents")
        run = record(batch.demo, agent, "gradebook")
        metrics = run["metrics"]
        assert metrics["impl_rate"] == 1.0, run["agent_run"]  # 0.0 before, in one step
        command = [line for line in batch.demo_printed if "--e2e-agent=claude-code" in line]
        assert "--e2e-model=demo-model --e2e-llm-base-url=http://127.0.0.1:" in command[0]
        files = len(reference_files(BUNDLED / "gradebook"))
        # a file per call, then the last message; aider writes every file in its one answer
        assert metrics["steps"] >= (1 if agent == "aider" else files + 1)
        assert metrics["tokens_sent"] > 0 and metrics["tokens_generated"] > 0
        assert metrics["cost_usd"] > 0
        atif = pytest.importorskip("atif")
        where = Path(run["agent_run"]["details"]["atif"])
        trajectory = atif.Trajectory.model_validate_json(where.read_text())
        calls = [s for s in trajectory.steps if s.source == "agent" and s.tool_calls]
        assert len(calls) >= (0 if agent == "aider" else files), trajectory.steps

    def test_writing_nothing_scores_zero(self, batch):
        assert record(batch.recorded, "claude-code", "calcnil")["metrics"]["impl_rate"] == 0.0

    @pytest.mark.parametrize("task", ["calc", "calcnil"])
    def test_replay_without_upstream_gives_the_same_metrics(self, batch, task):
        before = record(batch.recorded, "claude-code", task)["metrics"]
        after = record(batch.replayed, "claude-code", task)["metrics"]
        assert {k: after[k] for k in METRICS} == {k: before[k] for k in METRICS}

    @pytest.mark.parametrize("task", ["calc", "calcnil"])
    def test_replay_matches_every_request_by_its_content(self, batch, task):
        """Issue 42, item 6: no request's answer is given by position (before, none of
        claude-code's requests matched its recording, and all were answered by position)."""
        proxy = record(batch.replayed, "claude-code", task)["agent_run"]["details"]["proxy"]
        assert proxy["replay_misses"] == [] and proxy["replay_drift"] == 0
        assert proxy["replay_matched"] == proxy["steps"] > 0

    @pytest.mark.parametrize("agent", AGENTS)
    def test_every_agent_replays_its_run_by_content_with_the_same_metrics(
        self, batch, agent, request
    ):
        """Each built-in CLI agent's recorded run, replayed with no upstream (issue 40's and
        42's check: the same metrics, every request matched by its content)."""
        if agent not in chosen_agents(request.config):
            pytest.skip(f"{agent}: its install takes minutes; run with --cli-agents")
        before = record(batch.recorded, agent, "calc")["metrics"]
        replayed = record(batch.replayed, agent, "calc")
        assert {k: replayed["metrics"][k] for k in METRICS} == {k: before[k] for k in METRICS}
        proxy = replayed["agent_run"]["details"]["proxy"]
        assert proxy["replay_misses"] == [] and proxy["replay_matched"] == proxy["steps"] > 0

    def test_a_replay_whose_requests_changed_is_an_error_naming_the_miss(self, batch):
        """The recorded run can no longer be replayed: no model answers, so there is no score
        of the agent's (an error, as an LLM agent's replay miss), and the note says which
        request missed and how to replay anyway."""
        run = record(batch.changed["content"], "claude-code", "calc")
        assert run["status"] == "error", run
        message = run["error"]["message"]
        assert re.search(r"request \d+ to /v1/messages matches no recorded request", message)
        assert "tool_result" in message  # its newest input: what the changed file's read gave
        assert "--e2e-replay-match=position" in message

    def test_the_lenient_replay_answers_a_changed_run_by_position(self, batch):
        before = record(batch.recorded, "claude-code", "calc")["metrics"]
        run = record(batch.changed["position"], "claude-code", "calc")
        assert {k: run["metrics"][k] for k in METRICS} == {k: before[k] for k in METRICS}
        assert run["agent_run"]["details"]["proxy"]["replay_drift"] > 0

    def test_the_agent_reaches_only_its_proxy(self, batch):
        repo = batch.root / "recorded" / "claude-code" / "calcnet" / "run-1" / "repo"
        seen = dict(line.split() for line in (repo / "net.txt").read_text().splitlines())
        assert seen["proxy"] == "open"
        assert seen["loopback"] != "open" and seen["internet"] != "open", seen

    def test_a_token_budget_ends_the_run_as_the_agents_failure(self, batch):
        run = record(batch.budget, "claude-code", "calc")
        assert run["metrics"]["impl_rate"] < 1.0
        assert run["status"] != "error"
        assert "--e2e-max-tokens=20000" in run["agent_run"]["note"]
