"""The GUI judge validated on the six bundled web tasks, with the scripted endpoint.

``python tests/helpers/validate_web_apps.py OUT [-k TASK ...] [-- PYTEST_ARGS]`` starts a scripted
model that writes the cases of :mod:`helpers.web_app_plans` and carries them out through the
accessibility tree, then runs ``python -m pytest_e2ebench.methods.app.validate`` on the web tasks
(reference, empty project, every mutant) and prints its numbers. See docs/apps.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for where in (ROOT, ROOT / "tests"):  # run as a script from anywhere
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from helpers.web_app_plans import WEB_APPS  # noqa: E402
from pytest_e2ebench.methods.app.validate import main as validate  # noqa: E402
from pytest_e2ebench.tools.testing.scripted_app import app_judge_script  # noqa: E402
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM  # noqa: E402

# Judge settings of the validation: one to three cases per feature (--e2e-app-cases spans
# the six apps' case lists) and room for the longest plan (the full palette: 28 actions).
JUDGE_ARGS = ["--e2e-app-cases=8-25", "--e2e-app-steps=40"]


def run(argv: list[str]) -> int:
    """Validate with a scripted model answering every call; returns validate's exit status."""
    cut = argv.index("--") if "--" in argv else len(argv)
    ours, extra = argv[:cut], argv[cut + 1 :]
    script = app_judge_script(WEB_APPS)
    with ScriptedLLM() as llm:

        def step(body: dict):
            del llm.requests[:]  # the bodies hold screenshots: keep memory flat
            llm.push(step)
            return script(body)

        llm.push(step)
        model = [f"--e2e-llm-base-url={llm.base_url}", "--e2e-model=scripted-model"]
        started = time.monotonic()
        status = validate(
            [*ours, "--tasks", str(ROOT / "benchmark_tasks"), "--", *model, *JUDGE_ARGS, *extra]
        )
        print(f"wall time: {time.monotonic() - started:.0f} s")
        return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
