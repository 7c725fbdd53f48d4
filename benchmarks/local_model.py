"""Figures of the harness against the local model (issue 19): server speed, seconds per agent
step, and the agents' scores on the smallest bundled tasks.

    python benchmarks/local_model.py [--tasks gradebook,tipcalc] [--max-steps 6]
                                     [--agents vanilla,sdagent-single]
                                     [--base-url URL --model NAME] [--json out.json]

Without ``--base-url`` it starts llama-server with the default model of ``e2ebench model fetch``
(fetched on first use) and stops it at the end. It measures:

* the server's prompt and generation speed (tokens/s, from llama.cpp's ``timings`` in three
  answers to the same short request, the first one with a cold prompt cache);
* each agent on each task, through the real pytest session (``--e2e-agent=NAME``): the
  benchmark's own results.json (impl rate, tokens, steps) and seconds per step (the agent's
  wall time / its steps). ``--agents`` takes the LLM agents (``vanilla``, ``sdagent-single``)
  and the built-in CLI agents (``mini-swe-agent``, ``aider``, ``qwen-code``, ``claude-code``,
  ``codex``: the upstream must speak the agent's API, docs/agents.md), which run behind the
  run's metering proxy: their tokens and steps are the proxy's, and the proxy's log adds each
  call's latency (the first call's separately: a CLI agent's system prompt is long).

What the model scores measures the harness on this machine, not the model. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.agents.clitools.specs import SPECS as CLI_AGENTS  # noqa: E402
from pytest_e2ebench.tools import localmodel  # noqa: E402

AGENTS = ("vanilla", "sdagent-single")


def speed(base_url: str, model: str, rounds: int = 3) -> dict:
    """Prompt and generation tokens/s, as the server times them."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "Write a Python function that adds a and b."}],
        "max_tokens": 128,
        "temperature": 0,
    }
    prompt, generated = [], []
    for _ in range(rounds):
        request = urllib.request.Request(
            f"{base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=600) as page:
            timings = json.loads(page.read())["timings"]
        if timings.get("prompt_n"):
            prompt.append(timings["prompt_per_second"])
        generated.append(timings["predicted_per_second"])
    return {
        "prompt_tokens_per_s": round(statistics.median(prompt), 1) if prompt else None,
        "generated_tokens_per_s": round(statistics.median(generated), 1),
    }


def proxy_calls(run: dict) -> dict:
    """A CLI agent's calls as its metering proxy logged them: each call's latency (seconds,
    the model's answer as the agent waited for it) and prompt tokens; {} for other agents."""
    details = (run.get("agent_run") or {}).get("details") or {}
    log = Path(details.get("trajectory") or "")
    if not details.get("proxy") or not log.is_file():
        return {}
    calls = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    answered = [c for c in calls if "latency_s" in c and c.get("status", 200) < 300]
    return {
        "call_latency_s": [round(c["latency_s"], 1) for c in answered],
        "call_prompt_tokens": [c.get("prompt") for c in answered],
        "refused_calls": len(calls) - len(answered),
    }


def session_args(agent: str, tasks: list[str], base_url: str, model: str, limits) -> list[str]:
    """The pytest command of one agent's session: its step, time and token limits."""
    args = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--e2e-tasks={ROOT / 'benchmark_tasks'}", f"--e2e-agent={agent}",
        f"--e2e-model={model}", f"--e2e-llm-base-url={base_url}",
        f"--e2e-max-steps={limits.max_steps}", "-o", "e2ebench_context_tokens=8192",
        "-o", f"e2ebench_prices={model} 0 0", "-k", " or ".join(tasks),
        "-o", f"e2ebench_llm_timeout={limits.llm_timeout}",
    ]  # fmt: skip
    if limits.agent_timeout:
        args += ["-o", f"e2ebench_agent_timeout={limits.agent_timeout}"]
    if limits.token_budget and agent.partition("@")[0] in CLI_AGENTS:
        args.append(f"--e2e-max-tokens={limits.token_budget}")
    return args


