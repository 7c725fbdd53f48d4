"""Shared by the tests (moved from test_attacks.py)."""

from __future__ import annotations

PATCH_PYTEST = (
    "import _pytest.reports\n"
    "_orig = _pytest.reports.TestReport.from_item_and_call\n"
    "def _forged(item, call):\n"
    "    report = _orig(item, call)\n"
    "    report.outcome = 'passed'\n"
    "    return report\n"
    "_pytest.reports.TestReport.from_item_and_call = staticmethod(_forged)\n"
)
