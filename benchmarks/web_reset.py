"""Isolation and cost of the browser reset between web scenarios.

    python benchmarks/web_reset.py [--cycles 600] [--load 0]

Starts the web plugin's own server and browser on a tiny app that shows, on load, what it
finds in localStorage, sessionStorage and cookies, and writes all three (plus 20 kB of
localStorage) before the next reset. Each cycle is what happens between two scenarios: reset,
load the app, read what it saw, write. A cycle whose page saw anything is a leak: a scenario
that would start with the previous scenario's state.

``--load N`` runs N busy-looping processes during the measurement (the project's CI runs
browsers next to other work); they are ended by their ids. Prints the leaks and the time per
reset; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_e2ebench.probe import e2ebench_web as web  # noqa: E402

PAGE = """<!doctype html><html><body><script>
const seen = [localStorage.length, sessionStorage.length, document.cookie];
document.body.dataset.seen = seen.join("|");
</script></body></html>
"""
WRITE = """
for (let j = 0; j < 20; j++) localStorage.setItem('k' + j, 'x'.repeat(1000));
localStorage.setItem('cycle', arguments[0]);
sessionStorage.setItem('cycle', arguments[0]);
document.cookie = 'cycle=' + arguments[0];
"""
CLEAN = "0|0|"


def measure(cycles: int) -> dict:
    app = Path(tempfile.mkdtemp(prefix="e2ebench-reset-app-"))
    (app / "index.html").write_text(PAGE)
    server = web.AppServer(app)
    browser = web.Browser(Path(tempfile.mkdtemp(prefix="e2ebench-reset-art-")), offline=True)
    browser.start()
    leaks, resets, cycles_s = [], [], []
    try:
        for cycle in range(cycles):
            began = time.perf_counter()
            driver = browser.reset(server.url)
            resets.append(time.perf_counter() - began)
            driver.get(server.url)
            seen = driver.execute_script("return document.body.dataset.seen;")
            if seen != CLEAN:
                leaks.append((cycle, seen))
            driver.execute_script(WRITE, str(cycle))
            cycles_s.append(time.perf_counter() - began)
    finally:
        browser.quit()
        server.close()
    return {"leaks": leaks, "resets": resets, "cycles": cycles_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--cycles", type=int, default=600)
    parser.add_argument("--load", type=int, default=0, help="busy-looping processes alongside")
    opts = parser.parse_args(argv)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(opts.load)]
    try:
        found = measure(opts.cycles)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    resets = found["resets"]
    print(f"cycles: {opts.cycles}, load: {opts.load} busy process(es)")
    print(f"leaks:  {len(found['leaks'])} (page saw localStorage|sessionStorage|cookie)")
    for cycle, seen in found["leaks"][:10]:
        print(f"        cycle {cycle}: {seen}")
    print(
        f"reset:  mean {statistics.mean(resets) * 1000:.0f} ms, "
        f"median {statistics.median(resets) * 1000:.0f} ms, max {max(resets) * 1000:.0f} ms"
    )
    whole = found["cycles"]
    print(f"cycle:  mean {statistics.mean(whole) * 1000:.0f} ms (reset, load the app, read, write)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
