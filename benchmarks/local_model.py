"""Figures of the harness against the local model (issue 19): server speed, seconds per agent
step, and the agents' scores on the smallest bundled tasks.

    python benchmarks/local_model.py [--tasks gradebook,tipcalc] [--max-steps 6]
                                     [--agents vanilla,sdagent-single]
                                     [--base-url URL --model NAME] [--json out.json]

Without ``--base-url`` it starts llama-server with the default model of ``e2ebench model fetch``
(fetched on first use) and stops it at the end. It measures:

* the server's prompt and generation speed (tokens/s, from llama.cpp's ``timings`` in three
  answers to the same short request, the first one with a cold prompt cache);
* ``vanilla`` and ``sdagent-single`` on each task: the benchmark's own results.json (impl rate,
  tokens, steps) and seconds per step (the agent's wall time / its steps).

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


def run_agent(
    agent: str, tasks: list[str], base_url: str, model: str, steps: int, timeout: float
) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="e2ebench-model-bench-") as tmp:
        out = Path(tmp) / "out"
        args = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--e2e-tasks={ROOT / 'benchmark_tasks'}", f"--e2e-agent={agent}",
            f"--e2e-out={out}", f"--e2e-model={model}", f"--e2e-llm-base-url={base_url}",
            f"--e2e-max-steps={steps}", "-o", "e2ebench_context_tokens=8192",
            "-o", f"e2ebench_prices={model} 0 0", "-k", " or ".join(tasks),
            "-o", f"e2ebench_llm_timeout={timeout}",
        ]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        path = out / "results.json"
        if not path.is_file():
            sys.exit(f"{agent}: no results.json (exit {done.returncode})\n{done.stdout[-3000:]}")
        rows = []
        for run in json.loads(path.read_text())["tasks"]:
            m = run.get("metrics") or {}
            agent_run = run.get("agent_run") or {}
            agent_s = m.get("duration_s") or 0.0  # the agent's wall time
            rows.append(
                {
                    "agent": agent,
                    "task": run["task"],
                    "impl_rate": m.get("impl_rate"),
                    "pass_rate": m.get("pass_rate"),
                    "steps": m.get("steps"),
                    "tokens_sent": m.get("tokens_sent"),
                    "tokens_generated": m.get("tokens_generated"),
                    "cached_prompt_tokens": (agent_run.get("details") or {}).get(
                        "cached_prompt_tokens"
                    ),
                    "agent_s": round(agent_s, 1),
                    "s_per_step": round(agent_s / m["steps"], 1) if m.get("steps") else None,
                    "note": agent_run.get("note"),
                    "error": run.get("error"),
                    "session_s": round(elapsed, 1),
                }
            )
        return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="gradebook,tipcalc", help="bundled task ids (comma)")
    parser.add_argument("--max-steps", type=int, default=6, help="sdagent-single's step budget")
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
        "--speed-rounds", type=int, default=3, help="answers timed for tokens/s (0: none)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
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
            figures["runs"] += run_agent(
                agent, tasks, base_url, model, args.max_steps, args.llm_timeout
            )
    finally:
        if server is not None:
            server.stop()
    print(f"model {model}: {json.dumps(figures['server'])}")
    header = ("agent", "task", "impl_rate", "steps", "tokens_sent", "s_per_step", "agent_s")
    print("  ".join(f"{h:>14}" for h in header))
    for row in figures["runs"]:
        print("  ".join(f"{row[h]!s:>14}" for h in header))
        if row["note"] or row["error"]:
            print(f"{'':>16}note: {row['note']}; error: {row['error']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
