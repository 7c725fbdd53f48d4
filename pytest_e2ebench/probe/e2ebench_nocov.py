"""pytest-cov's command-line options, accepted and ignored, for a project's own test suite.

Very many projects put ``--cov=pkg --cov-report=term-missing --no-cov-on-fail`` in their
ini's ``addopts``. The harness measures coverage itself (``coverage run`` around pytest), so
a project's own suite runs without pytest-cov (``-p no:pytest_cov``: a second tracer in the
same process would change the figures), and these options would stop pytest at once with a
usage error (exit 4): every own test would be lost to a line of configuration (issue 48).
Here they parse as pytest-cov parses them and do nothing.

Standard library and pytest only, like the probe.
"""

from __future__ import annotations

# (option, takes a value, may be given alone as a flag with an optional value)
_OPTIONS = (
    ("--cov", "append", True),
    ("--cov-reset", "store_true", False),
    ("--cov-report", "append", True),
    ("--cov-config", "store", False),
    ("--no-cov-on-fail", "store_true", False),
    ("--no-cov", "store_true", False),
    ("--cov-fail-under", "store", False),
    ("--cov-append", "store_true", False),
    ("--cov-branch", "store_true", False),
    ("--cov-precision", "store", False),
    ("--cov-context", "store", False),
)


def pytest_addoption(parser) -> None:
    group = parser.getgroup("e2ebench-nocov", "pytest-cov's options, ignored")
    for name, action, optional in _OPTIONS:
        dest = "e2ebench_nocov_" + name.lstrip("-").replace("-", "_")
        extra = {"nargs": "?", "const": True} if optional else {}
        group.addoption(name, action=action, dest=dest, default=None, help="ignored", **extra)
