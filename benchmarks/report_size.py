"""Size and open time of the HTML report on a large session (issue 42's trajectory viewer).

    python benchmarks/report_size.py [--runs 100] [--steps 300] [--out DIR] [--json out.json]

Builds a synthetic session with no model: ``--runs`` run records over 10 tasks and two agents,
each run with a trajectory of ``--steps`` steps (tool calls writing files, reading them and
running tests, with arguments and results of a few hundred to a few thousand characters) and
a project of 20 files. Everything is written by the harness's own writers: the step log in the
built-in agents' format through ``agents.trajectory.write_atif`` (ATIF v1.8), the project's
diff through ``environment.diff``, results.json through ``report.results``, and the page
through ``report.html.write_html``. Then measures the page's size, the time to render it, and
headless Chromium's time to load it (``driver.get`` returns after the load event; a fresh
``--user-data-dir``), to open one step of the last run and to follow the first side-by-side
row's link; saves a screenshot of the side-by-side section and of an opened step
(``OUT/side.png``, ``OUT/step.png``). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.agents.trajectory import write_atif  # noqa: E402
from pytest_e2ebench.environment import diff  # noqa: E402
from pytest_e2ebench.grading.metrics import METRIC_KEYS  # noqa: E402
from pytest_e2ebench.probe.e2ebench_web import CHROMIUM_FLAGS, OFFLINE_FLAG  # noqa: E402
from pytest_e2ebench.report import results  # noqa: E402
from pytest_e2ebench.report.html import write_html  # noqa: E402

WORDS = "the value of each item is checked against its total and the report says which".split()


def words(rng: random.Random, chars: int) -> str:
    """About ``chars`` characters of text in lines of code-like width."""
    out, size = [], 0
    while size < chars:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def step_log(path: Path, steps: int, seed: int, same_until: int) -> None:
    """A built-in agent's step log (``sdagent._State.log``'s lines) of ``steps`` steps; the
    first ``same_until`` are the same in every run of the task (seeded by the task alone)."""
    lines = []
    for n in range(1, steps + 1):
        rng = random.Random(seed * 1000 + n if n <= same_until else f"{seed}-{n}-{path}")
        tool = rng.choice(("write_file", "read_file", "run_tests", "list_files"))
        if tool == "write_file":
            args = {
                "path": f"pkg/mod{rng.randint(1, 20)}.py",
                "content": words(rng, rng.randint(200, 3000)),
            }
            output = "written"
        elif tool == "read_file":
            args = {"path": f"pkg/mod{rng.randint(1, 20)}.py"}
            output = words(rng, rng.randint(300, 4000))
        elif tool == "run_tests":
            args = {"command": "pytest -q tests"}
            output = words(rng, rng.randint(300, 6000)) + f"\n{rng.randint(1, 40)} passed in 0.4s"
        else:
            args = {"path": "."}
            output = "\n".join(f"pkg/mod{i}.py" for i in range(1, 21))
        completion = {
            "content": words(rng, rng.randint(0, 400)),
            "prompt_tokens": 2000 + 40 * n,
            "completion_tokens": rng.randint(20, 800),
            "cached_prompt_tokens": 1500,
            "cost_usd": 0.001,
        }
        observation = {"id": f"c{n}", "name": tool, "arguments": json.dumps(args), "output": output}
        lines.append({"step": n, "role": "developer", "time": 1.7e9 + n, "seconds": 1.5,
                      "completion": completion, "observations": [observation]})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def make_run(out: Path, agent: str, task: int, run: int, steps: int) -> dict:
    """One run's folder (trajectory, project, diff) and its record."""
    run_dir = out / agent / f"task{task:02d}" / f"run-{run}"
    (run_dir / "agent").mkdir(parents=True)
    step_log(run_dir / "agent" / "trajectory.jsonl", steps, task, 40 + 10 * run)
    atif = write_atif(run_dir / "agent" / "trajectory.jsonl", agent, "model")
    repo = run_dir / "repo"
    (repo / "pkg").mkdir(parents=True)
    rng = random.Random(f"{agent}-{task}-{run}")
    for i in range(1, 21):
        (repo / "pkg" / f"mod{i}.py").write_text(words(rng, 2500) + "\n")
    written = diff.write(run_dir, {}, repo)
    metrics = dict.fromkeys(METRIC_KEYS)
    metrics.update(impl_rate=rng.random(), steps=steps, tokens_sent=10**6, duration_s=600.0)
    return {
        "task": f"task{task:02d}",
        "agent": agent,
        "run": run,
        "status": "ok",
        "metrics": metrics,
        "requirements": [
            {
                "id": f"R{i}",
                "title": f"requirement {i}",
                "verdict": "implemented",
                "tests": 3,
                "passed": 3,
                "failing": [],
            }
            for i in range(1, 6)
        ],  # fmt: skip
        "notes": [],
        "dir": str(run_dir),
        "agent_run": {"note": None, "details": {"atif": str(atif), "diff": str(written)}},
    }


