"""ProjectEval as a built-in plugin (docs/projecteval.md): its report section (Pass@K in
results.json, similarity and the cascade's steps in the terminal), through the hook an outside
plugin would implement.

Registered by :func:`pytest_e2ebench.plugin.pytest_configure` as ``e2ebench-projecteval``.
"""

from __future__ import annotations

import pytest

from . import report


@pytest.hookimpl(trylast=True)
def pytest_e2ebench_report_sections(config) -> list:
    """results.json's ``projecteval`` and the ``e2ebench projecteval`` section."""
    return [report.SECTION]