def run_agent(agent: str, tasks: list[str], base_url: str, model: str, limits) -> list[dict]:
    """One session of ``agent`` on ``tasks``; its output kept under ``limits.out`` if given."""
    with tempfile.TemporaryDirectory(prefix="e2ebench-model-bench-") as tmp:
        out = (limits.out or Path(tmp)) / agent.replace(":", "-")
        args = session_args(agent, tasks, base_url, model, limits) + [f"--e2e-out={out}"]
        start = time.perf_counter()
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        path = out / "results.json"
        if not path.is_file():
            sys.exit(f"{agent}: no results.json (exit {done.returncode})\n{done.stdout[-3000:]}")
        return [run_row(agent, run, elapsed) for run in json.loads(path.read_text())["tasks"]]


def run_row(agent: str, run: dict, session_s: float) -> dict:
    """One run's figures from its results.json record."""
    m = run.get("metrics") or {}
    agent_run = run.get("agent_run") or {}
    agent_s = m.get("duration_s") or 0.0  # the agent's wall time
    return {
        "agent": agent,
        "task": run["task"],
        "impl_rate": m.get("impl_rate"),
        "pass_rate": m.get("pass_rate"),
        "steps": m.get("steps"),
        "tokens_sent": m.get("tokens_sent"),
        "tokens_generated": m.get("tokens_generated"),
        "cached_prompt_tokens": (agent_run.get("details") or {}).get("cached_prompt_tokens"),
        "agent_s": round(agent_s, 1),
        "s_per_step": round(agent_s / m["steps"], 1) if m.get("steps") else None,
        **proxy_calls(run),
        "note": agent_run.get("note"),
        "error": run.get("error"),
        "session_s": round(session_s, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="gradebook,tipcalc", help="bundled task ids (comma)")
    parser.add_argument(
        "--max-steps", type=int, default=6, help="--e2e-max-steps: model calls of one run"
    )
    parser.add_argument("--base-url", help="a running server (else llama-server is started)")
    parser.add_argument("--model", default=localmodel.DEFAULT_MODEL.alias)
    parser.add_argument("--agents", default=",".join(AGENTS), help="agents to run, in turn (comma)")
    parser.add_argument("--max-tokens", type=int, default=512, help="llama-server -n")
    parser.add_argument(
        "--llm-timeout",
        type=float,
        default=3600.0,
        help="seconds one answer may take (a whole project at ~1 token/s on a busy CPU)",
    )
    parser.add_argument(
        "--agent-timeout",
        type=float,
        help="seconds one agent run may take (e2ebench_agent_timeout)",
    )
    parser.add_argument(
        "--token-budget", type=int, help="--e2e-max-tokens of a CLI agent's run (prompt + answer)"
    )
    parser.add_argument(
        "--speed-rounds", type=int, default=3, help="answers timed for tokens/s (0: none)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--out", type=Path, help="keep each session's output (trajectories, proxy logs) here"
    )
    args = parser.parse_args()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    server = None
    if args.base_url:
        base_url, model = args.base_url.rstrip("/"), args.model
    else:
        server = localmodel.serve(max_tokens=args.max_tokens)  # the default (instruct) model
        base_url, model = server.base_url, server.model
    try:
        server_speed = speed(base_url, model, args.speed_rounds) if args.speed_rounds else {}
        figures = {"model": model, "server": server_speed, "runs": []}
        for agent in [a.strip() for a in args.agents.split(",") if a.strip()]:
            figures["runs"] += run_agent(agent, tasks, base_url, model, args)
    finally:
        if server is not None:
            server.stop()
    print(f"model {model}: {json.dumps(figures['server'])}")
    header = ("agent", "task", "impl_rate", "steps", "tokens_sent", "s_per_step", "agent_s")
    print("  ".join(f"{h:>14}" for h in header))
    for row in figures["runs"]:
        print("  ".join(f"{row[h]!s:>14}" for h in header))
        if row.get("call_latency_s"):
            print(
                f"{'':>16}calls (s): {row['call_latency_s']}; prompt tokens: "
                f"{row['call_prompt_tokens']}"
            )
        if row["note"] or row["error"]:
            print(f"{'':>16}note: {row['note']}; error: {row['error']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