def chromium(page: Path, shots: Path) -> dict:
    """Headless Chromium's times on the page (the web tasks' switches, offline, fresh profile)."""
    from selenium import webdriver
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="report-profile-")
    for flag in (*CHROMIUM_FLAGS, OFFLINE_FLAG, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.add_argument("--window-size=1300,1000")
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(300)
    try:
        start = time.monotonic()
        driver.get(page.as_uri())
        load = time.monotonic() - start
        found = {"load_s": round(load, 2), "elements": driver.execute_script(
            "return document.getElementsByTagName('*').length")}  # fmt: skip
        side = driver.find_element(By.ID, "side-by-side")
        driver.execute_script("arguments[0].scrollIntoView()", side)
        driver.save_screenshot(str(shots / "side.png"))
        start = time.monotonic()
        driver.find_element(
            By.CSS_SELECTOR, "tr.diverged a"
        ).click()  # to the step, maybe on its run's page
        driver.execute_script("return document.body.offsetHeight")
        found["follow_link_s"] = round(time.monotonic() - start, 2)
        start = time.monotonic()
        step = driver.find_elements(By.CSS_SELECTOR, "details.step")[-1]
        driver.execute_script("arguments[0].open = true; arguments[0].scrollIntoView()", step)
        for fold in step.find_elements(By.CSS_SELECTOR, "details.fold")[:2]:
            driver.execute_script("arguments[0].open = true", fold)
        driver.execute_script("return document.body.offsetHeight")  # layout done
        found["open_step_s"] = round(time.monotonic() - start, 2)
        driver.save_screenshot(str(shots / "step.png"))
        return found
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None, help="keep the session here")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="report-size-"))
    if out.exists():
        shutil.rmtree(out)
    start = time.monotonic()
    records = []
    for n in range(args.runs):
        task, rest = n % 10, n // 10
        agent = ("agent-a", "agent-b")[rest % 2]
        records.append(make_run(out, agent, task, rest // 2 + 1, args.steps))
    document = results.build(records)
    results.write(out / "results.json", document)
    built = time.monotonic() - start
    start = time.monotonic()
    page = out / "report.html"
    write_html(page, document)
    found = {
        "runs": args.runs,
        "steps_per_run": args.steps,
        "session_build_s": round(built, 1),
        "render_s": round(time.monotonic() - start, 2),
        "page_bytes": page.stat().st_size,
        "run_pages": len(list((out / "report.runs").glob("*.html"))),
        "run_page_bytes_max": max(
            (p.stat().st_size for p in (out / "report.runs").glob("*.html")), default=0
        ),
        "atif_bytes_per_run": (
            out / "agent-a" / "task00" / "run-1" / "agent" / "trajectory.atif.json"
        )
        .stat()
        .st_size,
    }
    found.update(chromium(page, out))
    print(json.dumps(found, indent=1))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n")
    print(f"session and screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
