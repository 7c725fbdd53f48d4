"""The probe plugin loaded into test runs inside a task's virtual environment.

``e2ebench_probe.py`` must import nothing but pytest and the standard library: it runs in the
generated project's environment, where pytest-e2ebench itself is not installed.
"""

from pathlib import Path

PROBE_DIR = Path(__file__).parent
PROBE_PLUGIN = "e2ebench_probe"
PV_PLUGIN = "e2ebench_pv"  # the pv fixture of ProjectEval-style tasks (issue #17)
